"""Ask and chats through the client: turns, replies with references, rows and errors."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from contract_support import Account, Collected, finish

from rdskit import Client, InsufficientCredits
from rdskit.errors import (
    AIAssistantUnavailable,
    ChatNotFound,
    InsufficientCreditsAsk,
    InvalidCursor,
)
from rdskit.models import AskAccepted, Chat, ChatMessage, PostReference
from rdskit.sandbox import SandboxHandle


@pytest.fixture(scope="module")
def conversation(client: Client, collected: Collected) -> tuple[AskAccepted, ChatMessage]:
    """A first turn about the shared dataset, citing two of its posts, and its reply."""
    posts = client.mentions.list(dataset_ids=[collected.dataset.id], sort="likes", limit=2).data
    turn = client.ask(
        "Which are the top posts by likes?",
        context={"dataset_ids": [collected.dataset.id], "post_refs": [m.ref for m in posts]},
    )
    return turn, finish(turn)


def test_ask_is_accepted_working_without_the_reply(
    conversation: tuple[AskAccepted, ChatMessage],
) -> None:
    turn, _ = conversation
    assert isinstance(turn, AskAccepted) and turn.status == "working"
    assert turn.chat_id.startswith("ch_") and turn.message_id.startswith("msg_")
    assert set(turn.to_wire()) == {"chat_id", "message_id", "status"}  # never the reply text


def test_the_reply_is_markdown_with_typed_references(
    client: Client, conversation: tuple[AskAccepted, ChatMessage]
) -> None:
    turn, reply = conversation
    assert isinstance(reply, ChatMessage) and reply.id == turn.message_id
    assert (reply.role, reply.status) == ("assistant", "completed") and reply.text
    posts = [ref for ref in reply.references or [] if isinstance(ref, PostReference)]
    assert posts
    assert [ref.citation for ref in posts] == list(range(1, len(posts) + 1))
    assert len({(ref.source, ref.id) for ref in posts}) == len(posts)
    for ref in posts:
        assert reply.text[ref.start_index : ref.end_index] == f"[{ref.citation}]"
        assert f"[{ref.citation}]" not in reply.text[: ref.start_index]  # the first occurrence
    assert "(post:" not in reply.text  # inline post links were rewritten
    found = client.mentions.list(post_refs=[{"source": r.source, "id": r.id} for r in posts])
    assert len(found.data) == len(posts)  # post references resolve through mentions


def test_chat_rows_and_a_follow_up(
    client: Client, conversation: tuple[AskAccepted, ChatMessage], collected: Collected
) -> None:
    turn, reply = conversation
    chat = client.chats.get(turn.chat_id)
    assert isinstance(chat, Chat) and chat.id == turn.chat_id and chat.tracking_agent_id is None
    assert chat.created_at is not None and isinstance(chat.to_wire()["created_at"], int)
    second = client.ask("And what do they like?", chat_id=turn.chat_id)
    assert second.chat_id == turn.chat_id
    finish(second)
    oldest_first = list(client.chats.messages(turn.chat_id, order="asc", limit=1))
    assert [row.role for row in oldest_first] == ["user", "assistant", "user", "assistant"]
    assert oldest_first[1].id == reply.id and oldest_first[3].id == second.message_id
    newest_first = list(client.chats.messages(turn.chat_id, order="desc", limit=3))
    assert [row.id for row in newest_first] == [row.id for row in reversed(oldest_first)]
    question = oldest_first[0]
    assert question.text == "Which are the top posts by likes?" and question.context is not None
    assert question.context.dataset_ids == [collected.dataset.id]
    assert question.context.post_refs is not None and len(question.context.post_refs) == 2
    row = client.chats.message(turn.chat_id, question.id)
    assert isinstance(row, ChatMessage) and row.role == "user"
    with pytest.raises(InvalidCursor):
        client.chats.messages(turn.chat_id, cursor="garbage")


def test_another_seats_chat_is_not_found(
    sandbox: SandboxHandle, new_account: Callable[..., Account], collect: Callable[..., object]
) -> None:
    owner = new_account()
    turn = owner.client.ask("Hello?")
    finish(turn)
    seat = sandbox.admin.create_seat(owner.account_id, email="mate@example.test", name="Mate")
    with Client(sandbox.admin.create_key(seat), base_url=sandbox.url, rate_limit=None) as teammate:
        for call in (
            lambda: teammate.chats.get(turn.chat_id),
            lambda: teammate.chats.messages(turn.chat_id),
            lambda: teammate.chats.message(turn.chat_id, turn.message_id),
        ):
            with pytest.raises(ChatNotFound) as raised:
                call()
            assert (raised.value.status, raised.value.error_code) == (404, "chat_not_found")
    with pytest.raises(ChatNotFound):
        owner.client.chats.get("ch_missing")


def test_ask_with_a_spent_balance_is_402(new_account: Callable[..., Account]) -> None:
    client = new_account(wallet_usd="0").client
    with pytest.raises(InsufficientCreditsAsk) as raised:
        client.ask("Anything?")
    assert isinstance(raised.value, InsufficientCredits) and raised.value.status == 402
    assert list(client.usage_history()) == []


def test_assistant_outage_raises_its_code(
    sandbox: SandboxHandle, new_account: Callable[..., Account]
) -> None:
    account = new_account()
    sandbox.admin.set_assistant_failure(account.account_id, "ai_assistant_unavailable")
    with pytest.raises(AIAssistantUnavailable) as raised:
        account.client.ask("Anyone there?")
    assert raised.value.transient is True and raised.value.error_code == "ai_assistant_unavailable"
