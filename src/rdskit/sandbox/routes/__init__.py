"""REST routes of the sandbox: one module per spec part, each exposing ``router``.

A module may also define ``SCHEMA`` (SQL DDL) that ``Store`` appends to the core schema.
"""
