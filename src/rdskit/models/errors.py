"""Error bodies: ``{status, error_code, detail, transient}`` and the 422 shape."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from rdskit.models._base import CreditString, RdsModel, UsdString

__all__ = ["ErrorBody", "InsufficientCreditsDetail", "ValidationErrorBody", "ValidationIssue"]


class InsufficientCreditsDetail(RdsModel):
    """The 402 ``detail``: ``required``/``available`` are USD strings, never credits.

    Example:
        >>> d = InsufficientCreditsDetail.model_validate({"message": "Top up", "required": "0.50",
        ...     "available": "0.10", "top_up_url": "https://app.example/billing"})
        >>> d.required - d.available
        Decimal('0.40')
    """

    message: str | None = None
    required: UsdString
    available: UsdString
    top_up_url: str | None = None
    required_credits: CreditString | None = None
    available_credits: CreditString | None = None


class ErrorBody(RdsModel):
    """A REST error body; branch on ``error_code``, never on the prose.

    Example:
        >>> ErrorBody.model_validate({"status": "client_error", "error_code": "too_many_requests",
        ...     "detail": "Slow down", "transient": True, "retry_after_seconds": 0.4}).detail
        'Slow down'
    """

    status: str | None = None
    error_code: str
    # A 402 detail object first; a string otherwise; anything else kept as sent.
    detail: InsufficientCreditsDetail | str | Any = Field(default=None, union_mode="left_to_right")
    transient: bool | None = None
    retry_after_seconds: float | None = None


class ValidationIssue(RdsModel):
    """One 422 problem: where (``loc``), what (``msg``) and its ``type``."""

    loc: list[str | int]
    msg: str
    type: str


class ValidationErrorBody(RdsModel):
    """A 422 body: ``{detail: [{loc, msg, type}]}``.

    Example:
        >>> ValidationErrorBody.model_validate({"detail": [{"loc": ["body", "name"],
        ...     "msg": "Field required", "type": "missing"}]}).detail[0].loc
        ['body', 'name']
    """

    detail: list[ValidationIssue]
