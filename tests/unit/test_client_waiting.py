"""client.wait(...): polling each run type to its terminal condition."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import samples as s
from mockapi import MockAPI, make_aclient, ok, page

import rdskit
from rdskit import models as m
from rdskit.errors import InvalidParameter, RunFailed, WaitTimeout


def status(obj: dict, kind: str, **extra: Any) -> dict:
    return {**obj, "status": {**obj["status"], "type": kind}, **extra}


def test_dataset_run_until_completed(api: MockAPI, client: rdskit.Client) -> None:
    api.on("POST", "/v1/datasets/ds_1/runs", ok(s.DATASET_RUN))
    path = "/v1/datasets/ds_1/runs/dsr_1"
    api.on(
        "GET",
        path,
        ok(status(s.DATASET_RUN, "working")),
        ok(status(s.DATASET_RUN, "working")),
        ok(status(s.DATASET_RUN, "completed", mentions_count=48)),
    )
    seen: list[str] = []
    run = client.datasets.runs.create("ds_1", s.PROMPT_QUERY)
    done = run.wait(on_update=lambda r: seen.append(r.status.type))
    assert isinstance(done, m.DatasetRun) and done.mentions_count == 48
    assert done._client is client
    assert seen == ["working", "working", "completed"]
    assert client.slept == [1.0, 1.5, 2.25]  # backoff between polls


def test_interval_is_capped(api: MockAPI, client: rdskit.Client) -> None:
    replies = [ok(status(s.AUDIENCE_RUN, "working"))] * 8
    api.on(
        "GET",
        "/v1/audience_datasets/ad_1/runs/adr_1",
        *replies,
        ok(status(s.AUDIENCE_RUN, "completed", profile_count=3)),
    )
    run = m.AudienceRun.model_validate(s.AUDIENCE_RUN)
    assert client.wait(run, poll_interval=4).profile_count == 3
    assert max(client.slept) == 10.0 and client.slept[0] == 4


def test_failed_run_raises_with_the_final_object(api: MockAPI, client: rdskit.Client) -> None:
    api.on("GET", "/v1/audience_datasets/ad_1/runs/adr_1", ok(status(s.AUDIENCE_RUN, "failed")))
    with pytest.raises(RunFailed, match="audience run adr_1 failed") as raised:
        client.wait(m.AudienceRun.model_validate(s.AUDIENCE_RUN))
    assert raised.value.obj.status.type == "failed"


def test_timeout(api: MockAPI, client: rdskit.Client) -> None:
    now = [0.0]
    client._core.clock = lambda: now[0]

    def sleep(seconds: float) -> None:
        client.slept.append(seconds)
        now[0] += seconds

    client._sleep = sleep
    api.on("GET", "/v1/datasets/ds_1/runs/dsr_1", ok(status(s.DATASET_RUN, "working")))
    with pytest.raises(WaitTimeout, match=r"dataset run dsr_1 is still working after 3s") as raised:
        client.wait(m.DatasetRun.model_validate(s.DATASET_RUN), timeout=3)
    assert sum(client.slept) == pytest.approx(3.0)  # the last sleep is cut to the deadline
    assert raised.value.obj.status.type == "working"
    assert isinstance(raised.value, TimeoutError)


def test_unknown_status_is_not_terminal(api: MockAPI, client: rdskit.Client) -> None:
    api.on(
        "GET",
        "/v1/pattern_detections/pdr_1",
        ok(status(s.DETECTION, "clustering")),
        ok(status(s.DETECTION, "completed", pattern_id="pt_1")),
    )
    done = client.wait(m.PatternDetectionRun.model_validate(s.DETECTION))
    assert done.pattern_id == "pt_1"
    assert len(api.calls) == 2


def test_pattern_detection_failure(api: MockAPI, client: rdskit.Client) -> None:
    api.on("GET", "/v1/pattern_detections/pdr_1", ok(status(s.DETECTION, "failed")))
    with pytest.raises(RunFailed):
        client.wait(m.PatternDetectionRun.model_validate(s.DETECTION))


def test_custom_parameter_run_completes_on_counters(api: MockAPI, client) -> None:
    counters = [
        {"mentions_total": None, "mentions_done": 0, "mentions_error": 0},  # total unknown
        {"mentions_total": 3, "mentions_done": 1, "mentions_error": 0},
        {"mentions_total": 3, "mentions_done": 2, "mentions_error": 1},  # done + error == total
    ]
    api.on(
        "GET",
        "/v1/custom_parameters/cp_1/runs/cpr_1",
        *[ok({**s.PARAMETER_RUN, **c}) for c in counters],
    )
    run = m.CustomParameterRun.model_validate({**s.PARAMETER_RUN, **counters[0]})
    done = run._bind(client).wait()
    assert (done.mentions_done, done.mentions_error, done.status.type) == (2, 1, "processing")
    assert len(api.calls) == 3


def test_ask_waits_for_the_reply_message(api: MockAPI, client: rdskit.Client) -> None:
    api.on("POST", "/v1/ask", ok(s.ACCEPTED, 202))
    api.on(
        "GET",
        "/v1/chats/ch_1/messages/msg_2",
        ok({**s.REPLY, "status": "working", "text": None}),
        ok(s.REPLY),
    )
    reply = client.ask("How does sentiment split?").wait()
    assert isinstance(reply, m.ChatMessage) and reply.status == "completed"
    assert reply.references[0].citation == 1
    assert len(api.sent("GET", "/v1/chats/ch_1/messages/msg_2")) == 2


def test_failed_ask_reply(api: MockAPI, client: rdskit.Client) -> None:
    api.on("GET", "/v1/chats/ch_1/messages/msg_2", ok({**s.REPLY, "status": "failed"}))
    with pytest.raises(RunFailed, match="assistant reply msg_2 failed"):
        client.wait(m.AskAccepted.model_validate(s.ACCEPTED))


def test_tracking_run_follows_its_dataset_runs(api: MockAPI, client: rdskit.Client) -> None:
    api.on(
        "POST",
        "/v1/tracking_agents/ta_1/trigger",
        ok({**s.TRACKING_RUN, "dataset_run_ids": ["dsr_a", "dsr_b"]}),
    )
    api.on("GET", "/v1/tracking_agents/ta_1", ok({**s.AGENT, "dataset_ids": ["ds_1", "ds_2"]}))
    run_a = {**s.DATASET_RUN, "id": "dsr_a"}
    run_b = {**s.DATASET_RUN, "id": "dsr_b", "dataset_id": "ds_2"}
    api.on("GET", "/v1/datasets/ds_1/runs", page([{**s.DATASET_RUN, "id": "old"}, run_a]))
    api.on("GET", "/v1/datasets/ds_2/runs", page([run_b]))
    api.on(
        "GET",
        "/v1/datasets/ds_1/runs/dsr_a",
        ok(status(run_a, "working")),
        ok(status(run_a, "completed")),
    )
    api.on("GET", "/v1/datasets/ds_2/runs/dsr_b", ok(status(run_b, "failed")))
    seen: list[str] = []
    done = client.tracking_agents.trigger("ta_1").wait(
        on_update=lambda r: seen.append(r.status.type)
    )
    assert isinstance(done, m.TrackingRun) and done.status.type == "completed"
    assert seen == ["pending", "completed"]
    assert len(api.sent("GET", "/v1/tracking_agents/ta_1")) == 1  # located once
    assert api.sent("GET", "/v1/datasets/ds_1/runs")[0].params == {"limit": "100", "order": "desc"}


def test_tracking_run_fails_when_all_dataset_runs_fail(api: MockAPI, client) -> None:
    api.on("GET", "/v1/tracking_agents/ta_1", ok(s.AGENT))
    api.on("GET", "/v1/datasets/ds_1/runs", page([s.DATASET_RUN]))
    api.on("GET", "/v1/datasets/ds_1/runs/dsr_1", ok(status(s.DATASET_RUN, "failed")))
    with pytest.raises(RunFailed, match="tracking run tar_1 failed"):
        client.wait(m.TrackingRun.model_validate(s.TRACKING_RUN))


def test_terminal_objects_return_at_once(client: rdskit.Client, api: MockAPI) -> None:
    done = m.DatasetRun.model_validate(status(s.DATASET_RUN, "completed"))
    assert client.wait(done) is done
    assert api.calls == [] and client.slept == []


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (m.Dataset.model_validate(s.DATASET), "cannot wait on a Dataset"),
        (
            m.CustomParameterRun.model_validate({**s.PARAMETER_RUN, "custom_parameter_id": None}),
            "no custom_parameter_id",
        ),
        (
            m.TrackingRun.model_validate({**s.TRACKING_RUN, "dataset_run_ids": []}),
            "no dataset runs",
        ),
        (m.ChatMessage.model_validate({**s.REPLY, "status": "working"}), "AskAccepted"),
    ],
)
def test_objects_that_cannot_be_waited_on(obj: Any, message: str, client) -> None:
    with pytest.raises(InvalidParameter, match=message):
        client.wait(obj)


def test_unbound_objects_explain_themselves() -> None:
    with pytest.raises(RuntimeError, match="not bound"):
        m.DatasetRun.model_validate(s.DATASET_RUN).wait()


def test_async_wait(api: MockAPI) -> None:
    api.on("POST", "/v1/ask", ok(s.ACCEPTED, 202))
    api.on(
        "GET", "/v1/chats/ch_1/messages/msg_2", ok({**s.REPLY, "status": "working"}), ok(s.REPLY)
    )

    async def main() -> m.ChatMessage:
        async with make_aclient(api) as client:
            turn = await client.ask("Why?")
            reply = await turn.wait(timeout=30)
            assert client.slept == [1.0, 1.5]
            return reply

    assert asyncio.run(main()).status == "completed"
