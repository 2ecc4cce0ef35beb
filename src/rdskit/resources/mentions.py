"""Mentions (collected posts): ``POST /v1/mentions`` (free, paginated).

Example:
    >>> negative = client.mentions.list(dataset_ids=["ds_1"],
    ...     filters=[{"type": "sentiment", "values": ["negative"]}], sort="likes")  # doctest: +SKIP
    >>> [m.title for m in negative]  # every page  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rdskit._base_client import APIRequest
from rdskit.models import Mention, MentionsQuery, Order, PostRef
from rdskit.pagination import SyncPage
from rdskit.resources._resource import Resource, check_limit, given, validated

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Mentions"]


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

        Example:
            >>> page = client.mentions.list(dataset_ids=["ds_1"], q="foam", sort="views",
            ...     order="desc", limit=50)  # doctest: +SKIP
            >>> page.data[0].num_views  # doctest: +SKIP
            120433
        """
        check_limit(limit)
        body = validated(
            MentionsQuery,
            given(
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
            ),
        )
        return self._client._paginate(
            APIRequest(
                "POST",
                "/v1/mentions",
                kind="free_post",
                json=body.to_wire(),
                cast=Mention.model_validate,
                cursor_in="json",
            )
        )

    def to_frame(self, *, cache: bool = False, **query: Any) -> pd.DataFrame:
        """Every mention matching ``query`` (the arguments of :meth:`list`) as a frame.

        One row per (source, id); columns in ``docs/columns.md``. ``cache=True`` keeps the
        pages in a parquet cache under the user cache dir and later fetches only newer
        mentions.

        Example:
            >>> df = client.mentions.to_frame(dataset_ids=["ds_1"], cache=True)  # doctest: +SKIP
            >>> df.rds.sentiment_over_time("W")  # doctest: +SKIP
        """
        from rdskit.frames.fetch import mentions_to_frame

        return mentions_to_frame(self._frames_client("mentions.to_frame"), cache=cache, **query)

    def to_parquet(self, path: str | os.PathLike[str], **options: Any) -> int:
        """Stream every matching mention to partitioned parquet; returns how many.

        ``options``: the arguments of :meth:`list`, plus ``partition_by`` and
        ``batch_rows`` (memory bound). Read back with :func:`rdskit.frames.read_parquet`.

        Example:
            >>> client.mentions.to_parquet("oat/", dataset_ids=["ds_1"])  # doctest: +SKIP
            48210
        """
        from rdskit.frames.parquet import mentions_to_parquet

        return mentions_to_parquet(self._frames_client("mentions.to_parquet"), path, **options)
