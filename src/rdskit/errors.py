"""Every exception rdskit raises, rooted at :class:`RdsError`.

Service errors are :class:`APIError` subclasses chosen by the body's ``error_code`` (the
stable machine identifier; the prose in ``detail`` is never parsed). Each code of the
spec has its own class, registered in :data:`ERROR_CODES` and grouped under a family:

- :class:`Unauthorized` (401), :class:`NotFound` (404 and ``*_not_found``),
  :class:`InsufficientCredits` (402), :class:`Conflict` (409, ``*_in_flight``,
  ``*_in_progress``), :class:`RateLimited` (429), :class:`ValidationError` (422),
  :class:`ServerError` (5xx).

A code the spec does not list raises its family class (by code suffix, then HTTP status),
or plain :class:`APIError`, carrying the code. No message here ever contains the API key:
errors are built from the response body, the method and the path only.

Example:
    >>> import rdskit
    >>> try:  # doctest: +SKIP
    ...     client.datasets.get("ds_missing")
    ... except rdskit.errors.DatasetNotFound as exc:
    ...     print(exc.status_code, exc.error_code)
    404 dataset_not_found
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar

from rdskit import _hooks
from rdskit._format import credits_text, money
from rdskit._safe import clean, one_line

__all__ = [
    "ERROR_CODES",
    "VALIDATION_ERROR",
    "AIAssistantTimeout",
    "AIAssistantUnavailable",
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AdvertiserWarning",
    "AudienceDatasetNotFound",
    "AudienceDatasetRunAlreadyInFlight",
    "BeyondDeclaredSize",
    "BudgetExceeded",
    "CacheWarning",
    "ChatNotFound",
    "CollectionContentTypeMismatch",
    "ConfigurationError",
    "Conflict",
    "CustomParameterDuplicateName",
    "CustomParameterEmptyName",
    "CustomParameterLimitExceeded",
    "CustomParameterNotFound",
    "CustomParameterRunInFlight",
    "DatasetHasNoQueries",
    "DatasetNotFound",
    "DateFilterUnavailable",
    "DepthCapWarning",
    "DuplicateNameWarning",
    "EstimatedViewsWarning",
    "InsufficientCredits",
    "InsufficientCreditsAsk",
    "InsufficientCreditsAudienceDatasetRun",
    "InsufficientCreditsContentAnalysis",
    "InsufficientCreditsDatasetRun",
    "InsufficientCreditsGeneric",
    "InsufficientCreditsPatternDetection",
    "InsufficientCreditsResearchPreview",
    "InvalidCursor",
    "InvalidParameter",
    "InvalidTextWarning",
    "LedgerWarning",
    "NotFound",
    "NothingToAnalyze",
    "OutcomeUnknown",
    "PaginationStopped",
    "PartialDataWarning",
    "PatternDetectionRunNotFound",
    "RateLimited",
    "RdsError",
    "RdsWarning",
    "RepeatedCursor",
    "RequestTooLarge",
    "ResourceNotFound",
    "ResponseTooLarge",
    "RunFailed",
    "ServerError",
    "SourceDatasetHasNoCompletedRun",
    "SourceUnavailable",
    "TooManyPages",
    "TooManyRequests",
    "TrackingAgentLimitReached",
    "TrackingAgentRunInProgress",
    "Unauthorized",
    "UnexpectedResponse",
    "UnknownStatus",
    "ValidationError",
    "WaitTimeout",
    "error_class",
    "error_from_response",
    "warn",
]

ERROR_CODES: dict[str, type[APIError]] = {}
"""Spec ``error_code`` -> the exception class raised for it."""


class RdsError(Exception):
    """Root of every rdskit exception."""

    def _repr_html_(self) -> str | None:
        """Rich HTML in notebooks (amounts, fields, links): the ``_hooks.html`` hook, which
        the Jupyter layer implements (loaded on the first display)."""
        return _hooks.html.call(self)

    def _render_traceback_(self) -> list[str]:
        """IPython's lines for this error: the ``_hooks.traceback`` hook's short message
        (what failed, where, what to do; ``%xmode Verbose`` shows everything)."""
        return _hooks.traceback.call(self)


class RdsWarning(UserWarning):
    """Root of rdskit's warnings: something worked, but the result needs a second look.

    They are shown every time (not once per line), since each one is news about a read.
    """


class PartialDataWarning(RdsWarning):
    """A read of a dataset whose latest run is still pending or working: the mentions
    read are partial (wait on the run first: ``client.wait(run)``)."""


class DuplicateNameWarning(RdsWarning):
    """Several containers share the name a ``get_or_create`` looked for; the oldest was
    returned and the others are named so they can be deleted."""


class DepthCapWarning(RdsWarning):
    """A run asks for more mentions than the plan's research depth
    (``plan.limits.max_research_depth`` at ``GET /v1/me``): the service collects, and
    charges, at most that many. Said before the run is started, so the count can be
    changed before anything is charged."""


class EstimatedViewsWarning(RdsWarning):
    """A ranking by views (or by ``engagement_rate``, computed from views) mixes sources
    whose views are estimated (``are_views_estimated``) with sources whose views are
    counted: rank within each source instead (``df.rds.top(n, per="source")``)."""


class AdvertiserWarning(RdsWarning):
    """Pseudonymisation replaced the authors of ads (advertisers, usually brands) by
    pseudonyms, and their names in every text with them: keep public accounts as they
    are with ``df.rds.pseudonymise(key, allow=[...])``."""


class CacheWarning(RdsWarning):
    """A cache file could not be read: it was moved aside and its data fetched again."""


class InvalidTextWarning(RdsWarning):
    """Text read into a frame held lone surrogates (half of a UTF-16 pair: not Unicode
    text, which Arrow cannot store): each was replaced by U+FFFD, and the warning names
    the fields and rows that changed."""


class LedgerWarning(RdsWarning):
    """The local ledger of paid calls (``reuse=True`` on Ask, pattern detections, tracking
    triggers and research previews) could not be read or written, or an entry was stale
    (what it names is gone or is not what the request made: it was dropped): the call
    went ahead, paid (:mod:`rdskit._ledger`)."""


# Each warning reports one read; Python's default shows a warning once per code line,
# which would hide it when a notebook cell is re-run. Appended: a filter of the user's
# (even one set before rdskit was imported) still wins.
warnings.filterwarnings("always", category=RdsWarning, append=True)


def warn(message: str, category: type[RdsWarning]) -> None:
    """Emit ``category`` attributed to the first caller outside rdskit (the user's line or
    notebook cell), however deep inside rdskit it was raised."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame, level = sys._getframe(0), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


