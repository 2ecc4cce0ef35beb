"""Custom parameters: the rule engine, CRUD, the free preview, runs and their billing."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.backend.custom_parameters import FLAKY_TOKEN, QUOTA, model_gives_up
from rdskit.sandbox.synth.extractor import UnprocessablePost, compile_rule, extract

if TYPE_CHECKING:
    from conftest import Account, Api

# -- the rule engine ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("instructions", "value_type", "text", "kind", "value"),
    [
        (
            "Which brand is mentioned? One of: Oatly, Alpro, Minor Figures",
            "string",
            "Tried #minorfigures today. Minor Figures foams better than oatly",
            "choice",
            "Minor Figures",
        ),
        (
            "Which brand is mentioned? One of: Oatly, Alpro, Minor Figures",
            "string",
            "Cow milk forever",
            "choice",
            None,
        ),
        (
            "Is the post a complaint? yes/no",
            "string",
            "It leaked, so disappointed",
            "yes/no",
            "yes",
        ),
        ("Is the post a complaint? yes/no", "string", "Best oat milk ever", "yes/no", "no"),
        ("Is the post a complaint? yes/no", "boolean", "Worst carton ever", "yes/no", True),
        ("Is this sponsored? yes or no", "string", "Thanks @brand #ad", "yes/no", "yes"),
        (
            "Extract the price mentioned",
            "string",
            "Paid $4.99, was 3,49 € before",
            "price",
            "$4.99",
        ),
        ("Extract the price mentioned", "number", "Paid $1,299.50 for it", "price", 1299.5),
        ("Extract the price mentioned", "string", "Free samples at the store", "price", None),
        (
            "Classify the tone as positive, negative or neutral",
            "string",
            "I absolutely love this, amazing!",
            "tone",
            "positive",
        ),
        (
            "Classify the tone as positive, negative or neutral",
            "string",
            "This is awful and I hate it",
            "tone",
            "negative",
        ),
        (
            "Classify the tone as Positive, Negative or Neutral",
            "string",
            "The carton is one litre.",
            "tone",
            "Neutral",
        ),
        ("What country is the author in?", "string", "Fika in Stockholm 🇸🇪", "country", "Sweden"),
        ("What country? Give the ISO code", "string", "Rainy day in London", "country", "GB"),
        ("Count the number of hashtags", "number", "#oat #milk #vegan nice", "count", 3),
        ("How many times is coffee mentioned?", "number", "coffee, coffee, coffees", "count", 3),
        ("Count the number of emojis", "string", "so good 😍😍 🔥", "count", "3"),
        (
            "Which brand does the author prefer?",
            "string",
            "honestly Oatly Barista wins",
            "name",
            "Oatly Barista",
        ),
        (
            "What does the author say about foam?",
            "string",
            "Tried it yesterday. The foam was thick and silky. Taste ok.",
            "extract",
            "The foam was thick and silky.",
        ),
        ("Does it mention sustainability?", "boolean", "sustainable packaging", "yes/no", True),
        ("Does it mention sustainability?", "boolean", "tasty", "yes/no", False),
    ],
)
def test_rules_follow_the_instruction(
    instructions: str, value_type: str, text: str, kind: str, value: object
) -> None:
    rule = compile_rule(instructions, value_type)
    assert rule.kind == kind
    result = rule.apply(None, text)
    assert result.value == value
    assert type(result.value) is type(value)
    assert result.explanation.startswith(f"{kind}: ")


def test_rules_read_title_and_text_and_explain() -> None:
    result = extract("Which brand? One of: Oatly, Alpro", "string", "Alpro review", "so creamy")
    assert result.value == "Alpro"
    assert "'Alpro' appears 1x" in result.explanation


def test_choice_ties_go_to_the_first_mentioned_option() -> None:
    rule = compile_rule("One of: Oatly, Alpro")
    assert rule.apply(None, "alpro or oatly?").value == "Alpro"
    assert rule.apply(None, "oatly, alpro, alpro").value == "Alpro"  # most mentions wins


@pytest.mark.parametrize("text", ["", "   ", "https://example.com/x #tag @handle 🔥"])
def test_posts_without_analysable_text_fail(text: str) -> None:
    with pytest.raises(UnprocessablePost):
        compile_rule("Is the post a complaint? yes/no").apply(None, text)


def test_unknown_value_types_fall_back_to_string() -> None:
    assert compile_rule("Count the hashtags", "date").apply(None, "#a #b nice").value == "2"


# -- over HTTP ------------------------------------------------------------------------------

BRAND = {
    "name": "Brand",
    "instructions": "Which brand is mentioned? One of: Oatly, Alpro, Minor Figures",
    "value_type": "string",
}


@pytest.fixture(scope="module")
def slow() -> Iterator[SandboxHandle]:
    """A private, slower sandbox, so a run's intermediate counters can be observed."""
    with start(speed=10, rate_limit=10_000, seed=5) as handle:
        yield handle


