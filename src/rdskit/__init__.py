"""rdskit: the Research Data Service in Python, pandas and Jupyter.

Example:
    >>> import rdskit
    >>> client = rdskit.Client()  # RDSKIT_API_KEY and RDSKIT_BASE_URL  # doctest: +SKIP
    >>> client.datasets.list(limit=5).data  # doctest: +SKIP
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from rdskit import _arrow_names, errors
from rdskit._version import __version__
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
    UnexpectedResponse,
    UnknownStatus,
    ValidationError,
    WaitTimeout,
)

if TYPE_CHECKING:
    from rdskit import frames
    from rdskit.billing import Estimate, credits_to_usd, usd_to_credits
    from rdskit.budget import get_budget, set_budget
    from rdskit.client import AsyncClient, Client
    from rdskit.pagination import AsyncPager, SyncPage
    from rdskit.study import Study, load_study

# Loaded on first use (module __getattr__), so ``import rdskit`` stays close to the cost of
# pandas alone: name -> the module defining it.
_LAZY = {
    "AsyncClient": "rdskit.client",
    "Client": "rdskit.client",
    "Estimate": "rdskit.billing",
    "credits_to_usd": "rdskit.billing",
    "usd_to_credits": "rdskit.billing",
    "get_budget": "rdskit.budget",
    "set_budget": "rdskit.budget",
    "AsyncPager": "rdskit.pagination",
    "SyncPage": "rdskit.pagination",
    "Study": "rdskit.study",
    "load_study": "rdskit.study",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
    elif name in ("frames", "jupyter", "sandbox", "models", "filters", "mcp", "study"):
        value = import_module(f"rdskit.{name}")
    else:
        raise AttributeError(f"module 'rdskit' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, "frames"})


def _rds_accessor(frame: Any) -> Any:
    """``df.rds``: Research Data Service analyses (:class:`rdskit.frames.RdsAccessor`)."""
    from rdskit.frames.accessor import RdsAccessor

    return RdsAccessor(frame)


def _register_accessor() -> None:
    # pandas is part of the import budget; the accessor's own module (and pyarrow) load on
    # the first ``df.rds``.
    from pandas.api.extensions import register_dataframe_accessor

    register_dataframe_accessor("rds")(_rds_accessor)
    # pandas cannot parse the nested Arrow dtype names it writes into parquet/feather files.
    _arrow_names.register()


_register_accessor()


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
    "Study",
    "SyncPage",
    "Unauthorized",
    "UnexpectedResponse",
    "UnknownStatus",
    "ValidationError",
    "WaitTimeout",
    "__version__",
    "credits_to_usd",
    "errors",
    "frames",
    "get_budget",
    "load_study",
    "set_budget",
    "usd_to_credits",
]