class ConfigurationError(RdsError):
    """The client cannot be built: a missing API key or base URL, or a bad option."""


class InvalidParameter(RdsError, ValueError):
    """A request parameter is invalid; raised before any request is sent.

    ``field`` names the parameter (dotted for nested values, e.g. ``search_query.sources``).

    Example:
        >>> str(InvalidParameter("limit", "must be between 1 and 100, got 500"))
        'limit: must be between 1 and 100, got 500'
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class RequestTooLarge(InvalidParameter):
    """A request body larger than the service takes (:data:`rdskit._bodies.MAX_REQUEST_BYTES`),
    refused before anything is sent: nothing is charged. ``field`` is the body's field that
    makes it too large; ``size`` its size in bytes (at least that much: counting stops once
    past the bound), ``limit`` the bound.

    Example:
        >>> print(RequestTooLarge("message", 50_000_002, 1_000_000))
        message: the request body would be at least 50,000,002 bytes, over the 1,000,000 \
bytes a request may carry; nothing was sent (shorten it, or split it over several requests)
    """

    def __init__(self, field: str, size: int, limit: int) -> None:
        super().__init__(
            field,
            f"the request body would be at least {size:,} bytes, over the {limit:,} bytes a "
            "request may carry; nothing was sent (shorten it, or split it over several requests)",
        )
        self.size = size
        self.limit = limit


class APIConnectionError(RdsError):
    """The service could not be reached, or the connection broke before a response."""


class APITimeoutError(APIConnectionError):
    """The request timed out (connect, read, write or pool)."""


class OutcomeUnknown(RdsError):
    """A paid or state-changing call may have reached the service, but no answer came back.

    It was not retried (a retry could start and charge the work twice). ``hint`` says how
    to find out whether it happened; ``__cause__`` is the underlying error.
    """

    def __init__(self, method: str, path: str, hint: str, reason: str) -> None:
        super().__init__(
            f"the outcome of {method} {path} is unknown ({reason}); it was not retried "
            f"because it may have started paid or state-changing work. To check: {hint}"
        )
        self.method = method
        self.path = path
        self.hint = hint


class RunFailed(RdsError):
    """A waited-on run ended in a failed state; ``obj`` is its final state."""

    def __init__(self, obj: Any, message: str) -> None:
        super().__init__(message)
        self.obj = obj


class WaitTimeout(RdsError, TimeoutError):
    """``client.wait(...)`` gave up before the run ended; ``obj`` is the last state seen."""

    def __init__(self, obj: Any, message: str) -> None:
        super().__init__(message)
        self.obj = obj


class UnknownStatus(WaitTimeout):
    """``client.wait(...)`` stopped on a status the spec does not show, which stayed the same
    long enough to be a final state of a newer service; ``obj`` is the last state seen.

    It is a :class:`WaitTimeout`: the wait gave up, the run itself may go on.
    """


class BudgetExceeded(RdsError):
    """A paid call was refused before it was sent: its estimate does not fit the budget.

    ``estimate`` and ``remaining`` are credits (``estimate`` is None when it could not be
    computed, which a budget also refuses); ``reason`` explains the refusal; ``scope`` says
    which budget: ``"client"`` (``budget_credits=``) or ``"process-wide"``
    (``rdskit.set_budget`` / ``%rds budget``).

    Example:
        >>> str(BudgetExceeded("ask", Decimal("200.000000"), Decimal("40"), "too much"))
        'ask refused by the client budget: estimate 200 credits, 40 credits remaining (too much)'
    """

    def __init__(
        self,
        kind: str,
        estimate: Decimal | None,
        remaining: Decimal,
        reason: str,
        *,
        scope: str = "client",
    ) -> None:
        shown = "unknown" if estimate is None else f"{credits_text(estimate)} credits"
        super().__init__(
            f"{kind} refused by the {scope} budget: estimate {shown}, "
            f"{credits_text(remaining)} credits remaining ({reason})"
        )
        self.kind = kind
        self.estimate = estimate
        self.remaining = remaining
        self.reason = reason
        self.scope = scope


# -- service errors -----------------------------------------------------------------
class APIError(RdsError):
    """The service answered with an error.

    Attributes: ``status_code`` (HTTP; also ``status``), ``error_code`` (None when the body
    has none), ``detail`` (string, or the 402 object), ``transient``, ``body`` (the parsed
    JSON), ``method`` and ``path`` of the request.
    """

    code: ClassVar[str | None] = None  # the error_code this class is registered for

    def __init_subclass__(cls, code: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.code = code
        if code is not None:
            ERROR_CODES[code] = cls

    def __init__(
        self,
        status_code: int,
        error_code: str | None,
        detail: Any,
        *,
        transient: bool = False,
        body: Any = None,
        method: str = "",
        path: str = "",
    ) -> None:
        self.status_code = status_code
        self.error_code = error_code
        self.detail = detail
        self.transient = transient
        self.body = body
        self.method = method
        self.path = path
        super().__init__(self._describe())

    @property
    def status(self) -> int:
        """The HTTP status (same as ``status_code``); the body's own ``status`` string is
        ``body["status"]``."""
        return self.status_code

    @property
    def message(self) -> str:
        """The human-readable message of the body."""
        if isinstance(self.detail, Mapping):
            return str(self.detail.get("message", ""))
        return "" if self.detail is None else str(self.detail)

    def _describe(self) -> str:
        # One line: a newline in a detail would fake a second line of a log or a terminal.
        where = f" on {self.method} {one_line(self.path)}" if self.method else ""
        return (
            f"{self.error_code or 'error'} (HTTP {self.status_code}){where}: "
            f"{one_line(self.message)}"
        )


class UnexpectedResponse(APIError):
    """A success status whose body cannot be read: not JSON, ``data`` null or missing where
    the spec shows one, or a ``data`` that does not match its model. ``body`` is what came.

    Example:
        >>> str(UnexpectedResponse(200, None, "the body is not a JSON object (text/html)",
        ...     method="GET", path="/v1/me"))
        'error (HTTP 200) on GET /v1/me: the body is not a JSON object (text/html)'
    """


class ResponseTooLarge(UnexpectedResponse):
    """A response body larger than the client's ``max_response_bytes`` (as sent, or once
    decoded): reading stopped at the cap, so a hostile server cannot fill memory.

    Example:
        >>> print(ResponseTooLarge(200, "more than 1,024 bytes arrived", limit=1024,
        ...     method="GET", path="/v1/me"))
        error (HTTP 200) on GET /v1/me: more than 1,024 bytes arrived (cap 1,024 bytes); \
