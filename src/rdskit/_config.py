"""API key and base URL resolution, and the holder that keeps the key out of every output.

The key comes from ``api_key=`` or the ``RDSKIT_API_KEY`` environment variable; the base
URL from ``base_url=`` or ``RDSKIT_BASE_URL``. When none of the four is set and the process
runs in a Jupyter server with the rdskit gateway (``RDSKIT_GATEWAY`` names its discovery
file), the client talks to the gateway with short-lived tokens instead (:func:`gateway_file`,
:func:`rdskit._base_client.resolve_credentials`). The key lives in a :class:`SecretKey`, whose
``repr``/``str`` show a mask, so printing a client, an exception or a log record that
holds it never reveals it.

Example:
    >>> key = SecretKey("bz_live_0123456789abcdef0123456789abcdef")
    >>> key
    SecretKey('bz_live_…#dfbb150c')
    >>> key.digest[:12]
    'dfbb150c2612'
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Generator
from typing import Any, Final, NoReturn, Protocol

from rdskit.errors import ConfigurationError

__all__ = [
    "ENV_API_KEY",
    "ENV_BASE_URL",
    "ENV_GATEWAY",
    "Credential",
    "SecretKey",
    "gateway_file",
    "mask_key",
    "resolve_api_key",
    "resolve_base_url",
]

ENV_API_KEY: Final = "RDSKIT_API_KEY"
ENV_BASE_URL: Final = "RDSKIT_BASE_URL"
ENV_GATEWAY: Final = "RDSKIT_GATEWAY"
"""Set by the Jupyter server extension for its kernels: the path of the gateway file."""

_KNOWN_PREFIXES = ("bz_live_", "bz_test_")
_FINGERPRINT = 8


def mask_key(key: str) -> str:
    """A display form of ``key``: its known prefix and a fingerprint of its SHA-256 digest.

    No character of the key past the public prefix is shown; the fingerprint (the digest's
    first 8 hex digits, as the service stores only digests) tells two keys apart.

    Example:
        >>> mask_key("bz_test_0123456789abcdef0123456789abcdef")
        'bz_test_…#0044f9ce'
        >>> mask_key("short-secret")
        '…#4cce0265'
    """
    prefix = next((p for p in _KNOWN_PREFIXES if key.startswith(p)), "")
    return f"{prefix}…#{hashlib.sha256(key.encode()).hexdigest()[:_FINGERPRINT]}"


class Credential(Protocol):
    """What a client authenticates with: an API key (:class:`SecretKey`) or a Jupyter
    gateway's short-lived token (:class:`rdskit._gateway_auth.GatewayKey`). Its ``repr``
    and ``str`` never show the secret.

    Example:
        >>> key: Credential = SecretKey("bz_test_0123456789abcdef0123456789abcdef")
        >>> key.forget()  # an API key cannot be renewed
        False
    """

    def reveal(self) -> str:
        """The current secret, for the request header only."""
        ...

    def auth_flow(self) -> Generator[Any, Any, str]:
        """The steps a request takes first so that :meth:`reveal` is current."""
        ...

    def forget(self) -> bool:
        """Drop a credential its issuer refused; True when the next request gets a new one."""
        ...

    @property
    def digest(self) -> str:
        """The rate limiter's bucket id (no secret)."""
        ...

    @property
    def masked(self) -> str:
        """The display form."""
        ...


