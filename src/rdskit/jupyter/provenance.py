"""Where an ``%%ask`` answer came from, kept with its output, and its display formats.

Every ``%%ask`` output carries ``metadata["rdskit"]``: the answer's record, one JSON
object described by ``docs/ask-answer.schema.json`` (the ``-f json`` output is the same
object): the question as sent (and the cell's text when braces were read), the datasets
and posts in scope, the chat and message ids, the citations (number, source, id, url),
what the answer was charged, when it was asked and how long it took. The HTML and text
forms end with the same facts in words, so a notebook opened untrusted or without its
kernel (nbviewer, GitHub) shows where each answer came from;
:func:`rdskit.frames.answers_from_notebook` reads them back.

Formats (``%%ask -f``): ``markdown`` (the answer view with citation cards, the default),
``text`` (plain text with footnotes), ``json`` (the record, ``application/json``),
``refs`` (the cited posts as a table).

Example:
    >>> FORMATS
    ('markdown', 'text', 'json', 'refs')
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from rdskit._safe import md_text, one_line, safe_markdown, safe_url
from rdskit.answers import Answer
from rdskit.jupyter._html import esc, link
from rdskit.jupyter.render import answer_bundle, cited_posts, message_plain, post_cards

__all__ = [
    "FORMATS",
    "METADATA_KEY",
    "SCHEMA_VERSION",
    "answer_record",
    "formatted_bundle",
    "log_rows",
    "write_log",
]

FORMATS = ("markdown", "text", "json", "refs")
METADATA_KEY = "rdskit"
"""The output-metadata key holding an answer's record."""
SCHEMA_VERSION = 1
REFS_COLUMNS = ("citation", "source", "id", "author_name", "title", "url", "created_at")
"""The columns ``-f refs`` shows (those the frame has)."""

_BOX = (
    "margin-top:6px;padding:4px 8px;border-left:3px solid #8a8a8a;font-size:12px;"
    "line-height:1.5;color:inherit"
)


def answer_record(
    answer: Any,
    *,
    question: str,
    cell: str,
    dataset_ids: Sequence[str] | None,
    post_refs: Sequence[Mapping[str, str]] | None,
    asked_at: datetime,
    seconds: float,
) -> dict[str, Any]:
    """The answer's record (``metadata["rdskit"]`` and ``-f json``).

    Example:
        >>> from rdskit.answers import Answer
        >>> answer = Answer.model_validate({"id": "msg_1", "chat_id": "ch_1",
        ...     "role": "assistant", "text": "Hi", "created_at": 0})
        >>> record = answer_record(answer, question="Hi?", cell="Hi?", dataset_ids=None,
        ...     post_refs=None, asked_at=datetime(2026, 1, 1, tzinfo=UTC), seconds=1.25)
        >>> record["chat_id"], record["asked_at"], record["charged"]
        ('ch_1', '2026-01-01T00:00:00Z', None)
    """
    posts, _ = cited_posts(answer)
    urls: dict[tuple[str, str], str] = {}
    if posts is not None and {"source", "id", "url"} <= set(posts.columns):
        for source, ident, url in zip(posts["source"], posts["id"], posts["url"], strict=True):
            if isinstance(url, str) and url:
                urls[(str(source), str(ident))] = url
    citations = [
        {
            "citation": ref.citation,
            "source": ref.source,
            "id": ref.id,
            "url": urls.get((ref.source, ref.id)),
        }
        for ref in answer.post_references
    ]
    charge = next((line for line in answer._bill if line.label == "charged"), None)
    return {
        "schema": SCHEMA_VERSION,
        "question": question,
        "cell": cell,
        "datasets": list(dataset_ids or []),
        "posts_in_scope": len(post_refs or []),
        "chat_id": answer.chat_id,
        "message_id": answer.id,
        "status": answer.status,
        "text": answer.text or "",
        "citations": citations,
        "entities": [{"type": ref.type, "id": ref.id} for ref in answer.entity_references],
        "charged": None if charge is None else charge.figure,
        "asked_at": asked_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "seconds": round(seconds, 2),
    }


