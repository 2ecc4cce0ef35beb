"""Small API edges: estimates validate like the calls they estimate, filter builders raise
rdskit errors, the service's 422 has a stable error_code, wait() progress on terminals."""

from __future__ import annotations

import io
import sys

import pytest

import rdskit
from rdskit import filters as f
from rdskit.errors import error_from_response
from rdskit.progress import may_show

KEY = "bz_test_0123456789abcdef0123456789abcdef"


@pytest.fixture
def client() -> rdskit.Client:
    # Nothing listens there: a refused parameter must be refused before any request.
    return rdskit.Client(KEY, base_url="http://127.0.0.1:9")


@pytest.mark.parametrize(
    ("kind", "params", "field"),
    [
        ("dataset_run", {"count": -5}, "count"),
        ("dataset_run", {"count": 0}, "count"),
        ("dataset_run", {"count": "abc"}, "count"),
        ("dataset_run", {"count": 2.5}, "count"),
        ("dataset_run", {"count": True}, "count"),
        ("audience_run", {"total_profile_count": 2001}, "total_profile_count"),
        ("pattern_detection", {"posts": -1}, "posts"),
        ("research_preview", {"sources": "reddit"}, "sources"),
    ],
)
def test_estimate_refuses_what_the_call_refuses(
    client: rdskit.Client, kind: str, params: dict[str, object], field: str
) -> None:
    with pytest.raises(rdskit.InvalidParameter) as caught:
        client.estimate(kind, **params)
    assert caught.value.field == field
    assert field in str(caught.value)


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: f.sentiment("negitive"), "sentiment.values.0"),
        (lambda: f.dominant_emotion("glee"), "dominant_emotion.values.0"),
        (lambda: f.metric_change("likes", "sideways"), "metric_change"),
        (lambda: f.keyword(None), "keyword.value"),
        (lambda: f.has_media("yes please"), "has_media.value"),
    ],
)
def test_filter_builders_raise_invalid_parameter(build: object, field: str) -> None:
    with pytest.raises(rdskit.InvalidParameter) as caught:
        build()  # type: ignore[operator]
    assert isinstance(caught.value, rdskit.RdsError)
    assert caught.value.field.startswith(field)
    assert f.sentiment("negative").to_wire() == {"type": "sentiment", "values": ["negative"]}


def test_the_service_422_has_a_stable_error_code() -> None:
    body = {"detail": [{"loc": ["body", "count"], "msg": "bad", "type": "value_error"}]}
    exc = error_from_response(422, body, method="POST", path="/v1/datasets/ds_1/runs")
    assert isinstance(exc, rdskit.ValidationError)
    assert exc.error_code == rdskit.errors.VALIDATION_ERROR == "validation_error"
    assert str(exc).startswith("validation_error (HTTP 422)")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_wait_may_show_progress_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # A plain script: no IPython, not interactive (the Jupyter layer's choice of display is
    # tested in tests/jupyter/test_terminal_progress.py; this process must not load it).
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    # An IPython shell made earlier in this worker process leaves sys.ps1 behind.
    monkeypatch.delattr(sys, "ps1", raising=False)
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert may_show(None)
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a pipe or a file
    assert not may_show(None)


def test_several_problems_name_each_field_once() -> None:
    with pytest.raises(rdskit.InvalidParameter) as caught:
        f.metric_change("shares", "above")
    text = str(caught.value)
    assert caught.value.field == "metric_change.metric"
    assert text.count("metric_change.metric") == 1, text
    assert text.count("metric_change.operator") == 1, text
