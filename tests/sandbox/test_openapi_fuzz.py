"""Schemathesis against the sandbox's published OpenAPI: no 5xx, no schema violation.

The schema is the document the sandbox publishes at ``/openapi.json`` (built at collection
without a server; a test checks the running sandbox serves exactly it), used as is: no
patching. Every ``/v1`` operation gets generated requests, valid and invalid, with a fixed
seed, authenticated with the published ``ApiKey`` scheme's header. Checks: no server
error, documented status codes and content types, responses that match their schemas.
Bounded for CI: :data:`EXAMPLES` per operation (~50 operations, about a minute).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, seed, settings
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.config import SchemathesisConfig

from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.app import Settings, create_app
from rdskit.sandbox.backend.tables import open_store

EXAMPLES = int(os.environ.get("RDSKIT_FUZZ_EXAMPLES", "25"))
"""Generated cases per operation (raise it locally for a longer hunt)."""

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]

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
    print(f"\nschemathesis: {REQUESTS} generated requests, 0 server errors allowed")


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
    config = SchemathesisConfig()
    # Valid and invalid requests alike: neither may ever get a 5xx.
    config.projects.default.generation.update(modes=list(GenerationMode))
    loaded = schemathesis.openapi.from_dict(copy.deepcopy(PUBLISHED), config=config)
    return loaded.include(path_regex="^/v1/")


schema = _schema()


def test_the_served_schema_is_the_one_fuzzed(box: SandboxHandle) -> None:
    served = httpx.get(f"{box.url}/openapi.json").json()
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
