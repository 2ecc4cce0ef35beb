"""The coders' decisions, one append-only JSON Lines file per coder.

The coding widget (``df.rds.code``) writes every decision as one line of
``<directory>/<coder>.jsonl`` -- a code, an undo, a note -- and an adjudicator's to
``<directory>/<adjudicator>.adjudication.jsonl``. Each line is flushed and ``fsync``-ed
before the widget moves on, so a kernel restart, a crash or a closed tab loses at most the
decision being typed; nothing is ever rewritten. Reading replays the lines: an undo takes
back that post's last code; an unfinished line (a crash in mid-write) is skipped with a
warning, and the next write starts on a fresh line.

:func:`read_codes` gives each coder's final code per post as a frame keyed by
``(source, id)``, ready to join with the posts or to pivot for
:func:`rdskit.validation.reliability`.

Example:
    >>> import tempfile
    >>> from rdskit.validation import Codebook
    >>> book = Codebook.of("sentiment", ["negative", "neutral", "positive"])
    >>> folder = tempfile.mkdtemp()
    >>> log = CodingLog(folder, "ann", book)
    >>> log.code("reddit", "1", "positive")
    >>> log.code("reddit", "2", "neutral")
    >>> log.undo("reddit", "2")
    >>> read_codes(folder)[["source", "id", "coder", "code"]].to_dict("records")
    [{'source': 'reddit', 'id': '1', 'coder': 'ann', 'code': 'positive'}]
"""

from __future__ import annotations

import json
import os
import re
import warnings
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from rdskit.errors import InvalidParameter
from rdskit.validation.codebook import Codebook

__all__ = ["CodingLog", "Decision", "read_codes"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
ADJUDICATION = ".adjudication"


@dataclass
class Decision:
    """A post's current code by one coder (after replaying the log)."""

    code: str | None = None
    unsure: bool = False
    note: str = ""
    at: str = ""
    codes: dict[str, str] | None = None  # adjudications: the coders' codes settled


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out, torn = [], []
    for i, line in enumerate(path.read_bytes().split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:  # only a crash in mid-write leaves a line unfinished
            torn.append(i)
    if torn:
        warnings.warn(
            f"{path}: skipped {len(torn)} unfinished line(s) ({', '.join(map(str, torn))}), "
            "left by a crash while a decision was written",
            stacklevel=3,
        )
    return out


def _replay(events: list[dict[str, Any]]) -> dict[tuple[str, str], list[Decision]]:
    """Per post, its stack of codes (undo pops the last); notes apply to the top."""
    posts: dict[tuple[str, str], list[Decision]] = {}
    for e in events:
        key = (str(e["source"]), str(e["id"]))
        stack = posts.setdefault(key, [])
        if e["event"] in ("code", "adjudicate"):
            stack.append(
                Decision(
                    e["code"], bool(e.get("unsure")), e.get("note", ""), e["at"], e.get("codes")
                )
            )
        elif e["event"] == "undo" and stack:
            stack.pop()
        elif e["event"] == "note" and stack:
            stack[-1].note = e["note"]
    return posts


class CodingLog:
    """One coder's append-only log in ``directory`` (see the module docs).

    ``adjudication=True`` is an adjudicator's log (``<name>.adjudication.jsonl``)."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        coder: str,
        codebook: Codebook,
        *,
        adjudication: bool = False,
    ) -> None:
        if not _NAME.match(coder):
            raise InvalidParameter(
                "coder", f"{coder!r}: letters, digits, '.', '_' or '-', up to 64 characters"
            )
        self.coder, self.codebook = coder, codebook
        self.directory = Path(directory)
        self.path = self.directory / f"{coder}{ADJUDICATION if adjudication else ''}.jsonl"

    def _append(self, event: dict[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        line = json.dumps(
            {
                **event,
                "coder": self.coder,
                "codebook": self.codebook.label,
                "at": datetime.now(UTC).isoformat(timespec="seconds"),
            },
            ensure_ascii=False,
        )
        with open(self.path, "ab") as f:
            if f.tell() and self.path.read_bytes()[-1:] != b"\n":
                f.write(b"\n")  # after a torn line, start afresh
            f.write(line.encode("utf-8") + b"\n")
            f.flush()
            os.fsync(f.fileno())

    def code(
        self,
        source: str,
        post_id: str,
        code: str,
        *,
        unsure: bool = False,
        note: str = "",
        codes: dict[str, str] | None = None,
    ) -> None:
        """Record ``code`` for the post (``codes``: an adjudication's coders' codes)."""
        self.codebook.check([code], field="code")
        event: dict[str, Any] = {"event": "adjudicate" if codes else "code"}
        event |= {"source": source, "id": post_id, "code": code, "unsure": unsure}
        event |= {"note": note} if note else {}
        self._append(event | ({"codes": codes} if codes else {}))

    def undo(self, source: str, post_id: str) -> None:
        """Take back the post's last code."""
        self._append({"event": "undo", "source": source, "id": post_id})

    def note(self, source: str, post_id: str, note: str) -> None:
        """Attach ``note`` to the post's current code."""
        self._append({"event": "note", "source": source, "id": post_id, "note": note})

    def events(self) -> list[dict[str, Any]]:
        """Every decision recorded, in order."""
        return _lines(self.path)

    def last_coded(self) -> tuple[str, str] | None:
        """The post of the latest code still in force (what an undo takes back)."""
        order: list[tuple[str, str]] = []
        for e in self.events():
            key = (str(e["source"]), str(e["id"]))
            if e["event"] in ("code", "adjudicate"):
                order.append(key)
            elif e["event"] == "undo" and key in order:
                del order[len(order) - 1 - order[::-1].index(key)]
        return order[-1] if order else None

    def state(self) -> dict[tuple[str, str], Decision]:
        """Each coded post's current decision."""
        return {k: s[-1] for k, s in _replay(self.events()).items() if s}


def read_codes(directory: str | os.PathLike[str], *, adjudications: bool = False) -> pd.DataFrame:
    """Every coder's current code per post in ``directory`` (adjudicators' with
    ``adjudications=True``): ``source, id, coder, code, unsure, note, at`` (and
    ``codes``, the coders' codes an adjudication settled).

    Example:
        >>> codes = read_codes("codes")  # doctest: +SKIP
        >>> codes.pivot(index=["source", "id"], columns="coder", values="code")  # doctest: +SKIP
    """
    rows = []
    for path in sorted(Path(directory).glob("*.jsonl")):
        is_adjudication = path.stem.endswith(ADJUDICATION)
        if is_adjudication != adjudications:
            continue
        coder = path.stem.removesuffix(ADJUDICATION)
        for (source, post_id), stack in _replay(_lines(path)).items():
            if stack:
                d = stack[-1]
                row: dict[str, Any] = {"source": source, "id": post_id, "coder": coder}
                row["code"] = d.code
                row |= {"unsure": d.unsure, "note": d.note, "at": d.at}
                rows.append(row | ({"codes": d.codes} if adjudications else {}))
    columns = ["source", "id", "coder", "code", "unsure", "note", "at"]
    return pd.DataFrame(rows, columns=columns + (["codes"] if adjudications else []))
