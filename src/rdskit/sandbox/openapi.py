"""The sandbox's published OpenAPI, made usable by tools (schemathesis, generators).

FastAPI's own document lists the routes and request bodies; :func:`complete` adds what a
tool needs and FastAPI cannot know (the routes return plain envelopes):

- ``securitySchemes``: ``ApiKey`` (header ``x-api-key``) on every ``/v1`` operation (and
  the emulator-only ``guard.KEYED_SANDBOX_PATHS``) and ``AdminToken`` (``x-admin-token``)
  on the other ``/sandbox`` ones, instead of header parameters;
- response schemas built from the shared models (``rdskit.models``), in the success
  envelope ``{status, data}`` or the list envelope ``{status, data, has_next, cursor}``;
- the error responses (400, 401, 402, 404, 409, 413, 422, 429, 500, 503) with their bodies;
- the request bounds of :mod:`rdskit.sandbox.runtime.guard` on every request schema and parameter.

No FastAPI import: it rewrites a schema dict.

Example:
    >>> doc = complete({"openapi": "3.1.0", "paths": {"/v1/me": {"get": {"responses": {}}}}})
    >>> me = doc["paths"]["/v1/me"]["get"]
    >>> me["security"], sorted(me["responses"])[:3]
    ([{'ApiKey': []}], ['200', '400', '401'])
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, TypeAdapter

from rdskit import models as m
from rdskit.sandbox.runtime import guard

__all__ = ["ERROR_STATUSES", "RESPONSES", "complete"]

Shape = Literal["one", "page", "list", "none"]

RESPONSES: dict[tuple[str, str], tuple[type[BaseModel] | None, Shape]] = {
    ("get", "/v1/me"): (m.Account, "one"),
    ("get", "/v1/me/usage_history"): (m.UsageRow, "page"),
    ("get", "/v1/prices"): (m.Prices, "one"),
    ("post", "/v1/datasets"): (m.Dataset, "one"),
    ("get", "/v1/datasets"): (m.Dataset, "page"),
    ("get", "/v1/datasets/{container_id}"): (m.Dataset, "one"),
    ("patch", "/v1/datasets/{container_id}"): (m.Dataset, "one"),
    ("delete", "/v1/datasets/{container_id}"): (None, "none"),
    ("post", "/v1/datasets/{dataset_id}/runs"): (m.DatasetRun, "one"),
    ("get", "/v1/datasets/{parent_id}/runs"): (m.DatasetRun, "page"),
    ("get", "/v1/datasets/{parent_id}/runs/{run_id}"): (m.DatasetRun, "one"),
    ("post", "/v1/audience_datasets"): (m.AudienceDataset, "one"),
    ("get", "/v1/audience_datasets"): (m.AudienceDataset, "page"),
    ("get", "/v1/audience_datasets/{container_id}"): (m.AudienceDataset, "one"),
    ("patch", "/v1/audience_datasets/{container_id}"): (m.AudienceDataset, "one"),
    ("delete", "/v1/audience_datasets/{container_id}"): (None, "none"),
    ("post", "/v1/audience_datasets/{audience_dataset_id}/runs"): (m.AudienceRun, "one"),
    ("get", "/v1/audience_datasets/{parent_id}/runs"): (m.AudienceRun, "page"),
    ("get", "/v1/audience_datasets/{parent_id}/runs/{run_id}"): (m.AudienceRun, "one"),
    ("post", "/v1/audience_profiles"): (m.AudienceProfile, "page"),
    ("post", "/v1/mentions"): (m.Mention, "page"),
    ("post", "/v1/custom_parameters"): (m.CustomParameter, "one"),
    ("get", "/v1/custom_parameters"): (m.CustomParameter, "list"),
    ("post", "/v1/custom_parameters/preview"): (m.CustomParameterPreview, "one"),
    ("get", "/v1/custom_parameters/{parameter_id}"): (m.CustomParameter, "one"),
    ("patch", "/v1/custom_parameters/{parameter_id}"): (m.CustomParameter, "one"),
    ("delete", "/v1/custom_parameters/{parameter_id}"): (None, "none"),
    ("post", "/v1/custom_parameters/{parameter_id}/runs"): (m.CustomParameterRunStarted, "one"),
    ("get", "/v1/custom_parameters/{parent_id}/runs"): (m.CustomParameterRun, "page"),
    ("get", "/v1/custom_parameters/{parent_id}/runs/{run_id}"): (m.CustomParameterRun, "one"),
    ("post", "/v1/tracking_agents"): (m.TrackingAgent, "one"),
    ("get", "/v1/tracking_agents"): (m.TrackingAgent, "list"),
    ("get", "/v1/tracking_agents/{agent_id}"): (m.TrackingAgent, "one"),
    ("patch", "/v1/tracking_agents/{agent_id}"): (m.TrackingAgent, "one"),
    ("delete", "/v1/tracking_agents/{agent_id}"): (None, "none"),
    ("post", "/v1/tracking_agents/{agent_id}/pause"): (None, "none"),
    ("post", "/v1/tracking_agents/{agent_id}/resume"): (None, "none"),
    ("post", "/v1/tracking_agents/{agent_id}/trigger"): (m.TrackingRun, "one"),
    ("get", "/v1/tracking_agents/{agent_id}/messages"): (m.TrackingMessage, "page"),
    ("post", "/v1/ask"): (m.AskAccepted, "one"),
    ("get", "/v1/chats/{chat_id}"): (m.Chat, "one"),
    ("get", "/v1/chats/{chat_id}/messages"): (m.ChatMessage, "page"),
    ("get", "/v1/chats/{chat_id}/messages/{message_id}"): (m.ChatMessage, "one"),
    ("post", "/v1/pattern_detections"): (m.PatternDetectionRun, "one"),
    ("get", "/v1/pattern_detections/{run_id}"): (m.PatternDetectionRun, "one"),
    ("get", "/v1/patterns/{pattern_id}"): (m.Pattern, "one"),
    ("get", "/v1/patterns/{pattern_id}/items/{item_id}"): (m.PatternItemDetail, "one"),
    ("post", "/v1/research_previews"): (m.ResearchPreview, "one"),
    ("get", "/v1/research_previews/{preview_id}"): (m.ResearchPreview, "one"),
}
"""``(method, path)`` -> the shared model of ``data`` and the envelope it comes in."""

REQUEST_BODIES: dict[tuple[str, str], Any] = {
    # Validated by hand (a tagged union chosen at run time), so FastAPI sees a plain dict.
    ("post", "/v1/research_previews"): m.PromptPreviewRequest | m.UrlPreviewRequest,
}

ERROR_STATUSES = {
    "400": "A request the service refuses (e.g. date_filter_unavailable, source_unavailable)",
    "401": "Missing or revoked API key",
    "402": "Insufficient balance: detail is {message, required, available, top_up_url}",
    "404": "Absent, or another account's (another seat's chat)",
    "409": "In flight or duplicate (audience run, custom parameter run, name)",
    "413": "Request body larger than the sandbox accepts",
    "429": "Rate limit: retry_after_seconds in the body, Retry-After header",
    "500": "Internal error: a generic message and request_id, never internals",
    "503": "Service unavailable (sandbox chaos rules)",
}

MAX_PATH_PARAM = 200
"""Longest id in a path the schema promises to answer (ids are ~20 characters; a URL line
of several kilobytes is refused by the HTTP server itself before the app sees it)."""

_OUT = "Out_"  # response schemas (serialization mode) live apart from request ones
_ERROR = {"$ref": f"#/components/schemas/{_OUT}ErrorBody"}
_VALIDATION = {"$ref": f"#/components/schemas/{_OUT}ValidationErrorBody"}


def _schema_of(
    model: Any, mode: Literal["validation", "serialization"], prefix: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(schema, definitions)`` of a model or union, refs pointing at components."""
    schema = TypeAdapter(model).json_schema(
        mode=mode, ref_template=f"#/components/schemas/{prefix}{{model}}"
    )
    defs = schema.pop("$defs", {})
    return schema, {f"{prefix}{name}": value for name, value in defs.items()}


