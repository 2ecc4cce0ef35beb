"""Research previews: windows, URL outcomes, billing and refunds, storage."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pytest

from rdskit.sandbox import SandboxHandle
from rdskit.sandbox.synth.preview_samples import (
    WindowError,
    day_window,
    relative_date,
    resolve_url,
    time_window,
)

if TYPE_CHECKING:
    from conftest import Account, Api

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
PROMPT = {"type": "prompt", "search_query": "oat milk", "sources": ["reddit", "tiktok"]}
POST_FIELDS = {
    "position", "source", "url", "author_display_name", "headline", "relative_date", "text",
    "is_image_available", "content_type", "ad_meta",
}  # fmt: skip


# -- pure helpers ---------------------------------------------------------------------------


def test_time_windows() -> None:
    assert time_window("past_month", None, None, NOW) == (NOW - timedelta(days=30), NOW)
    assert time_window("12h", None, None, NOW) == (NOW - timedelta(hours=12), NOW)
    since, until = time_window(None, "2026-01-01", "2026-01-02", NOW)
    assert (since.isoformat(), until.isoformat()) == (
        "2026-01-01T00:00:00+00:00",
        "2026-01-02T23:59:59.999999+00:00",
    )
    bad_windows = [
        ("past_week", "2026-01-01", None),
        (None, None, None),
        (None, "2026-01-01", None),
        ("fortnight", None, None),
        ("0d", None, None),
        (None, "2026-02-01", "2026-01-01"),
    ]
    for bad in bad_windows:
        with pytest.raises(ValueError):
            time_window(*bad, NOW)


@pytest.mark.parametrize(
    "day",
    # The document says format: date (RFC 3339 full-date); fromisoformat alone takes the
    # compact and week forms and an instant, and the fuzz sent "" (read as a bad time_filter).
    ["", "20260101", "2026-W01-1", "2026-01-01T06:00:00Z", "2026-02-30", "2026-1-1", "٢٠٢٦-01-01"],
)
def test_a_window_day_is_a_full_date(day: str) -> None:
    with pytest.raises(WindowError, match="date_until must be a date, YYYY-MM-DD") as raised:
        time_window(None, "2026-01-01", day, NOW)
    assert raised.value.field == "date_until"
    with pytest.raises(WindowError) as raised:
        day_window(day, None, ("date_filter_since", "date_filter_until"))
    assert raised.value.field == "date_filter_since"


@pytest.mark.parametrize(
    ("url", "source", "outcome"),
    [
        ("https://www.tiktok.com/@oatly", "tiktok", "resolved"),
        ("reddit.com/r/Coffee", "reddit", "resolved"),
        ("https://www.instagram.com/private.oats", "instagram", "private"),
        ("https://www.youtube.com/@does-not-exist", "youtube", "missing"),
        ("https://www.linkedin.com/in/missing-person", "linkedin", "missing"),
        ("https://www.tiktok.com/@fail.co", "tiktok", "failed"),
        ("https://www.tiktok.com/", "tiktok", "failed"),
        ("https://myspace.com/oatly", None, "unsupported"),
    ],
)
def test_url_outcomes_are_read_from_the_url(url: str, source: str | None, outcome: str) -> None:
    resolved = resolve_url(url)
    assert (resolved.source, resolved.outcome) == (source, outcome)


def test_relative_dates() -> None:
    ages = [timedelta(seconds=20), timedelta(minutes=1), timedelta(hours=3), timedelta(days=2),
            timedelta(days=15), timedelta(days=61), timedelta(days=800)]  # fmt: skip
    assert [relative_date(NOW - age, NOW) for age in ages] == [
        "just now", "1 minute ago", "3 hours ago", "2 days ago", "2 weeks ago", "2 months ago",
        "2 years ago",
    ]  # fmt: skip


# -- over HTTP ------------------------------------------------------------------------------


def _unit(http: Any, api: type[Api]) -> Decimal:
    return Decimal(str(api.data(http.get("/v1/prices"))["prices"]["preview_generation"]))


def _used(sandbox: SandboxHandle, account: Account) -> Decimal:
    wallet = sandbox.admin.account(account.account_id)["wallet"]
    assert Decimal(wallet["held_usd"]) == 0  # previews never leave a reservation behind
    return Decimal(wallet["used_usd"])


def test_prompt_preview_charges_per_source_and_persists(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    http = account.http
    before = _used(sandbox, account)
    preview = api.data(
        http.post("/v1/research_previews", json={**PROMPT, "time_filter": "past_month"})
    )
    assert preview["type"] == "prompt" and preview["preview_id"]
    assert isinstance(preview["estimated_number_of_results"], int)
    assert preview["estimated_number_of_results"] > 0
    posts = preview["posts"]
    assert posts and [p["position"] for p in posts] == list(range(1, len(posts) + 1))
    for post in posts:
        assert set(post) >= POST_FIELDS
        assert post["source"] in ("reddit", "tiktok") and post["url"].startswith("https://")
        assert isinstance(post["is_image_available"], bool) and post["relative_date"].endswith(
            "ago"
        )

    assert _used(sandbox, account) - before == 2 * _unit(http, api)
    row = api.data(http.get("/v1/me/usage_history", params={"limit": 1}))[0]
    assert row["category"] == "preview_generation"
    assert Decimal(str(row["quantity"])) == 2 * _unit(http, api)

    stored = api.data(http.get(f"/v1/research_previews/{preview['preview_id']}"))
    assert stored == preview
    assert _used(sandbox, account) - before == 2 * _unit(http, api)  # the GET was free


@pytest.mark.parametrize(
    "window",
    [
        {},
        {"time_filter": "past_week", "date_since": "2026-01-01", "date_until": "2026-01-31"},
        {"date_since": "2026-01-01"},
        {"date_until": "2026-01-31"},
        {"time_filter": "someday"},
    ],
)
def test_prompt_needs_exactly_one_window(
    sandbox: SandboxHandle, account: Account, window: dict[str, str]
) -> None:
    before = _used(sandbox, account)
    response = account.http.post("/v1/research_previews", json={**PROMPT, **window})
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"][0] == "body"
    assert _used(sandbox, account) == before


def test_date_pair_window_and_unknown_source(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    http = account.http
    body = {
        **PROMPT,
        "sources": ["youtube"],
        "date_since": "2025-06-01",
        "date_until": "2025-06-30",
    }
    assert api.data(http.post("/v1/research_previews", json=body))["posts"]
    before = _used(sandbox, account)
    unknown = {**PROMPT, "sources": ["reddit", "myspace"], "time_filter": "past_week"}
    api.error(http.post("/v1/research_previews", json=unknown), 400, "source_unavailable")
    assert _used(sandbox, account) == before
    assert http.post("/v1/research_previews", json={"type": "other"}).status_code == 422


@pytest.mark.parametrize(
    ("window", "field"),
    [
        ({"date_since": "", "date_until": ""}, "date_since"),
        ({"date_since": "2026-01-01", "date_until": "2026-01-02T06:00:00Z"}, "date_until"),
        ({"date_since": "2026-02-01", "date_until": "2026-01-01"}, "date_since"),
        ({"type": "url", "date_filter_since": ""}, "date_filter_since"),
        ({"type": "url", "date_filter_until": "soon"}, "date_filter_until"),
    ],
)
def test_a_bad_window_day_is_refused_by_name(
    sandbox: SandboxHandle, account: Account, window: dict[str, str], field: str
) -> None:
    """The fuzz's finding: ``date_since: ""`` came back as a bad ``time_filter``."""
    urls = {"source_urls": ["https://www.tiktok.com/@oat.lover"]}
    body = {**PROMPT, **window} if "type" not in window else {**urls, **window}
    before = _used(sandbox, account)
    response = account.http.post("/v1/research_previews", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", field]
    assert _used(sandbox, account) == before


@pytest.mark.parametrize(
    ("window", "found"),
    [
        ({"date_since": "0001-01-01", "date_until": "9999-12-31"}, True),
        ({"date_since": "9999-12-31", "date_until": "9999-12-31"}, False),
        ({"date_since": "0001-01-01", "date_until": "0001-01-01"}, False),  # was a 500 (fuzz)
        ({"type": "url", "date_filter_since": "9999-12-31"}, False),
        (
            {"type": "url", "date_filter_since": "0001-01-01", "date_filter_until": "0001-01-01"},
            False,
        ),
    ],
)
def test_any_full_date_window_is_served(
    account: Account, api: type[Api], window: dict[str, str], found: bool
) -> None:
    """Every day the document's ``format: date`` allows, to the calendar's ends, is read:
    a window wholly in the future or before the corpus finds nothing."""
    urls = {"source_urls": ["https://www.tiktok.com/@oat.lover"]}
    body = {**PROMPT, **window} if "type" not in window else {**urls, **window}
    preview = api.data(account.http.post("/v1/research_previews", json=body))
    assert isinstance(preview["estimated_number_of_results"], int)
    assert bool(preview["posts"]) is found


def test_url_preview_refunds_unusable_urls(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    http = account.http
    urls = [
        "https://www.tiktok.com/@oat.lover",
        "https://www.instagram.com/private.oats",
        "https://www.youtube.com/@does-not-exist",
        "https://www.linkedin.com/in/fail-later",
        "https://www.reddit.com/r/PlantBasedDiet",
    ]
    before = _used(sandbox, account)
    preview = api.data(
        http.post("/v1/research_previews", json={"type": "url", "source_urls": urls})
    )
    assert preview["type"] == "url"
    assert [p["url"] for p in preview["profiles"]] == [urls[0], urls[4]]
    assert preview["private_profiles"] == [urls[1]]
    assert preview["non_existing_profiles"] == [urls[2]]
    assert preview["failed_to_retrieve_profiles"] == [urls[3]]
    assert preview["posts"] and {p["source"] for p in preview["posts"]} <= {"tiktok", "reddit"}
    # five reserved, three refunded
    assert _used(sandbox, account) - before == 2 * _unit(http, api)
    assert api.data(http.get(f"/v1/research_previews/{preview['preview_id']}")) == preview


def test_failed_url_scrape_refunds_everything(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    http = account.http
    urls = ["https://www.tiktok.com/@oat.lover", "https://www.tiktok.com/@__fail__"]
    before = _used(sandbox, account)
    preview = api.data(
        http.post("/v1/research_previews", json={"type": "url", "source_urls": urls})
    )
    assert preview["failed_to_retrieve_profiles"] == urls
    assert preview["profiles"] == [] and preview["posts"] == []
    assert _used(sandbox, account) == before
    bad_host = {"type": "url", "source_urls": ["https://myspace.com/oatly"]}
    api.error(http.post("/v1/research_previews", json=bad_host), 400, "source_unavailable")


def test_insufficient_balance_starts_nothing(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    http = account.http
    unit = _unit(http, api)
    used = _used(sandbox, account)
    sandbox.admin.set_wallet(account.account_id, total_usd=used + unit)  # one source's worth
    body = api.error(
        http.post("/v1/research_previews", json={**PROMPT, "time_filter": "past_week"}),
        402,
        "insufficient_credits_research_preview",
    )
    assert Decimal(body["detail"]["required"]) == 2 * unit
    assert _used(sandbox, account) == used
    api.data(
        http.post(
            "/v1/research_previews", json={**PROMPT, "sources": ["reddit"], "time_filter": "7d"}
        )
    )
    assert _used(sandbox, account) == used + unit


def test_previews_are_private_to_the_account(
    account: Account, new_account: Callable[..., Account], api: type[Api]
) -> None:
    preview = api.data(
        account.http.post("/v1/research_previews", json={**PROMPT, "time_filter": "1d"})
    )
    other = new_account()
    api.error(other.http.get(f"/v1/research_previews/{preview['preview_id']}"), 404,
              "research_preview_not_found")  # fmt: skip
    api.error(
        account.http.get("/v1/research_previews/rp_missing"), 404, "research_preview_not_found"
    )
