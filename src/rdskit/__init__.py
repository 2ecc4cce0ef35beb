"""rdskit: the Research Data Service in Python, pandas and Jupyter.

Example:
    >>> import rdskit
    >>> client = rdskit.Client()  # RDSKIT_API_KEY and RDSKIT_BASE_URL  # doctest: +SKIP
    >>> client.datasets.list(limit=5).data  # doctest: +SKIP
"""

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from rdskit import errors, frames
from rdskit.billing import Estimate, credits_to_usd, usd_to_credits
from rdskit.client import AsyncClient, Client
from rdskit.errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    BudgetExceeded,
    ConfigurationError,
    Conflict,
    InsufficientCredits,
    InvalidParameter,
    NotFound,
    OutcomeUnknown,
    RateLimited,
    RdsError,
    RunFailed,
    Unauthorized,
    ValidationError,
    WaitTimeout,
)
from rdskit.pagination import AsyncPager, SyncPage


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext rdskit``: the ``%rds``/``%%ask`` magics and rich displays."""
    from rdskit.jupyter import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext rdskit``."""
    from rdskit.jupyter import unload_ipython_extension as unload

    unload(ipython)


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    """The Jupyter server extension (the gateway), enabled by ``jupyter-config/``."""
    from rdskit.jupyter.gateway import RdsGateway

    return [{"module": "rdskit.jupyter.gateway", "app": RdsGateway}]


try:
    __version__ = version("rdskit")
except PackageNotFoundError:  # running from a source tree without install metadata
    __version__ = "0.0.0"

__all__ = [
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AsyncClient",
    "AsyncPager",
    "BudgetExceeded",
    "Client",
    "ConfigurationError",
    "Conflict",
    "Estimate",
    "InsufficientCredits",
    "InvalidParameter",
    "NotFound",
    "OutcomeUnknown",
    "RateLimited",
    "RdsError",
    "RunFailed",
    "SyncPage",
    "Unauthorized",
    "ValidationError",
    "WaitTimeout",
    "__version__",
    "credits_to_usd",
    "errors",
    "frames",
    "usd_to_credits",
]
