"""Check one reply against the ground truth of its expected readings.

The reply's figures are read from its markdown (what a user sees), never from the
assistant's internals; the truth comes from ``handwritten_truth`` over the posts read
through ``POST /v1/mentions``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import httpx
import pandas as pd
from eval_support import ask_over_http
from handwritten_spec import Question, Reading
from handwritten_truth import grouped, measure, ranking, where

_NUMBER = r"-?[\d,]+(?:\.\d+)?"
CONFIDENT = re.compile(rf"\*\*{_NUMBER}%?\*\*")


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _close(got: float | None, want: Any) -> bool:
    if want is None or got is None:
        return got is None and want is None
    return abs(got - float(want)) <= max(0.006, abs(float(want)) * 0.0005)


def _sections(text: str, count: int) -> list[str]:
    if count == 1:
        return [text]
    parts = re.split(r"^### .*$", text, flags=re.M)[1:]
    return parts


def _value(section: str, reading: Reading) -> float | None:
    patterns = {
        "count": rf"\*\*({_NUMBER})\*\* posts? match",
        "share": rf"\*\*({_NUMBER})%\*\*",
        "authors": rf"\*\*({_NUMBER})\*\* distinct authors",
    }
    pattern = patterns.get(reading.measure, rf"is \*\*({_NUMBER})\*\* over")
    found = re.search(pattern, section)
    return None if found is None else _num(found[1])


def _table(section: str) -> list[list[str]]:
    lines = [line for line in section.splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]


def _figure(df: pd.DataFrame, reading: Reading, section: str) -> list[str]:
    rows = where(df, reading.where)
    if "did not understand" in section:
        return ["a word was not understood in a question the reading fully maps"]
    if reading.group:
        want = grouped(
            rows, reading.group, reading.measure, reading.metric, reading.part,
            reading.top, reading.order,
        )  # fmt: skip
        got = {row[0]: row[1] for row in _table(section)}
        if reading.top:
            keys = [row[0] for row in _table(section)]
            if keys != [k for k, _ in want]:
                return [f"top groups {keys} != {[k for k, _ in want]}"]
        elif set(got) != {k for k, _ in want}:
            return [f"groups {sorted(got)} != {sorted(k for k, _ in want)}"]
        bad = [
            f"{k}: {got.get(k)} != {v}"
            for k, v in want
            if k in got and not _close(None if got[k] == "n/a" else _num(got[k]), v)
        ]
        return bad[:3]
    want = measure(rows, reading.measure, reading.metric, reading.part)
    got = _value(section, reading)
    if reading.measure == "count" and want == 0 and got is None:
        return [] if re.search(r"\b(no posts|none of|0 posts)\b", section, re.I) else ["no 0"]
    if not _close(got, want):
        return [f"{reading.measure} {got} != {want}"]
    if reading.of is not None and reading.measure == "count":
        base = len(where(df, reading.of))
        stated = re.search(rf"\(({_NUMBER})% of the ({_NUMBER}) posts", section)
        if stated is None or _num(stated[2]) != base:
            return [f"denominator {stated and stated[2]} != {base}"]
        if base and abs(_num(stated[1]) - round(100 * want / base, 1)) > 0.051:
            return [f"share of the denominator {stated[1]} != {100 * want / base:.1f}"]
    return []


def problems(
    df: pd.DataFrame,
    readings: Sequence[Reading],
    text: str,
    references: Sequence[dict[str, Any]],
) -> list[str]:
    """What is wrong with a reply (empty: it is right)."""
    cited = [(r["source"], r["id"]) for r in references if r.get("type") == "post"]
    known = set(zip(df["source"], df["id"], strict=True))
    found = [f"cites unknown post {key}" for key in cited if key not in known]
    if "Read as" not in text:
        found.append("no read-as line")
    sections = _sections(text, len(readings))
    if len(sections) != len(readings):
        return [*found, f"{len(sections)} sections for {len(readings)} readings"]
    for reading, section in zip(readings, sections, strict=True):
        found += _one(df, reading, section, cited)
    return found


def _one(df: pd.DataFrame, reading: Reading, section: str, cited: list[Any]) -> list[str]:
    kind = reading.kind
    if kind == "figure":
        return _figure(df, reading, section)
    if kind == "refuse":
        ok = re.search(r"\b(can't|cannot|never|don't|do not)\b", section) and "`" in section
        return [] if ok and not cited else ["not refused with a redirect"]
    if kind == "absent":
        ok = re.search(r"does not collect|not a source|not collected", section)
        confident = CONFIDENT.search(section) and "not a source" not in section
        return [] if ok and not confident else ["absent data not said"]
    if kind == "unknown":
        said = re.search(rf"did not understand '[^']*{re.escape(reading.word or '')}", section)
        return [] if said else [f"{reading.word!r} ignored without saying so"]
    rows = where(df, reading.where)
    keys = set(zip(rows["source"], rows["id"], strict=True))
    if kind == "rank":
        want = ranking(rows, reading.metric or "views", reading.order, reading.top or 5)
        got = cited[: len(want)]
        return [] if got == want else [f"ranking {got} != {want}"]
    if kind == "list":
        if not keys:
            return [] if not cited else ["cites posts though none match"]
        outside = [key for key in cited if key not in keys]
        return [f"cites {len(outside)} posts outside the condition"] if outside or not cited else []
    if kind == "theme":
        found = re.search(r"of \**([\d,]+)\** posts? in", section)
        if not found:
            return ["no posts count in the read-as line"]
        return [] if _num(found[1]) == len(rows) else [f"scope {found[1]} != {len(rows)}"]
    return [f"unknown kind {kind}"]


def asked(http: httpx.Client, question: Question, dataset_id: str, df: pd.DataFrame) -> list[str]:
    """Ask ``question`` over HTTP (its earlier turns first, in one chat) in ``dataset_id``;
    what is wrong with the reply against ``df`` (empty: it is right)."""
    chat_id = None
    for earlier in question.after:
        chat_id = ask_over_http(http, earlier, chat_id, dataset_id)["chat_id"]
    reply = ask_over_http(http, question.text, chat_id, dataset_id)
    return problems(df, question.readings, reply["text"], reply["references"])
