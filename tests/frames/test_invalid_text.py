"""Lone surrogates (half of a UTF-16 pair, as JSON's "\\ud800" escape decodes) in the text a
frame reads: the frame is built, each one is replaced by U+FFFD, and one InvalidTextWarning
names the fields and rows that changed; the rest of the data is as sent."""

from __future__ import annotations

import json
import secrets
import warnings
from typing import Any

import httpx
import pytest

import rdskit
from rdskit.errors import InvalidTextWarning
from rdskit.frames import mentions_frame, messages_frame, pattern_items_frame, profiles_frame
from rdskit.frames.mentions import mentions_table_from_pages


def _post(post_id: str, **fields: Any) -> dict[str, Any]:
    return {"source": "tiktok", "id": post_id, "text": "plain", **fields}


def _one_warning(caught: list[warnings.WarningMessage]) -> str:
    texts = [str(w.message) for w in caught if issubclass(w.category, InvalidTextWarning)]
    assert len(texts) == 1, texts
    return texts[0]


def test_a_lone_surrogate_in_a_post_or_comment_is_replaced_and_named() -> None:
    posts = [
        _post("1", text="a\ud800b"),
        _post("2", comments=[{"id": "c1", "body": "ok"}, {"id": "c2", "body": "x\udc80"}]),
        _post("3", text="caf\u00e9 \U0001f600"),
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = mentions_frame(posts)
    message = _one_warning(caught)
    assert "2 texts" in message and "U+FFFD" in message
    assert "text in id '1'" in message and "comments[].body in id '2'" in message
    assert df["text"].tolist() == ["a\ufffdb", "plain", "caf\u00e9 \U0001f600"]
    bodies = [c["body"] for c in df.loc[1, "comments"]]
    assert bodies == ["ok", "x\ufffd"]
    # Nothing else was touched: ids, comment ids and every other post as sent.
    assert df["id"].tolist() == ["1", "2", "3"]
    assert [c["id"] for c in df.loc[1, "comments"]] == ["c1", "c2"]


def test_a_pair_written_as_two_halves_is_the_character_it_encodes() -> None:
    with pytest.warns(InvalidTextWarning, match="pair written as two halves joined"):
        df = mentions_frame([_post("1", title="\ud83d\ude00 yum")])
    assert df.loc[0, "title"] == "\U0001f600 yum"


def test_keys_and_values_of_maps_are_repaired_with_their_path() -> None:
    post = _post(
        "9",
        vibe={"calm\ud800": 0.5},
        parameters={"cp_1": {"value": "oat\udfff", "status": "done"}},
    )
    with pytest.warns(InvalidTextWarning) as caught:
        df = mentions_frame([post], parameter_names={"cp_1": "brand"})
    message = str(caught[0].message)
    assert "vibe (a key) in id '9'" in message
    assert "parameters.<key>.value in id '9'" in message
    assert df.loc[0, "vibe_calm\ufffd"] == 0.5 and df.loc[0, "brand"] == "oat\ufffd"


def test_a_parameter_name_with_a_lone_surrogate_names_its_column_repaired() -> None:
    post = _post("1", parameters={"cp_1": {"value": "oat", "status": "done"}})
    with pytest.warns(InvalidTextWarning, match=r"parameter_names\.<key> in the names"):
        df = mentions_frame([post], parameter_names={"cp_1": "br\ud800nd"})
    assert df.loc[0, "br\ufffdnd"] == "oat"


def test_pages_give_one_warning_for_the_table() -> None:
    pages = [[_post(f"{page}-{n}", text="\ud800") for n in range(3)] for page in range(4)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = mentions_table_from_pages(pages)
    message = _one_warning(caught)
    # Twelve texts in twelve posts: five are named, the others counted.
    assert "12 texts" in message and "and 7 more rows" in message
    assert "id '0-0'" in message and "id '1-1'" in message and "id '3-2'" not in message
    assert set(table["text"].to_pylist()) == {"\ufffd"}


def test_clean_text_gives_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", InvalidTextWarning)
        df = mentions_frame([_post("1", text="\u00e9\U0001f600\ufffd")])
        profiles_frame([{"id": "p", "bio": "\U0001f600", "platform_metadata": {"k": "\u00e9"}}])
    assert df.loc[0, "text"] == "\u00e9\U0001f600\ufffd"


def test_profiles_free_form_keys_and_values_are_repaired() -> None:
    profile = {
        "id": "p1",
        "bio": "b\ud800",
        "platform_metadata": {"nick\udc00": "n", "motto": "m\ud800"},
        "custom_parameters": {"tier": "gold"},
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = profiles_frame([profile, {"id": "p2", "bio": "fine"}])
    message = _one_warning(caught)
    assert "3 texts" in message and "bio in id 'p1'" in message
    assert "platform_<key> (a key) in id 'p1'" in message and "platform_motto in id 'p1'" in message
    assert df["bio"].tolist() == ["b\ufffd", "fine"]
    assert df.loc[0, "platform_nick\ufffd"] == "n" and df.loc[0, "platform_motto"] == "m\ufffd"
    assert df.loc[0, "custom_tier"] == "gold"


def test_other_loaders_warn_too() -> None:
    message = {"message_id": "tam_1", "agent_id": "ta_1", "created_at": 0, "text": "\ud800"}
    with pytest.warns(InvalidTextWarning, match="text in row 0"):
        df = messages_frame([message])
    assert df.loc[0, "text"] == "\ufffd"
    pattern = {"id": "pt_\ud800", "items": [{"item_id": "i1", "title": "Pri\udc00ce"}]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        items = pattern_items_frame(pattern)
    said = _one_warning(caught)
    assert "title in row 0" in said and "id in the pattern" in said
    assert items[["pattern_id", "title"]].values.tolist() == [["pt_\ufffd", "Pri\ufffdce"]]


def _serving(*items: dict[str, Any]) -> rdskit.Client:
    """A client of a service that sends ``items`` as its only page of mentions (JSON with
    ``\\ud800`` escapes, as ``json.dumps`` writes lone surrogates) and knows nothing else."""
    page = {"status": "success", "data": list(items), "has_next": False, "cursor": None}
    missing = {"status": "error", "error_code": "not_found", "message": "not here"}

    me = {"status": "success", "data": {"id": "seat_1", "account_id": "acc_1", "created_at": 0}}

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/mentions":
            return httpx.Response(200, content=json.dumps(page).encode())
        if request.url.path == "/v1/me":  # who the account is: the cache's key
            return httpx.Response(200, content=json.dumps(me).encode())
        return httpx.Response(404, content=json.dumps(missing).encode())

    http = httpx.Client(transport=httpx.MockTransport(answer))
    return rdskit.Client(
        "bz_test_" + secrets.token_hex(16), base_url="http://rds.test", http_client=http
    )


def test_text_from_the_service_with_a_lone_surrogate_loads() -> None:
    posts = [_post("1", text="half an emoji \ud83d"), _post("2")]
    assert b"\\ud83d" in json.dumps(posts).encode()  # what the wire carries
    with _serving(*posts) as client, pytest.warns(InvalidTextWarning, match="text in id '1'"):
        df = client.mentions.to_frame()
    assert df["text"].tolist() == ["half an emoji \ufffd", "plain"]


def _repair_steps(frame: Any) -> list[dict[str, Any]]:
    return [s for s in frame.attrs["rdskit"].get("steps", []) if s["step"] == "repair_text"]


def test_the_repair_is_a_provenance_step_and_a_methods_sentence() -> None:
    posts = [
        _post("1", text="a\ud800b", created_at=1767225600),
        _post("2", created_at=1767225600,
              comments=[{"id": "c1", "body": "x\udc80"}, {"id": "c2", "body": "\ud800"}]),
    ]  # fmt: skip
    with pytest.warns(InvalidTextWarning):
        df = mentions_frame(posts)
    (step,) = _repair_steps(df)
    assert step["settings"] == {
        "replaced_with": "U+FFFD",
        "texts": 3,
        "fields": {"text": 1, "comments[].body": 1},  # rows, by field
    }
    text = df.rds.methods().text
    assert "In 3 texts, characters that are not Unicode text" in text, text
    assert "(text: 1 row; comments[].body: 1 row)" in text, text
    # A frame loaded clean says nothing of it.
    clean = mentions_frame([_post("3", created_at=1767225600)])
    assert _repair_steps(clean) == [] and "not Unicode text" not in clean.rds.methods().text


def test_every_loader_records_its_repair() -> None:
    with pytest.warns(InvalidTextWarning):
        frames = [
            profiles_frame([{"id": "p", "bio": "b\ud800"}]),
            messages_frame([{"message_id": "tam_1", "agent_id": "ta_1", "text": "\ud800"}]),
            pattern_items_frame({"id": "pt_1", "items": [{"item_id": "i", "title": "\udc00"}]}),
        ]
    assert [_repair_steps(f)[0]["settings"]["texts"] for f in frames] == [1, 1, 1]


@pytest.mark.parametrize("cache", [False, True])
def test_the_repair_step_survives_the_client_read_and_its_cache(
    cache: bool, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_CACHE_DIR", str(tmp_path / "cache"))
    posts = [_post("1", text="half an emoji \ud83d", created_at=1767225600)]
    with _serving(*posts) as client, pytest.warns(InvalidTextWarning):
        df = client.mentions.to_frame(cache=cache)
    assert [s["settings"]["texts"] for s in _repair_steps(df)] == [1]
    assert df.attrs["rdskit"]["fetches"], df.attrs  # the read is recorded beside it
    assert "In 1 text, characters that are not Unicode text" in df.rds.methods().text
    if cache:  # read again: the post is fetched again and replaces its cached copy
        assert len(list((tmp_path / "cache").rglob("*.parquet"))) == 1
        with _serving(*posts) as client, pytest.warns(InvalidTextWarning):
            again = client.mentions.to_frame(cache=True)
        assert again.loc[0, "text"] == "half an emoji \ufffd"
        assert [s["settings"]["texts"] for s in _repair_steps(again)] == [1]  # not twice
        # A fresh copy sent whole replaces the repaired one: nothing repaired is left.
        with _serving(_post("1", text="whole", created_at=1767225600)) as client:
            mended = client.mentions.to_frame(cache=True)
        assert mended.loc[0, "text"] == "whole" and _repair_steps(mended) == []


def test_a_cache_refresh_keeps_the_repair_of_the_rows_it_keeps(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_CACHE_DIR", str(tmp_path))
    run = {"created_at": 1767225600, "dataset_run_at": 1767225600}
    first = [_post("1", text="cut \ud83d", **run), _post("2", **run)]
    with _serving(*first) as client, pytest.warns(InvalidTextWarning):
        client.mentions.to_frame(cache=True)
    # A later run adds post 3; the refresh stops at post 1, already cached, and keeps it.
    later = _post("3", created_at=1767225600, dataset_run_at=1767312000)
    with _serving(later, *first) as client:
        df = client.mentions.to_frame(cache=True)
    assert sorted(df["id"]) == ["1", "2", "3"]
    assert [s["settings"] for s in _repair_steps(df)] == [
        {"replaced_with": "U+FFFD", "texts": 1, "fields": {"text": 1}}
    ]