if this service is trusted, raise the cap: Client(max_response_bytes=...)
    """

    def __init__(
        self, status_code: int, why: str, *, limit: int, method: str = "", path: str = ""
    ) -> None:
        self.limit = limit
        super().__init__(
            status_code,
            None,
            f"{why} (cap {limit:,} bytes); if this service is trusted, raise the cap: "
            "Client(max_response_bytes=...)",
            method=method,
            path=path,
        )


class PaginationStopped(RdsError):
    """A list the service would page forever: a cursor came back twice, or more pages than
    the client's ``max_pages``. The items read so far were delivered."""


class RepeatedCursor(PaginationStopped):
    """The service sent a cursor it had sent before: following it would loop.

    Example:
        >>> print(RepeatedCursor("GET", "/v1/datasets", pages=3))
        GET /v1/datasets sent a cursor it had already sent (after 3 pages): paging stopped \
to avoid a loop; report this to the service
    """

    def __init__(self, method: str, path: str, *, pages: int) -> None:
        self.method, self.path, self.pages = method, path, pages
        super().__init__(
            f"{method} {path} sent a cursor it had already sent (after {pages:,} pages): "
            "paging stopped to avoid a loop; report this to the service"
        )


class TooManyPages(PaginationStopped):
    """More pages than the client's ``max_pages``.

    Example:
        >>> print(TooManyPages("GET", "/v1/mentions", pages=10))
        GET /v1/mentions has more than 10 pages: paging stopped; narrow the query or \
raise Client(max_pages=...)
    """

    def __init__(self, method: str, path: str, *, pages: int) -> None:
        self.method, self.path, self.pages = method, path, pages
        super().__init__(
            f"{method} {path} has more than {pages:,} pages: paging stopped; narrow the "
            "query or raise Client(max_pages=...)"
        )