def _register(components: dict[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    """A ``$ref`` to ``model``'s response schema, adding it (and its parts) to components."""
    schema, defs = _schema_of(model, "serialization", _OUT)
    components.update(defs)
    components[f"{_OUT}{model.__name__}"] = schema
    return {"$ref": f"#/components/schemas/{_OUT}{model.__name__}"}


def _envelope(data: dict[str, Any], shape: Shape) -> dict[str, Any]:
    if shape in ("page", "list"):
        data = {"type": "array", "items": data}
    properties: dict[str, Any] = {"status": {"type": "string"}, "data": data}
    required = ["status", "data"]
    if shape == "page":
        properties["has_next"] = {"type": "boolean"}
        properties["cursor"] = {"anyOf": [{"type": "string"}, {"type": "null"}]}
        required += ["has_next", "cursor"]
    return {"type": "object", "required": required, "properties": properties}


def _error_schemas(components: dict[str, Any]) -> None:
    components[f"{_OUT}ErrorBody"] = {
        "type": "object",
        "required": ["status", "error_code", "detail", "transient"],
        "properties": {
            "status": {"type": "string"},
            "error_code": {"type": "string"},
            "detail": {"anyOf": [{"type": "string"}, {"type": "object"}]},
            "transient": {"type": "boolean"},
            "retry_after_seconds": {"type": "number"},
            "request_id": {"type": "string"},
        },
    }
    components[f"{_OUT}ValidationErrorBody"] = {
        "type": "object",
        "required": ["detail"],
        "properties": {
            "detail": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["loc", "msg", "type"],
                    "properties": {
                        "loc": {"type": "array", "items": {"type": "string"}},
                        "msg": {"type": "string"},
                        "type": {"type": "string"},
                    },
                },
            }
        },
    }


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def complete(doc: dict[str, Any]) -> dict[str, Any]:
    """Complete FastAPI's OpenAPI document in place (see the module docstring); returns it."""
    components = doc.setdefault("components", {}).setdefault("schemas", {})
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    doc["components"]["securitySchemes"] = {
        "ApiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"},
        "AdminToken": {"type": "apiKey", "in": "header", "name": "x-admin-token"},
    }
    _error_schemas(components)
    for name, schema in list(components.items()):
        if not name.startswith(_OUT):
            guard.declare_bounds(schema)
    for path, operations in doc.get("paths", {}).items():
        admin = path.startswith("/sandbox") and path not in guard.KEYED_SANDBOX_PATHS
        for method, operation in operations.items():
            _operation(components, path, method, operation, admin=admin)
    return doc


