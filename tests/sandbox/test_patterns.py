"""Pattern detection: the clustering itself, the run lifecycle, billing and pattern reads."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import httpx

from rdskit.sandbox import SandboxHandle
from rdskit.sandbox.synth.clustering import MAX_PATTERNS, Doc, detect_patterns, summarize

if TYPE_CHECKING:
    from conftest import Account, Api

THEMES = {
    "foam": [
        "The oat milk foam is silky for latte art",
        "Barista edition foams perfectly in my latte",
        "Microfoam with oat barista milk, latte art finally works",
        "Steamed the oat milk, silky foam for my flat white latte",
    ],
    "price": [
        "Oat milk price went up again, too expensive",
        "Why is oat milk so expensive at the supermarket, the price doubled",
        "Paying more for oat milk than cow milk, the price is crazy",
        "Expensive oat milk prices, looking for cheaper options",
    ],
    "leak": [
        "Carton leaked in the fridge, what a mess",
        "The carton cap leaks everywhere",
        "Another leaking carton, the packaging is broken",
        "Packaging broke and the carton leaked",
    ],
}


def _themed_docs(n: int, seed: int = 3) -> list[Doc]:
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        theme = rng.choice(sorted(THEMES))
        filler = rng.choice(["", " honestly", " #oatmilk", " 😅", " https://x.test/p"])
        docs.append(Doc("reddit", f"{theme}-{i}", None, rng.choice(THEMES[theme]) + filler))
    return docs


def _themes_of(item_keys: set[tuple[str, str]]) -> set[str]:
    return {post_id.split("-")[0] for _, post_id in item_keys}


def test_items_group_posts_of_one_theme() -> None:
    docs = _themed_docs(120)
    items = detect_patterns(docs, "What do people complain about?")
    assert 3 <= len(items) <= MAX_PATTERNS
    for item in items:
        assert len(_themes_of({m.key for m in item.members})) == 1, item.title
    # every theme is found, and every post lands in exactly one item
    assert set().union(*(_themes_of({m.key for m in i.members}) for i in items)) == set(THEMES)
    keys = [m.key for item in items for m in item.members]
    assert sorted(keys) == sorted(d.key for d in docs)
    assert [len(i.members) for i in items] == sorted((len(i.members) for i in items), reverse=True)


def test_item_titles_and_synopses_come_from_the_group() -> None:
    items = detect_patterns(_themed_docs(60), "")
    for item in items:
        theme = _themes_of({m.key for m in item.members}).pop()
        vocabulary = " ".join(THEMES[theme]).lower()
        assert item.terms and all(term in vocabulary for term in item.terms)
        assert item.title.lower().startswith(item.terms[0])
        quoted = [q for q in item.synopsis.split("”") if q.strip()]
        assert 1 <= len(quoted) <= 2
        assert all(any(q.strip(" “") in s or s in q for s in THEMES[theme]) for q in quoted)
        confidences = [m.confidence for m in item.members]
        assert confidences == sorted(confidences, reverse=True)
        assert all(0 < c <= 1 for c in confidences)


def test_detection_is_deterministic_and_skips_empty_posts() -> None:
    docs = [
        *_themed_docs(40),
        Doc("tiktok", "empty", None, ""),
        Doc("tiktok", "url", "", "https://x.test"),
    ]
    first, second = detect_patterns(docs, "price?"), detect_patterns(docs, "price?")
    assert first == second
    assert all(m.key[1] not in ("empty", "url") for item in first for m in item.members)
    assert "2 posts fit no recurring pattern" in summarize(first, "price?", len(docs))


def test_tiny_and_empty_inputs() -> None:
    assert detect_patterns([], "q") == []
    assert detect_patterns([Doc("reddit", "1", None, "only one post here")], "q") == []
    two = detect_patterns(
        [Doc("reddit", "1", None, "silky foam latte"), Doc("reddit", "2", None, "foam latte art")]
    )
    assert len(two) == 1 and len(two[0].members) == 2
    assert summarize([], "Why?", 0).startswith("No recurring patterns")


# -- over HTTP ------------------------------------------------------------------------------


def _collected_dataset(
    http: httpx.Client, api: type[Api], count: int = 60
) -> tuple[str, dict[str, Any]]:
    """A dataset with one completed run of ``count`` posts; returns (dataset id, run)."""
    dataset_id = api.data(http.post("/v1/datasets", json={"name": "oat patterns"}))["id"]
    run = api.data(http.post(f"/v1/datasets/{dataset_id}/runs", json=api.prompt_run(count=count)))
    finished = api.wait_run(http, dataset_id, run["id"])
    assert finished["status"]["type"] == "completed"
    return dataset_id, finished


def _wait_detection(http: httpx.Client, api: type[Api], run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        run: dict[str, Any] = api.data(http.get(f"/v1/pattern_detections/{run_id}"))
        if run["status"]["type"] in ("completed", "failed"):
            return run
        assert time.monotonic() < deadline, run
        time.sleep(0.02)


def _unit_usd(http: httpx.Client, api: type[Api]) -> Decimal:
    return Decimal(str(api.data(http.get("/v1/prices"))["prices"]["post_processing"]))


def _wallet(sandbox: SandboxHandle, account: Account) -> dict[str, Decimal]:
    return {k: Decimal(v) for k, v in sandbox.admin.account(account.account_id)["wallet"].items()}


def _posts_text(http: httpx.Client, api: type[Api], refs: list[dict[str, Any]]) -> list[str]:
    body = {"post_refs": [{"source": r["source"], "id": r["id"]} for r in refs], "limit": 100}
    mentions = api.data(http.post("/v1/mentions", json=body))
    assert {(m["source"], m["id"]) for m in mentions} == {(r["source"], r["id"]) for r in refs}
    return [f"{m.get('title') or ''} {m.get('text') or ''}".lower() for m in mentions]


def test_detection_lifecycle_items_and_billing(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    http = account.http
    dataset_id, collected = _collected_dataset(http, api)
    before = _wallet(sandbox, account)
    request = {
        "dataset_id": dataset_id,
        "name": "Pains",
        "research_question": "What annoys people?",
    }
    run = api.data(http.post("/v1/pattern_detections", json=request))
    assert run["run_id"].startswith("pdr_")
    assert run["status"] == {"type": "pending", "steps": []}
    assert (run["collection_id"], run["name"], run["research_question"]) == (
        dataset_id, "Pains", "What annoys people?",
    )  # fmt: skip
    assert isinstance(run["created_at"], int) and "pattern_id" not in run

    done = _wait_detection(http, api, run["run_id"])
    assert done["status"]["type"] == "completed"
    assert [s["status"] for s in done["status"]["steps"]] == ["completed"] * 3
    pattern_id = done["pattern_id"]
    assert pattern_id.startswith("pt_")

    # charged for the posts of the latest completed run, nothing left on hold
    after = _wallet(sandbox, account)
    assert after["used_usd"] - before["used_usd"] == collected["mentions_count"] * _unit_usd(
        http, api
    )
    assert after["held_usd"] == 0
    history = api.data(http.get("/v1/me/usage_history", params={"limit": 1}))
    assert history[0]["category"] == "post_processing"

    pattern = api.data(http.get(f"/v1/patterns/{pattern_id}"))
    assert pattern["summary"] and len(pattern["items"]) >= 2
    assert sum(i["post_count"] for i in pattern["items"]) <= collected["mentions_count"]
    counts = [i["post_count"] for i in pattern["items"]]
    assert counts == sorted(counts, reverse=True)
    members: dict[str, list[str]] = {}
    for item in pattern["items"]:
        assert item["title"] and item["synopsis"] and item["item_id"]
        detail = api.data(http.get(f"/v1/patterns/{pattern_id}/items/{item['item_id']}"))
        assert detail["item_id"] == item["item_id"] and detail["title"] == item["title"]
        assert detail["synopsis"] == item["synopsis"]
        posts = detail["posts"]
        assert len(posts) == item["post_count"]
        assert all(p["type"] == "post" and set(p) == {"type", "source", "id"} for p in posts)
        members[item["title"]] = _posts_text(http, api, posts)
    # Items really group posts: an item's title words are far more common in its own posts
    # than in the other items' posts.
    for title, texts in members.items():
        terms = [w.strip().lower()[:5] for w in title.replace("&", ",").split(",")]
        others = [t for other, ts in members.items() if other != title for t in ts]
        inside = sum(any(term in t for term in terms) for t in texts) / len(texts)
        outside = sum(any(term in t for term in terms) for t in others) / len(others)
        assert inside >= 0.5 and inside > outside + 0.25, (title, inside, outside)
    missing = http.get(f"/v1/patterns/{pattern_id}/items/pti_missing")
    api.error(missing, 404, "pattern_item_not_found")


def test_mentions_carry_pattern_assignments(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    http = account.http
    dataset_id, _ = _collected_dataset(http, api, count=30)
    run = api.data(
        http.post(
            "/v1/pattern_detections",
            json={"dataset_id": dataset_id, "name": "All", "research_question": "What is said?"},
        )
    )
    pattern_id = _wait_detection(http, api, run["run_id"])["pattern_id"]
    item = api.data(http.get(f"/v1/patterns/{pattern_id}"))["items"][0]
    post = api.data(http.get(f"/v1/patterns/{pattern_id}/items/{item['item_id']}"))["posts"][0]
    body = {"post_refs": [{"source": post["source"], "id": post["id"]}]}
    (mention,) = api.data(http.post("/v1/mentions", json=body))
    (assignment,) = mention["pattern_assignments"][pattern_id]
    assert assignment["pattern_item_id"] == item["item_id"]
    assert assignment["name"] == item["title"]
    assert 0 < assignment["confidence"] <= 1


def test_reservation_is_sized_on_the_latest_completed_run(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    http = account.http
    dataset_id, collected = _collected_dataset(http, api, count=20)
    wallet = _wallet(sandbox, account)
    needed = collected["mentions_count"] * _unit_usd(http, api)
    short = wallet["used_usd"] + needed - Decimal("0.000001")
    sandbox.admin.set_wallet(account.account_id, total_usd=short)
    request = {"dataset_id": dataset_id, "name": "p", "research_question": "q"}
    body = api.error(
        http.post("/v1/pattern_detections", json=request),
        402,
        "insufficient_credits_pattern_detection",
    )
    assert Decimal(body["detail"]["required"]) == needed
    assert _wallet(sandbox, account)["held_usd"] == 0  # nothing started

    sandbox.admin.set_wallet(account.account_id, total_usd=short + Decimal("0.000001"))
    run = api.data(http.post("/v1/pattern_detections", json=request))
    assert _wait_detection(http, api, run["run_id"])["status"]["type"] == "completed"
    assert _wallet(sandbox, account)["available_usd"] == 0


def test_failed_detection_refunds_everything(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    http = account.http
    dataset_id, _ = _collected_dataset(http, api, count=10)
    before = _wallet(sandbox, account)
    request = {"dataset_id": dataset_id, "name": "x", "research_question": "why __fail__?"}
    run = api.data(http.post("/v1/pattern_detections", json=request))
    failed = _wait_detection(http, api, run["run_id"])
    assert failed["status"]["type"] == "failed" and "pattern_id" not in failed
    assert _wallet(sandbox, account) == before


def test_not_found_errors(
    account: Account, new_account: Callable[..., Account], api: type[Api]
) -> None:
    http = account.http
    body = {"dataset_id": "ds_missing", "name": "x", "research_question": "q"}
    api.error(http.post("/v1/pattern_detections", json=body), 404, "dataset_not_found")
    other = new_account()
    theirs = api.data(other.http.post("/v1/datasets", json={"name": "theirs"}))["id"]
    body["dataset_id"] = theirs
    api.error(http.post("/v1/pattern_detections", json=body), 404, "dataset_not_found")
    api.error(
        http.get("/v1/pattern_detections/pdr_missing"), 404, "pattern_detection_run_not_found"
    )
    api.error(http.get("/v1/patterns/pt_missing"), 404, "pattern_not_found")
    api.error(http.get("/v1/patterns/pt_missing/items/pti_x"), 404, "pattern_not_found")
    assert http.post("/v1/pattern_detections", json={"dataset_id": theirs}).status_code == 422
