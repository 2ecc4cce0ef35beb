"""The account (``/v1/me``), usage history and prices.

Money stays exact: USD numbers and credit strings are ``Decimal``; a missing or null
price is ``None`` (unknown), never zero.
"""

from __future__ import annotations

from rdskit.errors import InvalidParameter
from rdskit.models._base import CreditString, RdsModel, UnixDatetime, UsdNumber, UsdString
from rdskit.models.vocab import (
    BILLING_UNITS,
    PLAN_FEATURES,
    PLAN_TYPES,
    PRICE_CATEGORIES,
    USAGE_CATEGORIES,
)

__all__ = [
    "BILLING_UNITS",
    "INSTANCE_HEADER",
    "PLAN_TYPES",
    "PRICE_CATEGORIES",
    "USAGE_CATEGORIES",
    "Account",
    "Billing",
    "Member",
    "Plan",
    "PlanFeatures",
    "PlanLimits",
    "Prices",
    "Team",
    "Usage",
    "UsageRow",
]


INSTANCE_HEADER = "x-service-instance"
"""A response header the spec does not show: which instance of the service's state answered
(the sandbox sends it on ``GET /v1/me``, one value per database). A fresh sandbox repeats
the last one's account, creation time and ids; this header tells them apart, so the
ledger of paid calls (:mod:`rdskit._ledger`) never hands one's object to the other. A
service that does not send it is one instance."""


class Member(RdsModel):
    """A seat (``type: member``) or a pending ``invitation`` (email only)."""

    type: str
    user_id: str | None = None
    email: str | None = None
    name: str | None = None


class Team(RdsModel):
    """A team the user belongs to."""

    account_id: str
    name: str | None = None


class Billing(RdsModel):
    """How amounts are presented: credits = USD / ``credit_rate_usd``.

    Example:
        >>> b = Billing.model_validate({"unit": "credits", "credit_rate_usd": "0.01",
        ...     "catalog_version": "2026-01-01", "precision": 6})
        >>> b.credit_rate_usd, b.to_wire()["credit_rate_usd"]
        (Decimal('0.01'), '0.01')
    """

    unit: str | None = None
    credit_rate_usd: UsdString | None = None
    catalog_version: str | None = None
    precision: int | None = None


class PlanLimits(RdsModel):
    """Plan limits seen (``-1`` occurs; its meaning is not shown)."""

    max_research_depth: int | None = None
    num_seats: int | None = None
    parallelism: int | None = None
    projects: int | None = None
    tracking_agents: int | None = None


class PlanFeatures(RdsModel):
    """Plan feature flags seen; read them, never infer access from the plan name.

    The fields are :data:`rdskit.models.vocab.PLAN_FEATURES` (a test keeps them equal).
    """

    api_access: bool | None = None
    audience_research: bool | None = None
    csv_export: bool | None = None
    custom_date_filter: bool | None = None
    daily_digest: bool | None = None
    digest_webhook: bool | None = None
    mcp: bool | None = None
    multisource_research: bool | None = None
    webhooks: bool | None = None


class Plan(RdsModel):
    """The account's plan: ``type`` is the billing kind, not an access level.

    Example:
        >>> trial = Plan.model_validate({"name": "Trial", "features": {"api_access": True},
        ...     "limits": {"tracking_agents": 0}})
        >>> trial.has_feature("custom_date_filter"), trial.allows_tracking_agents
        (False, False)
    """

    name: str | None = None
    type: str | None = None
    features: PlanFeatures | None = None
    limits: PlanLimits | None = None

    def has_feature(self, feature: str) -> bool:
        """Whether the plan's flag ``feature`` is on (False when the plan does not show it).

        ``feature`` is one of :data:`~rdskit.models.vocab.PLAN_FEATURES` (or a flag the
        service sent that rdskit does not know yet); another name raises
        :class:`~rdskit.errors.InvalidParameter`, so a typo is not read as "missing".
        """
        flags = self.features.model_dump() if self.features is not None else {}
        if feature not in PLAN_FEATURES and feature not in flags:
            raise InvalidParameter(
                "feature", f"unknown plan feature {feature!r}; one of {', '.join(PLAN_FEATURES)}"
            )
        return flags.get(feature) is True

    @property
    def allows_tracking_agents(self) -> bool:
        """False when the plan's ``limits.tracking_agents`` is 0 (no agent may be created);
        True otherwise (a limit not shown, or -1, is left to the service)."""
        limit = self.limits.tracking_agents if self.limits is not None else None
        return limit != 0


class Usage(RdsModel):
    """Wallet usage: credits (six-decimal strings) and the USD balance (numbers)."""

    credits_used: CreditString | None = None
    credits_total: CreditString | None = None
    billing: Billing | None = None
    balance_used: UsdNumber | None = None
    balance_total: UsdNumber | None = None
    renews_at: UnixDatetime | None = None


class Account(RdsModel):
    """``GET /v1/me``: identity, members, teams, plan and usage.

    Example:
        >>> me = Account.model_validate({"id": "u1", "account_id": "acc_1",
        ...     "email": "a@example.com", "created_at": 1767225600,
        ...     "usage": {"credits_used": "12.500000", "balance_used": 0.125}})
        >>> me.usage.credits_used, me.to_wire()["usage"]
        (Decimal('12.500000'), {'credits_used': '12.500000', 'balance_used': 0.125})
    """

    id: str
    account_id: str | None = None
    email: str | None = None
    name: str | None = None
    team_name: str | None = None
    created_at: UnixDatetime | None = None
    members: list[Member] | None = None
    teams: list[Team] | None = None
    plan: Plan | None = None
    usage: Usage | None = None

    def has_feature(self, feature: str) -> bool:
        """Whether the account's plan has ``feature`` (see :meth:`Plan.has_feature`).

        Example:
            >>> Account.model_validate({"id": "u1", "plan": {"features":
            ...     {"custom_date_filter": True}}}).has_feature("custom_date_filter")
            True
        """
        return (self.plan or Plan()).has_feature(feature)


class UsageRow(RdsModel):
    """One usage history row: ``quantity`` is USD charged (not credits, never negative).

    Example:
        >>> row = UsageRow.model_validate({"id": 7, "category": "mention", "quantity": 0.5,
        ...     "created_at": 0, "quantity_credits": "50.000000", "credit_rate_usd": "0.01",
        ...     "billing_catalog_version": "2026-01-01", "credit_value_basis": "snapshot"})
        >>> row.quantity, row.quantity_credits
        (Decimal('0.5'), Decimal('50.000000'))
    """

    id: int
    category: str
    quantity: UsdNumber
    created_at: UnixDatetime
    quantity_credits: CreditString | None = None
    credit_rate_usd: UsdString | None = None
    billing_catalog_version: str | None = None
    credit_value_basis: str | None = None


class Prices(RdsModel):
    """``GET /v1/prices``: per-category prices in credits and USD; None means unknown.

    Example:
        >>> p = Prices.model_validate({"prices_credits": {"mention": "1.000000",
        ...     "audience_profile": None}, "currency": "usd", "rate": None,
        ...     "prices": {"mention": 0.01}})
        >>> p.prices_credits["audience_profile"] is None, p.prices["mention"]
        (True, Decimal('0.01'))
    """

    prices_credits: dict[str, CreditString | None] | None = None
    billing: Billing | None = None
    currency: str | None = None
    rate: UsdNumber | None = None
    prices: dict[str, UsdNumber | None] | None = None
