"""The sandbox's published OpenAPI, made usable by tools (schemathesis, generators).

FastAPI's own document lists the routes and request bodies; :func:`complete` adds what a
tool needs and FastAPI cannot know (the routes return plain envelopes):

- ``securitySchemes``: ``ApiKey`` (header ``x-api-key``) on every ``/v1`` operation (and
  the emulator-only ``guard.KEYED_SANDBOX_PATHS``) and ``AdminToken`` (``x-admin-token``)
  on the other ``/sandbox`` ones, instead of header parameters;
- response schemas built from the shared models (``rdskit.models``), in the success
  envelope ``{status, data}`` or the list envelope ``{status, data, has_next, cursor}``;
- the error responses (400, 401, 402, 404, 405 with ``Allow``, 409, 413, 422, 429, 500, 503)
  with their bodies; DELETE bodies exactly as the sandbox answers them;
- the request bounds of :mod:`rdskit.sandbox.runtime.guard` on every request schema and
  parameter (unknown fields: any JSON value within them), and what the handlers check
  beyond the models (:data:`REQUEST_RULES`: sources, URLs, sorts, filter shapes, schedules),
  so a schema-valid request is never refused with 422.

No FastAPI import: it rewrites a schema dict.

Example:
    >>> doc = complete({"openapi": "3.1.0", "paths": {"/v1/me": {"get": {"responses": {}}}}})
    >>> me = doc["paths"]["/v1/me"]["get"]
    >>> me["security"], sorted(me["responses"])[:3]
    ([{'ApiKey': []}], ['200', '400', '401'])
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from rdskit import models as m
from rdskit.models.filters import FILTER_MODELS
from rdskit.models.vocab import FREQUENCIES, SCHEDULE_TIME, SOURCES, WEEKDAYS
from rdskit.sandbox.backend.audiences import PROFILE_SORTS
from rdskit.sandbox.backend.mention_query import SORTS as MENTION_SORTS
from rdskit.sandbox.runtime import guard
from rdskit.sandbox.synth.extractor import VALUE_TYPES
from rdskit.sandbox.synth.preview_samples import TIME_FILTERS

__all__ = ["ERROR_STATUSES", "RESPONSES", "complete"]

Shape = Literal["one", "page", "list", "deleted", "empty", "none"]

RESPONSES: dict[tuple[str, str], tuple[type[BaseModel] | None, Shape]] = {
    ("get", "/v1/me"): (m.Account, "one"),
    ("get", "/v1/me/usage_history"): (m.UsageRow, "page"),
    ("get", "/v1/prices"): (m.Prices, "one"),
    ("post", "/v1/datasets"): (m.Dataset, "one"),
    ("get", "/v1/datasets"): (m.Dataset, "page"),
    ("get", "/v1/datasets/{dataset_id}"): (m.Dataset, "one"),
    ("patch", "/v1/datasets/{dataset_id}"): (m.Dataset, "one"),
    ("delete", "/v1/datasets/{dataset_id}"): (None, "deleted"),
    ("post", "/v1/datasets/{dataset_id}/runs"): (m.DatasetRun, "one"),
    ("get", "/v1/datasets/{dataset_id}/runs"): (m.DatasetRun, "page"),
    ("get", "/v1/datasets/{dataset_id}/runs/{run_id}"): (m.DatasetRun, "one"),
    ("post", "/v1/audience_datasets"): (m.AudienceDataset, "one"),
    ("get", "/v1/audience_datasets"): (m.AudienceDataset, "page"),
    ("get", "/v1/audience_datasets/{audience_dataset_id}"): (m.AudienceDataset, "one"),
    ("patch", "/v1/audience_datasets/{audience_dataset_id}"): (m.AudienceDataset, "one"),
    ("delete", "/v1/audience_datasets/{audience_dataset_id}"): (None, "empty"),
    ("post", "/v1/audience_datasets/{audience_dataset_id}/runs"): (m.AudienceRun, "one"),
    ("get", "/v1/audience_datasets/{audience_dataset_id}/runs"): (m.AudienceRun, "page"),
    ("get", "/v1/audience_datasets/{audience_dataset_id}/runs/{run_id}"): (m.AudienceRun, "one"),
    ("post", "/v1/audience_profiles"): (m.AudienceProfile, "page"),
    ("post", "/v1/mentions"): (m.Mention, "page"),
    ("post", "/v1/custom_parameters"): (m.CustomParameter, "one"),
    ("get", "/v1/custom_parameters"): (m.CustomParameter, "list"),
    ("post", "/v1/custom_parameters/preview"): (m.CustomParameterPreview, "one"),
    ("get", "/v1/custom_parameters/{parameter_id}"): (m.CustomParameter, "one"),
    ("patch", "/v1/custom_parameters/{parameter_id}"): (m.CustomParameter, "one"),
    ("delete", "/v1/custom_parameters/{parameter_id}"): (None, "deleted"),
    ("post", "/v1/custom_parameters/{parameter_id}/runs"): (m.CustomParameterRunStarted, "one"),
    ("get", "/v1/custom_parameters/{parameter_id}/runs"): (m.CustomParameterRun, "page"),
    ("get", "/v1/custom_parameters/{parameter_id}/runs/{run_id}"): (m.CustomParameterRun, "one"),
    ("post", "/v1/tracking_agents"): (m.TrackingAgent, "one"),
    ("get", "/v1/tracking_agents"): (m.TrackingAgent, "list"),
    ("get", "/v1/tracking_agents/{agent_id}"): (m.TrackingAgent, "one"),
    ("patch", "/v1/tracking_agents/{agent_id}"): (m.TrackingAgent, "one"),
    ("delete", "/v1/tracking_agents/{agent_id}"): (None, "deleted"),
    ("post", "/v1/tracking_agents/{agent_id}/pause"): (m.TrackingAgent, "one"),
    ("post", "/v1/tracking_agents/{agent_id}/resume"): (m.TrackingAgent, "one"),
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
"""``(method, path)`` -> the shared model of ``data`` and the envelope it comes in.

