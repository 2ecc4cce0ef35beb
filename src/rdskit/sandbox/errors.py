"""The sandbox's errors, in one module below the API: what a rule breaks, not how it is sent.

:class:`ApiError` is a service error answered as ``{status, error_code, detail, transient}``;
:class:`FieldError` (made by :func:`invalid`) is a body field the request model accepts but
the service does not, answered as the spec's 422. Both are plain exceptions: backend modules
raise them without importing FastAPI, and the API layer
(:func:`rdskit.sandbox.api._common.install_error_handlers`) renders them; the MCP server
maps them to tool errors.

Example:
    >>> err = ApiError(404, "dataset_not_found", "Dataset ds_x not found")
    >>> err.body()["status"], err.body()["transient"]
    ('info', False)
    >>> invalid(("limit",), "limit must be between 1 and 100").errors()[0]["loc"]
    ('body', 'limit')
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

__all__ = [
    "STRICT",
    "ApiError",
    "FieldError",
    "error_status",
    "invalid",
    "parse_body",
    "validate_strictly",
]

M = TypeVar("M", bound=BaseModel)

STRICT = {"strict": True}
"""The validation context of a request body as the service reads it: JSON types as the
document states them (``0`` is not a boolean, ``"5"`` not an integer) and filters in their
wire form (:func:`rdskit.models.filters.normalize_filters` reads the context); the client
builds the same models leniently from friendlier input."""


def error_status(http_status: int) -> str:
    """The body's ``status``: ``client_error`` on 402, 409 and 429, ``info`` otherwise.

    Example:
        >>> error_status(402), error_status(404)
        ('client_error', 'info')
    """
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
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"{http_status} {error_code}: {detail}")
        self.http_status = http_status
        self.error_code = error_code
        self.detail = detail
        self.transient = transient
        self.extra = extra or {}
        self.headers = dict(headers) if headers is not None else None

    def body(self) -> dict[str, Any]:
        """The JSON error body."""
        return {
            "status": error_status(self.http_status),
            "error_code": self.error_code,
            "detail": self.detail,
            "transient": self.transient,
            **self.extra,
        }


class FieldError(Exception):
    """A request field the model accepts but the service does not: answered as a 422.

    ``errors()`` has the shape of pydantic's and FastAPI's validation errors, so the API
    layer and the MCP server render all three the same way.

    Example:
        >>> FieldError([{"loc": ("body", "sort"), "msg": "no", "type": "value_error"}]).errors()
        [{'loc': ('body', 'sort'), 'msg': 'no', 'type': 'value_error'}]
    """

    def __init__(self, errors: Sequence[dict[str, Any]]) -> None:
        super().__init__(errors)
        self._errors = list(errors)

    def errors(self) -> list[dict[str, Any]]:
        """The validation error items ``{loc, msg, type}``."""
        return list(self._errors)


def invalid(loc: Sequence[str], msg: str) -> FieldError:
    """The spec's 422 for a body field at ``loc`` that the model accepts but the service does not.

    Example:
        >>> invalid(("sort",), "sort must be date").errors()[0]["loc"]
        ('body', 'sort')
    """
    return FieldError([{"loc": ("body", *loc), "msg": msg, "type": "value_error"}])


def validate_strictly(model: type[M], data: Any) -> M:
    """``data`` (a parsed JSON body) validated as the service reads it (:data:`STRICT`):
    each value of the JSON type the document states, where a number without a fraction is
    an integer, as JSON Schema has it (``2.0`` is a count, ``"2"`` and ``true`` are not).

    Raises pydantic's ``ValidationError``.

    Example:
        >>> from rdskit.models import AudienceRunCreate
        >>> body = {"source_dataset_id": "ds_1", "total_profile_count": 2.0}
        >>> validate_strictly(AudienceRunCreate, body).total_profile_count
        2
    """
    return model.model_validate_json(json.dumps(_whole(data)), strict=True, context=STRICT)


def _whole(value: Any) -> Any:
    """``value`` with every float that has no fraction made an int (``2.0`` -> ``2``)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole(item) for item in value]
    if isinstance(value, dict):
        return {key: _whole(item) for key, item in value.items()}
    return value


def parse_body(model: type[M], data: Any, *, loc: tuple[str, ...] = ("body",)) -> M:
    """Validate ``data`` (a JSON body) with a request model, strictly
    (:func:`validate_strictly`); failures become the spec's 422.

    Use it for bodies validated by hand (e.g. a tagged union chosen at run time); every
    body FastAPI validates is checked the same way first
    (:func:`rdskit.sandbox.api._common.conform`).

    Example:
        >>> from rdskit.models import PromptPreviewRequest
        >>> try:
        ...     parse_body(PromptPreviewRequest, {"type": "prompt"})
        ... except FieldError as exc:
        ...     print(exc.errors()[0]["loc"])
        ('body', 'search_query')
    """
    try:
        return validate_strictly(model, data)
    except ValidationError as exc:
        raise FieldError([{**err, "loc": (*loc, *err["loc"])} for err in exc.errors()]) from exc
