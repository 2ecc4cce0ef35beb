"""Datasets and dataset runs: ``/v1/datasets`` and ``/v1/datasets/{id}/runs``.

Example:
    >>> ds = client.datasets.create("Oat milk")  # doctest: +SKIP
    >>> run = client.datasets.runs.create(ds.id, search_query={"type": "prompt",
    ...     "sources": ["reddit"], "search_query": "oat milk"}, count=50)  # doctest: +SKIP
    >>> run.wait().status.type  # doctest: +SKIP
    'completed'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rdskit import _hooks
from rdskit._base_client import APIRequest, path
from rdskit.errors import InvalidParameter
from rdskit.models import (
    Dataset,
    DatasetCreate,
    DatasetRun,
    DatasetRunCreate,
    DatasetUpdate,
    DateRange,
    Order,
    PromptSearchQuery,
    UrlSearchQuery,
)
from rdskit.pagination import SyncPage
from rdskit.resources._containers import NamedContainers
from rdskit.resources._resource import (
    MAX_LIMIT,
    APIClient,
    Resource,
    check_limit,
    given,
    validated,
)
from rdskit.resources._reuse import comparable, reuse_or_start

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DatasetRuns", "Datasets", "get_dataset", "get_dataset_run", "list_dataset_runs"]


def get_dataset(dataset_id: str) -> APIRequest[Dataset]:
    """``GET /v1/datasets/{dataset_id}`` (also used by estimates)."""
    return APIRequest("GET", path("/v1/datasets/{}", dataset_id), cast=Dataset.model_validate)


def get_dataset_run(dataset_id: str, run_id: str) -> APIRequest[DatasetRun]:
    """``GET /v1/datasets/{dataset_id}/runs/{run_id}`` (also used by ``client.wait``)."""
    return APIRequest(
        "GET", path("/v1/datasets/{}/runs/{}", dataset_id, run_id), cast=DatasetRun.model_validate
    )


def same_run(run: DatasetRun, wanted: Mapping[str, Any]) -> bool:
    """Whether ``run`` echoes the request ``wanted`` (a run create body's wire dict): what
    ``reuse=True`` reads back instead of paying (a ``count`` left out matches any)."""
    echo = run.params.to_wire() if run.params is not None else {}
    if "count" not in wanted:
        echo.pop("count", None)
    return bool(comparable(echo) == comparable(wanted))


def list_dataset_runs(
    dataset_id: str,
    *,
    limit: int | None = None,
    cursor: str | None = None,
    order: Order | None = None,
) -> APIRequest[DatasetRun]:
    """``GET /v1/datasets/{dataset_id}/runs`` (also used to follow tracking runs)."""
    check_limit(limit)
    return APIRequest(
        "GET",
        path("/v1/datasets/{}/runs", dataset_id),
        params=given(limit=limit, cursor=cursor, order=order),
        cast=DatasetRun.model_validate,
    )


class Datasets(NamedContainers[Dataset]):
    """``client.datasets``: named pools of mentions; ``.runs`` collects into them."""

    collection = "datasets"
    model = Dataset
    create_model = DatasetCreate
    update_model = DatasetUpdate
    not_found = "DatasetNotFound"

    def __init__(self, client: APIClient) -> None:
        super().__init__(client)
        self.runs = DatasetRuns(client)

    def create(self, name: str) -> Dataset:
        """Create an empty dataset (``POST /v1/datasets``).

        Example:
            >>> client.datasets.create("Oat milk").id  # doctest: +SKIP
            'ds_8f2c…'
        """
        return self._create(name)

    def get_or_create(self, name: str) -> Dataset:
        """The dataset named exactly ``name``, created only if there is none (safe to re-run).

        Several with that name (made before this helper, or by another key of the
        account): the oldest is returned, every time, with a
        :class:`~rdskit.errors.DuplicateNameWarning` naming the others. The oldest is the
        stable choice: a later duplicate never changes which dataset a notebook reads.

        Example:
            >>> client.datasets.get_or_create("Oat milk").id  # doctest: +SKIP
            'ds_8f2c…'
        """
        return self._get_or_create(name)

    def list(
        self, *, limit: int | None = None, cursor: str | None = None, order: Order | None = None
    ) -> SyncPage[Dataset]:
        """The account's datasets, newest first by default; iterate for every page.

        Example:
            >>> [x.name for x in client.datasets.list(limit=100)]  # doctest: +SKIP
            ['Oat milk', ...]
        """
        return self._list(limit=limit, cursor=cursor, order=order)

    def get(self, dataset_id: str) -> Dataset:
        """One dataset with its counts (``DatasetNotFound`` if absent).

        Example:
            >>> client.datasets.get("ds_1").mentions_count  # doctest: +SKIP
            120
        """
        return self._get(dataset_id)

    def update(self, dataset_id: str, name: str) -> Dataset:
        """Rename a dataset (``PATCH``).

        Example:
            >>> client.datasets.update("ds_1", name="Oat milk EU").name  # doctest: +SKIP
            'Oat milk EU'
        """
        return self._update(dataset_id, name)

    def delete(self, dataset_id: str) -> None:
        """Soft-delete a dataset (its audience profiles are kept).

        Example:
            >>> client.datasets.delete("ds_1")  # doctest: +SKIP
        """
        return self._delete(dataset_id)

    def to_frame(self) -> pd.DataFrame:
        """Every dataset of the account as a frame (one row per dataset).

        Example:
            >>> client.datasets.to_frame()[["id", "name"]]  # doctest: +SKIP
        """
        return _hooks.datasets_to_frame.call(self._frames_client("datasets.to_frame"))


class DatasetRuns(Resource):
    """``client.datasets.runs``: collection runs (paid: each mention collected)."""

    def create(
        self,
        dataset_id: str,
        search_query: PromptSearchQuery | UrlSearchQuery | Mapping[str, Any],
        *,
        count: int | None = None,
        date_range: DateRange | Mapping[str, Any] | None = None,
        num_comments_per_post: int | None = None,
        country_code: str | None = None,
        language: str | None = None,
        enable_visual_recognition: bool | None = None,
        enable_transcribing: bool | None = None,
        content_analysis_actions: Sequence[str] | None = None,
        reuse: bool = False,
    ) -> DatasetRun:
        """Start a collection run; returns the pending run (``.wait()`` polls it).

        ``search_query`` is ``{"type": "prompt", "sources": [...], "search_query": "..."}``
        or ``{"type": "url", "source_urls": [...]}`` (or the model). Under a client budget
        the run is refused unless ``count`` mentions fit in it.

        ``reuse=True`` makes a re-run free: the dataset's runs are read first (free) and a
        run with the same parameters that did not fail is returned instead of paying again
        (completed: its mentions are in the dataset; pending or working: wait on it).
        Parameters compare as the run echoes them: lists as sets (source order does not
        matter), null, false and empty alike; a ``count`` you leave out matches any count
        (the service fills its default). Without ``reuse`` every call collects again
        (mentions accumulate in the dataset: that is how to pick up newer posts).

        Example:
            >>> query = {"type": "prompt", "sources": ["reddit", "tiktok"],
            ...          "search_query": "oat milk"}
            >>> window = {"from": "2026-01-01", "to": "2026-03-31"}
            >>> run = client.datasets.runs.create("ds_1", query, count=100,
            ...     date_range=window)  # doctest: +SKIP
            >>> run.status.type  # doctest: +SKIP
            'pending'
        """
        body = validated(
            DatasetRunCreate,
            given(
                search_query=search_query,
                count=count,
                date_range=date_range,
                num_comments_per_post=num_comments_per_post,
                country_code=country_code,
                language=language,
                enable_visual_recognition=enable_visual_recognition,
                enable_transcribing=enable_transcribing,
                content_analysis_actions=content_analysis_actions,
            ),
        )
        _window_in_place(body.search_query.to_wire())
        wanted = body.to_wire()
        request = APIRequest(
            "POST",
            path("/v1/datasets/{}/runs", dataset_id),
            kind="paid",
            json=wanted,
            cast=DatasetRun.model_validate,
            check_hint=f"list the dataset's runs with client.datasets.runs.list({dataset_id!r}) "
            "before retrying",
        )
        start = self._client._within_depth(
            body.count,
            self._client._guarded(
                "dataset_run",
                request,
                {"count": body.count, "dataset_id": dataset_id},
                units=lambda run: run.count,  # the count the service accepted (and reserved)
            ),
        )
        if not reuse:
            return self._client._run(start)

        runs = list_dataset_runs(dataset_id, limit=MAX_LIMIT)
        return self._client._run(
            reuse_or_start(self._client._core, runs, lambda run: same_run(run, wanted), start)
        )

    def list(
        self,
        dataset_id: str,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        order: Order | None = None,
    ) -> SyncPage[DatasetRun]:
        """Runs of a dataset, newest first by default; iterate for every page.

        Example:
            >>> [run.status.type for run in client.datasets.runs.list("ds_1")]  # doctest: +SKIP
            ['completed', 'failed']
        """
        return self._client._paginate(
            list_dataset_runs(dataset_id, limit=limit, cursor=cursor, order=order)
        )

    def get(self, dataset_id: str, run_id: str) -> DatasetRun:
        """One run with its counts and status steps.

        Example:
            >>> client.datasets.runs.get("ds_1", "dsr_1").mentions_count  # doctest: +SKIP
            98
        """
        return self._client._request(get_dataset_run(dataset_id, run_id))


PREVIEW_WINDOW = ("time_filter", "date_since", "date_until")
"""A research preview's window fields: a dataset run takes its window as ``date_range``."""


def _window_in_place(search_query: Mapping[str, Any]) -> None:
    """Refuse a research preview's window inside a run's ``search_query``: the service
    does not read it there, so the run would collect (and charge for) its default window
    while the cell reads as pinned.

    Example:
        >>> _window_in_place({"type": "prompt", "date_since": "2025-10-01"})
        Traceback (most recent call last):
        ...
        rdskit.errors.InvalidParameter: search_query.date_since: a dataset run ...
    """
    for name in PREVIEW_WINDOW:
        if name in search_query:
            raise InvalidParameter(
                f"search_query.{name}",
                "a dataset run does not read a window there (research previews do): pass "
                "date_range={'from': 'YYYY-MM-DD', 'to': 'YYYY-MM-DD'} to runs.create",
            )
