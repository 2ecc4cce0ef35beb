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