The spec does not show most DELETE bodies; the sandbox's are declared exactly: ``deleted``
is ``{id, deleted: true}`` (datasets, custom parameters, tracking agents) and ``empty`` is
``data: null`` (audience datasets: the spec shows an empty body). Pause and resume answer
the agent as it now is."""

_DATA: dict[Shape, dict[str, Any]] = {
    "deleted": {
        "type": "object",
        "required": ["id", "deleted"],
        "properties": {"id": {"type": "string"}, "deleted": {"const": True}},
    },
    "empty": {"type": "null"},
    "none": {"type": "object"},
}
"""``data`` of the shapes that have no model."""

REQUEST_BODIES: dict[tuple[str, str], tuple[str, Any]] = {
    # Validated by hand (a tagged union chosen at run time, or the spec's 400 for an empty
    # name before the model's 422), so FastAPI sees a plain dict: ``(component, model)``.
    ("post", "/v1/research_previews"): (
        "ResearchPreviewRequest",
        Annotated[m.PromptPreviewRequest | m.UrlPreviewRequest, Field(discriminator="type")],
    ),
    ("post", "/v1/custom_parameters"): ("CustomParameterCreate", m.CustomParameterCreate),
    ("patch", "/v1/custom_parameters/{parameter_id}"): (
        "CustomParameterUpdate",
        m.CustomParameterUpdate,
    ),
}

_ANY = {"$ref": f"#/components/schemas/{guard.ANY_VALUE}"}

_HTTP_URL = r"^[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9.-]+(:[0-9]{1,5})?([/?#][!-~]*)?$"
"""An absolute http(s) URL with a host (``guard.url_problems`` refuses anything else)."""

_RELATIVE = r"^([1-9][0-9]{0,3}|0[1-9][0-9]{0,2}|00[1-9][0-9]?|000[1-9])[hdwmy]$"
"""A relative time window but zero (``30d``, not ``0d``), as ``time_window`` reads one."""

_DAY = {"format": "date"}
"""A preview window's day: ``YYYY-MM-DD`` (RFC 3339 full-date), what ``day_window`` reads."""

