"""What the sandbox checks across fields, which no JSON Schema states, told to schemathesis.

``schemathesis.toml`` loads this file (``hooks``), so the CLI's long hunt and
``test_openapi_fuzz.py`` generate the same requests. Every rule a schema can state is in
the document itself (``rdskit.sandbox.openapi``: enums, patterns, the preview's ``oneOf``
windows, bounds); two hooks remain, each the mechanism schemathesis documents for it:

- ``filter_body`` leaves out a generated body that breaks one of :data:`RULES` (an order
  or a sum across fields): a schema-valid body the sandbox rightly refuses with 422 is not
  a "schema-valid request rejected", and a schema-violating one is refused either way.
- ``filter_case`` leaves out a "negative" body that the document accepts after all:
  schemathesis mutates one ``anyOf`` branch of a field that takes any JSON value (an
  object made a number) and calls the number schema-violating, though another branch
  takes it. The body is validated against the published document; only a body it
  refuses is kept as negative.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import cache
from typing import Any

import schemathesis
from jsonschema import Draft202012Validator
from schemathesis import GenerationMode

from rdskit.models.filters import MAX_FILTERS
from rdskit.sandbox.app import Settings, create_app
from rdskit.sandbox.backend.tables import open_store


def _ordered(body: Any, field: str | None, first: str, last: str) -> bool:
    window = body.get(field) if field and isinstance(body, dict) else body
    if not isinstance(window, dict):
        return True
    try:
        return date.fromisoformat(window[first]) <= date.fromisoformat(window[last])
    except (KeyError, TypeError, ValueError):
        return True  # not two dates: the schema's own business


def _few_filters(body: Any) -> bool:
    """At most ``MAX_FILTERS`` filters across all groups (``normalize_filters``' rule;
    the document bounds each group, not their sum)."""
    groups = body.get("filters") if isinstance(body, dict) else None
    if not isinstance(groups, list):
        return True
    return sum(len(group) for group in groups if isinstance(group, list)) <= MAX_FILTERS


RULES: dict[tuple[str, str], Callable[[Any], bool]] = {
    # DateRange: from is not after to.
    ("POST", "/v1/datasets/{dataset_id}/runs"): lambda b: _ordered(b, "date_range", "from", "to"),
    # time_window: date_since is not after date_until.
    ("POST", "/v1/research_previews"): lambda b: _ordered(b, None, "date_since", "date_until"),
    ("POST", "/v1/mentions"): _few_filters,
    ("POST", "/v1/audience_profiles"): _few_filters,
}
"""``(method, path)`` -> the rule across fields a generated body must keep to."""


@schemathesis.hook
def filter_body(ctx: schemathesis.HookContext, body: Any) -> bool:
    operation = ctx.operation
    if operation is None:
        return True
    rule = RULES.get((operation.method.upper(), operation.path))
    return rule is None or rule(body)


@cache
def _document() -> dict[str, Any]:
    store = open_store()
    try:
        return create_app(store, Settings()).openapi()
    finally:
        store.close()


@cache
def _body_validator(method: str, path: str) -> Draft202012Validator | None:
    operation = _document()["paths"][path][method]
    if "requestBody" not in operation:
        return None
    pointer = path.replace("~", "~0").replace("/", "~1")
    ref = f"#/paths/{pointer}/{method}/requestBody/content/application~1json/schema"
    return Draft202012Validator(
        {**_document(), "$ref": ref}, format_checker=Draft202012Validator.FORMAT_CHECKER
    )


@schemathesis.hook
def filter_case(ctx: schemathesis.HookContext, case: schemathesis.Case) -> bool:
    if case.meta is None:
        return True
    negative = [
        location.value
        for location, info in case.meta.components.items()
        if info.mode == GenerationMode.NEGATIVE
    ]
    if negative != ["body"]:
        return True  # only a body alone called negative is checked
    validator = _body_validator(case.method.lower(), case.path)
    return validator is None or not validator.is_valid(case.body)
