"""Custom parameters (extraction rules) and their runs: ``/v1/custom_parameters``.

Example:
    >>> rule = "The price quoted, in USD"
    >>> price = client.custom_parameters.create("price", rule)  # doctest: +SKIP
    >>> refs = [{"source": "reddit", "id": "t3_a"}]
    >>> client.custom_parameters.preview(rule, post_refs=refs).results[0].value  # doctest: +SKIP
    '$4.99'
    >>> run = client.custom_parameters.runs.create(price.id, dataset_id="ds_1")  # doctest: +SKIP
    >>> run.wait().is_complete  # doctest: +SKIP
    True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rdskit._base_client import APIRequest, Flow, path
from rdskit.errors import InvalidParameter, RdsError
from rdskit.models import (
    CustomParameter,
    CustomParameterCreate,
    CustomParameterPreview,
    CustomParameterPreviewRequest,
    CustomParameterRun,
    CustomParameterRunCreate,
    CustomParameterRunStarted,
    CustomParameterUpdate,
    PostRef,
    RunScope,
)
from rdskit.pagination import SyncPage
from rdskit.resources._resource import APIClient, Resource, discard, given, validated
from rdskit.resources._reuse import (
    comparable,
    differences,
    named_create,
    reuse_or_start,
    unpaged,
)

__all__ = ["CustomParameterRuns", "CustomParameters", "get_custom_parameter_run"]


def get_custom_parameter_run(parameter_id: str, run_id: str) -> APIRequest[CustomParameterRun]:
    """``GET /v1/custom_parameters/{id}/runs/{run_id}`` (also used by ``client.wait``)."""
    return APIRequest(
        "GET",
        path("/v1/custom_parameters/{}/runs/{}", parameter_id, run_id),
        cast=CustomParameterRun.model_validate,
    )


_LIST = unpaged("/v1/custom_parameters", CustomParameter)


def _create(body: CustomParameterCreate) -> APIRequest[CustomParameter]:
    return named_create("custom_parameters", CustomParameter.model_validate, body, body.name)


def _list_runs(parameter_id: str) -> APIRequest[CustomParameterRun]:
    return APIRequest(
        "GET",
        path("/v1/custom_parameters/{}/runs", parameter_id),
        cast=CustomParameterRun.model_validate,
    )


class CustomParameters(Resource):
    """``client.custom_parameters``: named extraction rules; ``.runs`` applies them."""

    def __init__(self, client: APIClient) -> None:
        super().__init__(client)
        self.runs = CustomParameterRuns(client)

    def create(
        self, name: str, instructions: str, *, value_type: str | None = None
    ) -> CustomParameter:
        """Create a rule (``name`` non-empty and unique in the account).

        Example:
            >>> client.custom_parameters.create("price", "The price quoted").id  # doctest: +SKIP
            'cp_7d1…'
        """
        body = validated(
            CustomParameterCreate,
            given(name=name, instructions=instructions, value_type=value_type),
        )
        return self._client._request(_create(body))

    def get_or_create(
        self, name: str, instructions: str, *, value_type: str | None = None
    ) -> CustomParameter:
        """The rule named ``name``, created only if there is none (safe to re-run).

        Names are unique in the account. When the existing rule's definition differs
        (other instructions or value type) nothing is changed and
        :class:`~rdskit.errors.InvalidParameter` says how (instead of the service's 409 on
        a second create): update it with :meth:`update`, or choose another name.

        Example:
            >>> rule = client.custom_parameters.get_or_create("price",
            ...     "The price quoted")  # doctest: +SKIP
            >>> rule.id  # doctest: +SKIP
            'cp_7d1…'
        """
        body = validated(
            CustomParameterCreate,
            given(name=name, instructions=instructions, value_type=value_type),
        )
        return self._client._run(self._find_or_create(body))

    def _find_or_create(self, body: CustomParameterCreate) -> Flow[CustomParameter]:
        existing = yield from self._client._core.call(_LIST)
        found = next((p for p in existing if p.name == body.name), None)
        if found is None:
            return (yield from self._client._core.call(_create(body)))
        wanted = {"instructions": body.instructions}
        if found.value_type is not None:  # a rule shown without its type is not compared on it
            wanted["value_type"] = body.value_type
        changed = differences(found.to_wire(), wanted)
        if changed:
            raise InvalidParameter(
                changed[0].split(":", 1)[0],
                f"custom parameter {body.name!r} ({found.id}) already exists with another "
                f"definition ({'; '.join(changed)}). Change it with "
                f"client.custom_parameters.update({found.id!r}, ...) (values already extracted "
                "keep the old definition until a new run), or choose another name",
            )
        return found

    def list(self) -> list[CustomParameter]:
        """Every custom parameter of the account (a plain list: this endpoint has no pages).

        Example:
            >>> [p.name for p in client.custom_parameters.list()]  # doctest: +SKIP
            ['price']
        """
        return self._client._request(_LIST)

    def get(self, parameter_id: str) -> CustomParameter:
        """One custom parameter.

        Example:
            >>> client.custom_parameters.get("cp_1").instructions  # doctest: +SKIP
            'The price quoted'
        """
        return self._client._request(
            APIRequest(
                "GET",
                path("/v1/custom_parameters/{}", parameter_id),
                cast=CustomParameter.model_validate,
            )
        )

    def update(
        self,
        parameter_id: str,
        *,
        name: str | None = None,
        instructions: str | None = None,
        value_type: str | None = None,
    ) -> CustomParameter:
        """Change some fields (``PATCH``; only those given are sent).

        Example:
            >>> client.custom_parameters.update("cp_1", name="price_usd").name  # doctest: +SKIP
            'price_usd'
        """
        body = validated(
            CustomParameterUpdate,
            given(name=name, instructions=instructions, value_type=value_type),
        )
        return self._client._request(
            APIRequest(
                "PATCH",
                path("/v1/custom_parameters/{}", parameter_id),
                kind="write",
                json=body.to_wire(),
                cast=CustomParameter.model_validate,
                check_hint=f"read it back with client.custom_parameters.get({parameter_id!r})",
            )
        )

    def delete(self, parameter_id: str) -> None:
        """Delete a custom parameter.

        Example:
            >>> client.custom_parameters.delete("cp_1")  # doctest: +SKIP
        """
        return self._client._request(
            APIRequest(
                "DELETE",
                path("/v1/custom_parameters/{}", parameter_id),
                kind="write",
                cast=discard,
                check_hint=f"client.custom_parameters.get({parameter_id!r}) raises "
                "CustomParameterNotFound once deleted",
            )
        )

    def preview(
        self,
        instructions: str,
        *,
        post_refs: Sequence[PostRef | Mapping[str, Any]],
        value_type: str | None = None,
    ) -> CustomParameterPreview:
        """Try a rule on 1..5 posts without saving it (free).

        Example:
            >>> refs = [{"source": "tiktok", "id": "7326"}]
            >>> client.custom_parameters.preview("The price quoted",
            ...     post_refs=refs).results[0].value  # doctest: +SKIP
            '$4.99'
        """
        body = validated(
            CustomParameterPreviewRequest,
            given(instructions=instructions, value_type=value_type, post_refs=post_refs),
        )
        return self._client._request(
            APIRequest(
                "POST",
                "/v1/custom_parameters/preview",
                kind="free_post",
                json=body.to_wire(),
                cast=CustomParameterPreview.model_validate,
            )
        )


class CustomParameterRuns(Resource):
    """``client.custom_parameters.runs``: extraction runs (paid per post processed)."""

    def create(
        self,
        parameter_id: str,
        scope: RunScope | Mapping[str, Any] | None = None,
        *,
        dataset_id: str | None = None,
        reuse: bool = False,
    ) -> CustomParameterRun:
        """Extract the parameter over a dataset; returns the run (``.wait()`` polls it).

        Give ``scope={"kind": "dataset", "id": ...}`` or just ``dataset_id=``. The service
        answers ``{run_id}``; the run is then read back so it can be waited on.
        ``reuse=True`` returns a run of this parameter over the same scope that did not
        fail instead of paying again (one free read first); after collecting more into the
        dataset, or changing the instructions, run it again without ``reuse``.

        Example:
            >>> runs = client.custom_parameters.runs  # doctest: +SKIP
            >>> runs.create("cp_1", dataset_id="ds_1").wait().mentions_done  # doctest: +SKIP
            118
        """
        if (scope is None) == (dataset_id is None):
            raise InvalidParameter("scope", "give exactly one of scope= or dataset_id=")
        body = validated(
            CustomParameterRunCreate,
            {"scope": {"kind": "dataset", "id": dataset_id} if scope is None else scope},
        )
        start = self._start(parameter_id, body)
        if not reuse:
            return self._client._run(start)
        scope = comparable(body.scope.to_wire())

        def same(run: CustomParameterRun) -> bool:
            return run.scope is not None and comparable(run.scope.to_wire()) == scope

        runs = _list_runs(parameter_id)
        return self._client._run(reuse_or_start(self._client._core, runs, same, start))

    def _start(self, parameter_id: str, body: CustomParameterRunCreate) -> Flow[CustomParameterRun]:
        request = APIRequest(
            "POST",
            path("/v1/custom_parameters/{}/runs", parameter_id),
            kind="paid",
            json=body.to_wire(),
            cast=CustomParameterRunStarted.model_validate,
            check_hint="list the parameter's runs with "
            f"client.custom_parameters.runs.list({parameter_id!r}) before retrying",
        )
        dataset_id = body.scope.id if body.scope.kind == "dataset" else None

        def read_back(started: CustomParameterRunStarted) -> Flow[CustomParameterRun]:
            try:
                return (
                    yield from self._client._core.call(
                        get_custom_parameter_run(parameter_id, started.run_id)
                    )
                )
            except RdsError as exc:
                exc.add_note(f"the run was started: run_id={started.run_id}")
                raise

        return (
            yield from self._client._guarded(
                "custom_parameter_run",
                request,
                {"dataset_id": dataset_id},
                then=read_back,
                units=lambda run: run.mentions_total,  # the posts the service reserved for
            )
        )

    def list(self, parameter_id: str) -> SyncPage[CustomParameterRun]:
        """Runs of a custom parameter; iterate for every item.

        Example:
            >>> runs = client.custom_parameters.runs.list("cp_1")  # doctest: +SKIP
            >>> [run.is_complete for run in runs]  # doctest: +SKIP
            [True]
        """
        return self._client._paginate(_list_runs(parameter_id))

    def get(self, parameter_id: str, run_id: str) -> CustomParameterRun:
        """One run with its counters (complete when done + error == total).

        Example:
            >>> run = client.custom_parameters.runs.get("cp_1", "cpr_1")  # doctest: +SKIP
            >>> run.mentions_remaining  # doctest: +SKIP
            0
        """
        return self._client._request(get_custom_parameter_run(parameter_id, run_id))
