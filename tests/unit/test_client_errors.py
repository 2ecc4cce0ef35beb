"""Error responses -> exception classes, by ``error_code`` only."""

from __future__ import annotations

from decimal import Decimal

import pytest
from mockapi import MockAPI, Reply, error

import rdskit
from rdskit import errors as e

# Every error_code of the spec: its class, its family and the HTTP status it is sent with
# (the spec's where stated; otherwise 404 for absent resources and 400 for business rules,
# as the sandbox does).
SPEC_CODES: dict[str, tuple[type[e.APIError], type[e.APIError], int]] = {
    "dataset_not_found": (e.DatasetNotFound, e.NotFound, 404),
    "audience_dataset_not_found": (e.AudienceDatasetNotFound, e.NotFound, 404),
    "source_dataset_has_no_completed_run": (e.SourceDatasetHasNoCompletedRun, e.APIError, 400),
    "insufficient_credits_dataset_run": (
        e.InsufficientCreditsDatasetRun,
        e.InsufficientCredits,
        402,
    ),
    "insufficient_credits_audience_dataset_run": (
        e.InsufficientCreditsAudienceDatasetRun,
        e.InsufficientCredits,
        402,
    ),
    "insufficient_credits_content_analysis": (
        e.InsufficientCreditsContentAnalysis,
        e.InsufficientCredits,
        402,
    ),
    "insufficient_credits_pattern_detection": (
        e.InsufficientCreditsPatternDetection,
        e.InsufficientCredits,
        402,
    ),
    "insufficient_credits_research_preview": (
        e.InsufficientCreditsResearchPreview,
        e.InsufficientCredits,
        402,
    ),
    "insufficient_credits": (e.InsufficientCreditsGeneric, e.InsufficientCredits, 402),
    "insufficient_credits_ask": (e.InsufficientCreditsAsk, e.InsufficientCredits, 402),
    "audience_dataset_run_already_in_flight": (
        e.AudienceDatasetRunAlreadyInFlight,
        e.Conflict,
        409,
    ),
    "custom_parameter_limit_exceeded": (e.CustomParameterLimitExceeded, e.APIError, 400),
    "custom_parameter_duplicate_name": (e.CustomParameterDuplicateName, e.APIError, 400),
    "custom_parameter_empty_name": (e.CustomParameterEmptyName, e.APIError, 400),
    "custom_parameter_not_found": (e.CustomParameterNotFound, e.NotFound, 404),
    "custom_parameter_run_in_flight": (e.CustomParameterRunInFlight, e.Conflict, 409),
    "nothing_to_analyze": (e.NothingToAnalyze, e.APIError, 400),
    "collection_content_type_mismatch": (e.CollectionContentTypeMismatch, e.APIError, 400),
    "date_filter_unavailable": (e.DateFilterUnavailable, e.APIError, 400),
    "tracking_agent_limit_reached": (e.TrackingAgentLimitReached, e.APIError, 400),
    "not_found": (e.ResourceNotFound, e.NotFound, 404),
    "tracking_agent_run_in_progress": (e.TrackingAgentRunInProgress, e.Conflict, 409),
    "dataset_has_no_queries": (e.DatasetHasNoQueries, e.APIError, 400),
    "invalid_cursor": (e.InvalidCursor, e.APIError, 400),
    "ai_assistant_unavailable": (e.AIAssistantUnavailable, e.APIError, 400),
    "ai_assistant_timeout": (e.AIAssistantTimeout, e.APIError, 400),
    "pattern_detection_run_not_found": (e.PatternDetectionRunNotFound, e.NotFound, 404),
    "chat_not_found": (e.ChatNotFound, e.NotFound, 404),
    "source_unavailable": (e.SourceUnavailable, e.APIError, 400),
    "too_many_requests": (e.TooManyRequests, e.RateLimited, 429),
}


def test_registry_holds_exactly_the_spec_codes() -> None:
    assert set(e.ERROR_CODES) == set(SPEC_CODES)
    assert len(set(e.ERROR_CODES.values())) == len(SPEC_CODES)  # one class per code


@pytest.mark.parametrize("code", SPEC_CODES)
def test_each_code_raises_its_class(code: str, api: MockAPI, make_client) -> None:
    cls, family, status = SPEC_CODES[code]
    api.on("GET", "/v1/datasets/ds_1", error(status, code, "Nope"))
    client = make_client(max_retries=0)
    with pytest.raises(cls) as raised:
        client.datasets.get("ds_1")
    exc = raised.value
    assert type(exc) is cls and isinstance(exc, family) and isinstance(exc, rdskit.RdsError)
    assert (exc.status_code, exc.error_code) == (status, code)
    assert (exc.method, exc.path) == ("GET", "/v1/datasets/ds_1")
    assert f"{code} (HTTP {status})" in str(exc)


