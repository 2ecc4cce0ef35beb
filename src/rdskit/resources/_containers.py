"""CRUD of the spec's name-only containers: datasets and audience datasets.

Both have the same five calls (create by name, paginated list, get, rename, soft delete)
on ``/v1/<plural>``, and ``get_or_create`` built on them; only the path, the models and the
names in messages differ, so the requests are built once here and each resource class
keeps its own public signatures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from rdskit._base_client import APIRequest, path
from rdskit.models import Order, RdsModel
from rdskit.pagination import SyncPage
from rdskit.resources._resource import (
    MAX_LIMIT,
    Resource,
    check_limit,
    discard,
    given,
    validated,
)
from rdskit.resources._reuse import every_item, named_create, oldest_named

if TYPE_CHECKING:
    from rdskit._base_client import Flow

__all__ = ["NamedContainers"]

M = TypeVar("M", bound=RdsModel)


class NamedContainers(Resource, Generic[M]):
    """``_create/_get_or_create/_list/_get/_update/_delete`` of a name-only container.

    Subclasses expose them as public methods with their own parameter names and examples,
    and set ``collection`` (the path segment, also the client attribute), ``model``,
    ``create_model``, ``update_model`` and ``not_found`` (the error class's name).
    """

    collection: ClassVar[str]
    model: ClassVar[type[RdsModel]]
    create_model: ClassVar[type[RdsModel]]
    update_model: ClassVar[type[RdsModel]]
    not_found: ClassVar[str]

    def _validated(self, data: Any) -> M:
        return cast(M, self.model.model_validate(data))  # ``model`` is M's class

    def _create(self, name: str) -> M:
        return self._client._request(self._create_request(name))

    def _create_request(self, name: str) -> APIRequest[M]:
        body = validated(self.create_model, given(name=name))
        return named_create(self.collection, self._validated, body, name)

    def _get_or_create(self, name: str) -> M:
        create = self._create_request(name)  # checks the name before anything is read
        return self._client._run(self._find_or_create(name, create))

    def _find_or_create(self, name: str, create: APIRequest[M]) -> Flow[M]:
        core = self._client._core
        listing = APIRequest(
            "GET", f"/v1/{self.collection}", params={"limit": MAX_LIMIT}, cast=self._validated
        )
        where = f"client.{self.collection}"
        found = oldest_named((yield from every_item(core, listing)), name, where)
        if found is not None:
            return found
        return (yield from core.call(create))

    def _list(
        self, *, limit: int | None = None, cursor: str | None = None, order: Order | None = None
    ) -> SyncPage[M]:
        check_limit(limit)
        return self._client._paginate(
            APIRequest(
                "GET",
                f"/v1/{self.collection}",
                params=given(limit=limit, cursor=cursor, order=order),
                cast=self._validated,
            )
        )

    def _get(self, container_id: str) -> M:
        return self._client._request(
            APIRequest(
                "GET",
                path(f"/v1/{self.collection}/{{}}", container_id),
                cast=self._validated,
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
                cast=self._validated,
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
