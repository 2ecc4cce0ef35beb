"""Schemathesis against the sandbox's published OpenAPI: every check schemathesis has.

The schema is the document the sandbox publishes at ``/openapi.json`` (built at collection
without a server; a test checks the running sandbox serves exactly it), used as is: no
patching. Every ``/v1`` operation gets generated requests, valid and invalid, with a fixed
seed, authenticated with the published ``ApiKey`` scheme's header, and every registered
check runs on each response (:data:`CHECKS`: no server error, documented status codes,
content types, headers and schemas, schema-valid requests accepted and schema-violating
ones rejected, missing headers, unsupported methods and their ``Allow``, ignored auth),
but for :data:`KNOWN`'s checks on five operations (the mismatches that remain). The
stateful phase (the document's links) is the long hunt's: against one shared sandbox,
hypothesis rejects its replays as a flaky strategy. The expected statuses come from the
repository's ``schemathesis.toml``, the file the CLI reads too (it says why 413 counts as
a rejection and 400 as a rule no schema states).

Bounded for CI: :data:`EXAMPLES` per operation (~50 operations; about a minute of CPU on a
quiet machine). The long hunt (docs/testing.md) is the CLI with every check::

    st --config-file schemathesis.toml run URL/openapi.json -H "x-api-key:KEY" \\
        --checks all --include-path-regex '^/v1/' --mode all --max-examples 150
"""

from __future__ import annotations

import copy
import itertools
import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, seed, settings
from schemathesis import GenerationMode
from schemathesis.checks import CHECKS as REGISTERED
from schemathesis.checks import load_all_checks
from schemathesis.config import SchemathesisConfig

from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.app import Settings, create_app
from rdskit.sandbox.backend.tables import open_store
from rdskit.sandbox.openapi import REQUEST_RULES
from rdskit.sandbox.synth.preview_samples import time_window

EXAMPLES = int(os.environ.get("RDSKIT_FUZZ_EXAMPLES", "25"))
"""Generated cases per operation (raise it locally for a longer hunt)."""


ROOT = Path(__file__).parents[2]
CONFIG = ROOT / "schemathesis.toml"
HOOKS = Path(__file__).with_name("schemathesis_hooks.py").relative_to(ROOT)

load_all_checks()
CHECKS = REGISTERED.get_all()
"""Every check schemathesis registers (``--checks all``), on every operation."""

REQUESTS = 0  # generated requests sent (printed at the end with -s)


@pytest.fixture(scope="module")
def box() -> Iterator[SandboxHandle]:
    with start(speed=500, rate_limit=1_000_000, seed=11) as handle:
        # Data to find: a dataset with a run, so ids in paths sometimes resolve.
        headers = {"x-api-key": handle.api_key}
        with httpx.Client(base_url=handle.url, headers=headers, timeout=30) as http:
            dataset = http.post("/v1/datasets", json={"name": "fuzz"}).json()["data"]["id"]
            query = {"type": "prompt", "sources": ["reddit"], "search_query": "oat"}
            http.post(f"/v1/datasets/{dataset}/runs", json={"search_query": query, "count": 10})
        yield handle
    print(f"\nschemathesis: {REQUESTS} generated requests, 0 failures of any check allowed")


def _published() -> dict[str, Any]:
    """The document a sandbox serves at /openapi.json, built without starting a server (the
    tests are generated at collection); ``test_the_served_schema_is_the_one_fuzzed``
    checks that the running sandbox serves exactly this."""
    store = open_store()
    try:
        return create_app(store, Settings()).openapi()
    finally:
        store.close()


PUBLISHED = _published()


def _schema() -> schemathesis.BaseSchema:
    config = SchemathesisConfig.from_path(CONFIG)
    # Valid and invalid requests alike: neither may ever get a 5xx.
    config.projects.default.generation.update(modes=list(GenerationMode))
    loaded = schemathesis.openapi.from_dict(copy.deepcopy(PUBLISHED), config=config)
    return loaded.include(path_regex="^/v1/")


schema = _schema()


def test_the_served_schema_is_the_one_fuzzed(box: SandboxHandle) -> None:
    served = httpx.get(f"{box.url}/openapi.json", timeout=60).json()
    assert served == PUBLISHED
    scheme = served["components"]["securitySchemes"]["ApiKey"]
    assert scheme == {"type": "apiKey", "in": "header", "name": "x-api-key"}


@schema.parametrize()
@seed(20261123)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_server_error_and_no_schema_violation(
    case: schemathesis.Case, box: SandboxHandle
) -> None:
    global REQUESTS
    REQUESTS += 1
    case.call_and_validate(base_url=box.url, headers=_keyed(case, box), checks=CHECKS, timeout=30)


def _keyed(case: schemathesis.Case, box: SandboxHandle) -> dict[str, str]:
    """The sandbox's key in place of the generated one, where the case carries one: a
    case generated without it (a "negative" header) must go without it, or its 401 would
    read as a schema-violating request accepted."""
    return {"x-api-key": box.api_key} if "x-api-key" in (case.headers or {}) else {}


def test_every_check_runs() -> None:
    names = {check.__name__ for check in CHECKS}
    assert {"positive_data_acceptance", "negative_data_rejection"} <= names
    assert {"missing_required_header", "unsupported_method", "allow_header_conformance"} <= names
    assert {"ignored_auth", "use_after_free", "ensure_resource_availability"} <= names


def test_the_hooks_are_loaded() -> None:
    """schemathesis.toml's hooks (the rules across fields) are what the fuzz runs with."""
    assert SchemathesisConfig.from_path(CONFIG).projects.default.hooks == str(HOOKS)
    for name in ("filter_body",):
        hooks = schemathesis.hooks.GLOBAL_HOOK_DISPATCHER.get_all_by_name(name)
        assert [hook.__module__ for hook in hooks] == ["_schemathesis_hooks"], name


