"""Chaos controls, and every documented error code produced on demand.

One test per chaos control (admin API ``/sandbox/chaos`` through ``sb.admin``), and one
per spec ``error_code``: each provokes the code over real HTTP through the typed client and
checks the exception class the client raises for it, and, for paid work, the refund path
(nothing held, nothing charged).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import httpx
import pytest

from rdskit import Client, errors
from rdskit.models.vocab import RUN_KIND_CATEGORIES
from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.runtime.chaos import FAILABLE_KINDS, RUN_STEPS, Chaos, from_option
from rdskit.sandbox.store.db import loads

PROMPT = {"type": "prompt", "sources": ["reddit", "tiktok"], "search_query": "oat milk"}
SPEED = 20.0  # slow enough that "in flight" is observable, fast enough for tests


@pytest.fixture(scope="module")
def box() -> Iterator[SandboxHandle]:
    with start(speed=SPEED, rate_limit=1_000_000, seed=5) as handle:
        yield handle


@pytest.fixture(autouse=True)
def _calm(box: SandboxHandle) -> Iterator[None]:
    box.admin.reset_chaos()
    yield
    box.admin.reset_chaos()


@dataclass
class Acct:
    """A fresh account: its id, typed client and raw HTTP client."""

    account_id: str
    rds: Client
    http: httpx.Client


@pytest.fixture
def acct(box: SandboxHandle) -> Iterator[Callable[..., Acct]]:
    made: list[Acct] = []

    def make(plan: str = "Pro", wallet_usd: str | None = None) -> Acct:
        created = box.admin.create_account(plan=plan, wallet_usd=wallet_usd)
        rds = Client(created.api_key, base_url=box.url, rate_limit=None, max_retries=0)
        http = httpx.Client(base_url=box.url, headers={"x-api-key": created.api_key}, timeout=30)
        made.append(Acct(created.account_id, rds, http))
        return made[-1]

    yield make
    for a in made:
        a.rds.close()
        a.http.close()


def wallet(box: SandboxHandle, account_id: str) -> dict[str, Decimal]:
    return {k: Decimal(v) for k, v in box.admin.account(account_id)["wallet"].items()}


def wait_for(fetch: Callable[[], Any], done: Callable[[Any], bool], timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = fetch()
        if done(value):
            return value
        assert time.monotonic() < deadline, value
        time.sleep(0.02)


def failed(run: Any) -> Any:
    """Wait for ``run``; it must fail (the client raises ``RunFailed`` with the final state)."""
    with pytest.raises(errors.RunFailed) as caught:
        run.wait(timeout=30)
    assert caught.value.obj.status.type == "failed"
    return caught.value.obj


def completed_dataset(a: Acct, count: int = 10) -> str:
    dataset = a.rds.datasets.create("chaos")
    run = a.rds.datasets.runs.create(dataset.id, PROMPT, count=count)
    assert run.wait(timeout=30).status.type == "completed"
    return dataset.id


def spend_everything(box: SandboxHandle, account_id: str) -> None:
    funds = wallet(box, account_id)
    box.admin.set_wallet(account_id, used_usd=funds["total_usd"])


def assert_refunded(box: SandboxHandle, account_id: str, before: dict[str, Decimal]) -> None:
    after = wallet(box, account_id)
    assert after["held_usd"] == 0 and after["used_usd"] == before["used_usd"], (before, after)


# -- chaos controls -----------------------------------------------------------------------
def test_an_unavailable_source_fails_previews_and_runs_refunded(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct()
    box.admin.chaos("source", source="tiktok")
    before = wallet(box, a.account_id)
    with pytest.raises(errors.SourceUnavailable) as caught:
        a.rds.research_previews.create(
            "prompt", search_query="oat", sources=["reddit", "tiktok"], time_filter="past_week"
        )
    assert caught.value.error_code == "source_unavailable" and "tiktok" in str(caught.value)
    dataset = a.rds.datasets.create("down")
    failed(a.rds.datasets.runs.create(dataset.id, PROMPT, count=5))
    assert_refunded(box, a.account_id, before)
    ok = a.rds.datasets.runs.create(dataset.id, {**PROMPT, "sources": ["reddit"]}, count=5)
    assert ok.wait(timeout=30).status.type == "completed"  # the other sources still work
    box.admin.chaos("source", source="tiktok", unavailable=False)
    assert a.rds.datasets.runs.create(dataset.id, PROMPT, count=5).wait(timeout=30).status.type == (
        "completed"
    )


@pytest.mark.parametrize("step", ["scraping", "enrichment", "analysis"])
def test_fail_the_next_dataset_run_at_a_step(
    box: SandboxHandle, acct: Callable[..., Acct], step: str
) -> None:
    a = acct()
    dataset = a.rds.datasets.create("fail")
    before = wallet(box, a.account_id)
    box.admin.chaos("failure", kind="dataset_run", step=step, count=1)
    final = failed(a.rds.datasets.runs.create(dataset.id, PROMPT, count=5))
    steps = {s.name: s.status for s in final.status.steps or []}
    assert steps[step] == "failed"
    assert_refunded(box, a.account_id, before)  # on failure the full reservation is refunded
    again = a.rds.datasets.runs.create(dataset.id, PROMPT, count=5).wait(timeout=30)
    assert again.status.type == "completed"  # only the next one failed


def test_fail_the_next_audience_run_refunded(box: SandboxHandle, acct: Callable[..., Acct]) -> None:
    a = acct()
    source = completed_dataset(a)
    audience = a.rds.audience_datasets.create("fans")
    before = wallet(box, a.account_id)
    box.admin.chaos("failure", kind="audience_run", count=1)
    run = a.rds.audience_datasets.runs.create(audience.id, source, total_profile_count=5)
    failed(run)
    assert_refunded(box, a.account_id, before)


def test_fail_the_next_pattern_detection_refunded(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct()
    dataset = completed_dataset(a, count=30)
    before = wallet(box, a.account_id)
    box.admin.chaos("failure", kind="pattern_detection", step="clustering")
    run = a.rds.pattern_detections.create(dataset, "themes", "What do people say?")
    final = wait_for(
        lambda: a.rds.pattern_detections.get(run.run_id),
        lambda r: r.status.type in ("completed", "failed"),
    )
    assert final.status.type == "failed"
    assert_refunded(box, a.account_id, before)


def test_fail_the_next_custom_parameter_run_refunded(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct()
    dataset = completed_dataset(a)
    parameter = a.rds.custom_parameters.create(
        name="brand", instructions="The brand mentioned", value_type="string"
    )
    before = wallet(box, a.account_id)
    box.admin.chaos("failure", kind="custom_parameter_run", step="extraction")
    run = a.rds.custom_parameters.runs.create(parameter.id, dataset_id=dataset)
    final = wait_for(
        lambda: a.rds.custom_parameters.runs.get(parameter.id, run.id),
        lambda r: r.status.type in ("completed", "failed"),
    )
    assert final.status.type == "failed"
    assert_refunded(box, a.account_id, before)


def test_a_failed_url_preview_scrape_refunds_everything(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct()
    before = wallet(box, a.account_id)
    box.admin.chaos("failure", kind="research_preview")
    urls = ["https://www.tiktok.com/@maya", "https://www.instagram.com/oatly"]
    preview = a.rds.research_previews.create("url", source_urls=urls)
    assert sorted(preview.failed_to_retrieve_profiles or []) == sorted(urls)
    assert_refunded(box, a.account_id, before)


def test_custom_parameter_posts_fail_and_are_retried(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct()
    dataset = completed_dataset(a, count=12)
    parameter = a.rds.custom_parameters.create(
        name="topic", instructions="The main topic", value_type="string"
    )
    box.admin.chaos("parameter_posts", retry=3, fail=2)
    run = a.rds.custom_parameters.runs.create(parameter.id, dataset_id=dataset)
    seen_retrying = False
    final = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        final = a.rds.custom_parameters.runs.get(parameter.id, run.id)
        with box.store.read() as conn:
            retrying = conn.execute(
                "SELECT COUNT(*) FROM custom_parameter_run_posts WHERE run_id = ?"
                " AND status = 'pending' AND explanation = 'failed once, retrying'",
                (run.id,),
            ).fetchone()[0]
        seen_retrying = seen_retrying or retrying > 0
        if final.status.type in ("completed", "failed"):
            break
        time.sleep(0.01)
    assert final is not None and final.status.type == "completed"
    assert final.mentions_error == 2  # final failures only; the retried posts succeeded
    assert final.mentions_done == final.mentions_total - 2
    assert seen_retrying
    with box.store.read() as conn:
        states = dict(
            conn.execute(
                "SELECT status, COUNT(*) FROM custom_parameter_run_posts WHERE run_id = ?"
                " GROUP BY status",
                (run.id,),
            ).fetchall()
        )
    assert states == {"completed": final.mentions_total - 2, "failed": 2}


def test_content_type_control_provokes_the_mismatch(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct()
    dataset = a.rds.datasets.create("ads only")
    box.admin.set_content_type(dataset.id, "ad")
    before = wallet(box, a.account_id)
    with pytest.raises(errors.CollectionContentTypeMismatch):
        a.rds.datasets.runs.create(dataset.id, PROMPT, count=5)
    assert wallet(box, a.account_id) == before  # nothing reserved
    ads = a.rds.datasets.runs.create(dataset.id, {**PROMPT, "content_type": "ad"}, count=5)
    assert ads.wait(timeout=30).status.type == "completed"


def test_assistant_cites_a_post_twice_and_emits_a_render_block(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct()
    dataset = completed_dataset(a, count=30)
    box.admin.chaos("assistant", duplicate_citation=True, render_block=True)
    turn = a.rds.ask("What do people complain about most?", dataset_ids=[dataset])
    reply = wait_for(
        lambda: a.rds.chats.message(turn.chat_id, turn.message_id),
        lambda m: m.status == "completed",
    )
    posts = [r for r in reply.to_wire()["references"] if r["type"] == "post"]
    assert posts, reply.text
    first = posts[0]
    marker = reply.text[first["start_index"] : first["end_index"]]
    assert reply.text.count(marker) >= 2  # cited twice ...
    keys = [(r["source"], r["id"]) for r in posts]
    assert len(keys) == len(set(keys))  # ... and listed once
    with box.store.read() as conn:
        (blocks,) = conn.execute(
            "SELECT blocks FROM chat_messages WHERE id = ?", (turn.message_id,)
        ).fetchone()
    rendered = [b for b in loads(blocks) if b["render"]]
    assert rendered and rendered[-1]["rows"]


def test_fault_latency_on_a_route(box: SandboxHandle, acct: Callable[..., Acct]) -> None:
    a = acct()
    # 2 s, not less: a loaded CI machine took 0.4 s for a plain request, so a short latency
    # could not tell "slowed by the fault" from "slowed by the machine" on the other route
    box.admin.chaos("fault", route="/v1/prices", kind="latency", latency_ms=2000)
    started = time.perf_counter()
    a.rds.prices()
    assert time.perf_counter() - started >= 2.0
    started = time.perf_counter()
    a.rds.me()  # another route: not slowed
    assert time.perf_counter() - started < 2.0


def test_fault_5xx_with_probability_and_seed_is_reproducible(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct()

    def pattern() -> list[int]:
        box.admin.reset_chaos()
        box.admin.chaos(
            "fault", route="/v1/datasets", methods=["GET"], kind="error", probability=0.5, seed=9
        )
        return [a.http.get("/v1/datasets").status_code for _ in range(20)]

    first, second = pattern(), pattern()
    assert first == second and {200, 503} == set(first)
    box.admin.reset_chaos()
    box.admin.chaos("fault", route="/v1/datasets", kind="error", status=500, times=1)
    with pytest.raises(errors.ServerError) as caught:
        list(a.rds.datasets.list())
    assert caught.value.status_code == 500
    retrying = Client(str(a.http.headers["x-api-key"]), base_url=box.url, rate_limit=None)
    box.admin.chaos("fault", route="/v1/me", kind="error", status=503, times=1)
    try:
        assert retrying.me().plan.name == "Pro"  # a read is retried past a transient 503
    finally:
        retrying.close()


def test_fault_dropped_connection(box: SandboxHandle, acct: Callable[..., Acct]) -> None:
    a = acct()
    box.admin.chaos("fault", route="/v1/me", kind="drop", times=1)
    with pytest.raises(httpx.HTTPError):
        a.http.get("/v1/me")
    assert a.http.get("/v1/me").status_code == 200  # times=1: once only
    box.admin.chaos("fault", route="/v1/me", kind="drop", times=1)
    with pytest.raises(errors.APIConnectionError):
        a.rds.me()  # max_retries=0: the client's typed connection error


def test_fault_429_and_the_clients_typed_error(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct()
    box.admin.chaos("fault", route="/v1/prices", kind="rate_limit", retry_after_seconds=0.2)
    with pytest.raises(errors.TooManyRequests) as caught:
        a.rds.prices()
    assert caught.value.status_code == 429
    raw = a.http.get("/v1/prices")
    assert raw.json()["retry_after_seconds"] == 0.2 and raw.headers["Retry-After"] == "1"
    assert raw.json()["transient"] is True and raw.json()["status"] == "client_error"


def test_chaos_from_the_command_line_options(box: SandboxHandle) -> None:
    controls = [
        from_option("source", "youtube"),
        from_option("failure", "dataset_run:analysis:2"),
        from_option("fault", "route=/v1/mentions,kind=error,probability=0.25,seed=4"),
        from_option("assistant", "render_block"),
        from_option("parameter_posts", "retry=1,fail=1"),
    ]
    with start(speed=500, chaos=controls) as other:
        state = httpx.get(
            f"{other.url}/sandbox/chaos", headers={"x-admin-token": other.admin_token}
        ).json()["data"]
    assert state["unavailable_sources"] == ["youtube"]
    assert state["failures"] == [{"kind": "dataset_run", "step": "analysis", "remaining": 2}]
    assert state["faults"][0]["probability"] == 0.25 and state["assistant"]["render_block"]
    with pytest.raises(ValueError):
        from_option("failure", "dataset_run:nope")


def test_failure_kinds_are_the_vocabularys_run_kinds() -> None:
    # One vocabulary: a failure names a kind of paid work of vocab.RUN_KIND_CATEGORIES; the
    # steps are chaos's own (the kinds the emulator can fail: all but the tracking trigger).
    assert set(RUN_STEPS) <= set(RUN_KIND_CATEGORIES)
    assert tuple(k for k in RUN_KIND_CATEGORIES if k != "tracking_trigger") == FAILABLE_KINDS
    for kind in ("dataset_runs", "tracking_trigger"):
        with pytest.raises(ValueError) as refused:
            Chaos().apply("failure", {"kind": kind})
        assert f"kind must be one of {', '.join(FAILABLE_KINDS)}, not {kind!r}" in str(
            refused.value
        )
        with pytest.raises(ValueError, match="kind must be one of dataset_run, audience_run"):
            from_option("failure", f"{kind}:2")
    chaos = Chaos()
    chaos.apply("failure", {"kind": "research_preview"})
    assert chaos.take_failure("research_preview", "scraping")


def test_chaos_admin_validates_and_needs_the_token(box: SandboxHandle) -> None:
    admin = f"{box.url}/sandbox/chaos"
    assert httpx.post(f"{admin}/source", json={"source": "tiktok"}).status_code == 401
    headers = {"x-admin-token": box.admin_token}
    bad = httpx.post(f"{admin}/source", json={"source": "myspace"}, headers=headers)
    assert bad.status_code == 422
    assert httpx.post(f"{admin}/nope", json={}, headers=headers).status_code == 404


# -- every documented error code: provoked, with the client's typed error -----------------
def test_code_dataset_not_found(acct: Callable[..., Acct]) -> None:
    with pytest.raises(errors.DatasetNotFound):
        acct().rds.datasets.get("ds_missing")


def test_code_audience_dataset_not_found(acct: Callable[..., Acct]) -> None:
    with pytest.raises(errors.AudienceDatasetNotFound):
        acct().rds.audience_datasets.get("ad_missing")


def test_code_source_dataset_has_no_completed_run(acct: Callable[..., Acct]) -> None:
    a = acct()
    empty = a.rds.datasets.create("empty")
    audience = a.rds.audience_datasets.create("fans")
    with pytest.raises(errors.SourceDatasetHasNoCompletedRun):
        a.rds.audience_datasets.runs.create(audience.id, empty.id, total_profile_count=5)


def test_code_insufficient_credits_dataset_run(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct(wallet_usd="0")
    dataset = a.rds.datasets.create("broke")
    with pytest.raises(errors.InsufficientCreditsDatasetRun) as caught:
        a.rds.datasets.runs.create(dataset.id, PROMPT, count=5)
    assert caught.value.status_code == 402
    assert wallet(box, a.account_id)["held_usd"] == 0


def test_code_insufficient_credits_audience_dataset_run(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct()
    source = completed_dataset(a)
    spend_everything(box, a.account_id)
    audience = a.rds.audience_datasets.create("fans")
    with pytest.raises(errors.InsufficientCreditsAudienceDatasetRun):
        a.rds.audience_datasets.runs.create(audience.id, source, total_profile_count=5)


def test_code_insufficient_credits_content_analysis(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct()
    dataset = completed_dataset(a)
    parameter = a.rds.custom_parameters.create(name="p", instructions="x", value_type="string")
    spend_everything(box, a.account_id)
    with pytest.raises(errors.InsufficientCreditsContentAnalysis):
        a.rds.custom_parameters.runs.create(parameter.id, dataset_id=dataset)


def test_code_insufficient_credits_pattern_detection(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct()
    dataset = completed_dataset(a)
    spend_everything(box, a.account_id)
    with pytest.raises(errors.InsufficientCreditsPatternDetection):
        a.rds.pattern_detections.create(dataset, "themes", "why?")


def test_code_insufficient_credits_research_preview(acct: Callable[..., Acct]) -> None:
    a = acct(wallet_usd="0")
    with pytest.raises(errors.InsufficientCreditsResearchPreview):
        a.rds.research_previews.create(
            "prompt", search_query="oat", sources=["reddit"], time_filter="past_week"
        )


def test_code_insufficient_credits_on_tracking_trigger(
    box: SandboxHandle, acct: Callable[..., Acct]
) -> None:
    a = acct()
    dataset = completed_dataset(a)
    agent = a.rds.tracking_agents.create(
        name="watch", instructions="complaints", dataset_ids=[dataset],
        schedule={"frequency": "daily", "time": "08:00"},
    )  # fmt: skip
    spend_everything(box, a.account_id)
    with pytest.raises(errors.InsufficientCreditsGeneric):
        a.rds.tracking_agents.trigger(agent.id)


def test_code_insufficient_credits_ask(box: SandboxHandle, acct: Callable[..., Acct]) -> None:
    a = acct()
    spend_everything(box, a.account_id)
    with pytest.raises(errors.InsufficientCreditsAsk):
        a.rds.ask("anything?")


def test_code_audience_dataset_run_already_in_flight(acct: Callable[..., Acct]) -> None:
    a = acct()
    source = completed_dataset(a)
    audience = a.rds.audience_datasets.create("fans")
    a.rds.audience_datasets.runs.create(audience.id, source, total_profile_count=5)
    with pytest.raises(errors.AudienceDatasetRunAlreadyInFlight) as caught:
        a.rds.audience_datasets.runs.create(audience.id, source, total_profile_count=5)
    assert caught.value.status_code == 409


def test_code_custom_parameter_limit_exceeded(acct: Callable[..., Acct]) -> None:
    a = acct(plan="Trial")
    with pytest.raises(errors.CustomParameterLimitExceeded):
        for n in range(10):
            a.rds.custom_parameters.create(name=f"p{n}", instructions="x", value_type="string")


def test_code_custom_parameter_duplicate_and_empty_name_and_not_found(
    acct: Callable[..., Acct],
) -> None:
    a = acct()
    a.rds.custom_parameters.create(name="same", instructions="x", value_type="string")
    with pytest.raises(errors.CustomParameterDuplicateName):
        a.rds.custom_parameters.create(name="same", instructions="y", value_type="string")
    empty = a.http.post(
        "/v1/custom_parameters", json={"name": "  ", "instructions": "x", "value_type": "string"}
    )
    assert empty.json()["error_code"] == "custom_parameter_empty_name"
    assert errors.error_class("custom_parameter_empty_name", empty.status_code) is (
        errors.CustomParameterEmptyName
    )
    with pytest.raises(errors.CustomParameterNotFound):
        a.rds.custom_parameters.get("cp_missing")


def test_code_custom_parameter_run_in_flight_and_nothing_to_analyze(
    acct: Callable[..., Acct],
) -> None:
    a = acct()
    dataset = completed_dataset(a, count=20)
    parameter = a.rds.custom_parameters.create(name="p", instructions="x", value_type="string")
    a.rds.custom_parameters.runs.create(parameter.id, dataset_id=dataset)
    with pytest.raises(errors.CustomParameterRunInFlight):
        a.rds.custom_parameters.runs.create(parameter.id, dataset_id=dataset)
    empty = a.rds.datasets.create("empty")
    other = a.rds.custom_parameters.create(name="q", instructions="x", value_type="string")
    with pytest.raises(errors.NothingToAnalyze):
        a.rds.custom_parameters.runs.create(other.id, dataset_id=empty.id)


def test_code_date_filter_unavailable(acct: Callable[..., Acct]) -> None:
    a = acct(plan="Trial")
    dataset = a.rds.datasets.create("dates")
    with pytest.raises(errors.DateFilterUnavailable):
        a.rds.datasets.runs.create(
            dataset.id, PROMPT, count=5, date_range={"from": "2026-01-01", "to": "2026-01-31"}
        )


def test_code_tracking_agent_limit_reached_and_not_found(acct: Callable[..., Acct]) -> None:
    a = acct(plan="Trial")
    dataset = a.rds.datasets.create("d")
    with pytest.raises(errors.TrackingAgentLimitReached):
        a.rds.tracking_agents.create(
            name="w", instructions="x", dataset_ids=[dataset.id],
            schedule={"frequency": "daily", "time": "08:00"},
        )  # fmt: skip
    with pytest.raises(errors.ResourceNotFound):
        a.rds.tracking_agents.get("ta_missing")


def test_code_tracking_agent_run_in_progress_and_dataset_has_no_queries(
    acct: Callable[..., Acct],
) -> None:
    a = acct()
    dataset = completed_dataset(a)
    schedule = {"frequency": "daily", "time": "08:00"}
    agent = a.rds.tracking_agents.create(
        name="w", instructions="x", dataset_ids=[dataset], schedule=schedule
    )
    a.rds.tracking_agents.trigger(agent.id)
    with pytest.raises(errors.TrackingAgentRunInProgress):
        a.rds.tracking_agents.trigger(agent.id)
    empty = a.rds.datasets.create("never run")
    idle = a.rds.tracking_agents.create(
        name="i", instructions="x", dataset_ids=[empty.id], schedule=schedule
    )
    with pytest.raises(errors.DatasetHasNoQueries):
        a.rds.tracking_agents.trigger(idle.id)


def test_code_invalid_cursor(acct: Callable[..., Acct]) -> None:
    a = acct()
    response = a.http.get("/v1/datasets", params={"cursor": "not-a-cursor"})
    assert response.json()["error_code"] == "invalid_cursor"
    with pytest.raises(errors.InvalidCursor):
        list(a.rds.datasets.list(cursor="not-a-cursor"))
    with pytest.raises(errors.InvalidCursor):
        list(a.rds.usage_history(cursor="not-a-cursor"))


@pytest.mark.parametrize(
    ("failure", "cls"),
    [
        ("ai_assistant_unavailable", errors.AIAssistantUnavailable),
        ("ai_assistant_timeout", errors.AIAssistantTimeout),
    ],
)
def test_code_ai_assistant_failures(
    box: SandboxHandle, acct: Callable[..., Acct], failure: str, cls: type[errors.APIError]
) -> None:
    a = acct()
    box.admin.set_assistant_failure(a.account_id, failure)
    before = wallet(box, a.account_id)
    with pytest.raises(cls):
        a.rds.ask("anything?")
    assert wallet(box, a.account_id) == before  # no turn, no charge


def test_code_pattern_detection_run_not_found_and_chat_not_found(
    acct: Callable[..., Acct],
) -> None:
    a = acct()
    with pytest.raises(errors.PatternDetectionRunNotFound):
        a.rds.pattern_detections.get("pdr_missing")
    with pytest.raises(errors.ChatNotFound):
        a.rds.chats.get("ch_missing")


def test_code_too_many_requests_from_the_real_limiter(box: SandboxHandle) -> None:
    with start(speed=500, rate_limit=2) as strict:
        rds = Client(strict.api_key, base_url=strict.url, rate_limit=None, max_retries=0)
        try:
            with pytest.raises(errors.TooManyRequests) as caught:
                for _ in range(10):
                    rds.prices()
            assert caught.value.status_code == 429
        finally:
            rds.close()