def _dataset(http: httpx.Client, api: type[Api], count: int = 20) -> str:
    """A dataset with one completed run of ``count`` posts."""
    dataset_id: str = api.data(http.post("/v1/datasets", json={"name": "cp"}))["id"]
    if count:
        run = api.data(
            http.post(f"/v1/datasets/{dataset_id}/runs", json=api.prompt_run(count=count))
        )
        assert (
            api.wait_run(http, dataset_id, run["id"], timeout=60)["status"]["type"] == "completed"
        )
    return dataset_id


def _mentions(
    http: httpx.Client, api: type[Api], dataset_id: str, **extra: Any
) -> list[dict[str, Any]]:
    body = {"dataset_ids": [dataset_id], "limit": 100, **extra}
    found: list[dict[str, Any]] = api.data(http.post("/v1/mentions", json=body))
    return found


def _blank_out(handle: SandboxHandle, account_id: str, posts: list[dict[str, Any]]) -> None:
    """Make posts unreadable (as image-only posts are): no title, text of tags and emoji."""
    with handle.store.transaction() as conn:
        for post in posts:
            (raw,) = conn.execute(
                "SELECT body FROM mentions WHERE account_id = ? AND source = ? AND id = ?",
                (account_id, post["source"], post["id"]),
            ).fetchone()
            body = {**json.loads(raw), "title": "", "text": "🔥🔥 #oat https://x.test/p"}
            conn.execute(
                "UPDATE mentions SET body = ? WHERE account_id = ? AND source = ? AND id = ?",
                (json.dumps(body), account_id, post["source"], post["id"]),
            )


