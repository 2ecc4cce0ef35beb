"""Assistant answers on the client side: :class:`Answer`.

``client.ask(...)`` starts a turn (the service answers 202 ``{chat_id, message_id,
status: working}``); ``.wait()`` polls the reply and returns an :class:`Answer`, and so
does reading any assistant row through ``client.chats``:

- ``answer.text``: markdown with ``[N]`` citation markers; ``answer.references``: typed
  post and entity references (``answer.problems()`` checks them against the spec's rule);
- ``answer.posts()``: the cited posts as a DataFrame in citation order with a
  ``citation`` column, looked up by ``post_refs`` on ``POST /v1/mentions`` (the call behind
  ``client.mentions.list(post_refs=...)``) in batches of 50, and cached on the answer;
- ``answer.resolve(ref)``: what a reference points at, through its GET endpoint;
- ``answer.to_markdown(links=True)``: the markers turned into links to the posts' URLs,
  made safe for markdown viewers (no raw HTML, no images, http(s) links only; the raw
  text stays in ``answer.text``);
- ``answer.follow_up(message)``: the next turn of the same chat.

With an ``AsyncClient`` the methods that call the service (``posts``, ``resolve``,
``to_markdown(links=True)``, ``follow_up``) return awaitables.

Example:
    >>> turn = client.ask("How does sentiment split?", dataset_ids=[ds.id])  # doctest: +SKIP
    >>> answer = turn.wait()  # doctest: +SKIP
    >>> answer.text.splitlines()[0]  # doctest: +SKIP
    '_Based on 60 posts in dataset **Oat milk**._'
    >>> answer.posts()[["citation", "source", "num_views"]].head(2)  # doctest: +SKIP
       citation  source  num_views
    0         1  tiktok     981233
    1         2  reddit       5120
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd
from pydantic import PrivateAttr

from rdskit import _hooks
from rdskit._base_client import APIRequest, Flow
from rdskit._safe import safe_markdown
from rdskit.errors import CustomParameterNotFound
from rdskit.models import (
    ChatMessage,
    CustomParameter,
    CustomParameterRun,
    EntityReference,
    Mention,
    PostRef,
    PostReference,
)
from rdskit.models._base import Bound
from rdskit.references import check_references, link_markers
from rdskit.resources.custom_parameters import get_custom_parameter_run

__all__ = ["POST_REFS_PER_CALL", "Answer", "chat_message"]

POST_REFS_PER_CALL = 50
"""Cited posts looked up per ``POST /v1/mentions`` call."""

# Entity reference type -> the client resource whose ``get(id)`` reads it.
_RESOURCES = {
    "dataset": "datasets",
    "audience_dataset": "audience_datasets",
    "pattern": "patterns",
    "pattern_detection_run": "pattern_detections",
    "research_preview": "research_previews",
}


class Answer(ChatMessage, Bound):
    """An assistant reply of a chat, bound to the client that read it.

    Example:
        >>> answer = Answer.model_validate({"id": "msg_1", "chat_id": "ch_1", "role": "assistant",
        ...     "text": "Hi [1]", "created_at": 0, "references": [{"type": "post",
        ...     "source": "reddit", "id": "a", "citation": 1, "start_index": 3, "end_index": 6}]})
        >>> answer.message_id, [ref.citation for ref in answer.post_references], answer.problems()
        ('msg_1', [1], [])
    """

    chat_id: str

    _posts: pd.DataFrame | None = PrivateAttr(default=None)
    # The bill the wait's progress display computed (rdskit.progress.BillingLine), if any.
    _bill: tuple[Any, ...] = PrivateAttr(default=())
    # How %%ask shows it: (format, record); None: the answer view without a record.
    _shown: tuple[str, dict[str, Any]] | None = PrivateAttr(default=None)

    @property
    def message_id(self) -> str:
        """The reply's message id (``id``)."""
        return self.id

    @property
    def post_references(self) -> list[PostReference]:
        """The cited posts, in citation order."""
        posts = [ref for ref in self.references or [] if isinstance(ref, PostReference)]
        return sorted(posts, key=lambda ref: ref.citation)

    @property
    def entity_references(self) -> list[EntityReference]:
        """The datasets, patterns, runs, ... the answer is about."""
        return [ref for ref in self.references or [] if isinstance(ref, EntityReference)]

    def problems(self) -> list[str]:
        """How text and references break the spec's reference rule (empty when valid)."""
        wire = [ref.to_wire() for ref in self.references or []]
        return check_references(self.text or "", wire)

    def posts(self) -> pd.DataFrame:
        """The cited posts in citation order, a ``citation`` column first (a copy).

        A cited post the account can no longer read (e.g. its dataset was deleted) is left
        out. Fetched once, then cached.
        """
        return self._bound()._run(self._posts_flow())

    def resolve(self, ref: PostReference | EntityReference) -> Any:
        """The object a reference points at.

        ``post`` -> its Mention; ``dataset``, ``audience_dataset``, ``pattern``,
        ``pattern_detection_run`` and ``research_preview`` -> that resource's ``get``;
        ``custom_parameter_run`` -> the run, found among the account's parameters (the
        reference does not carry its parameter id).
        """
        client = self._bound()
        if isinstance(ref, PostReference):
            return client._run(self._post_flow(ref))
        if ref.type == "custom_parameter_run":
            return client._run(_custom_parameter_run_flow(client._core, ref.id))
        if ref.type not in _RESOURCES:
            raise ValueError(f"no endpoint resolves a {ref.type!r} reference")
        return getattr(client, _RESOURCES[ref.type]).get(ref.id)

    def to_markdown(self, *, links: bool = True) -> Any:
        """The markdown, safe to show in a markdown viewer; with ``links`` each ``[N]``
        links to its post's URL (fetches posts).

        Raw HTML is escaped, images become links and links to anything but ``http(s)``
        become text (:func:`rdskit._safe.safe_markdown`); ``answer.text`` is the raw form.
        """
        if not links:
            return safe_markdown(self.text or "")
        return self._bound()._run(self._linked_flow())

    def follow_up(
        self,
        message: str,
        *,
        dataset_ids: Sequence[str] | None = None,
        post_refs: Sequence[PostRef | Mapping[str, Any]] | None = None,
        reuse: bool = False,
    ) -> Any:
        """Ask the next question in this chat; returns the accepted turn (``.wait()`` it).
        ``reuse=True``: as in ``client.ask`` (a re-run returns the turn already paid for)."""
        return self._bound().ask(
            message,
            chat_id=self.chat_id,
            dataset_ids=dataset_ids,
            post_refs=post_refs,
            reuse=reuse,
        )

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None
    ) -> dict[str, Any] | tuple[dict[str, Any], dict[str, Any]]:
        """HTML with hoverable citations, markdown and plain text with footnotes
        (``rdskit.jupyter.render``); shown by ``%%ask``, in its format and with its
        record in the output's metadata (``rdskit.jupyter.provenance``)."""
        if self._shown is not None:
            return _hooks.answer_display.call(self, *self._shown)
        return _hooks.answer_bundle.call(self)

    def _repr_html_(self) -> str | None:
        """The answer view, unless ``%%ask`` shows it in a format without HTML."""
        if self._shown is not None:
            return None  # the mimebundle holds everything the format shows
        return super()._repr_html_()

    # -- flows (one implementation for Client and AsyncClient) --------------------------
    def _posts_flow(self) -> Flow[pd.DataFrame]:
        if self._posts is None:
            refs = self.post_references
            found: dict[tuple[str, str], Mention] = {}
            for start in range(0, len(refs), POST_REFS_PER_CALL):
                batch = refs[start : start + POST_REFS_PER_CALL]
                page = yield from self._bound()._core.call_page(post_lookup(batch))
                found.update({(mention.source, mention.id): mention for mention in page.data})
            cited = [ref for ref in refs if (ref.source, ref.id) in found]
            frame = _frame([found[(ref.source, ref.id)] for ref in cited])
            frame.insert(0, "citation", [ref.citation for ref in cited])
            self._posts = frame
        return self._posts.copy()

    def _post_flow(self, ref: PostReference) -> Flow[Mention]:
        page = yield from self._bound()._core.call_page(post_lookup([ref]))
        if not page.data:
            raise LookupError(f"post {ref.source}:{ref.id} is not readable by this account")
        mention: Mention = page.data[0]
        return mention

    def _linked_flow(self) -> Flow[str]:
        frame = yield from self._posts_flow()
        urls = {
            (source, post_id): url
            for source, post_id, url in zip(frame["source"], frame["id"], frame["url"], strict=True)
            if isinstance(url, str) and url
        }
        wire = [ref.to_wire() for ref in self.references or []]
        return link_markers(safe_markdown(self.text or ""), wire, urls)

    def _bound(self) -> Any:
        if self._client is None:
            raise RuntimeError(
                "this Answer is not bound to a client; use the one client.ask(...).wait() "
                "or client.chats.message(...) returned"
            )
        return self._client


