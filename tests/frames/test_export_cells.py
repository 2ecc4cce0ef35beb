"""Workbook cells that a spreadsheet number or XML cannot hold as they are: integers and
decimals beyond Excel's 15 significant digits are written as exact text, and line ends
are newlines whatever XML library is installed (XML reads a carriage return as one)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import openpyxl
import pandas as pd

import rdskit.frames as frames


def posts(path: Path) -> list[dict[str, object]]:
    values = list(openpyxl.load_workbook(path)["posts"].iter_rows(values_only=True))
    return [dict(zip(values[0], row, strict=True)) for row in values[1:]]


def test_big_numbers_keep_every_digit(tmp_path: Path) -> None:
    frame = frames.mentions_frame(
        [
            {"source": "tiktok", "id": "a", "num_likes": 2**63 - 1, "num_views": 10**15 - 1},
            {"source": "tiktok", "id": "b", "num_likes": -(10**15) - 1, "num_views": 10**18},
        ]
    )
    rows = posts(frame.rds.to_excel(tmp_path / "big.xlsx"))
    assert [r["num_likes"] for r in rows] == ["9223372036854775807", "-1000000000000001"]
    # 15 significant digits or fewer: numbers.
    assert [r["num_views"] for r in rows] == [10**15 - 1, 10**18]


def test_long_decimals_keep_every_digit(tmp_path: Path) -> None:
    usage = frames.usage_frame(
        [
            {"id": 1, "category": "mention", "quantity": "0.123456789012", "created_at": 0},
            {"id": 2, "category": "mention", "quantity": "12345.123456789012", "created_at": 0},
        ]
    )
    rows = posts(usage.rds.to_excel(tmp_path / "usage.xlsx"))
    assert rows[0]["quantity"] == 0.123456789012  # 12 significant digits: a number
    assert rows[1]["quantity"] == "12345.123456789012"
    assert Decimal(rows[1]["quantity"]) == usage.loc[1, "quantity"]


def test_line_ends_are_newlines(tmp_path: Path) -> None:
    frame = frames.mentions_frame(
        [{"source": "reddit", "id": "r", "text": "one\r\ntwo\rthree\nfour", "title": "\r"}]
    )
    (row,) = posts(frame.rds.to_excel(tmp_path / "crlf.xlsx"))
    assert row["text"] == "one\ntwo\nthree\nfour"
    assert row["title"] == "\n"
    assert pd.read_excel(tmp_path / "crlf.xlsx", sheet_name="posts")["text"][0] == row["text"]


# Texts holding OOXML's escape pattern ``_xHHHH_`` (``_x0041_`` is "A" to Excel), near
# misses, and plain underscores: every one must come back as it was written.
ESCAPE_LIKE = [
    "_x0041_",
    "_x005F_",
    "_x005f_x0041_",
    "_xZZZZ_",
    "a lone _x",
    "_x0041",
    "snake_case_name",
    "a_x0041_x0042_b",
    "_x00e9__x000D_",
    "=_x0041_",
    "_X0041_",
]


def _as_excel_reads(path: Path, sheet: str) -> list[list[str | None]]:
    """Each text cell of ``sheet`` as the OOXML spec (so Excel) reads it: every ``<t>``
    of the cell decoded on its own (``_xHHHH_`` is the character HHHH), then joined."""
    import re
    import zipfile
    from xml.etree import ElementTree

    ns = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
    with zipfile.ZipFile(path) as book:
        names = ElementTree.fromstring(book.read("xl/workbook.xml"))
        number = [s.get("name") for s in names.iterfind(".//m:sheet", ns)].index(sheet) + 1
        root = ElementTree.fromstring(book.read(f"xl/worksheets/sheet{number}.xml"))

    def decode(text: str) -> str:
        return re.sub(r"_x([0-9A-Fa-f]{4})_", lambda m: chr(int(m[1], 16)), text)

    from openpyxl.utils.cell import column_index_from_string, coordinate_from_string

    rows = []
    for row in root.iterfind(".//m:row", ns):
        texts: dict[int, str] = {}
        for cell in row.iterfind("m:c", ns):
            if cell.get("t") == "inlineStr":
                column = column_index_from_string(coordinate_from_string(cell.get("r"))[0])
                texts[column] = "".join(decode(t.text or "") for t in cell.iterfind(".//m:t", ns))
        rows.append([texts.get(c) for c in range(1, max(texts, default=0) + 1)])
    return rows


def test_texts_like_an_ooxml_escape_come_back_as_written(tmp_path: Path) -> None:
    frame = frames.mentions_frame(
        [
            {"source": "reddit", "id": f"r{i}", "text": text, "title": f"{text}!"}
            for i, text in enumerate(ESCAPE_LIKE)
        ]
    )
    frame.attrs["rdskit"]["note _x0041_"] = "_x0042_"
    path = frame.rds.to_excel(tmp_path / "escapes.xlsx")

    header, *cells = _as_excel_reads(path, "posts")
    text, title = header.index("text"), header.index("title")
    assert [row[text] for row in cells] == ESCAPE_LIKE
    assert [row[title] for row in cells] == [f"{t}!" for t in ESCAPE_LIKE]
    assert ["note _x0041_", "_x0042_"] in _as_excel_reads(path, "provenance")

    rows = posts(path)
    assert [r["text"] for r in rows] == ESCAPE_LIKE
    for read_only in (True, False):
        book = openpyxl.load_workbook(path, read_only=read_only)
        values = [row[text] for row in book["posts"].iter_rows(min_row=2, values_only=True)]
        assert values == ESCAPE_LIKE
    read = pd.read_excel(path, sheet_name="posts")
    assert read["text"].tolist() == ESCAPE_LIKE
    assert read["title"].tolist() == [f"{t}!" for t in ESCAPE_LIKE]
    kept = pd.read_excel(path, sheet_name="provenance")
    assert kept.loc[kept["key"] == "note _x0041_", "value"].tolist() == ["_x0042_"]


def test_a_column_name_like_an_ooxml_escape_is_kept(tmp_path: Path) -> None:
    frame = pd.DataFrame({"vibe_x0041_": ["a"], "_x0041_": [1]})
    path = frame.rds.to_excel(tmp_path / "names.xlsx")
    assert _as_excel_reads(path, "posts")[0] == ["vibe_x0041_", "_x0041_"]
    assert pd.read_excel(path, sheet_name="posts").columns.tolist() == ["vibe_x0041_", "_x0041_"]