class SecretKey:
    """An API key whose ``repr``/``str`` are masked; ``reveal()`` gives the raw value.

    The raw value is only read to build the ``x-api-key`` header.

    Example:
        >>> f"{SecretKey('bz_live_0123456789abcdef0123456789abcdef')}"
        'bz_live_…#dfbb150c'
    """

    __slots__ = ("_digest", "_value")

    def __init__(self, value: str) -> None:
        self._value = value
        self._digest = hashlib.sha256(value.encode()).hexdigest()

    def reveal(self) -> str:
        """The raw key, for the ``x-api-key`` header only."""
        return self._value

    def auth_flow(self) -> Generator[Any, Any, str]:
        """The steps a request takes first so that :meth:`reveal` is current, ending with
        the credential: none for an API key; a Jupyter gateway token (``GatewayKey``)
        exchanges itself here, as a step of the request's flow."""
        return self._value
        yield  # makes this a generator: an API key needs no exchange

    def forget(self) -> bool:
        """Drop a credential its issuer refused, so that the next request gets a new one;
        ``False`` here: an API key cannot be renewed, the refusal stands."""
        return False

    @property
    def digest(self) -> str:
        """SHA-256 hex digest of the key (the service's and the rate limiter's bucket id)."""
        return self._digest

    @property
    def masked(self) -> str:
        """The display form (see :func:`mask_key`)."""
        return mask_key(self._value)

    def __repr__(self) -> str:
        return f"SecretKey({self.masked!r})"

    def __str__(self) -> str:
        return self.masked

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SecretKey) and other._digest == self._digest

    def __hash__(self) -> int:
        return hash(self._digest)

    def __reduce__(self) -> NoReturn:
        # Refuse pickling: a pickle would carry the raw key to wherever it is stored.
        raise TypeError("SecretKey cannot be pickled")


def resolve_api_key(api_key: str | SecretKey | None = None) -> str:
    """The raw API key from the argument or ``RDSKIT_API_KEY``.

    Raises:
        ConfigurationError: neither is set (the message says how to set it).

    Example:
        >>> resolve_api_key("bz_test_0123456789abcdef0123456789abcdef")[:8]
        'bz_test_'
    """
    if isinstance(api_key, SecretKey):
        return api_key.reveal()
    value = (api_key if api_key is not None else os.environ.get(ENV_API_KEY, "")).strip()
    if not value:
        raise ConfigurationError(
            f"no API key: pass api_key=... or set the {ENV_API_KEY} environment variable "
            "(keys are minted in the web app under Settings, API keys)"
        )
    if not (value.isascii() and value.isprintable()):
        # Refused here, without echoing it: an HTTP header cannot carry it, and the
        # encoder's error would hold the whole key.
        raise ConfigurationError(
            f"the API key ({mask_key(value)}) holds non-ASCII or control characters, which "
            f"no key has: check api_key=... or {ENV_API_KEY}"
        )
    return value


def resolve_base_url(base_url: str | None = None) -> str:
    """The service root URL from the argument or ``RDSKIT_BASE_URL``, without ``/v1``.

    Request paths start with ``/v1``, so a trailing ``/v1`` (and ``/``) is dropped.

    Raises:
        ConfigurationError: neither is set, or the value is not an http(s) URL.

    Example:
        >>> resolve_base_url("http://127.0.0.1:8000/v1/")
        'http://127.0.0.1:8000'
    """
    value = (base_url if base_url is not None else os.environ.get(ENV_BASE_URL, "")).strip()
    if not value:
        raise ConfigurationError(
            f"no base URL: pass base_url=... or set the {ENV_BASE_URL} environment variable "
            "(e.g. the service's address, or a sandbox's handle.url)"
        )
    if not value.startswith(("http://", "https://")):
        raise ConfigurationError(f"base URL must start with http:// or https://, got {value!r}")
    return value.rstrip("/").removesuffix("/v1").rstrip("/")


def gateway_file(api_key: str | SecretKey | None = None, base_url: str | None = None) -> str | None:
    """The Jupyter gateway's discovery file when the client should use it, else None.

    An explicit ``api_key``/``base_url`` or ``RDSKIT_API_KEY``/``RDSKIT_BASE_URL`` always
    wins; only when none is set and ``RDSKIT_GATEWAY`` is (a kernel of a Jupyter server
    running the rdskit extension) does the client go through the gateway
    (:func:`rdskit._base_client.resolve_credentials`).

    Example:
        >>> gateway_file("bz_test_0123456789abcdef0123456789abcdef") is None
        True
    """
    configured = any(os.environ.get(name, "").strip() for name in (ENV_API_KEY, ENV_BASE_URL))
    gateway = os.environ.get(ENV_GATEWAY, "").strip()
    if api_key is None and base_url is None and not configured and gateway:
        return gateway
    return None