def _operation(
    components: dict[str, Any], path: str, method: str, op: dict[str, Any], *, admin: bool
) -> None:
    header = "x-admin-token" if admin else "x-api-key"
    params = [p for p in op.get("parameters", []) if p.get("name") != header]
    for param in params:
        guard.declare_bounds(param.get("schema", {}), param.get("name"))
        if param.get("in") == "path":
            param["schema"]["maxLength"] = MAX_PATH_PARAM
    if params:
        op["parameters"] = params
    else:
        op.pop("parameters", None)
    if path != "/sandbox/health":
        op["security"] = [{"AdminToken" if admin else "ApiKey": []}]
    body_model = REQUEST_BODIES.get((method, path))
    if body_model is not None:
        schema, defs = _schema_of(body_model, "validation", "")
        for name, value in defs.items():
            guard.declare_bounds(value)
            components.setdefault(name, value)
        guard.declare_bounds(schema)
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    responses = op.setdefault("responses", {})
    success = "202" if "202" in responses else "200"
    model, shape = RESPONSES.get((method, path), (None, "none"))
    data: dict[str, Any] = {"type": "object"} if model is None else _register(components, model)
    if not admin or model is not None:
        responses[success] = _json(_envelope(data, shape), "Success")
    for status, text in ERROR_STATUSES.items():
        responses[status] = _json(_ERROR, text)
    responses["422"] = _json(_VALIDATION, "Validation failure: {detail: [{loc, msg, type}]}")