def _facts(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    facts = [("asked", f"{record['question']}")]
    if record["cell"] != record["question"]:
        facts.append(("cell", record["cell"]))
    scope = ", ".join(record["datasets"]) or "any dataset of the account"
    if record["posts_in_scope"]:
        scope += f"; {record['posts_in_scope']} posts given"
    facts += [
        ("scope", scope),
        ("chat", f"{record['chat_id']} · message {record['message_id']}"),
        ("charged", record["charged"] or "not recorded"),
        ("when", f"{record['asked_at']} · answered in {record['seconds']:g}s"),
        ("cited", f"{len(record['citations'])} posts"),
    ]
    return facts


def provenance_html(record: Mapping[str, Any]) -> str:
    """The record in words, as HTML that reads the same untrusted (inline styles only)."""
    lines = "".join(
        f'<div><b>{esc(label)}:</b> <span class="rds-provenance-{esc(label)}">'
        f"{esc(value)}</span></div>"
        for label, value in _facts(record)
    )
    cited = "".join(
        "<li>"
        + (
            link(item["url"], f"[{item['citation']}] {item['source']} {item['id']}")
            if item["url"]
            else esc(f"[{item['citation']}] {item['source']} {item['id']}")
        )
        + "</li>"
        for item in record["citations"]
    )
    cited_list = f'<ol style="margin:2px 0;padding-left:18px">{cited}</ol>' if cited else ""
    return (
        f'<details class="rds-provenance" style="{_BOX}"><summary>Where this answer came '
        f"from</summary>{lines}{cited_list}</details>"
    )


def provenance_text(record: Mapping[str, Any]) -> str:
    """The record in words, one line per fact (terminal-safe)."""
    return "\n".join(f"{label}: {one_line(value)}" for label, value in _facts(record))


def formatted_bundle(
    answer: Any, fmt: str, record: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The display data of ``answer`` in format ``fmt`` and its metadata (the record).

    Example:
        >>> data, meta = formatted_bundle(answer, "json", record)  # doctest: +SKIP
        >>> data["application/json"]["chat_id"] == meta["rdskit"]["chat_id"]  # doctest: +SKIP
        True
    """
    metadata = {METADATA_KEY: dict(record)}
    words = provenance_text(record)
    if fmt == "json":
        return {
            "application/json": dict(record),
            "text/plain": json.dumps(record, indent=1, ensure_ascii=False),
        }, metadata
    if fmt == "text":
        posts, note = cited_posts(answer, shown=True)
        plain = message_plain(
            answer.text or "", answer.references, post_cards(answer.references, posts), note
        )
        return {"text/plain": f"{plain}\n\n{words}"}, metadata
    if fmt == "refs":
        frame = refs_frame(answer)
        html = frame.to_html(index=False, escape=True, render_links=False)
        return {
            "text/html": html + provenance_html(record),
            "text/plain": f"{frame.to_string(index=False)}\n\n{words}",
        }, metadata
    bundle: dict[str, Any] = dict(answer_bundle(answer))
    bundle["text/html"] += provenance_html(record)
    bundle["text/markdown"] += "\n\n" + "  \n".join(
        f"_{label}_: {esc(value)}" for label, value in _facts(record)
    )
    bundle["text/plain"] += f"\n\n{words}"
    return bundle, metadata


def refs_frame(answer: Any) -> pd.DataFrame:
    """The cited posts as a table (``-f refs``): citation, source, id, author, title, url."""
    posts, _ = cited_posts(answer)
    if posts is None:
        rows = [
            {"citation": ref.citation, "source": ref.source, "id": ref.id}
            for ref in answer.post_references
        ]
        return pd.DataFrame(rows, columns=["citation", "source", "id"])
    return posts[[column for column in REFS_COLUMNS if column in posts.columns]]


def log_rows(client: Any, chat_id: str) -> list[dict[str, Any]]:
    """Every message of a chat, oldest first, assistant rows with their citations (source,
    id, url): what ``%ask log`` writes.

    Example:
        >>> log_rows(client, "ch_1")[0]["role"]  # doctest: +SKIP
        'user'
    """
    rows = []
    for message in client.chats.messages(chat_id, order="asc"):
        row: dict[str, Any] = {
            "chat_id": chat_id,
            "message_id": message.id,
            "role": message.role,
            "created_at": None
            if message.created_at is None
            else message.created_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "text": message.text or "",
        }
        if isinstance(message, Answer):
            row["citations"] = answer_record(
                message,
                question="",
                cell="",
                dataset_ids=None,
                post_refs=None,
                asked_at=message.created_at or datetime.now(UTC),
                seconds=0,
            )["citations"]
        elif message.context is not None:
            row["datasets"] = list(message.context.dataset_ids or [])
        rows.append(row)
    return rows


def write_log(rows: Sequence[Mapping[str, Any]], path: Path) -> None:
    """Write a chat log as markdown (``.md``) or JSON lines (``.jsonl``)."""
    if path.suffix == ".jsonl":
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    elif path.suffix == ".md":
        chat = rows[0]["chat_id"] if rows else "(empty)"
        parts = [f"# Chat {md_text(chat)}", ""]
        for row in rows:
            who = "Question" if row["role"] == "user" else "Answer"
            parts += [f"## {who} ({row['created_at'] or 'unknown time'})", ""]
            parts += [safe_markdown(row["text"]), ""]
            if row.get("citations"):
                parts += ["**References**", ""]
                for item in row["citations"]:
                    label = md_text(f"[{item['citation']}] {item['source']} {item['id']}")
                    url = safe_url(item["url"])
                    parts.append(f"- {label}" + (f" <{url}>" if url else ""))
                parts.append("")
        text = "\n".join(parts)
    else:
        raise ValueError(f"--to: a .md or .jsonl file, got {path.name!r}")
    path.write_text(text, encoding="utf-8")