class BeyondDeclaredSize(PaginationStopped):
    """A walk bounded by what the list says it holds (``page.expecting(n)``: a dataset's
    ``mentions_count``) read far more pages or items than that: the service keeps sending
    new cursors, so paging stopped in time and memory proportional to the dataset.

    ``field`` names what declared the size (``mentions_count``, ``post_refs``).

    Example:
        >>> print(BeyondDeclaredSize("POST", "/v1/mentions", pages=4, items=90, declared=40))
        POST /v1/mentions sent 90 items in 4 pages and more, for a list that says it holds \
40 (mentions_count): paging stopped; report this to the service
    """

    def __init__(
        self,
        method: str,
        path: str,
        *,
        pages: int,
        items: int,
        declared: int,
        field: str = "mentions_count",
    ) -> None:
        self.method, self.path, self.pages = method, path, pages
        self.items, self.declared, self.field = items, declared, field
        super().__init__(
            f"{method} {path} sent {items:,} items in {pages:,} pages and more, for a list "
            f"that says it holds {declared:,} ({field}): paging stopped; report this to the "
            "service"
        )


class Unauthorized(APIError):
    """401: the API key is missing, revoked, or not a key."""


class NotFound(APIError):
    """404, or any ``*_not_found`` code: absent, or owned by another account or seat."""


class Conflict(APIError):
    """409, or any ``*_in_flight`` / ``*_in_progress`` code: another run is active."""


class ServerError(APIError):
    """5xx: the service failed."""


class InsufficientCredits(APIError):
    """402: the balance cannot fund the reservation; nothing started.

    ``required`` / ``available`` are USD (the wire's canonical amounts);
    ``required_credits`` / ``available_credits`` are credits when the service returned
    them, else None. ``top_up_url`` links to the top-up page.
    """

    def __init__(self, status_code: int, error_code: str | None, detail: Any, **kw: Any) -> None:
        fields = detail if isinstance(detail, Mapping) else {}
        self.required = _decimal_or_none(fields.get("required"))
        self.available = _decimal_or_none(fields.get("available"))
        self.required_credits = _decimal_or_none(fields.get("required_credits"))
        self.available_credits = _decimal_or_none(fields.get("available_credits"))
        self.top_up_url: str | None = fields.get("top_up_url")
        super().__init__(status_code, error_code, detail, **kw)

    def _describe(self) -> str:
        # Rounded for people ("100 credits (1.96 USD)"); the attributes stay exact.
        known = [
            f"{label} {money(credits, usd)}"
            for label, credits, usd in (
                ("required", self.required_credits, self.required),
                ("available", self.available_credits, self.available),
            )
            if credits is not None or usd is not None
        ]
        suffix = f" ({', '.join(known)})" if known else ""
        return super()._describe() + suffix


