"""Pattern detections and patterns: ``/v1/pattern_detections``, ``/v1/patterns``.

Example:
    >>> run = client.pattern_detections.create("ds_1", name="Why people switch",
    ...     research_question="Why do people switch to oat milk?").wait()  # doctest: +SKIP
    >>> pattern = client.patterns.get(run.pattern_id)  # doctest: +SKIP
    >>> client.patterns.item(pattern.id, pattern.items[0].item_id).posts  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rdskit import _hooks
from rdskit._base_client import APIRequest, path
from rdskit.models import Pattern, PatternDetectionCreate, PatternDetectionRun, PatternItemDetail
from rdskit.resources._resource import Resource, given, validated
from rdskit.resources._reuse import StaleEntry, remembered

if TYPE_CHECKING:
    import pandas as pd

    from rdskit._base_client import Flow

__all__ = ["PatternDetections", "Patterns", "get_pattern_detection"]


def get_pattern_detection(run_id: str) -> APIRequest[PatternDetectionRun]:
    """``GET /v1/pattern_detections/{run_id}`` (also used by ``client.wait``)."""
    return APIRequest(
        "GET", path("/v1/pattern_detections/{}", run_id), cast=PatternDetectionRun.model_validate
    )


class PatternDetections(Resource):
    """``client.pattern_detections``: find recurring patterns in a dataset (paid per post)."""

    def create(
        self, dataset_id: str, name: str, research_question: str, *, reuse: bool = False
    ) -> PatternDetectionRun:
        """Start a detection; returns the pending run (``.wait()`` polls it).

        ``reuse=True`` makes a re-run free: a detection started before with ``reuse=True``
        by this account with the same dataset, name and question is read back and
        returned (completed: its pattern is there; pending or working: wait on it)
        instead of paying again. Detections cannot be listed, so it is found through the
        local ledger (:mod:`rdskit._ledger`); a failed one, or one the service no longer
        has, is started anew. It stays the detection made then, even if the dataset grew
        since: leave ``reuse`` off to detect again.

        Example:
            >>> client.pattern_detections.create("ds_1", name="switch",
            ...     research_question="Why switch?").status.type  # doctest: +SKIP
            'pending'
            >>> client.pattern_detections.create("ds_1", name="switch",
            ...     research_question="Why switch?", reuse=True).status.type  # doctest: +SKIP
            'completed'
        """
        body = validated(
            PatternDetectionCreate,
            given(dataset_id=dataset_id, name=name, research_question=research_question),
        )
        request = APIRequest(
            "POST",
            "/v1/pattern_detections",
            kind="paid",
            json=body.to_wire(),
            cast=PatternDetectionRun.model_validate,
            check_hint="look for a new post_processing row in client.usage_history() before "
            "retrying (detections cannot be listed)",
        )
        start = self._client._guarded("pattern_detection", request, {"dataset_id": dataset_id})
        if not reuse:
            return self._client._run(start)
        wanted = body.to_wire()

        def reread(ids: Mapping[str, Any]) -> Flow[PatternDetectionRun | None]:
            run = yield from self._client._core.call(get_pattern_detection(ids["run_id"]))
            echo = {
                "dataset_id": run.collection_id,
                "name": run.name,
                "research_question": run.research_question,
            }
            # A field the run does not echo (None) cannot contradict the request.
            differ = [key for key, value in echo.items() if value not in (None, wanted.get(key))]
            if differ:
                verb = "differs" if len(differ) == 1 else "differ"
                raise StaleEntry(f"it is another detection (its {' and '.join(differ)} {verb})")
            return run if run.status.type != "failed" else None

        core = self._client._core
        return self._client._run(
            remembered(core, "pattern_detection", wanted, reread, start, keep=("run_id",))
        )

    def get(self, run_id: str) -> PatternDetectionRun:
        """One detection run; ``pattern_id`` is set once completed.

        Example:
            >>> client.pattern_detections.get("pdr_1").pattern_id  # doctest: +SKIP
            'pt_3e9…'
        """
        return self._client._request(get_pattern_detection(run_id))


class Patterns(Resource):
    """``client.patterns``: read detected patterns and their items (free)."""

    def get(self, pattern_id: str) -> Pattern:
        """A pattern: summary plus items (title, synopsis, post_count, item_id).

        Example:
            >>> [item.title for item in client.patterns.get("pt_1").items]  # doctest: +SKIP
            ['Lactose intolerance', 'Taste in coffee']
        """
        return self._client._request(
            APIRequest("GET", path("/v1/patterns/{}", pattern_id), cast=Pattern.model_validate)
        )

    def item(self, pattern_id: str, item_id: str) -> PatternItemDetail:
        """One item with its posts (post references; resolve them with mentions).

        Example:
            >>> detail = client.patterns.item("pt_1", "pti_1")  # doctest: +SKIP
            >>> refs = [{"source": p.source, "id": p.id} for p in detail.posts]  # doctest: +SKIP
            >>> client.mentions.list(post_refs=refs).data  # doctest: +SKIP
        """
        return self._client._request(
            APIRequest(
                "GET",
                path("/v1/patterns/{}/items/{}", pattern_id, item_id),
                cast=PatternItemDetail.model_validate,
            )
        )

    def items_frame(self, pattern_id: str, posts: bool = False) -> pd.DataFrame:
        """The pattern's items as a frame; ``posts=True`` joins each item's post columns.

        Example:
            >>> client.patterns.items_frame("pat_1", posts=True)  # doctest: +SKIP
        """
        return _hooks.pattern_items_to_frame.call(
            self._frames_client("patterns.items_frame"),
            pattern_id,
            posts=posts,
        )