_NOT_BLANK = r"\S"
"""A name holding something besides whitespace (a blank one is refused)."""


PROFILE_FILTERS = ("creator_tier", "is_verified")
"""Filter types of an audience profiles query; every other type the spec shows is a
mentions filter (the sandbox's engines evaluate exactly these)."""


def _schedule(weekly: bool) -> dict[str, Any]:
    day = {"enum": list(WEEKDAYS)} if weekly else {"type": "null"}
    return {
        "type": "object",
        "required": ["frequency", "time", "day"] if weekly else ["frequency", "time"],
        "properties": {
            "frequency": {"const": FREQUENCIES[1] if weekly else FREQUENCIES[0]},
            "time": {"type": "string", "pattern": f"^{SCHEDULE_TIME.pattern}$"},
            "day": day,
        },
        "additionalProperties": _ANY,
    }


REQUEST_RULES: dict[str, dict[str, dict[str, Any]]] = {
    "PromptSearchQuery": {"sources": {"items": {"enum": list(SOURCES)}}},
    "PromptPreviewRequest": {
        "sources": {"items": {"enum": list(SOURCES)}},
        "time_filter": {"anyOf": [{"enum": list(TIME_FILTERS)}, {"pattern": _RELATIVE}]},
        "date_since": _DAY,
        "date_until": _DAY,
    },
    "UrlSearchQuery": {"source_urls": {"items": {"pattern": _HTTP_URL}}},
    "UrlPreviewRequest": {
        "source_urls": {"items": {"pattern": _HTTP_URL}},
        "date_filter_since": _DAY,
        "date_filter_until": _DAY,
    },
    "RunScope": {"kind": {"enum": list(m.SCOPE_KINDS)}},
    "AskContext": {"post_refs": {"maxItems": m.MAX_ASK_POST_REFS}},
    "ProfilesQuery": {"sort": {"enum": list(PROFILE_SORTS)}},
    "MentionsQuery": {"sort": {"enum": list(MENTION_SORTS)}},
    "CustomParameterCreate": {
        "name": {"pattern": _NOT_BLANK},
        "value_type": {"enum": list(VALUE_TYPES)},
    },
    "CustomParameterUpdate": {
        "name": {"pattern": _NOT_BLANK},
        "value_type": {"enum": list(VALUE_TYPES)},
    },
}
"""What the sandbox checks beyond the request models' own schemas, by component and field
(merged into the field's schema, into each non-null branch of an optional one). The
values come from where the checks take them: a schema-valid request is not refused."""

REQUEST_SCHEMAS: dict[str, dict[str, Any]] = {
    # daily takes no day; weekly needs one (validate_schedule in the tracking backend).
    "Schedule": {"oneOf": [_schedule(weekly=False), _schedule(weekly=True)]},
}
"""Request components replaced whole: the rule is across fields."""

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
    components[guard.ANY_VALUE] = guard.any_value_schema(_ANY["$ref"])
    for name, schema in list(components.items()):
        if not name.startswith(_OUT):
            guard.declare_bounds(schema)
    for path, operations in doc.get("paths", {}).items():
        admin = path.startswith("/sandbox") and path not in guard.KEYED_SANDBOX_PATHS
        for method, operation in operations.items():
            _operation(components, path, method, operation, admin=admin)
    _request_rules(components)
    return doc