class RateLimited(APIError):
    """429: over the per-key rate. ``retry_after`` is the server's wait in seconds."""

    def __init__(
        self,
        status_code: int,
        error_code: str | None,
        detail: Any,
        *,
        retry_after: float | None = None,
        **kw: Any,
    ) -> None:
        self.retry_after = retry_after
        super().__init__(status_code, error_code, detail, **kw)


VALIDATION_ERROR = "validation_error"
"""The ``error_code`` of a 422 whose body has none (the service's validation errors)."""


class ValidationError(APIError, ValueError):
    """422: the service rejected the request body or query.

    ``errors`` is the list of ``{loc, msg, type}`` issues; ``str()`` names each field;
    ``error_code`` is ``"validation_error"`` when the body gives none.

    Example:
        >>> exc = error_from_response(422, {"detail": [{"loc": ["body", "count"],
        ...     "msg": "must be >= 1", "type": "value_error"}]}, method="POST", path="/v1/x")
        >>> exc.error_code, type(exc).__name__
        ('validation_error', 'ValidationError')
    """

    @property
    def errors(self) -> list[dict[str, Any]]:
        """The ``{loc, msg, type}`` issues of the 422 body."""
        return (
            [dict(issue) for issue in self.detail if isinstance(issue, Mapping)]
            if isinstance(self.detail, list)
            else []
        )

    @property
    def message(self) -> str:
        issues = self.errors
        if not issues:
            return super().message
        return "; ".join(
            f"{'.'.join(str(part) for part in issue.get('loc', ()))}: {issue.get('msg', '')}"
            for issue in issues
        )


# -- one class per spec error_code --------------------------------------------------
class DatasetNotFound(NotFound, code="dataset_not_found"):
    """The dataset is absent (or another account's)."""


class AudienceDatasetNotFound(NotFound, code="audience_dataset_not_found"):
    """The audience dataset is absent."""


class CustomParameterNotFound(NotFound, code="custom_parameter_not_found"):
    """The custom parameter is absent."""


class PatternDetectionRunNotFound(NotFound, code="pattern_detection_run_not_found"):
    """The pattern detection run is absent."""


class ChatNotFound(NotFound, code="chat_not_found"):
    """The chat is absent or was created by another seat."""


class ResourceNotFound(NotFound, code="not_found"):
    """``not_found``: a tracking agent (or a dataset it references) is absent."""


class SourceDatasetHasNoCompletedRun(APIError, code="source_dataset_has_no_completed_run"):
    """An audience run targets a dataset with no completed run."""


class InsufficientCreditsDatasetRun(InsufficientCredits, code="insufficient_credits_dataset_run"):
    """The balance cannot fund a dataset run."""


class InsufficientCreditsAudienceDatasetRun(
    InsufficientCredits, code="insufficient_credits_audience_dataset_run"
):
    """The balance cannot fund an audience run."""


class InsufficientCreditsContentAnalysis(
    InsufficientCredits, code="insufficient_credits_content_analysis"
):
    """The balance cannot fund a custom parameter run."""


class InsufficientCreditsPatternDetection(
    InsufficientCredits, code="insufficient_credits_pattern_detection"
):
    """The balance cannot fund a pattern detection."""


class InsufficientCreditsResearchPreview(
    InsufficientCredits, code="insufficient_credits_research_preview"
):
    """The balance cannot fund a research preview."""


class InsufficientCreditsGeneric(InsufficientCredits, code="insufficient_credits"):
    """The generic 402 (e.g. a tracking agent trigger)."""


class InsufficientCreditsAsk(InsufficientCredits, code="insufficient_credits_ask"):
    """Ask with an already-spent balance: no turn and no charge."""


class AudienceDatasetRunAlreadyInFlight(Conflict, code="audience_dataset_run_already_in_flight"):
    """Another run of the audience dataset is pending or working."""


class CustomParameterRunInFlight(Conflict, code="custom_parameter_run_in_flight"):
    """A run of the custom parameter is already active."""


class TrackingAgentRunInProgress(Conflict, code="tracking_agent_run_in_progress"):
    """A trigger arrived while the agent's cycle runs."""


class CustomParameterLimitExceeded(APIError, code="custom_parameter_limit_exceeded"):
    """The account's custom parameter quota is reached."""


class CustomParameterDuplicateName(APIError, code="custom_parameter_duplicate_name"):
    """The custom parameter name is already used in the account."""


class CustomParameterEmptyName(APIError, code="custom_parameter_empty_name"):
    """The custom parameter name is empty."""


