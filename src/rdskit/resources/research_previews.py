"""Research previews: a paid sample of what a search would collect (``/v1/research_previews``).

Example:
    >>> preview = client.research_previews.create(search_query="oat milk",
    ...     sources=["tiktok", "reddit"], time_filter="past_month")  # doctest: +SKIP
    >>> preview.estimated_number_of_results  # doctest: +SKIP
    1200
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from rdskit._base_client import APIRequest, path
from rdskit.errors import InvalidParameter
from rdskit.models import PromptPreviewRequest, RdsModel, ResearchPreview, UrlPreviewRequest
from rdskit.resources._resource import Resource, given, validated
from rdskit.resources._reuse import StaleEntry, remembered

if TYPE_CHECKING:
    from rdskit._base_client import Flow, HTTPCore

__all__ = ["ResearchPreviewBody", "ResearchPreviews"]

ResearchPreviewBody = PromptPreviewRequest | UrlPreviewRequest | Mapping[str, Any]
"""A whole ``POST /v1/research_previews`` body: either variant's model, or a dict."""

_VARIANTS: dict[str, type[PromptPreviewRequest | UrlPreviewRequest]] = {
    "prompt": PromptPreviewRequest,
    "url": UrlPreviewRequest,
}


def _preview_body(
    type: Literal["prompt", "url"] | ResearchPreviewBody | None,
    fields: Mapping[str, dict[str, Any]],
    common: dict[str, Any],
) -> PromptPreviewRequest | UrlPreviewRequest:
    """The validated request of :meth:`ResearchPreviews.create`: a whole body, or the
    keyword ``fields`` of its type (``"url"`` when URLs are given) and the ``common`` ones."""
    if isinstance(type, RdsModel | Mapping):
        loose = {**fields["prompt"], **fields["url"], **common}
        if loose:
            raise InvalidParameter(
                next(iter(loose)), "give either a whole request or keyword fields, not both"
            )
        request = type.to_wire() if isinstance(type, RdsModel) else dict(type)
        kind = request.get("type")
    else:
        kind = type or ("url" if fields["url"].get("source_urls") is not None else "prompt")
        for other, misplaced in fields.items():
            if other != kind and misplaced:
                raise InvalidParameter(next(iter(misplaced)), f"only applies to type={other!r}")
        request = {**fields.get(kind, {}), **common}
    if not isinstance(kind, str) or kind not in _VARIANTS:
        raise InvalidParameter("type", f"must be 'prompt' or 'url', got {kind!r}")
    return validated(
        _VARIANTS[kind], request, whole="time window" if kind == "prompt" else "request"
    )


def _reread(
    core: HTTPCore, wanted: Mapping[str, Any], ids: Mapping[str, Any]
) -> Flow[ResearchPreview | None]:
    """The preview a ledger entry names, if it answers ``wanted`` (else :class:`StaleEntry`)."""
    # A preview echoes no query: its type and its posts' sources are what a
    # request can be checked against.
    preview = yield from core.call(_get_preview(ids["preview_id"]))
    if preview.type != wanted["type"]:
        raise StaleEntry(f"it is a {preview.type} preview, not a {wanted['type']} one")
    asked = set(wanted.get("sources") or ())
    sent = {post.source for post in preview.posts or () if post.source}
    others = sorted(sent - asked)
    if asked and others:
        raise StaleEntry(f"it holds posts of {', '.join(others)}, a source not asked for")
    return preview


class ResearchPreviews(Resource):
    """``client.research_previews``: sample posts before collecting (paid per source)."""

    def create(
        self,
        type: Literal["prompt", "url"] | ResearchPreviewBody | None = None,
        *,
        search_query: str | None = None,
        sources: Sequence[str] | None = None,
        time_filter: str | None = None,
        date_since: str | date | None = None,
        date_until: str | date | None = None,
        source_urls: Sequence[str] | None = None,
        date_filter_since: str | date | None = None,
        date_filter_until: str | date | None = None,
        language: str | None = None,
        country_code: str | None = None,
        reuse: bool = False,
    ) -> ResearchPreview:
        """Preview a search (``type="prompt"``) or given URLs (``type="url"``).

        A prompt preview needs exactly one window: ``time_filter``, or both ``date_since``
        and ``date_until``; a URL preview may set ``date_filter_since``/``_until``.
        ``type`` defaults to ``"url"`` when ``source_urls`` is given, else ``"prompt"``.
        ``type`` may also be a whole request body (a dict or model tagged by its own
        ``type``), validated the same way.

        ``reuse=True`` makes a re-run free: a preview made before with ``reuse=True`` by
        this account with the same request (sources and URLs as sets) is read back
        (``GET``, free, no re-scrape) instead of paying again. Previews cannot be listed,
        so it is found through the local ledger (:mod:`rdskit._ledger`); one the service
        no longer has is made anew. A relative ``time_filter`` is not moved on: leave
        ``reuse`` off to sample the latest posts again.

        Example:
            >>> client.research_previews.create("url",
            ...     source_urls=["https://www.tiktok.com/@oatly"]).profiles  # doctest: +SKIP
            [...]
            >>> client.research_previews.create({"type": "prompt", "search_query": "oat milk",
            ...     "sources": ["reddit"], "time_filter": "past_week"})  # doctest: +SKIP
        """
        fields = {
            "prompt": given(
                search_query=search_query,
                sources=sources,
                time_filter=time_filter,
                date_since=date_since,
                date_until=date_until,
            ),
            "url": given(
                source_urls=source_urls,
                date_filter_since=date_filter_since,
                date_filter_until=date_filter_until,
            ),
        }
        common = given(language=language, country_code=country_code)
        body = _preview_body(type, fields, common)
        units = (
            {"sources": body.sources}
            if isinstance(body, PromptPreviewRequest)
            else {"source_urls": body.source_urls}
        )
        wanted = body.to_wire()
        start = self._client._guarded(
            "research_preview",
            APIRequest(
                "POST",
                "/v1/research_previews",
                kind="paid",
                json=wanted,
                cast=ResearchPreview.model_validate,
                check_hint=(
                    "look for a new preview_generation row in "
                    "client.usage_history() before retrying"
                ),
            ),
            units,
        )
        if not reuse:
            return self._client._run(start)

        core = self._client._core
        reread = functools.partial(_reread, core, wanted)
        return self._client._run(
            remembered(core, "research_preview", wanted, reread, start, keep=("preview_id",))
        )

    def get(self, preview_id: str) -> ResearchPreview:
        """A stored preview (free; no re-scrape).

        Example:
            >>> client.research_previews.get("rp_1").posts[0].source  # doctest: +SKIP
            'tiktok'
        """
        return self._client._request(_get_preview(preview_id))


def _get_preview(preview_id: str) -> APIRequest[ResearchPreview]:
    """``GET /v1/research_previews/{preview_id}`` (free; also read by ``reuse=True``)."""
    return APIRequest(
        "GET", path("/v1/research_previews/{}", preview_id), cast=ResearchPreview.model_validate
    )