def _wait(
    http: httpx.Client, api: type[Api], parameter_id: str, run_id: str
) -> list[dict[str, Any]]:
    """Poll a run until it ends; return every distinct state seen."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + 60
    while True:
        run = api.data(http.get(f"/v1/custom_parameters/{parameter_id}/runs/{run_id}"))
        if not seen or run != seen[-1]:
            seen.append(run)
        if run["status"]["type"] != "processing":
            return seen
        assert time.monotonic() < deadline, run
        time.sleep(0.01)


def _wallet(handle: SandboxHandle, account_id: str) -> dict[str, Decimal]:
    return {k: Decimal(v) for k, v in handle.admin.account(account_id)["wallet"].items()}


def test_parameter_crud_and_name_rules(account: Account, api: type[Api]) -> None:
    http = account.http
    created = api.data(http.post("/v1/custom_parameters", json=BRAND))
    assert created["id"].startswith("cp_")
    assert {k: created[k] for k in BRAND} == BRAND
    assert isinstance(created["created_at"], int) and isinstance(created["updated_at"], int)

    listed = http.get("/v1/custom_parameters").json()
    assert set(listed) == {"status", "data"} and listed["data"] == [created]
    assert api.data(http.get(f"/v1/custom_parameters/{created['id']}")) == created

    api.error(
        http.post("/v1/custom_parameters", json=BRAND), 409, "custom_parameter_duplicate_name"
    )
    api.error(
        http.post("/v1/custom_parameters", json={**BRAND, "name": "  "}),
        400,
        "custom_parameter_empty_name",
    )
    other = api.data(http.post("/v1/custom_parameters", json={**BRAND, "name": "Other"}))
    url = f"/v1/custom_parameters/{other['id']}"
    api.error(http.patch(url, json={"name": "Brand"}), 409, "custom_parameter_duplicate_name")
    api.error(http.patch(url, json={"name": ""}), 400, "custom_parameter_empty_name")
    patched = api.data(http.patch(url, json={"instructions": "Extract the price"}))
    assert patched["name"] == "Other" and patched["instructions"] == "Extract the price"

    api.data(http.delete(url))
    for response in (http.get(url), http.delete(url), http.patch(url, json={"name": "z"}),
                     http.post(f"{url}/runs", json={"scope": {"kind": "dataset", "id": "ds_x"}}),
                     http.get(f"{url}/runs")):  # fmt: skip
        api.error(response, 404, "custom_parameter_not_found")
    assert (
        http.post(
            "/v1/custom_parameters", json={**BRAND, "name": "x", "value_type": "date"}
        ).status_code
        == 422
    )


def test_parameter_quota(new_account: Callable[..., Account], api: type[Api]) -> None:
    trial = new_account(plan="Trial")
    for n in range(QUOTA["Trial"]):
        api.data(trial.http.post("/v1/custom_parameters", json={**BRAND, "name": f"p{n}"}))
    api.error(
        trial.http.post("/v1/custom_parameters", json=BRAND), 400, "custom_parameter_limit_exceeded"
    )


def test_preview_is_free_and_matches_the_rule_engine(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    http = account.http
    mentions = _mentions(http, api, _dataset(http, api))[:5]
    before = _wallet(sandbox, account.account_id)
    instructions = "Is the post a complaint? yes/no"
    body = {"instructions": instructions, "value_type": "string",
            "post_refs": [{"id": m["id"], "source": m["source"]} for m in mentions]}  # fmt: skip
    results = api.data(http.post("/v1/custom_parameters/preview", json=body))["results"]
    rule = compile_rule(instructions)
    assert results == [
        {
            "post_id": m["id"],
            "source": m["source"],
            "value": rule.apply(m["title"], m["text"]).value,
        }
        for m in mentions
    ]
    assert _wallet(sandbox, account.account_id) == before

    for refs in ([], body["post_refs"] + [body["post_refs"][0]]):
        assert (
            http.post("/v1/custom_parameters/preview", json={**body, "post_refs": refs}).status_code
            == 422
        )
    unknown = {**body, "post_refs": [{"id": "nope", "source": "reddit"}]}
    assert api.data(http.post("/v1/custom_parameters/preview", json=unknown))["results"] == [
        {"post_id": "nope", "source": "reddit", "value": None}
    ]


def test_run_counters_completion_values_and_billing(
    slow: SandboxHandle, connect: Callable[..., httpx.Client], api: type[Api]
) -> None:
    acct = slow.admin.create_account()
    http = connect(slow, acct.api_key)
    dataset_id = _dataset(http, api, count=40)
    mentions = _mentions(http, api, dataset_id)
    _blank_out(slow, acct.account_id, mentions[:3])
    parameter = api.data(http.post("/v1/custom_parameters", json=BRAND))
    unit = Decimal(str(api.data(http.get("/v1/prices"))["prices"]["post_processing"]))
    before = _wallet(slow, acct.account_id)

    scope = {"scope": {"kind": "dataset", "id": dataset_id}}
    started = api.data(http.post(f"/v1/custom_parameters/{parameter['id']}/runs", json=scope))
    assert set(started) == {"run_id"} and started["run_id"].startswith("cpr_")
    held = _wallet(slow, acct.account_id)["held_usd"] - before["held_usd"]
    assert held == len(mentions) * unit  # reserved on the dataset's mention count
    api.error(http.post(f"/v1/custom_parameters/{parameter['id']}/runs", json=scope), 409,
              "custom_parameter_run_in_flight")  # fmt: skip

    states = _wait(http, api, parameter["id"], started["run_id"])
    final = states[-1]
    assert final["status"] == {"type": "completed"}
    assert (final["mentions_total"], final["mentions_error"], final["mentions_remaining"]) == (
        len(mentions),
        3,
        0,
    )
    assert final["mentions_done"] + final["mentions_error"] == final["mentions_total"]
    assert (final["custom_parameter_id"], final["scope"]) == (parameter["id"], scope["scope"])
    progressing = [s for s in states if s["status"]["type"] == "processing"]
    assert any(
        0 < s["mentions_done"] + s["mentions_error"] < s["mentions_total"] for s in progressing
    )
    for state in states:
        assert state["mentions_done"] + state["mentions_error"] + state[
            "mentions_remaining"
        ] == len(mentions)
        assert (state["status"]["type"] == "completed") == (state["mentions_remaining"] == 0)
    dones = [s["mentions_done"] for s in states]
    assert dones == sorted(dones)

    # charged for the processed posts only, the rest of the reservation released
    after = _wallet(slow, acct.account_id)
    assert after["used_usd"] - before["used_usd"] == final["mentions_done"] * unit
    assert after["held_usd"] == before["held_usd"]

    # values are the rule engine's, readable through the mentions query
    with_values = _mentions(http, api, dataset_id, parameter_ids=[parameter["id"]])
    rule = compile_rule(BRAND["instructions"])
    blank = {(m["source"], m["id"]) for m in mentions[:3]}
    for mention in with_values:
        value = mention["parameters"][parameter["id"]]
        if (mention["source"], mention["id"]) in blank:
            assert value["status"] == "failed" and value["value"] is None
        else:
            assert value["status"] == "completed" and isinstance(value["computed_at"], int)
            assert value["value"] == rule.apply(mention["title"], mention["text"]).value
    assert any(m["parameters"][parameter["id"]]["value"] for m in with_values)

    listed = api.data(http.get(f"/v1/custom_parameters/{parameter['id']}/runs"))
    assert [r["id"] for r in listed] == [started["run_id"]]
    missing = http.get(f"/v1/custom_parameters/{parameter['id']}/runs/cpr_missing")
    api.error(missing, 404, "custom_parameter_not_found")


def test_run_preconditions(sandbox: SandboxHandle, account: Account, api: type[Api]) -> None:
    http = account.http
    parameter = api.data(http.post("/v1/custom_parameters", json=BRAND))
    runs = f"/v1/custom_parameters/{parameter['id']}/runs"
    empty = _dataset(http, api, count=0)
    api.error(
        http.post(runs, json={"scope": {"kind": "dataset", "id": empty}}), 400, "nothing_to_analyze"
    )
    api.error(
        http.post(runs, json={"scope": {"kind": "dataset", "id": "ds_x"}}), 404, "dataset_not_found"
    )
    assert http.post(runs, json={"scope": {"kind": "collection", "id": empty}}).status_code == 422

    dataset_id = _dataset(http, api, count=10)
    used = sandbox.admin.account(account.account_id)["wallet"]["used_usd"]
    sandbox.admin.set_wallet(account.account_id, total_usd=used)
    body = api.error(http.post(runs, json={"scope": {"kind": "dataset", "id": dataset_id}}), 402,
                     "insufficient_credits_content_analysis")  # fmt: skip
    unit = Decimal(str(api.data(http.get("/v1/prices"))["prices"]["post_processing"]))
    assert Decimal(body["detail"]["required"]) == 10 * unit
    assert api.data(http.get(runs)) == []  # nothing started


def test_failed_run_refunds_everything(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    http = account.http
    dataset_id = _dataset(http, api, count=12)
    broken = {**BRAND, "instructions": "Which brand? One of: Oatly, Alpro __fail__"}
    parameter = api.data(http.post("/v1/custom_parameters", json=broken))
    before = _wallet(sandbox, account.account_id)
    scope = {"scope": {"kind": "dataset", "id": dataset_id}}
    started = api.data(http.post(f"/v1/custom_parameters/{parameter['id']}/runs", json=scope))
    final = _wait(http, api, parameter["id"], started["run_id"])[-1]
    # the spec's {type}; the emulator adds why (a field the spec does not show, kept by clients)
    assert final["status"] == {"type": "failed", "reason": "the extraction model failed"}
    assert _wallet(sandbox, account.account_id) == before
    mentions = _mentions(http, api, dataset_id, parameter_ids=[parameter["id"]])
    assert all(parameter["id"] not in (m.get("parameters") or {}) for m in mentions)


def test_values_keep_their_value_type(account: Account, api: type[Api]) -> None:
    http = account.http
    dataset_id = _dataset(http, api, count=15)
    complaint = {
        "name": "Complaint",
        "instructions": "Is the post a complaint?",
        "value_type": "boolean",
    }
    parameter = api.data(http.post("/v1/custom_parameters", json=complaint))
    scope = {"scope": {"kind": "dataset", "id": dataset_id}}
    started = api.data(http.post(f"/v1/custom_parameters/{parameter['id']}/runs", json=scope))
    assert _wait(http, api, parameter["id"], started["run_id"])[-1]["status"]["type"] == "completed"
    rule = compile_rule(complaint["instructions"], "boolean")
    for mention in _mentions(http, api, dataset_id, parameter_ids=[parameter["id"]]):
        value = mention["parameters"][parameter["id"]]["value"]
        assert value is rule.apply(mention["title"], mention["text"]).value


def test_posts_the_model_gives_up_on_count_as_errors(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    http = account.http
    dataset_id = _dataset(http, api, count=40)
    mentions = _mentions(http, api, dataset_id)
    flaky = {**BRAND, "instructions": f"{BRAND['instructions']} {FLAKY_TOKEN}"}
    parameter = api.data(http.post("/v1/custom_parameters", json=flaky))
    unit = Decimal(str(api.data(http.get("/v1/prices"))["prices"]["post_processing"]))
    before = _wallet(sandbox, account.account_id)
    scope = {"scope": {"kind": "dataset", "id": dataset_id}}
    started = api.data(http.post(f"/v1/custom_parameters/{parameter['id']}/runs", json=scope))
    final = _wait(http, api, parameter["id"], started["run_id"])[-1]

    given_up = {(m["source"], m["id"]) for m in mentions if model_gives_up(m["source"], m["id"])}
    assert given_up  # 40 posts: about eight
    assert final["status"] == {"type": "completed"}
    assert final["mentions_error"] == len(given_up)
    assert final["mentions_done"] + final["mentions_error"] == final["mentions_total"] == 40
    after = _wallet(sandbox, account.account_id)
    assert after["used_usd"] - before["used_usd"] == final["mentions_done"] * unit
    assert after["held_usd"] == before["held_usd"]
    rule = compile_rule(BRAND["instructions"])  # the token is not part of the rule
    for mention in _mentions(http, api, dataset_id, parameter_ids=[parameter["id"]]):
        value = mention["parameters"][parameter["id"]]
        if (mention["source"], mention["id"]) in given_up:
            assert value["status"] == "failed" and value["value"] is None
        else:
            assert value["status"] == "completed"
            assert value["value"] == rule.apply(mention["title"], mention["text"]).value