def _request_rules(components: dict[str, Any]) -> None:
    """Apply :data:`REQUEST_RULES` and :data:`REQUEST_SCHEMAS`; a tagged union's tag is
    required in each of its variants (the models default it, the union cannot)."""
    present = set(components)  # a partial document (the doctest) lacks some
    for name, fields in REQUEST_RULES.items():
        for field, extra in fields.items() if name in present else ():
            _merge(components[name]["properties"][field], extra)
    for name, schema in REQUEST_SCHEMAS.items():
        if name in present:
            components[name] = schema
    for name, profiles in (("ProfilesQuery", True), ("MentionsQuery", False)):
        if name in present:
            kinds = [k for k in FILTER_MODELS if (k in PROFILE_FILTERS) == profiles]
            groups = _filter_groups(components, kinds)
            _merge(components[name]["properties"]["filters"], groups)
    for name, schema in list(components.items()):
        if name.startswith(_OUT):
            continue
        for node in _nodes(schema):
            tag = node.get("discriminator", {}).get("propertyName")
            for ref in node.get("discriminator", {}).get("mapping", {}).values():
                variant = components[ref.rsplit("/", 1)[1]]
                variant["required"] = sorted({*variant.get("required", []), tag})


def _filter_groups(components: dict[str, Any], kinds: list[str]) -> dict[str, Any]:
    """``filters`` items: groups of the filters ``kinds`` name, each its model's schema."""
    refs = []
    for kind in kinds:
        model = FILTER_MODELS[kind]
        schema, defs = _schema_of(model, "validation", "")
        for part in (schema, *defs.values()):
            guard.declare_bounds(part)
        components.update(defs)
        schema["required"] = sorted({*schema.get("required", []), "type"})
        components[model.__name__] = schema
        refs.append({"$ref": f"#/components/schemas/{model.__name__}"})
    # A group holds at least one filter (normalize_filters); the total across groups (at
    # most MAX_FILTERS) is a rule no JSON Schema states: the fuzz's hooks keep to it.
    return {"items": {"minItems": 1, "items": {"oneOf": refs}}}


def _merge(schema: dict[str, Any], extra: dict[str, Any]) -> None:
    branches = [b for b in schema.get("anyOf", [schema]) if b.get("type") != "null"]
    for branch in branches:
        for key, value in extra.items():
            if isinstance(value, dict) and isinstance(branch.get(key), dict):
                _merge(branch[key], value)
            else:
                branch[key] = value


def _nodes(schema: Any) -> list[dict[str, Any]]:
    """Every object in a schema (itself included)."""
    found, stack = [], [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _operation(
    components: dict[str, Any], path: str, method: str, op: dict[str, Any], *, admin: bool
) -> None:
    header = "x-admin-token" if admin else "x-api-key"
    params = [p for p in op.get("parameters", []) if p.get("name") != header]
    for param in params:
        guard.declare_bounds(param.get("schema", {}), param.get("name"))
        if param.get("in") == "path":
            param["schema"]["maxLength"] = guard.MAX_ID_CHARS
    if params:
        op["parameters"] = params
    else:
        op.pop("parameters", None)
    if path != "/sandbox/health":
        op["security"] = [{"AdminToken" if admin else "ApiKey": []}]
    if (method, path) in REQUEST_BODIES:
        body, body_model = REQUEST_BODIES[method, path]
        schema, defs = _schema_of(body_model, "validation", "")
        for name, value in defs.items():
            guard.declare_bounds(value)
            components.setdefault(name, value)
        guard.declare_bounds(schema)
        components[body] = schema  # a component, as FastAPI's bodies are
        schema = {"$ref": f"#/components/schemas/{body}"}
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    responses = op.setdefault("responses", {})
    success = "202" if "202" in responses else "200"
    model, shape = RESPONSES.get((method, path), (None, "none"))
    data = _DATA[shape] if model is None else _register(components, model)
    if not admin or model is not None:
        responses[success] = _json(_envelope(data, shape), "Success")
    for status, text in ERROR_STATUSES.items():
        responses[status] = _json(_ERROR, text)
    responses["405"] = {
        **_json(_ERROR, "Method not allowed on this path"),
        "headers": {"Allow": {"description": "The path's methods", "schema": {"type": "string"}}},
    }
    responses["422"] = _json(_VALIDATION, "Validation failure: {detail: [{loc, msg, type}]}")