def test_mapping_ignores_the_prose() -> None:
    # A detail that reads like another error never changes the class.
    exc = e.error_from_response(
        404, {"error_code": "chat_not_found", "detail": "dataset_not_found"}, method="GET", path="/"
    )
    assert type(exc) is e.ChatNotFound


@pytest.mark.parametrize(
    ("code", "status", "cls"),
    [
        ("widget_not_found", 400, e.NotFound),
        ("export_in_flight", 400, e.Conflict),
        ("report_in_progress", 400, e.Conflict),
        ("insufficient_credits_report", 400, e.InsufficientCredits),
        ("brand_new", 401, e.Unauthorized),
        ("brand_new", 402, e.InsufficientCredits),
        ("brand_new", 404, e.NotFound),
        ("brand_new", 409, e.Conflict),
        ("brand_new", 422, e.ValidationError),
        ("brand_new", 429, e.RateLimited),
        ("brand_new", 503, e.ServerError),
        ("brand_new", 418, e.APIError),
        (None, 401, e.Unauthorized),
    ],
)
def test_unknown_codes_fall_back_to_a_family(
    code: str | None, status: int, cls: type[e.APIError]
) -> None:
    body = {"status": "info", "error_code": code, "detail": "x", "transient": False}
    exc = e.error_from_response(status, body, method="GET", path="/v1/x")
    assert type(exc) is cls
    assert exc.error_code == code


def test_insufficient_credits_keeps_usd_and_credits_apart(api: MockAPI, client) -> None:
    detail = {
        "message": "Top up to continue",
        "required": "1.96",
        "available": "0.50",
        "required_credits": "100.000000",
        "available_credits": "25.510204",
        "top_up_url": "https://app.test/billing",
    }
    api.on("POST", "/v1/datasets/ds_1/runs", error(402, "insufficient_credits_dataset_run", detail))
    with pytest.raises(e.InsufficientCreditsDatasetRun) as raised:
        client.datasets.runs.create("ds_1", {"type": "url", "source_urls": ["https://x.test"]})
    exc = raised.value
    assert (exc.required, exc.available) == (Decimal("1.96"), Decimal("0.50"))
    assert (exc.required_credits, exc.available_credits) == (Decimal(100), Decimal("25.510204"))
    assert exc.top_up_url == "https://app.test/billing"
    assert exc.message == "Top up to continue"
    text = str(exc)
    # For people: rounded in the message, exact on the attributes above.
    assert "(required 100 credits (1.96 USD), available 25.51 credits (0.50 USD))" in text
    assert len(api.calls) == 1  # a 402 means nothing started: no retry


def test_insufficient_credits_without_credit_presentation() -> None:
    exc = e.error_from_response(
        402,
        {
            "error_code": "insufficient_credits",
            "detail": {"message": "m", "required": "2", "available": "1", "top_up_url": None},
        },
        method="POST",
        path="/v1/tracking_agents/ta_1/trigger",
    )
    assert exc.required_credits is None and exc.available_credits is None
    assert "credits" not in str(exc).replace("insufficient_credits", "")


def test_validation_error_lists_the_fields(api: MockAPI, client) -> None:
    api.on(
        "POST",
        "/v1/datasets",
        Reply(
            422,
            {
                "detail": [
                    {"loc": ["body", "name"], "msg": "Field required", "type": "missing"},
                    {"loc": ["body", "extra", 0], "msg": "bad", "type": "value_error"},
                ]
            },
        ),
    )
    with pytest.raises(e.ValidationError) as raised:
        client.datasets.create("x")
    exc = raised.value
    assert isinstance(exc, ValueError) and exc.status_code == 422
    assert exc.errors[0] == {"loc": ["body", "name"], "msg": "Field required", "type": "missing"}
    assert "body.name: Field required" in str(exc) and "body.extra.0: bad" in str(exc)


def test_rate_limited_reads_retry_after() -> None:
    body = {
        "status": "client_error",
        "error_code": "too_many_requests",
        "detail": "slow",
        "transient": True,
        "retry_after_seconds": 0.4,
    }
    # The spec recommends preferring the Retry-After header over the body's figure.
    exc = e.error_from_response(429, body, method="GET", path="/v1/me", retry_after_header=1)
    assert isinstance(exc, e.TooManyRequests) and exc.retry_after == 1 and exc.transient
    body_only = e.error_from_response(429, body, method="GET", path="/v1/me")
    assert body_only.retry_after == 0.4
    no_body = e.error_from_response(
        429,
        {"error_code": "too_many_requests"},
        method="GET",
        path="/v1/me",
        retry_after_header=2.0,
    )
    assert no_body.retry_after == 2.0


def test_non_json_error_body(api: MockAPI, make_client) -> None:
    api.on("GET", "/v1/me", Reply(502, b"<html>Bad gateway</html>", {"content-type": "text/html"}))
    with pytest.raises(e.ServerError) as raised:
        make_client(max_retries=0).me()
    exc = raised.value
    assert (exc.status_code, exc.error_code) == (502, None)
    assert "Bad gateway" in str(exc)
