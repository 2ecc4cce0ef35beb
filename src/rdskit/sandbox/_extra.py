"""Imported first by ``rdskit.sandbox``: the ``sandbox`` extra must be installed (FastAPI,
uvicorn, VADER; the ``/mcp/`` endpoint also needs the ``mcp`` extra); otherwise one error
says how to install it."""

from rdskit._extras import require

require(
    "sandbox", "the rdskit sandbox (rdskit sandbox, rdskit demo, Client.sandbox(), %%ask offline)"
)
