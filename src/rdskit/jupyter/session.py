"""Per-kernel state of the magics: the client they use and the notebook's current chat.

One client per kernel, explicit: the magics use the last :class:`~rdskit.Client` made in
the kernel and still open, whether ``%rds connect`` made it or the notebook did
(``client = rdskit.Client.sandbox()``, ``rdskit.Client()``): see
:func:`rdskit.client.latest_client`. When that is not the client the previous magic used
(or announced by ``%rds connect``), the magic says in one line which one it uses. Only
when the kernel has no client at all does a magic connect by itself (the server's
gateway, or ``RDSKIT_API_KEY``/``RDSKIT_BASE_URL``, else the embedded sandbox), again
saying so. Reach the same state from code with :func:`rdskit.jupyter.current_session`.

Example:
    >>> session = rdskit.jupyter.current_session()  # doctest: +SKIP
    >>> session.client.datasets.list().data  # doctest: +SKIP
    >>> session.chat_id  # doctest: +SKIP
    'ch_8f2e...'
"""

from __future__ import annotations

import contextlib
import getpass
import os
import threading
from collections import deque
from collections.abc import Mapping
from typing import Any

import httpx

from rdskit._config import ENV_API_KEY, ENV_BASE_URL, ENV_GATEWAY
from rdskit._embedded import embedded_sandbox, kept_in
from rdskit._gateway_auth import EXCHANGE_TIMEOUT, TOKEN_HEADER
from rdskit._safe import one_line
from rdskit.budget import get_budget
from rdskit.client import Client, latest_client, remember_client
from rdskit.errors import ConfigurationError, RdsError
from rdskit.jupyter.discovery import GatewayKey

__all__ = [
    "SANDBOX_ORIGIN",
    "Session",
    "announce_client",
    "announcement",
    "note_chat",
    "origin_of",
    "sandbox_origin",
    "service_client",
]

SANDBOX_ORIGIN = "the embedded sandbox (offline, no key; its data lasts until the kernel stops)"
"""The embedded sandbox on a temporary database (see :func:`sandbox_origin`)."""


def sandbox_origin() -> str:
    """The embedded sandbox, and how long its data lasts: until the kernel stops, or kept
    in its file (``RDSKIT_SANDBOX_DB``) across restarts (saying "until the kernel stops"
    there was untrue). The running sandbox says which; before it starts, the setting.

    Example:
        >>> sandbox_origin().startswith("the embedded sandbox (offline, no key; its data ")
        True
    """
    handle = embedded_sandbox()
    if handle is not None:
        db = kept_in(handle)
    else:
        db = os.environ.get("RDSKIT_SANDBOX_DB", "").strip() or None
    if not db:
        return SANDBOX_ORIGIN
    return f"the embedded sandbox (offline, no key; its data is kept in {one_line(db)})"


def origin_of(client: Client) -> str:
    """Where a client's requests go, for the one-line connection messages.

    Example:
        >>> origin_of(Client("bz_test_0123456789abcdef0123456789abcdef",
        ...                  base_url="https://rds.example.com"))
        'https://rds.example.com'
    """
    key = client._core.api_key
    if embedded_sandbox(client) is not None:
        return sandbox_origin()
    if isinstance(key, GatewayKey):
        what = "its shared sandbox" if key.mode == "sandbox" else "the service"
        return f"the Jupyter server's gateway ({what}, via {client.base_url})"
    return client.base_url


class Session:
    """The client the magics use and the chat ``%%ask`` continues."""

    def __init__(self) -> None:
        self._own: Client | None = None  # the client %rds connect (or a magic) made
        self._used: int | None = None  # id() of the client the magics last used or announced
        self.origin = ""
        self.chat_id: str | None = None

    @property
    def client(self) -> Client | None:
        """The client the magics use: the last one made in this kernel and still open."""
        return latest_client()

    def connect(self, client: Client, origin: str | None = None) -> None:
        """Use ``client`` from now on (closing the one the session made before); forget
        the chat. The caller says where it connected, so no note follows."""
        self.close()
        self._own = client
        remember_client(client)
        self.origin = origin or origin_of(client)
        self._used = id(client)
        self.chat_id = None  # chats are private to a key's seat

    def ensure(self, namespace: Mapping[str, Any] | None = None) -> str | None:
        """Pick the client for a magic; returns a one-line note when which one it is was
        not obvious (a client made in the notebook since, or a connection made now).

        ``namespace``: the notebook's variables, to name the client (``client``). Without
        any client in the kernel it connects (the gateway or the environment, else the
        embedded sandbox), so a notebook with no key still runs.
        """
        client = latest_client()
        if client is None:
            try:
                made, origin = Client(), None
            except ConfigurationError:
                made, origin = Client.sandbox(), sandbox_origin()
            self.connect(made, origin)
            return (
                f"rdskit: no client in this kernel yet; connected to {self.origin} "
                "(%rds connect chooses another)."
            )
        if id(client) == self._used:
            return None
        self._used = id(client)
        self.origin = origin_of(client)
        self.chat_id = None  # the chat belonged to the previous client's seat
        names = sorted(
            name
            for name, value in (namespace or {}).items()
            if value is client and not name.startswith("_")
        )
        which = f"`{names[0]}`" if names else "the last rdskit.Client made in this kernel"
        return f"rdskit: using {which}, connected to {self.origin}."

    def connect_service(self, base_url: str | None) -> None:
        """Connect to a service by URL (or the configured one), asking for a missing key.

        The key comes from ``RDSKIT_API_KEY`` or a hidden prompt; it is kept in the
        client only (never echoed, stored in the notebook or in the history).
        """
        self.connect(service_client(base_url))

    def close(self) -> None:
        """Close the client the session made (the embedded sandbox keeps running; a
        client the notebook made stays the notebook's)."""
        if self._own is not None:
            self._own.close()
            self._own = None


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


