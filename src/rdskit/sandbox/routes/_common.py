"""What every sandbox route uses: envelopes, errors, auth, list parameters, dependencies.

A route module looks like this (see docs/sandbox-internals.md)::

    router = APIRouter(prefix="/v1")

    @router.get("/things/{thing_id}")
    def get_thing(thing_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
        with store.read() as conn:
            row = row_or_404(conn, "things", "thing_not_found", f"Thing {thing_id} not found",
                             id=thing_id, account_id=who.account_id)
        return ok(Thing.model_validate(...).to_wire())

Routes are plain ``def`` functions: FastAPI runs them on its thread pool, where blocking
SQLite calls are fine.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NamedTuple, TypeVar

from fastapi import Depends, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from rdskit.sandbox.db import Clock, Connection, Store
from rdskit.sandbox.settings import Settings

__all__ = [
    "Admin",
    "ApiError",
    "Auth",
    "Clock",
    "List10",
    "List25",
    "ListParams",
    "Principal",
    "SettingsDep",
    "StoreDep",
    "error_status",
    "install_error_handlers",
    "invalid",
    "key_digest",
    "list_params",
    "ok",
    "page",
    "parse_body",
    "row_or_404",
]

M = TypeVar("M", bound=BaseModel)


# -- envelopes --------------------------------------------------------------------
def ok(data: Any, status: str = "success") -> dict[str, Any]:
    """The success envelope ``{status, data}``.

    Example:
        >>> ok({"id": "ds_1"})
        {'status': 'success', 'data': {'id': 'ds_1'}}
    """
    return {"status": status, "data": data}


def page(
    items: Sequence[Any], *, has_next: bool, cursor: str | None, status: str = "success"
) -> dict[str, Any]:
    """The list envelope ``{status, data, has_next, cursor}`` (cursor is null on the last page).

    Example:
        >>> page([], has_next=False, cursor=None)
        {'status': 'success', 'data': [], 'has_next': False, 'cursor': None}
    """
    return {"status": status, "data": list(items), "has_next": has_next, "cursor": cursor}


# -- errors -----------------------------------------------------------------------
def error_status(http_status: int) -> str:
    """The body's ``status``: ``client_error`` on 402, 409 and 429, ``info`` otherwise."""
    return "client_error" if http_status in (402, 409, 429) else "info"


class ApiError(Exception):
    """An error answered as ``{status, error_code, detail, transient}`` (+ ``extra`` keys).

    Example:
        >>> err = ApiError(404, "dataset_not_found", "Dataset ds_x not found")
        >>> err.body()["status"], err.body()["transient"]
        ('info', False)
    """

    def __init__(
        self,
        http_status: int,
        error_code: str,
        detail: str | dict[str, Any],
        *,
        transient: bool = False,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{http_status} {error_code}: {detail}")
        self.http_status = http_status
        self.error_code = error_code
        self.detail = detail
        self.transient = transient
        self.extra = extra or {}
        self.headers = headers

    def body(self) -> dict[str, Any]:
        """The JSON error body."""
        return {
            "status": error_status(self.http_status),
            "error_code": self.error_code,
            "detail": self.detail,
            "transient": self.transient,
            **self.extra,
        }

    def response(self) -> JSONResponse:
        """The error as a response."""
        return JSONResponse(self.body(), status_code=self.http_status, headers=self.headers)


def _validation_items(errors: Sequence[Any]) -> list[dict[str, Any]]:
    """Reduce pydantic/FastAPI error dicts to the spec's ``{loc: [string], msg, type}``."""
    return [
        {"loc": [str(part) for part in err["loc"]], "msg": err["msg"], "type": err["type"]}
        for err in errors
    ]


def parse_body(model: type[M], data: Any, *, loc: tuple[str, ...] = ("body",)) -> M:
    """Validate ``data`` with a request model; failures become the spec's 422.

    Use it for bodies validated by hand (e.g. a tagged union chosen at run time); a
    parameter annotated with the model gets the same 422 from FastAPI itself.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = [{**err, "loc": (*loc, *err["loc"])} for err in exc.errors()]
        raise RequestValidationError(errors) from exc


def row_or_404(
    conn: Connection, source: str, missing: str, detail: str, *, live: bool = False, **match: Any
) -> sqlite3.Row:
    """The row of ``source`` whose columns equal ``match`` (and not soft-deleted when
    ``live``), or a 404 ``missing`` error with ``detail``.

    Example:
        >>> store = Store(":memory:")
        >>> with store.transaction() as conn:
        ...     _ = conn.execute("CREATE TEMP TABLE things (id TEXT, account_id TEXT)")
        ...     _ = conn.execute("INSERT INTO things VALUES ('th_1', 'acc_1')")
        ...     row = row_or_404(conn, "things", "thing_not_found", "no", id="th_1")
        >>> row["account_id"]
        'acc_1'
        >>> with store.transaction() as conn:
        ...     row_or_404(conn, "things", "thing_not_found", "Thing th_2 not found", id="th_2")
        Traceback (most recent call last):
        rdskit.sandbox.routes._common.ApiError: 404 thing_not_found: Thing th_2 not found
        >>> store.close()
    """
    where = " AND ".join([*(f"{column} = ?" for column in match), *(["deleted_at IS NULL"] * live)])
    row: sqlite3.Row | None = conn.execute(
        f"SELECT * FROM {source} WHERE {where}", tuple(match.values())
    ).fetchone()
    if row is None:
        raise ApiError(404, missing, detail)
    return row


def invalid(loc: Sequence[str], msg: str) -> RequestValidationError:
    """The spec's 422 for a body field at ``loc`` that the model accepts but the service does not.

    Example:
        >>> invalid(("sort",), "sort must be date").errors()[0]["loc"]
        ('body', 'sort')
    """
    return RequestValidationError([{"loc": ("body", *loc), "msg": msg, "type": "value_error"}])


_HTTP_CODES = {401: "unauthorized", 404: "not_found", 405: "method_not_allowed"}


def install_error_handlers(app: Any) -> None:
    """Render ApiError, 422s, unknown routes and crashes in the spec's error shapes."""

    async def api_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return exc.response()

    async def validation_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return JSONResponse({"detail": _validation_items(exc.errors())}, status_code=422)

    async def http_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        return ApiError(exc.status_code, code, str(exc.detail), headers=exc.headers).response()

    async def crash(_: Request, exc: Exception) -> JSONResponse:
        return ApiError(
            500, "internal_error", f"{type(exc).__name__}: {exc}", transient=True
        ).response()

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, crash)


