"""The account, its usage history and prices: ``client.me()``, ``client.usage_history()``,
``client.prices()``.

Example:
    >>> client.me().plan.features.mcp  # doctest: +SKIP
    True
    >>> client.prices().prices_credits["mention"]  # doctest: +SKIP
    Decimal('1.000000')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rdskit._base_client import APIRequest
from rdskit.models import Account, Prices, UsageRow
from rdskit.pagination import SyncPage
from rdskit.resources._resource import check_limit, given, sync_only

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PRICES", "AccountMixin"]

PRICES: APIRequest[Prices] = APIRequest("GET", "/v1/prices", cast=Prices.model_validate)
"""``GET /v1/prices`` (also read by estimates)."""


class AccountMixin:
    """Top-level account calls, shared by both clients."""

    _request: Callable[[APIRequest[Any]], Any]
    _paginate: Callable[[APIRequest[Any]], Any]

    def me(self) -> Account:
        """The account behind the key: identity, members, plan (features, limits), usage.

        Example:
            >>> client.me().usage.credits_used  # doctest: +SKIP
            Decimal('1250.000000')
        """
        return self._request(APIRequest("GET", "/v1/me", cast=Account.model_validate))

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
        from rdskit.frames.fetch import usage_history_to_frame

        return usage_history_to_frame(sync_only(self, "usage_history_frame"))
