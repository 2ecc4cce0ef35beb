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

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/mentions":
            return httpx.Response(200, content=json.dumps(page).encode())
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
