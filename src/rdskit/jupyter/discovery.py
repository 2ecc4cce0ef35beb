"""The kernel side of the Jupyter gateway, as the notebook layer uses it.

Finding the gateway and trading its secret for kernel-bound tokens is core client
behaviour (``rdskit.Client()`` in a kernel needs it before any notebook feature loads),
so it lives in :mod:`rdskit._gateway_auth`; this module re-exports it and adds
:func:`gateway_status` for ``%rds status``.

Example:
    >>> import rdskit
    >>> client = rdskit.Client()  # in a kernel of such a server  # doctest: +SKIP
    >>> gateway_status(client)["rate_limit"]  # doctest: +SKIP
    5.0
"""

from __future__ import annotations

from typing import Any

import httpx

from rdskit._gateway_auth import EXCHANGE_TIMEOUT, TOKEN_HEADER, GatewayKey

__all__ = ["GatewayKey", "gateway_status"]


def gateway_status(client: Any) -> dict[str, Any] | None:
    """The gateway's ``/status`` (mode, upstream, shared rate, queue) when ``client`` goes
    through one, else None.

    Example:
        >>> gateway_status(rdskit.Client())["rate_limit"]  # doctest: +SKIP
        5.0
    """
    key = client._core.api_key
    if not isinstance(key, GatewayKey):
        return None
    response = httpx.get(
        f"{client.base_url}/status",
        headers={TOKEN_HEADER: key.reveal()},
        timeout=EXCHANGE_TIMEOUT,
    )
    response.raise_for_status()
    status: dict[str, Any] = response.json()
    return status
