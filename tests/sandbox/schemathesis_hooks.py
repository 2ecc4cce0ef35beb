"""What the sandbox checks across fields, which no JSON Schema states, told to schemathesis.

``schemathesis.toml`` loads this file (``hooks``), so the CLI's long hunt and
``test_openapi_fuzz.py`` generate the same requests. Every rule a schema can state is in
the document itself (``rdskit.sandbox.openapi``: enums, patterns, the preview's ``oneOf``
windows, bounds). ``filter_body``, the mechanism schemathesis documents for this, leaves
out a generated body that breaks one of :data:`RULES` (an order or a sum across fields): a
schema-valid body the sandbox rightly refuses with 422 is not a "schema-valid request
rejected", and a schema-violating one is refused either way.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import schemathesis

from rdskit.models.filters import MAX_FILTERS


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


def _compared_values(body: Any) -> bool:
    """A ``metric_change`` comparison (``greater_than``, ``less_than``, ``changed_by``)
    carries its ``value`` (``mention_query._metric_change``: else a 422 naming it; the
    document leaves ``value`` optional, as the spec shows only metric and operator)."""
    groups = body.get("filters") if isinstance(body, dict) else None
    filters = (
        [f for g in groups if isinstance(g, list) for f in g] if isinstance(groups, list) else []
    )
    return all(
        f.get("value") is not None
        for f in filters
        if isinstance(f, dict)
        and f.get("type") == "metric_change"
        and f.get("operator") in ("greater_than", "less_than", "changed_by")
    )


RULES: dict[tuple[str, str], Callable[[Any], bool]] = {
    # DateRange: from is not after to.
    ("POST", "/v1/datasets/{dataset_id}/runs"): lambda b: _ordered(b, "date_range", "from", "to"),
    # day_window: date_since is not after date_until (a prompt preview), nor
    # date_filter_since after date_filter_until (a URL preview).
    ("POST", "/v1/research_previews"): lambda b: (
        _ordered(b, None, "date_since", "date_until")
        and _ordered(b, None, "date_filter_since", "date_filter_until")
    ),
    ("POST", "/v1/mentions"): lambda b: _few_filters(b) and _compared_values(b),
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
