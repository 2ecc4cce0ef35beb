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

import functools
import json
import logging
import re
import secrets
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, NamedTuple, TypeVar

from fastapi import Depends, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute

from rdskit.sandbox.backend.mention_wire import encode
from rdskit.sandbox.errors import (
    ApiError,
    FieldError,
    error_status,
    invalid,
    parse_body,
    validate_strictly,
)
from rdskit.sandbox.runtime.clock import Clock
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.store.accounts import key_digest, key_owner, refusal
from rdskit.sandbox.store.cursors import ListParams, page
from rdskit.sandbox.store.db import Store, row_or_404

__all__ = [
    "Admin",
    "ApiError",
    "Auth",
    "Clock",
    "FieldError",
    "List10",
    "List25",
    "ListParams",
    "Newest25",
    "Principal",
    "SettingsDep",
    "StoreDep",
    "conform",
    "error_response",
    "error_status",
    "install_error_handlers",
    "internal_error",
    "invalid",
    "json_page",
    "key_digest",
    "list_params",
    "ok",
    "page",
    "parse_body",
    "row_or_404",
]

M = TypeVar("M", bound=BaseModel)

log = logging.getLogger("rdskit.sandbox")


# -- envelopes --------------------------------------------------------------------
def ok(data: Any, status: str = "success") -> dict[str, Any]:
    """The success envelope ``{status, data}``.

    Example:
        >>> ok({"id": "ds_1"})
        {'status': 'success', 'data': {'id': 'ds_1'}}
    """
    return {"status": status, "data": data}


def json_page(items: Sequence[str], *, has_next: bool, cursor: str | None) -> Response:
    """The list envelope (:func:`page`) around items that are JSON text already.

    Example:
        >>> json_page(['{"id":1}'], has_next=False, cursor=None).body
        b'{"status":"success","data":[{"id":1}],"has_next":false,"cursor":null}'
    """
    before, after = encode(page([], has_next=has_next, cursor=cursor)).split(_NO_DATA)
    # Items encoded one by one: one large str built and encoded whole costs ~5x as much
    # (fresh megabyte buffers, page by page).
    data = b",".join([item.encode() for item in items])
    body = b"".join([before.encode(), b'"data":[', data, b"]", after.encode()])
    return Response(body, media_type="application/json")


_NO_DATA = '"data":[]'


# -- errors -----------------------------------------------------------------------
def error_response(error: ApiError) -> JSONResponse:
    """``error`` as a response (its body, status and headers).

    Example:
        >>> error_response(ApiError(404, "dataset_not_found", "no")).status_code
        404
    """
    return JSONResponse(error.body(), status_code=error.http_status, headers=error.headers)


def _validation_items(errors: Sequence[Any]) -> list[dict[str, Any]]:
    """Reduce pydantic/FastAPI error dicts to the spec's ``{loc: [string], msg, type}``."""
    return [
        {"loc": [str(part) for part in err["loc"]], "msg": err["msg"], "type": err["type"]}
        for err in errors
    ]


def internal_error(request: Request, exc: BaseException | None) -> JSONResponse:
    """A 500 that names the request, never the failure: details go to the server log.

    The body carries ``request_id`` (also the ``x-request-id`` header) so a user can quote
    it; the exception, its message and traceback are logged under that id only.
    """
    request_id = getattr(request.state, "request_id", None) or secrets.token_hex(8)
    if exc is not None:
        log.error("request %s failed", request_id, exc_info=exc)
    return error_response(
        ApiError(
            500,
            "internal_error",
            f"Internal error. Quote request id {request_id} when reporting it.",
            transient=True,
            extra={"request_id": request_id},
            headers={"x-request-id": request_id},
        )
    )


_HTTP_CODES = {401: "unauthorized", 404: "not_found", 405: "method_not_allowed"}


def _allowed_methods(request: Request) -> list[str]:
    """The methods the OpenAPI document gives ``request``'s path, sorted (a 405's ``Allow``).

    Read from the document, not the router: FastAPI wraps included routers in objects
    whose routes it does not expose (the Allow header came out empty), and
    ``/v1/custom_parameters/preview`` also matches ``/v1/custom_parameters/{parameter_id}``,
    whose GET/PATCH/DELETE are not the preview path's methods: the most specific template
    (the fewest parameters) is the path's.
    """
    path = request.url.path
    matched: dict[int, set[str]] = {}
    for template, item in request.app.openapi().get("paths", {}).items():
        if _template(template).fullmatch(path):
            methods = {m.upper() for m in item if m in _HTTP_METHODS}
            matched.setdefault(template.count("{"), set()).update(methods)
    return sorted(matched[min(matched)]) if matched else []


_HTTP_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})


@functools.lru_cache(maxsize=256)
def _template(template: str) -> re.Pattern[str]:
    """A path template (``/v1/datasets/{dataset_id}``) as a pattern of one segment a name."""
    parts = re.split(r"(\{[^}]+\})", template)
    return re.compile("".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts))


def install_error_handlers(app: Any) -> None:
    """Render ApiError, 422s, unknown routes and crashes in the spec's error shapes."""

    async def api_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return error_response(exc)

    async def validation_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, (RequestValidationError, FieldError))
        return JSONResponse({"detail": _validation_items(exc.errors())}, status_code=422)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 400:
            # Starlette's "error parsing the body": the spec answers malformed bodies 422.
            item = {"loc": ["body"], "msg": str(exc.detail), "type": "json_invalid"}
            return JSONResponse({"detail": [item]}, status_code=422)
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(_allowed_methods(request))
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        return error_response(
            ApiError(exc.status_code, code, str(exc.detail), headers=headers or None)
        )

    async def crash(request: Request, exc: Exception) -> JSONResponse:
        return internal_error(request, exc)

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(FieldError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, crash)


