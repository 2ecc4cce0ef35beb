"""Resource classes, one module per part of the spec; each serves both clients.

See :mod:`rdskit.resources._resource` for how a resource method is written.
"""