class NothingToAnalyze(APIError, code="nothing_to_analyze"):
    """The run's scope has nothing to process."""


class CollectionContentTypeMismatch(APIError, code="collection_content_type_mismatch"):
    """The run input does not match the dataset's content type."""


class DateFilterUnavailable(APIError, code="date_filter_unavailable"):
    """The plan does not allow this date range."""


class TrackingAgentLimitReached(APIError, code="tracking_agent_limit_reached"):
    """The account's tracking agent quota is reached."""


class DatasetHasNoQueries(APIError, code="dataset_has_no_queries"):
    """A trigger on a dataset with no search queries."""


class InvalidCursor(APIError, code="invalid_cursor"):
    """The cursor is malformed or comes from a different sort."""


class AIAssistantUnavailable(APIError, code="ai_assistant_unavailable"):
    """The assistant is unavailable."""


class AIAssistantTimeout(APIError, code="ai_assistant_timeout"):
    """The assistant timed out."""


class SourceUnavailable(APIError, code="source_unavailable"):
    """A requested source cannot be searched."""


class TooManyRequests(RateLimited, code="too_many_requests"):
    """429 ``too_many_requests``: over 5 requests per second for this key."""


_BY_STATUS: dict[int, type[APIError]] = {
    401: Unauthorized,
    402: InsufficientCredits,
    404: NotFound,
    409: Conflict,
    422: ValidationError,
    429: RateLimited,
}


def error_class(error_code: str | None, status_code: int) -> type[APIError]:
    """The class raised for ``error_code`` (registered, else by suffix, else by status).

    Example:
        >>> error_class("dataset_not_found", 404).__name__
        'DatasetNotFound'
        >>> error_class("brand_new_not_found", 400).__name__, error_class("brand_new", 503).__name__
        ('NotFound', 'ServerError')
    """
    if error_code in ERROR_CODES:
        return ERROR_CODES[error_code]
    if error_code:
        if error_code.endswith("_not_found"):
            return NotFound
        if error_code.endswith(("_in_flight", "_in_progress")):
            return Conflict
        if error_code.startswith("insufficient_credits"):
            return InsufficientCredits
    if status_code >= 500:
        return ServerError
    return _BY_STATUS.get(status_code, APIError)


def error_from_response(
    status_code: int,
    body: Any,
    *,
    method: str,
    path: str,
    retry_after_header: float | None = None,
) -> APIError:
    """Build the exception for an error response from its parsed JSON ``body``.

    Example:
        >>> body = {"status": "info", "error_code": "chat_not_found",
        ...         "detail": "Chat ch_1 not found", "transient": False}
        >>> exc = error_from_response(404, body, method="GET", path="/v1/chats/ch_1")
        >>> str(exc)
        'chat_not_found (HTTP 404) on GET /v1/chats/ch_1: Chat ch_1 not found'
    """
    fields = body if isinstance(body, Mapping) else {}
    code = fields.get("error_code")
    code = one_line(code) if isinstance(code, str) else None
    detail = fields.get("detail", body if isinstance(body, str) else None)
    # The message reaches terminals (tracebacks) and logs: no escape sequences from a body.
    detail = clean(detail) if isinstance(detail, str) else detail
    cls = error_class(code, status_code)
    if code is None and issubclass(cls, ValidationError):
        # The service's 422 body ({detail: [...]}) has no error_code: rdskit's stable one.
        code = VALIDATION_ERROR
    kwargs: dict[str, Any] = {
        "transient": bool(fields.get("transient", False)),
        "body": body,
        "method": method,
        "path": path,
    }
    if issubclass(cls, RateLimited):
        # The spec: prefer the Retry-After header; the body's retry_after_seconds otherwise.
        retry_after = retry_after_header
        if retry_after is None:
            retry_after = seconds_or_none(fields.get("retry_after_seconds"))
        kwargs["retry_after"] = retry_after
    return cls(status_code, code, detail, **kwargs)


def _decimal_or_none(value: Any) -> Decimal | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return Decimal(repr(value) if isinstance(value, float) else str(value))
    except InvalidOperation:
        return None


def seconds_or_none(value: Any) -> float | None:
    """A wait in seconds the service asks for, or None when it is not a finite number of
    seconds, 0 or more (``inf``, ``nan``, negative, text): the caller's own backoff applies.

    Example:
        >>> seconds_or_none("2.5"), seconds_or_none("inf"), seconds_or_none(-1)
        (2.5, None, None)
    """
    if isinstance(value, bool):
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None
