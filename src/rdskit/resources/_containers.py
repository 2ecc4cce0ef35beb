"""CRUD of the spec's name-only containers: datasets and audience datasets.

Both have the same five calls (create by name, paginated list, get, rename, soft delete)
on ``/v1/<plural>``; only the path, the models and the names in messages differ, so the
requests are built once here and each resource class keeps its own public signatures.
"""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from rdskit._base_client import APIRequest, path
from rdskit.models import Order, RdsModel
from rdskit.pagination import SyncPage
from rdskit.resources._resource import Resource, check_limit, discard, given, validated

__all__ = ["NamedContainers"]

M = TypeVar("M", bound=RdsModel)


class NamedContainers(Resource, Generic[M]):
    """``_create/_list/_get/_update/_delete`` of a name-only container resource.

    Subclasses expose them as public methods with their own parameter names and examples,
    and set ``collection`` (the path segment, also the client attribute), ``model``,
    ``create_model``, ``update_model`` and ``not_found`` (the error class's name).
    """

    collection: ClassVar[str]
    model: ClassVar[type[RdsModel]]
    create_model: ClassVar[type[RdsModel]]
    update_model: ClassVar[type[RdsModel]]
    not_found: ClassVar[str]

    def _create(self, name: str) -> M:
        body = validated(self.create_model, given(name=name))
        return self._client._request(
            APIRequest(
                "POST",
                f"/v1/{self.collection}",
                kind="write",
                json=body.to_wire(),
                cast=self.model.model_validate,
                check_hint=f"look for {name!r} in client.{self.collection}.list() before creating "
                "it again",
            )
        )

    def _list(
        self, *, limit: int | None = None, cursor: str | None = None, order: Order | None = None
    ) -> SyncPage[M]:
        check_limit(limit)
        return self._client._paginate(
            APIRequest(
                "GET",
                f"/v1/{self.collection}",
                params=given(limit=limit, cursor=cursor, order=order),
                cast=self.model.model_validate,
            )
        )

    def _get(self, container_id: str) -> M:
        return self._client._request(
            APIRequest(
                "GET",
                path(f"/v1/{self.collection}/{{}}", container_id),
                cast=self.model.model_validate,
            )
        )

    def _update(self, container_id: str, name: str) -> M:
        body = validated(self.update_model, given(name=name))
        return self._client._request(
            APIRequest(
                "PATCH",
                path(f"/v1/{self.collection}/{{}}", container_id),
                kind="write",
                json=body.to_wire(),
                cast=self.model.model_validate,
                check_hint=f"read it back with client.{self.collection}.get({container_id!r})",
            )
        )

    def _delete(self, container_id: str) -> None:
        return self._client._request(
            APIRequest(
                "DELETE",
                path(f"/v1/{self.collection}/{{}}", container_id),
                kind="write",
                cast=discard,
                check_hint=f"client.{self.collection}.get({container_id!r}) raises "
                f"{self.not_found} once deleted",
            )
        )