def test_one_name_per_path() -> None:
    """Routes sharing a path name its parameters alike (FastAPI documents one path item
    per path string: two names made one path two items, and a 405's Allow undocumented)."""
    paths: dict[str, list[str]] = {}
    for path in PUBLISHED["paths"]:
        paths.setdefault(re.sub(r"\{[^}]*\}", "{}", path), []).append(path)
    assert [names for names in paths.values() if len(names) > 1] == []
    runs = PUBLISHED["paths"]["/v1/datasets/{dataset_id}/runs"]
    assert set(runs) == {"get", "post"}


def test_an_undeclared_query_parameter_is_refused(box: SandboxHandle) -> None:
    with httpx.Client(base_url=box.url, headers={"x-api-key": box.api_key}) as http:
        typo = http.get("/v1/datasets", params={"limt": 5})
        twice = http.get("/v1/datasets?limit=5&limit=6")
        # Usage history documented order and ignored it: now neither.
        usage = http.get("/v1/me/usage_history", params={"order": "asc"})
        fine = http.get("/v1/me/usage_history", params={"limit": 3})
    assert typo.status_code == 422
    assert typo.json()["detail"] == [
        {
            "loc": ["query", "limt"],
            "msg": "Unknown query parameter (this operation takes: limit, cursor, order)",
            "type": "extra_forbidden",
        }
    ]
    assert twice.status_code == 422
    assert twice.json()["detail"][0]["loc"] == ["query", "limit"]
    assert usage.status_code == 422
    assert usage.json()["detail"][0]["loc"] == ["query", "order"]
    assert fine.status_code == 200
    usage_doc = PUBLISHED["paths"]["/v1/me/usage_history"]["get"]["parameters"]
    assert [param["name"] for param in usage_doc] == ["limit", "cursor"]


@pytest.mark.parametrize(
    ("path", "body", "loc"),
    [
        # Coerced before: 0 read as false, a flat list as one group, "10" as 10, 1 as true.
        ("/v1/mentions", {"filters": [[{"type": "has_media", "value": 0}]]}, ["body", "filters"]),
        ("/v1/mentions", {"filters": [{"type": "has_media", "value": True}]}, ["body", "filters"]),
        ("/v1/mentions", {"limit": "10"}, ["body", "limit"]),
        ("/v1/audience_profiles", {"filters": [[{"type": "is_verified", "value": 1}]]}, None),
        ("/v1/datasets/{dataset}/runs", {"search_query": "oat", "count": "10"}, None),
        ("/v1/datasets/{dataset}/runs", {"search_query": "oat", "enable_transcribing": 0}, None),
    ],
)
def test_a_body_of_other_json_types_is_refused(
    box: SandboxHandle, path: str, body: dict[str, Any], loc: list[str] | None
) -> None:
    with httpx.Client(base_url=box.url, headers={"x-api-key": box.api_key}) as http:
        dataset = http.get("/v1/datasets").json()["data"][0]["id"]
        got = http.post(path.format(dataset=dataset), json=body)
        unchanged = http.get("/v1/me").json()["data"]
    assert got.status_code == 422, got.text
    if loc is not None:
        assert got.json()["detail"][0]["loc"] == loc
    assert unchanged  # the account answers: nothing broke


def test_a_whole_float_is_an_integer(box: SandboxHandle) -> None:
    """JSON Schema's integer: 10.0 is one, as the document's generator draws it."""
    with httpx.Client(base_url=box.url, headers={"x-api-key": box.api_key}) as http:
        got = http.post("/v1/mentions", json={"limit": 10.0})
        fraction = http.post("/v1/mentions", json={"limit": 10.5})
    assert got.status_code == 200, got.text
    assert fraction.status_code == 422


def test_an_unknown_field_holds_any_finite_number(box: SandboxHandle) -> None:
    """The document states what the guard enforces: integers within +-2^53-1, any other
    finite number (the long hunt: a documented float bound, never enforced, let 9e307 in)."""
    number = PUBLISHED["components"]["schemas"]["JsonValue"]["anyOf"][4]
    assert number == {"type": "number"}
    with httpx.Client(base_url=box.url, headers={"x-api-key": box.api_key}) as http:
        big_float = http.post("/v1/mentions", json={"limit": 1, "note": 9e307})
        big_int = http.post("/v1/mentions", json={"limit": 1, "note": 2**53})
    assert big_float.status_code == 200, big_float.text
    assert big_int.status_code == 422
    assert big_int.json()["detail"][0]["loc"] == ["body", "note"]


def test_a_page_cursor_is_a_plain_string() -> None:
    """A query value is never null: ``cursor`` is a string (its null branch made
    schemathesis call ``?cursor=`` schema-violating)."""
    for path, item in PUBLISHED["paths"].items():
        for params in (op.get("parameters", []) for op in item.values()):
            for param in params:
                if param["name"] == "cursor":
                    assert param["schema"]["type"] == "string", path


def test_the_relative_window_pattern_is_the_rule() -> None:
    """The document's time_filter pattern accepts exactly what time_window reads."""
    pattern = re.compile(
        REQUEST_RULES["PromptPreviewRequest"]["time_filter"]["anyOf"][1]["pattern"]
    )
    now = datetime(2026, 3, 1, tzinfo=UTC)
    for length in range(1, 6):
        for digits in itertools.product("0123456789", repeat=length):
            text = "".join(digits) + "d"
            try:
                time_window(text, None, None, now)
                read = True
            except ValueError:
                read = False
            assert bool(pattern.match(text)) is read, text
    assert pattern.match("١d") is None  # another script's digit: refused by both
    with pytest.raises(ValueError):
        time_window("١d", None, None, now)
