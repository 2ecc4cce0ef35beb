"""Research previews (both variants) through the client."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

import pytest
from contract_support import Account

from rdskit import Client, NotFound, ValidationError
from rdskit.errors import InsufficientCreditsResearchPreview, SourceUnavailable
from rdskit.models import PreviewPost, PromptPreviewRequest, ResearchPreview

URLS = {
    "resolved": "https://www.tiktok.com/@oatly",
    "private": "https://www.instagram.com/private.oats",
    "missing": "https://www.youtube.com/@does-not-exist",
    "failed": "https://www.tiktok.com/@fail.co",
}


def _usage_rows(client: Client) -> int:
    return len(list(client.usage_history()))


def test_prompt_preview_with_a_relative_window(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    preview = client.research_previews.create(
        search_query="oat milk", sources=["reddit", "tiktok"], time_filter="past_month"
    )
    assert isinstance(preview, ResearchPreview) and preview.type == "prompt"
    assert isinstance(preview.estimated_number_of_results, int) and preview.posts
    post = preview.posts[0]
    assert isinstance(post, PreviewPost) and isinstance(post.position, int)
    assert post.source in ("reddit", "tiktok") and isinstance(post.is_image_available, bool)
    assert {
        "url",
        "author_display_name",
        "headline",
        "relative_date",
        "text",
        "content_type",
    } <= set(post.model_fields_set)
    rows = list(client.usage_history())
    assert [(r.category, r.quantity_credits) for r in rows] == [
        ("preview_generation", 2)  # one unit per source
    ]
    stored = client.research_previews.get(preview.preview_id)
    assert stored.to_wire() == preview.to_wire()  # stored, free, no re-scrape
    assert _usage_rows(client) == 1


def test_prompt_preview_with_a_date_pair_as_a_model(client: Client) -> None:
    today = date.today()
    body = PromptPreviewRequest(
        search_query="oat milk",
        sources=["instagram"],
        date_since=today - timedelta(days=20),
        date_until=today,
    )
    preview = client.research_previews.create(body)
    assert preview.type == "prompt" and all(p.source == "instagram" for p in preview.posts)


def test_prompt_preview_with_datetimes_sends_their_days(client: Client) -> None:
    """The windows are whole days (the sandbox refuses an instant): a datetime is its day."""
    now = datetime.now(UTC)
    preview = client.research_previews.create(
        search_query="oat milk",
        sources=["instagram"],
        date_since=now - timedelta(days=20),
        date_until=now,
    )
    assert preview.type == "prompt" and all(p.source == "instagram" for p in preview.posts)
    body = PromptPreviewRequest(
        search_query="oat milk", sources=["reddit"], date_since=now, date_until=now
    )
    assert body.to_wire()["date_since"] == now.date().isoformat()


def test_url_preview_reports_each_profile(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    preview = client.research_previews.create("url", source_urls=list(URLS.values()))
    assert preview.type == "url" and preview.profiles
    assert preview.private_profiles and preview.non_existing_profiles
    assert preview.failed_to_retrieve_profiles
    charged = sum(r.quantity_credits or 0 for r in client.usage_history())
    assert charged == 1  # the three unusable URLs were refunded


def test_a_failed_scrape_refunds_everything(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    urls = [URLS["resolved"], "https://www.tiktok.com/@__fail__"]
    preview = client.research_previews.create(source_urls=urls)
    assert preview.failed_to_retrieve_profiles == urls and not preview.profiles
    assert sum(r.quantity_credits or 0 for r in client.usage_history()) == 0


def test_missing_preview_is_404(client: Client, new_account: Callable[..., Account]) -> None:
    with pytest.raises(NotFound) as raised:
        client.research_previews.get("rp_missing")
    assert raised.value.status == 404
    mine = client.research_previews.create(
        search_query="oat", sources=["reddit"], time_filter="past_week"
    )
    with pytest.raises(NotFound):  # another account's preview
        new_account().client.research_previews.get(mine.preview_id)


def test_preview_errors(client: Client, new_account: Callable[..., Account]) -> None:
    with pytest.raises(SourceUnavailable):
        client.research_previews.create(
            search_query="oat", sources=["myspace"], time_filter="past_week"
        )
    with pytest.raises(ValidationError) as raised:
        client.research_previews.create(
            search_query="oat", sources=["reddit"], time_filter="fortnight"
        )
    assert raised.value.status == 422 and raised.value.errors
    poor = new_account(wallet_usd="0").client
    with pytest.raises(InsufficientCreditsResearchPreview) as no_funds:
        poor.research_previews.create(source_urls=[URLS["resolved"]])
    assert no_funds.value.status == 402
