"""Schemathesis against the sandbox's published OpenAPI: every check schemathesis has.

The schema is the document the sandbox publishes at ``/openapi.json`` (built at collection
without a server; a test checks the running sandbox serves exactly it), used as is: no
patching. Every ``/v1`` operation gets generated requests, valid and invalid, with a fixed
seed, authenticated with the published ``ApiKey`` scheme's header, and every registered
check runs on each response (:data:`CHECKS`: no server error, documented status codes,
content types, headers and schemas, schema-valid requests accepted and schema-violating
ones rejected, missing headers, unsupported methods and their ``Allow``, ignored auth);
the stateful test follows the document's links (created resources are found, deleted ones
are gone). The expected statuses come from the repository's ``schemathesis.toml``, the file
the CLI reads too (it says why 413 counts as a rejection and 400 as a rule no schema states).

Bounded for CI: :data:`EXAMPLES` per operation (~50 operations; about a minute of CPU on a
quiet machine). The long hunt (docs/testing.md) is the CLI with every check::

    st --config-file schemathesis.toml run URL/openapi.json -H "x-api-key:KEY" \\
        --checks all --include-path-regex '^/v1/' --mode all --max-examples 150
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
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

EXAMPLES = int(os.environ.get("RDSKIT_FUZZ_EXAMPLES", "25"))
"""Generated cases per operation (raise it locally for a longer hunt)."""

STATEFUL_STEPS = int(os.environ.get("RDSKIT_FUZZ_STEPS", "30"))
"""Scenarios of the stateful test (link chains: create, read, update, delete)."""

CONFIG = Path(__file__).parents[2] / "schemathesis.toml"

load_all_checks()
CHECKS = REGISTERED.get_all()
"""Every check schemathesis registers (``--checks all``), none left out."""

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
    case.call_and_validate(
        base_url=box.url, headers={"x-api-key": box.api_key}, checks=CHECKS, timeout=30
    )


def test_every_check_runs() -> None:
    names = {check.__name__ for check in CHECKS}
    assert {
        "positive_data_acceptance",
        "negative_data_rejection",
        "missing_required_header",
    } <= names
    assert {"unsupported_method", "allow_header_conformance", "ignored_auth"} <= names
    assert {"use_after_free", "ensure_resource_availability"} <= names


def test_links_follow_created_resources(box: SandboxHandle) -> None:
    """The stateful phase: chains of linked calls, every check on every response."""
    workflow = schema.as_state_machine()

    class Workflow(workflow):  # type: ignore[misc,valid-type]
        def get_call_kwargs(self, case: schemathesis.Case) -> dict[str, Any]:
            return {"base_url": box.url, "headers": {"x-api-key": box.api_key}, "timeout": 30}

        def after_call(self, response: Any, case: schemathesis.Case) -> None:
            global REQUESTS
            REQUESTS += 1
            super().after_call(response, case)

    Workflow.run(
        settings=settings(
            max_examples=STATEFUL_STEPS,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
            stateful_step_count=6,
        )
    )
