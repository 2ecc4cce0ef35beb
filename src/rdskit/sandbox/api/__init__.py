"""REST routes of the sandbox: one module per spec part, each exposing ``router``.

The app includes them explicitly (:mod:`rdskit.sandbox.registry`); a part's tables are in
its backend module (:mod:`rdskit.sandbox.backend.tables` lists them).
"""
