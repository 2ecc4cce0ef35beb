"""Configuration, and the API key never showing up anywhere."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import pickle
import traceback

import httpx
import pytest
import samples as s
from mockapi import BASE_URL, MockAPI, Reply, error, make_key, ok

import rdskit
from rdskit._config import ENV_API_KEY, ENV_BASE_URL, SecretKey, mask_key


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_API_KEY, raising=False)
    monkeypatch.delenv(ENV_BASE_URL, raising=False)


def test_key_and_url_from_the_environment(monkeypatch: pytest.MonkeyPatch, api: MockAPI) -> None:
    key = make_key()
    monkeypatch.setenv(ENV_API_KEY, key)
    monkeypatch.setenv(ENV_BASE_URL, "http://env.test/")
    api.on("GET", "/v1/me", ok(s.ME))
    with rdskit.Client(transport=httpx.MockTransport(api.handle), rate_limit=None) as client:
        client.me()
    assert api.calls[0].url == "http://env.test/v1/me"
    assert api.calls[0].headers["x-api-key"] == key


def test_arguments_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_API_KEY, make_key())
    monkeypatch.setenv(ENV_BASE_URL, "http://env.test")
    key = make_key()
    with rdskit.Client(key, base_url="https://arg.test/v1/") as client:
        assert client.base_url == "https://arg.test"
        assert client._core.api_key.reveal() == key


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"base_url": BASE_URL}, ENV_API_KEY),
        ({"api_key": "bz_test_" + "0" * 32}, ENV_BASE_URL),
        ({"api_key": "  ", "base_url": BASE_URL}, "api_key="),
        ({"api_key": "bz_test_" + "0" * 32, "base_url": "ftp://x"}, "http://"),
    ],
)
def test_missing_configuration_says_how_to_set_it(kwargs: dict, says: str) -> None:
    with pytest.raises(rdskit.ConfigurationError, match=says):
        rdskit.Client(**kwargs)
    with pytest.raises(rdskit.ConfigurationError, match=says):
        rdskit.AsyncClient(**kwargs)


def test_negative_retries_are_refused() -> None:
    with pytest.raises(rdskit.ConfigurationError, match="max_retries"):
        rdskit.Client(make_key(), base_url=BASE_URL, max_retries=-1)


def test_mask() -> None:
    key = "bz_live_0123456789abcdef0123456789abcdef"
    assert mask_key(key) == "bz_live_…#" + hashlib.sha256(key.encode()).hexdigest()[:8]
    assert "xxxx" not in mask_key("sk-" + "x" * 30)
    assert mask_key("tiny").startswith("…#")
    assert mask_key(key) != mask_key(key[:-1] + "0")  # two keys can be told apart
    secret = SecretKey(key)
    assert key not in repr(secret) and key not in str(secret) and key not in f"{secret!r:>80}"
    with pytest.raises(TypeError):
        pickle.dumps(secret)


def test_client_repr_and_str_hide_the_key() -> None:
    key = make_key()
    for client in (
        rdskit.Client(key, base_url=BASE_URL),
        rdskit.AsyncClient(key, base_url=BASE_URL),
    ):
        for text in (repr(client), str(client), repr(client._core), repr(vars(client))):
            assert key not in text
        assert mask_key(key) in repr(client)  # a fingerprint tells keys apart


def test_no_key_in_exceptions_or_logs(
    api: MockAPI, make_client, caplog: pytest.LogCaptureFixture
) -> None:
    key = make_key()
    client = make_client(api_key=key, max_retries=1)
    api.on("GET", "/v1/me", Reply(503, None), httpx.ConnectError(f"refused {BASE_URL}"))
    api.on("GET", "/v1/datasets/ds_1", error(404, "dataset_not_found"))
    api.on("POST", "/v1/datasets/ds_1/runs", httpx.ReadTimeout("slow"))
    api.on(
        "POST",
        "/v1/datasets",
        error(429, "too_many_requests", retry_after_seconds=0.1),
        ok(s.DATASET),
    )
    caught: list[BaseException] = []
    with caplog.at_level(logging.DEBUG):
        for call in (
            client.me,
            lambda: client.datasets.get("ds_1"),
            lambda: client.datasets.runs.create("ds_1", s.PROMPT_QUERY),
        ):
            try:
                call()
            except rdskit.RdsError as exc:
                caught.append(exc)
        client.datasets.create("x")
    assert [type(exc).__name__ for exc in caught] == [
        "APIConnectionError",
        "DatasetNotFound",
        "OutcomeUnknown",
    ]
    texts = [caplog.text, *(repr(r.__dict__) for r in caplog.records)]
    for exc in caught:
        texts += [str(exc), repr(exc), "".join(traceback.format_exception(exc)), repr(vars(exc))]
    assert "GET /v1/me" in caplog.text  # the logs did record the calls
    assert all(key not in text for text in texts)


def test_context_managers_close_their_own_http_client_only() -> None:
    shared = httpx.Client()
    with rdskit.Client(make_key(), base_url=BASE_URL, http_client=shared):
        pass
    assert not shared.is_closed
    shared.close()
    with rdskit.Client(make_key(), base_url=BASE_URL) as client:
        pass
    assert client._http.is_closed

    async def main() -> None:
        async with rdskit.AsyncClient(make_key(), base_url=BASE_URL) as aclient:
            pass
        assert aclient._http.is_closed

    asyncio.run(main())
