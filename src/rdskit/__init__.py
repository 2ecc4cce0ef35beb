"""rdskit: the Research Data Service in Python, pandas and Jupyter.

Example:
    >>> import rdskit
    >>> client = rdskit.Client()  # RDSKIT_API_KEY and RDSKIT_BASE_URL  # doctest: +SKIP
    >>> client.datasets.list(limit=5).data  # doctest: +SKIP
"""

from importlib.metadata import PackageNotFoundError, version

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
