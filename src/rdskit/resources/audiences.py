"""Audience datasets, audience runs and profiles: ``/v1/audience_datasets``,
``/v1/audience_profiles``.

Example:
    >>> fans = client.audience_datasets.create("Oat milk fans")  # doctest: +SKIP
    >>> run = client.audience_datasets.runs.create(fans.id, source_dataset_id="ds_1",
    ...     total_profile_count=200).wait()  # doctest: +SKIP
    >>> verified = client.audience_profiles.list(audience_dataset_ids=[fans.id],
    ...     filters=[{"type": "is_verified", "value": True}])  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rdskit import _hooks
from rdskit._base_client import APIRequest, path
from rdskit.models import (
    AudienceDataset,
    AudienceDatasetCreate,
    AudienceDatasetUpdate,
    AudienceProfile,
    AudienceRun,
    AudienceRunCreate,
    Order,
    ProfilesQuery,
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
from rdskit.resources._reuse import reuse_or_start

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DEFAULT_PROFILE_COUNT",
    "AudienceDatasets",
    "AudienceProfiles",
    "AudienceRuns",
    "get_audience_run",
    "list_audience_runs",
]

DEFAULT_PROFILE_COUNT: int = AudienceRunCreate.model_fields["total_profile_count"].default
"""Profiles an audience run collects when no count is given (the service's default, 300)."""


def get_audience_run(audience_dataset_id: str, run_id: str) -> APIRequest[AudienceRun]:
    """``GET /v1/audience_datasets/{id}/runs/{run_id}`` (also used by ``client.wait``)."""
    return APIRequest(
        "GET",
        path("/v1/audience_datasets/{}/runs/{}", audience_dataset_id, run_id),
        cast=AudienceRun.model_validate,
    )


def list_audience_runs(
    audience_dataset_id: str,
    *,
    limit: int | None = None,
    cursor: str | None = None,
    order: Order | None = None,
) -> APIRequest[AudienceRun]:
    """``GET /v1/audience_datasets/{id}/runs`` (also read by ``runs.create(reuse=True)``)."""
    check_limit(limit)
    return APIRequest(
        "GET",
        path("/v1/audience_datasets/{}/runs", audience_dataset_id),
        params=given(limit=limit, cursor=cursor, order=order),
        cast=AudienceRun.model_validate,
    )


class AudienceDatasets(NamedContainers[AudienceDataset]):
    """``client.audience_datasets``: name-only containers of profiles; ``.runs`` fills them."""

    collection = "audience_datasets"
    model = AudienceDataset
    create_model = AudienceDatasetCreate
    update_model = AudienceDatasetUpdate
    not_found = "AudienceDatasetNotFound"

    def __init__(self, client: APIClient) -> None:
        super().__init__(client)
        self.runs = AudienceRuns(client)

    def create(self, name: str) -> AudienceDataset:
        """Create an empty audience dataset (``POST /v1/audience_datasets``).

        Example:
            >>> client.audience_datasets.create("Oat milk fans").id  # doctest: +SKIP
            'ad_41c…'
        """
        return self._create(name)

    def get_or_create(self, name: str) -> AudienceDataset:
        """The audience dataset named exactly ``name``, created only if there is none.

        Same rule as :meth:`rdskit.resources.datasets.Datasets.get_or_create`: the oldest
        of several, with a :class:`~rdskit.errors.DuplicateNameWarning`.

        Example:
            >>> client.audience_datasets.get_or_create("Oat milk fans").id  # doctest: +SKIP
            'ad_41c…'
        """
        return self._get_or_create(name)

    def list(
        self, *, limit: int | None = None, cursor: str | None = None, order: Order | None = None
    ) -> SyncPage[AudienceDataset]:
        """The account's audience datasets, newest first by default; iterate for every page.

        Example:
            >>> [x.name for x in client.audience_datasets.list(limit=100)]  # doctest: +SKIP
            ['Oat milk fans', ...]
        """
        return self._list(limit=limit, cursor=cursor, order=order)

    def get(self, audience_dataset_id: str) -> AudienceDataset:
        """One audience dataset with its counts (``AudienceDatasetNotFound`` if absent).

        Example:
            >>> client.audience_datasets.get("ad_1").profile_count  # doctest: +SKIP
            120
        """
        return self._get(audience_dataset_id)

    def update(self, audience_dataset_id: str, name: str) -> AudienceDataset:
        """Rename an audience dataset (``PATCH``).

        Example:
            >>> client.audience_datasets.update("ad_1", name="Oat milk fans EU")  # doctest: +SKIP
            AudienceDataset(id='ad_1', name='Oat milk fans EU', ...)
        """
        return self._update(audience_dataset_id, name)

    def delete(self, audience_dataset_id: str) -> None:
        """Soft-delete an audience dataset.

        Example:
            >>> client.audience_datasets.delete("ad_1")  # doctest: +SKIP
        """
        return self._delete(audience_dataset_id)


class AudienceRuns(Resource):
    """``client.audience_datasets.runs``: profiling runs (paid per profile, one at a time)."""

    def create(
        self,
        audience_dataset_id: str,
        source_dataset_id: str,
        *,
        total_profile_count: int = DEFAULT_PROFILE_COUNT,
        reuse: bool = False,
    ) -> AudienceRun:
        """Profile the authors and commenters of a dataset (1..2000 profiles, default 300).

        Only one run per audience dataset may be in flight
        (:class:`~rdskit.errors.AudienceDatasetRunAlreadyInFlight`). ``reuse=True``
        returns a run of this audience dataset over the same source dataset with the same
        ``total_profile_count`` that did not fail, instead of paying again (one free read
        first; see :meth:`rdskit.resources.datasets.DatasetRuns.create`).

        Example:
            >>> client.audience_datasets.runs.create("ad_1", source_dataset_id="ds_1",
            ...     total_profile_count=200).status.type  # doctest: +SKIP
            'pending'
        """
        body = validated(
            AudienceRunCreate,
            given(source_dataset_id=source_dataset_id, total_profile_count=total_profile_count),
        )
        request = APIRequest(
            "POST",
            path("/v1/audience_datasets/{}/runs", audience_dataset_id),
            kind="paid",
            json=body.to_wire(),
            cast=AudienceRun.model_validate,
            check_hint="list the audience dataset's runs with "
            f"client.audience_datasets.runs.list({audience_dataset_id!r}) before retrying",
        )
        start = self._client._guarded(
            "audience_run", request, {"total_profile_count": body.total_profile_count}
        )
        if not reuse:
            return self._client._run(start)

        def same(run: AudienceRun) -> bool:
            return (run.source_dataset_id, run.target_profile_count) == (
                body.source_dataset_id,
                body.total_profile_count,
            )

        runs = list_audience_runs(audience_dataset_id, limit=MAX_LIMIT)
        return self._client._run(reuse_or_start(self._client._core, runs, same, start))

    def list(
        self,
        audience_dataset_id: str,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        order: Order | None = None,
    ) -> SyncPage[AudienceRun]:
        """Runs of an audience dataset; iterate for every page.

        Example:
            >>> runs = client.audience_datasets.runs.list("ad_1")  # doctest: +SKIP
            >>> [run.status.type for run in runs]  # doctest: +SKIP
            ['completed']
        """
        return self._client._paginate(
            list_audience_runs(audience_dataset_id, limit=limit, cursor=cursor, order=order)
        )

    def get(self, audience_dataset_id: str, run_id: str) -> AudienceRun:
        """One audience run with its counts.

        Example:
            >>> client.audience_datasets.runs.get("ad_1", "adr_1").profile_count  # doctest: +SKIP
            200
        """
        return self._client._request(get_audience_run(audience_dataset_id, run_id))


class AudienceProfiles(Resource):
    """``client.audience_profiles``: query collected profiles (free)."""

    def list(
        self,
        *,
        audience_dataset_ids: Sequence[str] | None = None,
        filters: Any = None,
        sort: str | None = None,
        order: Order | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> SyncPage[AudienceProfile]:
        """Profiles matching ``filters`` (groups OR-ed, filters AND-ed, at most 10).

        Omit ``audience_dataset_ids`` to span every audience dataset. The cursor travels in
        the body; next pages repeat the same sort and filters.

        Example:
            >>> page = client.audience_profiles.list(filters=[{"type": "creator_tier",
            ...     "values": ["micro"]}], sort="created_at", limit=100)  # doctest: +SKIP
            >>> [p.username for p in page]  # doctest: +SKIP
            ['oat_lover', ...]
        """
        check_limit(limit)
        body = validated(
            ProfilesQuery,
            given(
                audience_dataset_ids=audience_dataset_ids,
                filters=filters,
                sort=sort,
                order=order,
                limit=limit,
                cursor=cursor,
            ),
        )
        return self._client._paginate(
            APIRequest(
                "POST",
                "/v1/audience_profiles",
                kind="free_post",
                json=body.to_wire(),
                cast=AudienceProfile.model_validate,
                cursor_in="json",
            )
        )

    def to_frame(self, **query: Any) -> pd.DataFrame:
        """Every profile matching ``query`` (the arguments of :meth:`list`) as a frame.

        OCEAN traits and platform metadata flattened, interest lists kept.

        Example:
            >>> df = client.audience_profiles.to_frame(
            ...     audience_dataset_ids=["ad_1"])  # doctest: +SKIP
            >>> df.rds.creator_tiers()  # doctest: +SKIP
        """
        return _hooks.profiles_to_frame.call(
            self._frames_client("audience_profiles.to_frame"), **query
        )
