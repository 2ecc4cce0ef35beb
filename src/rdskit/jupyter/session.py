"""Per-kernel state of the magics: the connected client and the notebook's current chat.

``%rds connect`` sets the client; ``%%ask`` connects by itself when nothing is connected
(the server's gateway, or ``RDSKIT_API_KEY``/``RDSKIT_BASE_URL``, else the embedded
sandbox) and continues the current chat. Reach the same state from code with
:func:`rdskit.jupyter.current_session`.

Example:
    >>> session = rdskit.jupyter.current_session()  # doctest: +SKIP
    >>> session.client.datasets.list().data  # doctest: +SKIP
    >>> session.chat_id  # doctest: +SKIP
    'ch_8f2e...'
"""

from __future__ import annotations

import getpass
import os

from rdskit._config import ENV_API_KEY, ENV_BASE_URL
from rdskit.client import Client
from rdskit.errors import ConfigurationError
from rdskit.jupyter.discovery import GatewayKey

__all__ = ["SANDBOX_ORIGIN", "Session", "origin_of", "service_client"]

SANDBOX_ORIGIN = "the embedded sandbox (offline, no key; its data lasts until the kernel stops)"


def origin_of(client: Client) -> str:
    """Where a client's requests go, for the one-line connection messages.

    Example:
        >>> origin_of(Client("bz_test_0123456789abcdef0123456789abcdef",
        ...                  base_url="https://rds.example.com"))
        'https://rds.example.com'
    """
    key = client._core.api_key
    if isinstance(key, GatewayKey):
        what = "its shared sandbox" if key.mode == "sandbox" else "the service"
        return f"the Jupyter server's gateway ({what}, via {client.base_url})"
    return client.base_url


class Session:
    """The client the magics use and the chat ``%%ask`` continues."""

    def __init__(self) -> None:
        self.client: Client | None = None
        self.origin = ""
        self.chat_id: str | None = None

    def connect(self, client: Client, origin: str | None = None) -> None:
        """Use ``client`` from now on (closing the previous one); forget the chat."""
        self.close()
        self.client = client
        self.origin = origin or origin_of(client)
        self.chat_id = None  # chats are private to a key's seat

    def ensure(self) -> str | None:
        """Connect if needed; returns a one-line note when it did.

        Without anything configured it uses the embedded sandbox, so a notebook with no
        key still runs.
        """
        if self.client is not None:
            return None
        try:
            client, origin = Client(), None
        except ConfigurationError:
            client, origin = Client.sandbox(), SANDBOX_ORIGIN
        self.connect(client, origin)
        return f"rdskit: connected to {self.origin}; use %rds connect to choose another."

    def connect_service(self, base_url: str | None) -> None:
        """Connect to a service by URL (or the configured one), asking for a missing key.

        The key comes from ``RDSKIT_API_KEY`` or a hidden prompt; it is kept in the
        client only (never echoed, stored in the notebook or in the history).
        """
        self.connect(service_client(base_url))

    def close(self) -> None:
        """Close the client's connections (the embedded sandbox keeps running)."""
        if self.client is not None:
            self.client.close()
            self.client = None


def service_client(base_url: str | None) -> Client:
    """A client of the service at ``base_url`` (or the configured one, or the server's
    gateway), asking for a missing key; no session changes (``%rds connect`` checks the
    client before it replaces the session's).

    Raises:
        ConfigurationError: nothing to connect to, or no key.
    """
    if base_url is None and not os.environ.get(ENV_BASE_URL, "").strip():
        try:  # the gateway, when this kernel belongs to a server that has one
            return Client()
        except ConfigurationError:
            raise ConfigurationError(
                f"nothing to connect to: pass --base-url URL, set {ENV_BASE_URL}, or use "
                "--sandbox for the offline sandbox"
            ) from None
    key = os.environ.get(ENV_API_KEY, "").strip() or None
    if key is None:
        key = _prompt_key(base_url or os.environ[ENV_BASE_URL])
    return Client(key, base_url=base_url)


def _prompt_key(url: str) -> str:
    from IPython.core.error import StdinNotImplementedError

    try:
        key = getpass.getpass(f"API key for {url} (input hidden): ").strip()
    except StdinNotImplementedError:
        raise ConfigurationError(
            f"no API key: set {ENV_API_KEY} in the kernel's environment (this front end "
            "cannot prompt for it)"
        ) from None
    if not key:
        raise ConfigurationError("no API key was entered")
    return key
