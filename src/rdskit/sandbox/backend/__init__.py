"""The sandbox's backend: state, SQL and rules of each part, with no HTTP in sight.

Modules here import nothing from FastAPI or Starlette and nothing from the API layer
(``rdskit.sandbox.api``); the routes and the MCP server call them.
``tests/sandbox/test_sandbox_layers.py`` enforces it. See docs/sandbox-internals.md.
"""
