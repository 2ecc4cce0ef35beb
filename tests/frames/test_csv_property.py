"""Every CSV writer of rdskit, fed arbitrary Unicode (control characters, lone surrogates,
CR, LF and CRLF, every formula prefix), read back by the csv module and by pandas: one row
per mention, text exactly as sent (``excel=False``) or as the guard says (``excel=True``:
line ends as ``\\n``, every formula-like line prefixed with ``'``), and no cell nor line of
the file a spreadsheet would run as a formula."""

from __future__ import annotations

import csv
import io
import re
import warnings
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rdskit.frames as frames
from rdskit.frames.exports import write_csv
from rdskit.frames.stream_export import _write_part

PIECES = ["=", "+", "-", "@", "\t", "\r", "\n", "\r\n", "'", '"', ",", "\x00", "\x1b", "\u2028"]
# Any code point, lone surrogates included, and the pieces that break rows or start formulas.
TEXT = st.lists(
    st.one_of(st.sampled_from(PIECES), st.characters(blacklist_categories=())), max_size=12
).map("".join)
LIVE = re.compile(r"^[=+\-@\t\r]")
XML_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def repaired(text: str) -> str:
    return re.sub("[\ud800-\udfff]", "\ufffd", text)


def guarded(text: str) -> str:
    """What the spreadsheet guard promises for ``text`` (the module docs, as a reference):
    each line that starts with a formula character, after any double quotes, gets a ``'``."""
    lines = re.split(r"\r\n?|\n", XML_ILLEGAL.sub("", repaired(text)))
    return "\n".join("'" + line if LIVE.match(line.lstrip('"')) else line for line in lines)


def read_with_pandas(raw: str, column: list[str]) -> pd.DataFrame:
    """The file as pandas reads it. pandas before 3.0 has a C parser that cuts a field at a
    NUL character (a reader's limit, not the file's: the csv module reads the NUL back, as
    does pandas 3); there the file is read by pandas' python engine, as docs/research.md
    tells such readers to, and the C engine is checked to read everything else."""
    by_c = pd.read_csv(io.StringIO(raw), dtype=str, keep_default_na=False)
    if int(pd.__version__.split(".")[0]) >= 3 or not any("\x00" in cell for cell in column):
        return by_c
    assert len(by_c) == len(column)
    return pd.read_csv(io.StringIO(raw), dtype=str, keep_default_na=False, engine="python")


def write_frame(texts: list[str], excel: bool, tmp: Any) -> bytes:
    frame = pd.DataFrame({"id": [f"p{i}" for i in range(len(texts))], "text": texts})
    return write_csv(frame, tmp / "f.csv", excel=excel).read_bytes()


def write_export(texts: list[str], excel: bool) -> bytes:
    rows = [{"source": "reddit", "id": f"p{i}", "text": t, "created_at": 0}
            for i, t in enumerate(texts)]  # fmt: skip
    handle = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the frame's InvalidTextWarning for surrogates
        _write_part(rows, handle, fmt="csv", meta={}, excel_safe=excel)
    return handle.getvalue()


@pytest.mark.parametrize("excel", [True, False], ids=["excel", "plain"])
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(texts=st.lists(TEXT, min_size=1, max_size=6))
def test_to_csv_round_trips_hostile_text(excel: bool, texts: list[str], tmp_path: Any) -> None:
    check(write_frame(texts, excel, tmp_path), texts, excel)


# Fewer examples: each builds a whole mentions frame (~0.4 s); the text path is the same.
@pytest.mark.parametrize("excel", [True, False], ids=["excel", "plain"])
@settings(max_examples=20, deadline=None)
@given(texts=st.lists(TEXT, min_size=1, max_size=12))
def test_export_csv_round_trips_hostile_text(excel: bool, texts: list[str]) -> None:
    check(write_export(texts, excel), texts, excel)


def check(written: bytes, texts: list[str], excel: bool) -> None:
    raw = written.decode("utf-8").removeprefix("\ufeff")  # valid UTF-8, always
    table = list(csv.reader(io.StringIO(raw, newline="")))
    header, rows = table[0], table[1:]
    assert len(rows) == len(texts)  # one row per mention, whatever the text holds
    column = [row[header.index("text")] for row in rows]
    by_pandas = read_with_pandas(raw, [row[header.index("text")] for row in rows])
    assert len(by_pandas) == len(texts)
    if excel:
        assert column == [guarded(t) for t in texts]
        assert not [cell for row in rows for cell in row if LIVE.match(cell)]
        lines = re.split(r"\r\n|\r|\n", raw)
        assert not [line for line in lines if LIVE.match(line.lstrip('"'))]
    else:
        assert column == [repaired(t) for t in texts]
    assert by_pandas["text"].tolist() == column


def test_a_lone_cr_is_quoted_and_the_excel_guard_covers_every_line(tmp_path: Any) -> None:
    frame = frames.mentions_frame(
        [{"source": "reddit", "id": "a", "text": "x'\r@SUM(1+1)*cmd|' /C calc'!A0"},
         {"source": "reddit", "id": "b", "text": "a\rb"}]
    )  # fmt: skip
    plain = frame.rds.to_csv(tmp_path / "p.csv", excel=False).read_bytes().decode("utf-8")
    assert '"a\rb"' in plain
    excel = frame.rds.to_csv(tmp_path / "e.csv").read_bytes().decode("utf-8-sig")
    assert "\"x'\n'@SUM(1+1)*cmd|' /C calc'!A0\"" in excel
