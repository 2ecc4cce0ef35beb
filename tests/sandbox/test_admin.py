"""The ``/sandbox/...`` admin routes under hostile ids and amounts, over real HTTP.

An id in the path is looked up exactly: too long or holding a control character is a 422
naming the path parameter before any lookup; anything else that names no row (unicode,
SQL wildcards, an id of another kind) is a 404 and changes nothing; an id acts on its own
account only. Wallet amounts are bounded so no later read can overflow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from rdskit.sandbox import SandboxHandle
from rdskit.sandbox.backend.admin import MAX_ID_CHARS, MAX_WALLET_USD

if TYPE_CHECKING:
    from tests.sandbox.conftest import Account, Api

# (method, path template, body, name of the path parameter, its not-found code)
ROUTES = [
    ("GET", "/sandbox/accounts/{}", None, "account_id", "account_not_found"),
    ("POST", "/sandbox/accounts/{}/seats", {"email": "m@example.test"}, "account_id",
     "account_not_found"),
    ("PUT", "/sandbox/accounts/{}/plan", {"plan": "Business"}, "account_id", "account_not_found"),
    ("PUT", "/sandbox/accounts/{}/wallet", {"total_usd": "0"}, "account_id", "account_not_found"),
    ("PUT", "/sandbox/accounts/{}/assistant", {"failure": "ai_assistant_timeout"}, "account_id",
     "account_not_found"),
    ("DELETE", "/sandbox/seats/{}", None, "seat_id", "seat_not_found"),
    ("POST", "/sandbox/seats/{}/keys", None, "seat_id", "seat_not_found"),
]  # fmt: skip

# Path segments as sent (percent-encoded where a raw byte cannot go in a URL).
TOO_LONG = ["x" * 10_000, "acc_" + "0" * MAX_ID_CHARS, "é" * 3_000]
CONTROL = ["a%00b", "%00", "acc_1%0A", "usr_%7F", "%09"]
NO_SUCH_ROW = ["acc_é🙂", "%25", "acc_%25", "_", "*", "%ED%A0%80", "%FF", "' OR 1=1 --", "usr_x"]


@pytest.fixture
def admin(sandbox: SandboxHandle) -> Iterator[httpx.Client]:
    """A raw HTTP client carrying the admin token (the AdminClient raises on errors)."""
    headers = {"x-admin-token": sandbox.admin_token}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=30) as client:
        yield client


def _send(client: httpx.Client, method: str, path: str, body: Any) -> httpx.Response:
    return client.request(method, path, json=body)


def _everything(sandbox: SandboxHandle, *accounts: Account) -> list[dict[str, Any]]:
    """What the admin routes could change on these accounts: plan, wallet, seats, switch."""
    return [sandbox.admin.account(account.account_id) for account in accounts]


@pytest.mark.parametrize(("method", "template", "body", "param", "missing"), ROUTES)
def test_too_long_or_control_character_ids_are_422_naming_the_parameter(
    admin: httpx.Client, method: str, template: str, body: Any, param: str, missing: str
) -> None:
    for raw in TOO_LONG + CONTROL:
        response = _send(admin, method, template.format(raw), body)
        assert response.status_code == 422, (raw[:20], response.text[:200])
        (item,) = response.json()["detail"]
        assert item["loc"] == ["path", param], raw[:20]
        assert len(response.text) < 1_000  # the id is not echoed back


@pytest.mark.parametrize(("method", "template", "body", "param", "missing"), ROUTES)
def test_ids_naming_no_row_are_404_and_change_nothing(
    sandbox: SandboxHandle,
    admin: httpx.Client,
    new_account: Callable[..., Account],
    api: type[Api],
    method: str,
    template: str,
    body: Any,
    param: str,
    missing: str,
) -> None:
    first, second = new_account(), new_account()
    before = _everything(sandbox, first, second)
    for raw in NO_SUCH_ROW:
        api.error(_send(admin, method, template.format(raw), body), 404, missing)
    assert _everything(sandbox, first, second) == before
    for account in (first, second):  # their keys still work
        api.data(account.http.get("/v1/me"))


def test_an_id_of_the_other_kind_is_404(
    sandbox: SandboxHandle, admin: httpx.Client, account: Account, api: type[Api]
) -> None:
    before = _everything(sandbox, account)
    api.error(admin.get(f"/sandbox/accounts/{account.seat_id}"), 404, "account_not_found")
    api.error(
        admin.put(f"/sandbox/accounts/{account.seat_id}/plan", json={"plan": "Trial"}),
        404,
        "account_not_found",
    )
    api.error(admin.delete(f"/sandbox/seats/{account.account_id}"), 404, "seat_not_found")
    api.error(admin.post(f"/sandbox/seats/{account.account_id}/keys"), 404, "seat_not_found")
    assert _everything(sandbox, account) == before


def test_each_id_acts_on_its_own_account_only(
    sandbox: SandboxHandle, new_account: Callable[..., Account], api: type[Api]
) -> None:
    mine, theirs = new_account(), new_account(plan="Starter")
    untouched = sandbox.admin.account(theirs.account_id)

    seat = sandbox.admin.create_seat(mine.account_id, email="new@example.test")
    key = sandbox.admin.create_key(seat)
    sandbox.admin.set_plan(mine.account_id, "Business")
    sandbox.admin.set_wallet(mine.account_id, total_usd="12.5", used_usd="2")
    sandbox.admin.set_assistant_failure(mine.account_id, "ai_assistant_unavailable")

    assert sandbox.admin.account(theirs.account_id) == untouched
    summary = sandbox.admin.account(mine.account_id)
    assert summary["plan"] == "Business" and summary["assistant_failure"] == (
        "ai_assistant_unavailable"
    )
    assert summary["wallet"]["total_usd"] == "12.5" and summary["wallet"]["used_usd"] == "2"
    assert seat in {s["id"] for s in summary["seats"]}
    with httpx.Client(base_url=sandbox.url, headers={"x-api-key": key}, timeout=30) as http:
        me = api.data(http.get("/v1/me"))
    assert (me["id"], me["account_id"]) == (seat, mine.account_id)
    # Only the switched account's Ask fails.
    api.error(mine.http.post("/v1/ask", json={"message": "hi"}), 503, "ai_assistant_unavailable")
    api.data(theirs.http.post("/v1/ask", json={"message": "hi"}), 202)

    sandbox.admin.delete_seat(seat)  # its key goes with it; the other account keeps its own
    with httpx.Client(base_url=sandbox.url, headers={"x-api-key": key}, timeout=30) as http:
        api.error(http.get("/v1/me"), 401, "unauthorized")
    api.data(theirs.http.get("/v1/me"))
    api.data(mine.http.get("/v1/me"))


@pytest.mark.parametrize(
    "body",
    [
        {"total_usd": "1e40"},
        {"used_usd": "1e999999"},
        {"total_usd": str(MAX_WALLET_USD + Decimal("0.01"))},
        {"total_usd": "-1"},
        {"total_usd": "NaN"},
        {"used_usd": "Infinity"},
    ],
)
def test_wallet_amounts_out_of_bounds_are_422_naming_the_field(
    sandbox: SandboxHandle, admin: httpx.Client, account: Account, api: type[Api], body: Any
) -> None:
    before = sandbox.admin.account(account.account_id)
    response = admin.put(f"/sandbox/accounts/{account.account_id}/wallet", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", *body]
    assert sandbox.admin.account(account.account_id) == before
    api.data(account.http.get("/v1/me"))


def test_a_new_account_wallet_is_bounded_too(admin: httpx.Client) -> None:
    response = admin.post("/sandbox/accounts", json={"wallet_usd": "1e40"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "wallet_usd"]


def test_the_largest_wallet_still_reads_everywhere(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    # 1e40 USD used to be accepted and then every /v1/me answered 500 (Decimal overflow).
    sandbox.admin.set_wallet(account.account_id, total_usd=MAX_WALLET_USD, used_usd="0.000001")
    usage = api.data(account.http.get("/v1/me"))["usage"]
    assert Decimal(str(usage["balance_total"])) == MAX_WALLET_USD
    assert usage["credits_total"] is not None
    api.data(account.http.get("/v1/prices"))


def test_hostile_ids_without_the_token_are_401(sandbox: SandboxHandle) -> None:
    # The token is checked first: a caller without it learns nothing about ids.
    with httpx.Client(base_url=sandbox.url, timeout=30) as anonymous:
        for method, template, body, _, _ in ROUTES:
            for raw in ("x" * 10_000, "%00", "acc_é🙂"):
                response = _send(anonymous, method, template.format(raw), body)
                assert response.status_code == 401, (method, template, raw[:10])
