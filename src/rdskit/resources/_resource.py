"""What every resource module shares: the base class and client-side input checks.

A resource method validates its input through the request model (so a dict, a list or
a model are all accepted and checked before any request), describes the call with an
:class:`~rdskit._base_client.APIRequest` and hands it to its client:

- ``self._client._request(req)``: one call; the value (Client) or an awaitable (AsyncClient);
- ``self._client._paginate(req)``: a list call; ``SyncPage`` or ``AsyncPager``;
- ``self._client._run(flow)``: a flow of several calls written as a generator
  (``yield from self._client._core.call(req)``), e.g. a paid call behind the budget guard
  (``self._client._guarded(kind, req, params)``).

Return annotations describe :class:`~rdskit.Client`; on :class:`~rdskit.AsyncClient` the
same methods return awaitables of those types, and list calls return ``AsyncPager``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, overload

import pydantic

from rdskit._base_client import AsyncAPIClient, check_encodable, discard
from rdskit._bodies import check_request_size
from rdskit.errors import InvalidParameter
from rdskit.models import RdsModel

if TYPE_CHECKING:
    from rdskit._base_client import APIRequest, Flow, HTTPCore
    from rdskit.pagination import SyncPage

__all__ = [
    "MAX_LIMIT",
    "APIClient",
    "Resource",
    "check_limit",
    "discard",
    "given",
    "sync_only",
    "validated",
]

M = TypeVar("M", bound=RdsModel)
T = TypeVar("T")
R = TypeVar("R")

MAX_LIMIT = 100
"""Upper bound of every list ``limit`` (1..100)."""


class APIClient(Protocol):
    """What resources use of a client, typed as :class:`~rdskit.Client` runs it.

    :class:`~rdskit.AsyncClient` runs the same methods and returns awaitables (and
    ``AsyncPager`` for lists); its static types are generated from these
    (``rdskit/_async.pyi``, see :mod:`rdskit._stubgen`), so each endpoint is written once.
    """

    _core: HTTPCore

    def _run(self, flow: Flow[T]) -> T: ...

    def _request(self, request: APIRequest[T]) -> T: ...

    def _paginate(self, request: APIRequest[T]) -> SyncPage[T]: ...

    @overload
    def _guarded(
        self,
        kind: str,
        request: APIRequest[T],
        params: Mapping[str, Any],
        *,
        then: None = None,
        units: Callable[[T], int | None] | None = None,
    ) -> Flow[T]: ...

    @overload
    def _guarded(
        self,
        kind: str,
        request: APIRequest[T],
        params: Mapping[str, Any],
        *,
        then: Callable[[T], Flow[R]],
        units: Callable[[R], int | None] | None = None,
    ) -> Flow[R]: ...

    def _scheduled(self, request: APIRequest[T], count: int | None, datasets: int) -> Flow[T]: ...

    def _within_depth(self, count: int | None, start: Flow[T]) -> Flow[T]: ...

    def _budgeted(self) -> bool: ...


class Resource:
    """Base of resource classes: holds the client every call goes through."""

    def __init__(self, client: APIClient) -> None:
        self._client = client

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def _frames_client(self, method: str) -> Any:
        return sync_only(self._client, method)


def sync_only(client: Any, method: str) -> Any:
    """``client``, for a DataFrame loader (they page synchronously); refuses AsyncClient."""
    if isinstance(client, AsyncAPIClient):
        raise TypeError(
            f"{method}() needs rdskit.Client (DataFrame loaders page synchronously); "
            "with AsyncClient, collect the models and pass them to the rdskit.frames loaders"
        )
    return client


def given(**fields: Any) -> dict[str, Any]:
    """The keyword arguments that were passed (not None), as a request body.

    Example:
        >>> given(name="oat", limit=None)
        {'name': 'oat'}
    """
    return {key: value for key, value in fields.items() if value is not None}


def validated(model: type[M], value: Any, field: str | None = None, *, whole: str = "request") -> M:
    """``value`` (a model or plain dict/list) validated by ``model``, before any request.

    ``field`` prefixes error locations when ``value`` is one parameter of the call;
    ``whole`` names errors about the value as a whole (a rule across several fields).

    Raises:
        InvalidParameter: naming the offending field(s) (a ``ValueError``).

    Example:
        >>> from rdskit.models import DatasetCreate
        >>> validated(DatasetCreate, {"name": "oat"}).name
        'oat'
        >>> validated(DatasetCreate, {})
        Traceback (most recent call last):
        ...
        rdskit.errors.InvalidParameter: name: Field required
    """
    if isinstance(value, RdsModel):
        value = value.to_wire()  # re-checked: a model may have been built without validation
    # Too large to send is said first, before pydantic copies (and checks) a 50 MB string.
    check_request_size(value if field is None else {field: value})
    try:
        return model.model_validate(value)
    except pydantic.ValidationError as exc:
        problems = [_describe(error, field, whole) for error in exc.errors()]
        name, message = problems[0]  # the error names the first field itself
        if len(problems) > 1:
            message = "; ".join([message, *(f"{loc}: {msg}" for loc, msg in problems[1:])])
        raise InvalidParameter(name, message) from None


def _describe(error: Any, field: str | None, whole: str) -> tuple[str, str]:
    loc = [str(part) for part in error["loc"]]
    name = ".".join([field, *loc] if field else loc) or whole
    if error["type"] == "string_unicode" and isinstance(error.get("input"), str):
        try:  # pydantic's "unable to parse raw data": say which character, as paths do
            check_encodable(error["input"], name)
        except InvalidParameter as exc:
            return name, str(exc).removeprefix(f"{name}: ")
    # Model validators often name the field themselves; say it once.
    return name, str(error["msg"]).removeprefix("Value error, ").removeprefix(f"{name}: ")


def check_limit(limit: int | None) -> None:
    """Refuse a list ``limit`` outside 1..100 before any request.

    Example:
        >>> check_limit(0)
        Traceback (most recent call last):
        ...
        rdskit.errors.InvalidParameter: limit: must be between 1 and 100, got 0
    """
    if limit is None:
        return
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidParameter("limit", f"must be between 1 and {MAX_LIMIT}, got {limit!r}")