# -- dependencies -----------------------------------------------------------------
def get_store(request: Request) -> Store:
    """The app's store (set by ``create_app``)."""
    store: Store = request.app.state.store
    return store


def get_settings(request: Request) -> Settings:
    """The app's settings (set by ``create_app``)."""
    settings: Settings = request.app.state.settings
    return settings


StoreDep = Annotated[Store, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


class Principal(NamedTuple):
    """Who is calling: the key's account and seat, and the key's SHA-256 digest."""

    account_id: str
    seat_id: str
    key_digest: str


def key_digest(api_key: str) -> str:
    """SHA-256 hex digest of a raw API key: the only form the sandbox stores."""
    return hashlib.sha256(api_key.encode()).hexdigest()


def authenticate(store: StoreDep, x_api_key: Annotated[str | None, Header()] = None) -> Principal:
    """Resolve ``x-api-key`` to its account and seat; 401 when missing or revoked."""
    if x_api_key:
        digest = key_digest(x_api_key)
        with store.read() as conn:
            row = conn.execute(
                "SELECT account_id, seat_id FROM api_keys WHERE digest = ? AND revoked_at IS NULL",
                (digest,),
            ).fetchone()
        if row is not None:
            return Principal(row["account_id"], row["seat_id"], digest)
    raise ApiError(401, "unauthorized", "Missing or revoked API key (x-api-key header).")


Auth = Annotated[Principal, Depends(authenticate)]


def require_admin(
    settings: SettingsDep, x_admin_token: Annotated[str | None, Header()] = None
) -> None:
    """Guard for ``/sandbox/...``: the ``x-admin-token`` header must match the settings."""
    if x_admin_token != settings.admin_token:
        raise ApiError(401, "unauthorized", "Missing or wrong x-admin-token header.")


Admin = Depends(require_admin)


@dataclass(frozen=True)
class ListParams:
    """Validated ``limit``, ``cursor`` and ``order`` of a list endpoint."""

    limit: int
    cursor: str | None
    order: Literal["asc", "desc"]


def list_params(default_limit: int) -> Callable[..., ListParams]:
    """A dependency for ``limit`` (``default_limit``, 1..100), ``cursor`` and ``order``.

    Example:
        >>> list_params(10)(limit=3, cursor=None, order="asc").limit
        3
    """

    def dependency(
        limit: Annotated[int, Query(ge=1, le=100)] = default_limit,
        cursor: Annotated[str | None, Query()] = None,
        order: Annotated[Literal["asc", "desc"], Query()] = "desc",
    ) -> ListParams:
        return ListParams(limit, cursor or None, order)

    return dependency


List10 = Annotated[ListParams, Depends(list_params(10))]
"""Datasets, dataset runs, audience datasets and audience runs: default limit 10."""

List25 = Annotated[ListParams, Depends(list_params(25))]
"""Chat messages, tracking messages, usage history: default limit 25."""
