"""The assistant: ``client.ask(...)`` (``POST /v1/ask``) and ``client.chats`` (``/v1/chats``).

Example:
    >>> turn = client.ask("How does sentiment split?", dataset_ids=["ds_1"])  # doctest: +SKIP
    >>> reply = turn.wait()  # the completed assistant message  # doctest: +SKIP
    >>> reply.text[:30], len(reply.references)  # doctest: +SKIP
    ('_Based on 60 posts in dataset', 4)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from rdskit._base_client import APIRequest, path
from rdskit.answers import chat_message
from rdskit.errors import InvalidParameter
from rdskit.models import AskAccepted, AskContext, AskRequest, Chat, ChatMessage, Order, PostRef
from rdskit.pagination import PageWalk, SyncPage
from rdskit.resources._resource import Resource, check_limit, given, validated
from rdskit.resources._reuse import StaleEntry, comparable, remembered

if TYPE_CHECKING:
    from rdskit._base_client import Flow, HTTPCore

__all__ = ["AskMixin", "Chats", "ask_request", "get_chat_message"]

T = TypeVar("T")


def get_chat_message(chat_id: str, message_id: str) -> APIRequest[ChatMessage]:
    """``GET /v1/chats/{chat_id}/messages/{message_id}`` (also used by ``client.wait``).

    An assistant row is an :class:`~rdskit.answers.Answer` (a ChatMessage with ``posts()``,
    ``resolve()``, ``follow_up()``, ...).
    """
    return APIRequest(
        "GET",
        path("/v1/chats/{}/messages/{}", chat_id, message_id),
        cast=chat_message(chat_id),
    )


def ask_request(wire: Mapping[str, Any], hint: str) -> APIRequest[AskAccepted]:
    """``POST /v1/ask`` with the wire body (paid; ``hint`` says how to check an unknown
    outcome). Used by ``client.ask`` and the JupyterLab panel's ask box."""
    return APIRequest(
        "POST",
        "/v1/ask",
        kind="paid",
        json=dict(wire),
        cast=AskAccepted.model_validate,
        check_hint=hint,
    )


class AskMixin:
    """``client.ask(...)``, shared by both clients."""

    if TYPE_CHECKING:  # provided by the client (typed as rdskit.Client runs them)
        _core: HTTPCore

        def _run(self, flow: Flow[T]) -> T: ...

        def _asked(self, request: APIRequest[T]) -> Flow[T]: ...  # Ask's budget guard (billing)

    def ask(
        self,
        message: str,
        *,
        dataset_ids: Sequence[str] | None = None,
        post_refs: Sequence[PostRef | Mapping[str, Any]] | None = None,
        chat_id: str | None = None,
        context: AskContext | Mapping[str, Any] | None = None,
        reuse: bool = False,
    ) -> AskAccepted:
        """Ask the assistant; returns the accepted turn at once (``.wait()`` gets the reply).

        Without ``dataset_ids`` the assistant may use any dataset of the account; narrow
        the question in the text. ``post_refs``: at most 50 ``{source, id}``. Pass
        ``chat_id`` to continue a chat. ``context`` is the wire's ``{dataset_ids,
        post_refs}`` object (or model), an alternative to the two arguments. Charged for
        inference after the reply.

        ``reuse=True`` makes a re-run free: the same question (same text, datasets, posts
        and chat) asked before with ``reuse=True`` by this account returns that turn
        instead of paying again (its ``status`` is the reply's: ``completed``, or
        ``working`` to wait on), found through the local ledger (:mod:`rdskit._ledger`).
        A question that opened a chat is found again when asked in that chat (re-running
        a notebook's first ``%%ask`` cell). A failed reply, or one the service no longer
        has, is asked again. It returns what was answered then, even if the data grew
        since: leave ``reuse`` off to ask afresh.

        Example:
            >>> turn = client.ask("Top complaints?", dataset_ids=["ds_1"])  # doctest: +SKIP
            >>> turn.status, turn.wait().role  # doctest: +SKIP
            ('working', 'assistant')
            >>> client.ask("Top complaints?", dataset_ids=["ds_1"],
            ...     reuse=True).status  # doctest: +SKIP
            'completed'
        """
        if context is None:
            context = given(dataset_ids=dataset_ids, post_refs=post_refs) or None
        elif dataset_ids is not None or post_refs is not None:
            raise InvalidParameter("context", "give context= or dataset_ids=/post_refs=, not both")
        body = validated(AskRequest, given(message=message, chat_id=chat_id, context=context))
        if chat_id is not None:
            hint = f"list the chat's messages with client.chats.messages({chat_id!r}, order='desc')"
        else:
            hint = "the turn may have opened a new chat; asking again starts another charged turn"
        wire = body.to_wire()
        start = self._asked(ask_request(wire, hint))
        if not reuse:
            return self._run(start)
        return self._run(
            remembered(
                self._core,
                "ask",
                wire,
                lambda ids: self._reread_turn(ids, wire),
                start,
                keep=("chat_id", "message_id"),
                # The chat it opened is the notebook's current chat when the cell re-runs.
                aliases=lambda turn: [] if chat_id else [{**wire, "chat_id": turn.chat_id}],
            )
        )

    def _reread_turn(
        self, ids: Mapping[str, Any], wire: Mapping[str, Any]
    ) -> Flow[AskAccepted | None]:
        """Flow: a recorded turn as its reply stands now (None once it failed); a
        :class:`StaleEntry` unless it is the reply to this very question (``wire``) in its
        chat: the text and context of the user row it answers are compared."""
        chat_id = ids["chat_id"]
        if wire.get("chat_id") not in (None, chat_id):
            raise StaleEntry(f"it is in chat {chat_id}, not in {wire.get('chat_id')}")
        reply = yield from self._core.call(get_chat_message(chat_id, ids["message_id"]))
        if reply.role != "assistant":
            raise StaleEntry("it is not an assistant reply")
        question = yield from _question_of(self._core, chat_id, reply.id)
        if question is None:
            raise StaleEntry("the question it answers is not in its chat")
        context = question.context.to_wire() if question.context is not None else {}
        asked = wire.get("context") or {}
        # Whitespace aside (a service may trim what it stores): another text is another question.
        if (question.text or "").split() != str(wire["message"]).split() or any(
            comparable(context.get(key)) != comparable(asked.get(key))
            for key in ("dataset_ids", "post_refs")
        ):
            raise StaleEntry("it answers another question")
        if reply.status == "failed":
            return None
        turn = AskAccepted.model_validate(
            {
                "chat_id": ids["chat_id"],
                "message_id": reply.id,
                "status": reply.status or "completed",
            }
        )
        return self._core.bind(turn)