def chat_message(chat_id: str) -> Callable[[Any], ChatMessage]:
    """The cast of ``chat_id``'s message rows: assistant rows become :class:`Answer`.

    Example:
        >>> row = chat_message("ch_1")({"id": "msg_2", "role": "assistant", "text": "Hi"})
        >>> type(row).__name__, row.chat_id
        ('Answer', 'ch_1')
    """

    def cast(data: Any) -> ChatMessage:
        if isinstance(data, Mapping) and data.get("role") == "assistant":
            return Answer.model_validate({**data, "chat_id": data.get("chat_id") or chat_id})
        return ChatMessage.model_validate(data)

    return cast


def post_lookup(refs: Sequence[PostReference]) -> APIRequest[Mention]:
    """``POST /v1/mentions`` with ``post_refs``: the posts behind ``refs``, one page."""
    body = {"post_refs": [{"source": ref.source, "id": ref.id} for ref in refs], "limit": len(refs)}
    return APIRequest(
        "POST", "/v1/mentions", kind="free_post", json=body, cast=Mention.model_validate
    )


def _custom_parameter_run_flow(core: Any, run_id: str) -> Flow[CustomParameterRun]:
    """Find a custom parameter run by its id alone: try it under each of the account's
    parameters (another parameter's run answers 404 ``custom_parameter_not_found``)."""
    parameters = yield from core.call(
        APIRequest(
            "GET",
            "/v1/custom_parameters",
            cast=lambda items: [CustomParameter.model_validate(item) for item in items],
        )
    )
    for parameter in parameters:
        try:
            run: CustomParameterRun = yield from core.call(
                get_custom_parameter_run(parameter.id, run_id)
            )
        except CustomParameterNotFound:
            continue
        return run
    raise LookupError(f"custom parameter run {run_id} not found in this account")


def _frame(mentions: Sequence[Mention]) -> pd.DataFrame:
    """The cited posts as rows: the frames loader's layout when it is installed."""
    try:
        mentions_frame = _hooks.mentions_frame.call
    except ImportError:  # the frames layer is optional here: plain columns then
        return pd.DataFrame([mention.model_dump(by_alias=True) for mention in mentions])
    return mentions_frame(mentions)
