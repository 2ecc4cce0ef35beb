"""The account, its usage history and prices: ``client.me()``, ``client.usage_history()``,
``client.prices()``.

Example:
    >>> client.me().plan.features.mcp  # doctest: +SKIP
    True
    >>> client.prices().prices_credits["mention"]  # doctest: +SKIP
    Decimal('1.000000')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from rdskit import _hooks
from rdskit._base_client import APIRequest
from rdskit.models import Account, Prices, UsageRow
from rdskit.pagination import SyncPage
from rdskit.resources._resource import check_limit, given, sync_only

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ME", "PRICES", "AccountMixin"]

T = TypeVar("T")

PRICES: APIRequest[Prices] = APIRequest("GET", "/v1/prices", cast=Prices.model_validate)
"""``GET /v1/prices`` (also read by estimates)."""

ME: APIRequest[Account] = APIRequest("GET", "/v1/me", cast=Account.model_validate)
"""``GET /v1/me``."""


class AccountMixin:
    """Top-level account calls, shared by both clients."""

    if TYPE_CHECKING:  # provided by the client (typed as rdskit.Client runs them)

        def _request(self, request: APIRequest[T]) -> T: ...

        def _paginate(self, request: APIRequest[T]) -> SyncPage[T]: ...

    def me(self) -> Account:
        """The account behind the key: identity, members, plan (features, limits), usage.

        Example:
            >>> client.me().usage.credits_used  # doctest: +SKIP
            Decimal('1250.000000')
        """
        return self._request(ME)

    def has_feature(self, feature: str) -> bool:
        """Whether the account's plan has ``feature`` (one free ``GET /v1/me``), e.g.
        ``custom_date_filter`` (date ranges on runs); see
        :meth:`rdskit.models.Plan.has_feature`. ``client.me().plan.allows_tracking_agents``
        says whether agents may be created.

        Example:
            >>> window = {"from": "2026-01-01", "to": "2026-03-31"}
            >>> options = {"date_range": window} if client.has_feature(
            ...     "custom_date_filter") else {}  # doctest: +SKIP
        """
        return self._request(
            APIRequest(
                ME.method,
                ME.path,
                cast=lambda data: Account.model_validate(data).has_feature(feature),
            )
        )

    def usage_history(
        self, *, limit: int | None = None, cursor: str | None = None
    ) -> SyncPage[UsageRow]:
        """Charges, newest first; ``quantity`` is USD, ``quantity_credits`` credits.

        Example:
            >>> rows = client.usage_history(limit=100)  # doctest: +SKIP
            >>> [(row.category, row.quantity) for row in rows]  # doctest: +SKIP
            [('mention', Decimal('0.98')), ...]
        """
        check_limit(limit)
        return self._paginate(
            APIRequest(
                "GET",
                "/v1/me/usage_history",
                params=given(limit=limit, cursor=cursor),
                cast=UsageRow.model_validate,
            )
        )

    def prices(self) -> Prices:
        """Per-category prices in credits and USD (a null price is unknown, not free).

        Example:
            >>> client.prices().prices["audience_profile"]  # doctest: +SKIP
            Decimal('0.0588')
        """
        return self._request(PRICES)

    def usage_history_frame(self) -> pd.DataFrame:
        """Every usage row as a frame, with credits and USD as numbers.

        Example:
            >>> client.usage_history_frame().groupby("kind")["credits"].sum()  # doctest: +SKIP
        """
        return _hooks.usage_history_to_frame.call(sync_only(self, "usage_history_frame"))