# -- dependencies -----------------------------------------------------------------
def _declared_query(route: BaseRoute) -> tuple[str, ...]:
    """The query parameters ``route`` and its dependencies declare (those its document
    lists): a walk of a few nodes, cheaper than a cache keyed by an unhashable route."""
    names: list[str] = []
    stack = [getattr(route, "dependant", None)]
    while stack:
        dependant = stack.pop()
        if dependant is not None:
            names += [field.alias for field in dependant.query_params]
            stack += dependant.dependencies
    return tuple(dict.fromkeys(names))


def _query_problems(route: BaseRoute, request: Request) -> list[dict[str, Any]]:
    declared = _declared_query(route)
    errors = []
    for name in dict.fromkeys(request.query_params.keys()):
        values = request.query_params.getlist(name)
        if name not in declared:
            accepted = ", ".join(declared) or "none"
            msg = f"Unknown query parameter (this operation takes: {accepted})"
        elif len(values) > 1:
            msg = "Query parameter given more than once"
        else:
            continue
        errors.append(
            {"loc": ("query", name), "msg": msg, "type": "extra_forbidden", "input": values}
        )
    return errors


async def _body_problems(route: BaseRoute, request: Request) -> list[Any]:
    dependant = getattr(route, "dependant", None)
    fields = dependant.body_params if dependant is not None else []
    model = fields[0].field_info.annotation if len(fields) == 1 else None
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return []  # no body, or a dict validated by hand (errors.parse_body: strict too)
    raw = await request.body()  # read already by FastAPI: cached, not read twice
    try:
        data = json.loads(raw)
    except ValueError:
        return []  # no body, or not JSON: FastAPI answers it itself
    try:
        validate_strictly(model, data)
    except ValidationError as exc:
        return [{**err, "loc": ("body", *err["loc"])} for err in exc.errors()]
    return []


async def conform(request: Request) -> None:
    """Refuse what the document does not describe, before the route runs: 422 in the
    spec's validation shape, naming the parameter or field.

    - A query parameter the operation does not declare, or one given twice (no operation
      takes a list in its query): the document lists each operation's parameters and no
      others, and an unknown one ignored would let a typo (``?limt=5``) pass silently.
    - A body whose JSON types are not the document's: FastAPI validates leniently
      (``0`` read as false, ``"5"`` as 5, a flat list of filters as one group); the body
      is first validated strictly (:func:`rdskit.sandbox.errors.validate_strictly`).
      Unknown body fields are kept, as the spec's models keep them (the document declares
      them as any JSON value).

    A route's own rules (a name not blank, a known sort) stay the route's.

    Example:
        >>> app = FastAPI(dependencies=[Depends(conform)])  # doctest: +SKIP
    """
    route = request.scope["route"]
    errors = _query_problems(route, request) + await _body_problems(route, request)
    if errors:
        raise RequestValidationError(errors)


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


def authenticate(store: StoreDep, x_api_key: Annotated[str | None, Header()] = None) -> Principal:
    """Resolve ``x-api-key`` to its account and seat; 401 when missing or revoked."""
    digest = key_digest(x_api_key or "")
    with store.read() as conn:
        row = key_owner(conn, digest) if x_api_key else None
        if row is None:
            raise ApiError(401, "unauthorized", refusal(conn, x_api_key or ""))
    return Principal(row["account_id"], row["seat_id"], digest)


Auth = Annotated[Principal, Depends(authenticate)]


def require_admin(
    settings: SettingsDep, x_admin_token: Annotated[str | None, Header()] = None
) -> None:
    """Guard for ``/sandbox/...``: the ``x-admin-token`` header must match the settings."""
    if x_admin_token != settings.admin_token:
        raise ApiError(401, "unauthorized", "Missing or wrong x-admin-token header.")


Admin = Depends(require_admin)


Cursor = Annotated[str, Query()]
"""A page's ``cursor``: a string, empty or absent for the first page. Not ``str | None``:
a query value is never JSON null, and the document's null branch let schemathesis call
``?cursor=`` (its "null made an object") a schema-violating request."""


def list_params(default_limit: int, *, ordered: bool = True) -> Callable[..., ListParams]:
    """A dependency for ``limit`` (``default_limit``, 1..100), ``cursor`` and, when
    ``ordered``, ``order`` (else always newest first, and ``order`` is not a parameter).

    Example:
        >>> list_params(10)(limit=3, cursor="", order="asc").limit
        3
        >>> list_params(25, ordered=False)(limit=3, cursor="").order
        'desc'
    """

    def dependency(
        limit: Annotated[int, Query(ge=1, le=100)] = default_limit,
        cursor: Cursor = "",
        order: Annotated[Literal["asc", "desc"], Query()] = "desc",
    ) -> ListParams:
        return ListParams(limit, cursor or None, order)

    def newest_first(
        limit: Annotated[int, Query(ge=1, le=100)] = default_limit,
        cursor: Cursor = "",
    ) -> ListParams:
        return ListParams(limit, cursor or None, "desc")

    return dependency if ordered else newest_first


List10 = Annotated[ListParams, Depends(list_params(10))]
"""Datasets, dataset runs, audience datasets and audience runs: default limit 10."""

List25 = Annotated[ListParams, Depends(list_params(25))]
"""Chat messages: default limit 25."""

Newest25 = Annotated[ListParams, Depends(list_params(25, ordered=False))]
"""Tracking messages and usage history: ``limit`` (default 25) and ``cursor``, newest
first (the spec lists no ``order`` for them)."""
