"""Mentions (collected posts): ``POST /v1/mentions`` (free, paginated).

Example:
    >>> negative = client.mentions.list(dataset_ids=["ds_1"],
    ...     filters=[{"type": "sentiment", "values": ["negative"]}], sort="likes")  # doctest: +SKIP
    >>> [m.title for m in negative]  # every page  # doctest: +SKIP
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from rdskit import _hooks
from rdskit._base_client import APIRequest, AsyncAPIClient, Flow, HTTPCore
from rdskit.errors import PartialDataWarning, RdsError, warn
from rdskit.models import Mention, MentionsQuery, Order, PostRef
from rdskit.models._base import wire_checker
from rdskit.pagination import AsyncPage, AsyncPager, SyncPage
from rdskit.resources._resource import Resource, check_limit, given, validated
from rdskit.resources.datasets import list_dataset_runs

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Mentions", "bounded_by_declared", "partial_check", "wire_pages"]

T = TypeVar("T")


def partial_check(core: HTTPCore, dataset_ids: Sequence[str]) -> Flow[None]:
    """Flow: warn (:class:`~rdskit.errors.PartialDataWarning`) for each dataset whose newest
    run is not over yet, so its mentions are still arriving; one read per dataset. A dataset
    whose runs cannot be read is skipped: the mentions call itself answers for it."""
    for dataset_id in dict.fromkeys(dataset_ids):
        try:
            page = yield from core.call_page(list_dataset_runs(dataset_id, limit=1, order="desc"))
        except RdsError:
            continue
        latest = page.data[0] if page.data else None
        status = latest.status.type if latest is not None else None
        if latest is None or status in ("completed", "failed"):
            continue
        so_far = "" if latest.mentions_count is None else f" ({latest.mentions_count} so far)"
        warn(
            f"dataset {dataset_id}: its latest run {latest.id} is {status}, so the mentions "
            f"read now are partial{so_far}. Wait for it first: "
            f"client.datasets.runs.get({dataset_id!r}, {latest.id!r}).wait()",
            PartialDataWarning,
        )


@functools.cache
def _wire_cast() -> Callable[[Any], Any]:
    # Built on first use: compiling the validator costs milliseconds ``import rdskit``
    # should not pay.
    return wire_checker(Mention)


def wire_pages(client: Any, **query: Any) -> Iterator[list[dict[str, Any]]]:
    """Every page of ``client.mentions.list(**query)`` as the wire dicts the service sent.

    Each mention is validated exactly as :class:`~rdskit.models.Mention` validates it (a
    bad value raises :class:`~rdskit.errors.UnexpectedResponse` naming the field; unknown
    fields are kept) but no model is built: for readers of the wire values such as the
    frame loaders, for which building and dumping ~20 nested models per mention was most
    of the client's CPU per page. Sync clients only.

    Example:
        >>> for page in wire_pages(client, dataset_ids=["ds_1"], limit=100):  # doctest: +SKIP
        ...     print(page[0]["created_at"])
        1767225600
    """
    first = client.mentions._list(_wire_cast(), **query)
    for page in bounded_by_declared(client, first, query).pages():
        yield page.data


def bounded_by_declared(client: Any, first: SyncPage[T], query: Mapping[str, Any]) -> SyncPage[T]:
    """``first`` (a page of ``client.mentions.list(**query)``), its walks bounded by what
    the query can match: its ``post_refs``, else the ``mentions_count`` of its datasets
    added up (read after the first page, so a run finishing meanwhile is counted). A server
    sending a new cursor forever is then stopped with
    :class:`~rdskit.errors.BeyondDeclaredSize` naming that field after a few pages, not
    ``max_pages``. A query naming neither is bounded by ``max_pages`` only.

    Example:
        >>> query = {"dataset_ids": ["ds_1"], "limit": 100}
        >>> first = client.mentions.list(**query)  # doctest: +SKIP
        >>> rows = list(bounded_by_declared(client, first, query))  # doctest: +SKIP
    """
    limit = query.get("limit")
    refs = query.get("post_refs")
    if refs:
        return first.expecting(len(refs), limit, "post_refs")
    ids = query.get("dataset_ids")
    if not ids:
        return first
    counts = [client.datasets.get(dataset_id).mentions_count for dataset_id in ids]
    if any(count is None for count in counts):
        return first
    return first.expecting(sum(counts), limit, "mentions_count")


class _CheckedPager(AsyncPager[T]):
    """An async list call that runs ``check`` before its first page (once)."""

    def __init__(self, client: AsyncAPIClient, request: APIRequest[T], check: Flow[None]) -> None:
        super().__init__(client, request)
        self._check: Flow[None] | None = check

    def __await__(self) -> Generator[Any, None, AsyncPage[T]]:
        return self._first().__await__()

    async def _first(self) -> AsyncPage[T]:
        if self._check is not None:
            check, self._check = self._check, None
            await self._client._run(check)
        return await AsyncPager(self._client, self._request)


class Mentions(Resource):
    """``client.mentions``: query and look up collected posts."""

    def list(
        self,
        *,
        dataset_ids: Sequence[str] | None = None,
        sources: Sequence[str] | None = None,
        filters: Any = None,
        q: str | None = None,
        search_mode: str | None = None,
        operation: str | None = None,
        sort: str | None = None,
        order: Order | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        parameter_ids: Sequence[str] | None = None,
        post_refs: Sequence[PostRef | Mapping[str, Any]] | None = None,
    ) -> SyncPage[Mention]:
        """Mentions matching the query; iterate for every page.

        ``filters``: one filter, a list (AND) or a list of lists (OR of ANDs), at most 10;
        ``sort``: date, likes, engagement_rate, views, comments, shares, sentiment_score,
        dataset_run_at; ``parameter_ids`` adds custom parameter values; ``post_refs``
        looks posts up by ``{source, id}``. Omit ``dataset_ids`` to span every dataset.

        A first page read from ``dataset_ids`` while a dataset's latest run is still
        pending or working emits a :class:`~rdskit.errors.PartialDataWarning` (one free
        read of each dataset's newest run; nothing more when they are over).

        Example:
            >>> page = client.mentions.list(dataset_ids=["ds_1"], q="foam", sort="views",
            ...     order="desc", limit=50)  # doctest: +SKIP
            >>> page.data[0].num_views  # doctest: +SKIP
            120433
        """
        return self._list(
            Mention.model_validate,
            dataset_ids=dataset_ids,
            sources=sources,
            filters=filters,
            q=q,
            search_mode=search_mode,
            operation=operation,
            sort=sort,
            order=order,
            limit=limit,
            cursor=cursor,
            parameter_ids=parameter_ids,
            post_refs=post_refs,
        )

    def _list(self, cast: Callable[[Any], T], **query: Any) -> SyncPage[T]:
        """:meth:`list` with each item cast by ``cast`` (see :func:`wire_pages`)."""
        check_limit(query.get("limit"))
        body = validated(MentionsQuery, given(**query))
        request = APIRequest(
            "POST",
            "/v1/mentions",
            kind="free_post",
            json=body.to_wire(),
            cast=cast,
            cursor_in="json",
        )
        if not body.dataset_ids or query.get("cursor") is not None:  # checked on the first page
            return self._client._paginate(request)
        check = partial_check(self._client._core, body.dataset_ids)
        if isinstance(self._client, AsyncAPIClient):
            return _CheckedPager(self._client, request, check)
        self._client._run(check)
        return self._client._paginate(request)

    def to_frame(self, *, cache: bool = False, **query: Any) -> pd.DataFrame:
        """Every mention matching ``query`` (the arguments of :meth:`list`) as a frame.

        One row per (source, id); columns in ``docs/columns.md``. ``cache=True`` keeps the
        pages in a parquet cache under the user cache dir and later fetches only newer
        mentions.

        Example:
            >>> df = client.mentions.to_frame(dataset_ids=["ds_1"], cache=True)  # doctest: +SKIP
            >>> df.rds.sentiment_over_time("W")  # doctest: +SKIP
        """
        return _hooks.mentions_to_frame.call(
            self._frames_client("mentions.to_frame"),
            cache=cache,
            **query,
        )

    def to_parquet(self, path: str | os.PathLike[str], **options: Any) -> int:
        """Stream every matching mention to partitioned parquet; returns how many.

        ``options``: the arguments of :meth:`list`, plus ``partition_by`` and
        ``batch_rows`` (memory bound). Read back with :func:`rdskit.frames.read_parquet`.

        Example:
            >>> client.mentions.to_parquet("oat/", dataset_ids=["ds_1"])  # doctest: +SKIP
            48210
        """
        return _hooks.mentions_to_parquet.call(
            self._frames_client("mentions.to_parquet"), path, **options
        )