# Chats %%ask used in this kernel, newest first, by the base URL they live on (the service
# has no list of chats; the JupyterLab panel lists these for a kernel's own sandbox).
_CHATS: dict[str, deque[str]] = {}
_CHATS_KEPT = 5
_turns = 0
_announcing = threading.Lock()
_wanted = 0  # announcements asked for (a change since the last one sent: send again)
_sending = False


def note_chat(client: Client, chat_id: str) -> None:
    """Remember that ``%%ask`` used ``chat_id`` on ``client``, and tell the gateway.

    Example:
        >>> note_chat(client, "ch_1")  # doctest: +SKIP
    """
    global _turns
    chats = _CHATS.setdefault(client.base_url, deque(maxlen=_CHATS_KEPT))
    if chat_id in chats:
        chats.remove(chat_id)
    chats.appendleft(chat_id)
    _turns += 1  # a new turn renames or moves a chat: the panel reads its chats again
    announce_client()


def announcement(client: Client | None) -> dict[str, Any]:
    """What this kernel tells the gateway about ``client`` and its budget: nothing secret
    of a real account. The embedded sandbox's own key goes with its loopback URL (the
    gateway reads that sandbox for the panel); a client with a real key sends its URL
    only; a gateway client (or none) sends ``{"kind": "gateway"}``. ``budget`` is the
    process-wide budget (:func:`rdskit.set_budget`, ``%rds budget``) in credits, or None.

    Example:
        >>> announcement(None)
        {'kind': 'gateway', 'budget': None}
        >>> announcement(Client("bz_test_0123456789abcdef0123456789abcdef",
        ...                     base_url="https://rds.example.com"))
        {'kind': 'service', 'base_url': 'https://rds.example.com', 'budget': None}
    """
    process = get_budget()
    budget = None
    if process is not None:
        total, committed, held = process.state()
        # fixed-point: str() may say 1E-7, and an Ask's charge may have 28 digits
        budget = {
            "total": format(total, "f"),
            "committed": format(committed, "f"),
            "held": format(held, "f"),
        }
    if client is None or isinstance(client._core.api_key, GatewayKey):
        return {"kind": "gateway", "budget": budget}
    if embedded_sandbox(client) is None:
        return {"kind": "service", "base_url": client.base_url, "budget": budget}
    return {
        "kind": "embedded",
        "base_url": client.base_url,
        "api_key": client._core.api_key.reveal(),  # the offline sandbox's key, not a real one
        "chats": list(_CHATS.get(client.base_url, ())),
        "turns": _turns,
        "budget": budget,
    }


def announce_client() -> None:
    """Tell the Jupyter server's gateway, in the background, which client this kernel
    uses now (:func:`~rdskit.client.latest_client`) and its budget, so its JupyterLab
    status item and panel show that client's account and the kernel's budget. Called
    whenever a client is made, remembered or closed, or the budget changes, in a kernel
    of such a server; best effort: if the gateway cannot be told, the panel shows the
    gateway's own account and labels it so.

    Example:
        >>> announce_client()  # doctest: +SKIP
    """
    global _wanted, _sending
    path = os.environ.get(ENV_GATEWAY, "").strip()
    if not path:
        return
    with _announcing:
        _wanted += 1
        if _sending:  # the sender reads the state again before it stops
            return
        _sending = True
    threading.Thread(target=_tell, args=(path,), name="rdskit-announce", daemon=True).start()


def _tell(path: str) -> None:
    # One sender at a time; a burst of changes (a budget spent by many calls) is one or two
    # posts, each of the state current when it is sent. On failure the panel shows (and
    # names) the gateway's view.
    global _sending
    sent = -1
    try:
        while True:
            with _announcing:
                if sent == _wanted:
                    _sending = False
                    return
                sent = _wanted
            with contextlib.suppress(httpx.HTTPError, RdsError, OSError, RuntimeError):
                key = GatewayKey(path)
                httpx.post(
                    f"{key.url}/kernel",
                    json=announcement(latest_client()),
                    headers={TOKEN_HEADER: key.reveal()},
                    timeout=EXCHANGE_TIMEOUT,
                )
    except BaseException:  # never leave later changes waiting for a sender that died
        with _announcing:
            _sending = False
        raise