def _question_of(core: HTTPCore, chat_id: str, message_id: str) -> Flow[ChatMessage | None]:
    """Flow: the user row the reply ``message_id`` answers (the newest user row before
    it), read from the chat's rows newest first; None when there is none."""
    request = APIRequest(
        "GET",
        path("/v1/chats/{}/messages", chat_id),
        params={"order": "desc", "limit": 100},
        cast=chat_message(chat_id),
    )
    walk = PageWalk.of(request, core.max_pages)
    seen = False
    while True:
        page = yield from core.call_page(request)
        for row in page.data:
            if seen and row.role == "user":
                return row
            seen = seen or row.id == message_id
        cursor = walk.follow(page.has_next, page.cursor)
        if cursor is None:
            return None
        request = request.with_cursor(cursor)


class Chats(Resource):
    """``client.chats``: the seat's conversations with the assistant (free reads)."""

    def get(self, chat_id: str) -> Chat:
        """One chat (``ChatNotFound`` for another seat's chat).

        Example:
            >>> client.chats.get("ch_1").name  # doctest: +SKIP
            'Oat milk sentiment'
        """
        return self._client._request(
            APIRequest("GET", path("/v1/chats/{}", chat_id), cast=Chat.model_validate)
        )

    def messages(
        self,
        chat_id: str,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        order: Order | None = None,
    ) -> SyncPage[ChatMessage]:
        """The chat's rows (user rows carry ``context``; assistant rows ``references``).

        Example:
            >>> [m.role for m in client.chats.messages("ch_1", order="asc")]  # doctest: +SKIP
            ['user', 'assistant']
        """
        check_limit(limit)
        return self._client._paginate(
            APIRequest(
                "GET",
                path("/v1/chats/{}/messages", chat_id),
                params=given(limit=limit, cursor=cursor, order=order),
                cast=chat_message(chat_id),
            )
        )

    def message(self, chat_id: str, message_id: str) -> ChatMessage:
        """One message; an Ask reply has ``status`` ``working`` until ``completed``.

        Example:
            >>> client.chats.message("ch_1", "msg_2").status  # doctest: +SKIP
            'completed'
        """
        return self._client._request(get_chat_message(chat_id, message_id))
