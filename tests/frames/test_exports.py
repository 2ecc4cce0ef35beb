"""Exports for spreadsheet users: the workbook's three sheets, CSV with a BOM, flattened
lists, formulas neutralised, provenance alongside."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import openpyxl
import pandas as pd
import pyarrow as pa
import pytest
from research_sandbox import Research

import rdskit.frames as frames
from rdskit.errors import InvalidParameter
from rdskit.frames.exports import cell_json

HOSTILE = '=HYPERLINK("http://evil.test","click")'


@pytest.fixture
def df() -> pd.DataFrame:
    return frames.mentions_frame(
        [
            {
                "source": "tiktok",
                "id": "1",
                "created_at": 1767225600,
                "text": HOSTILE,
                "title": "Café ☕ \x07bell",
                "mentioned_brands": ["Oatly", "Alpro"],
                "hooks": [{"type": "question", "text": "why?"}],
                "comments": [
                    {
                        "id": "c1",
                        "author_username": "sam",
                        "body": "+1 agreed",
                        "created_at": "2026-01-01T10:00:00Z",
                    },
                    {"id": "c2", "author_username": "lea", "body": "@maya -so true"},
                ],
            },
            {"source": "reddit", "id": "2", "text": "plain", "mentioned_brands": []},
        ]
    )


def rows(sheet: openpyxl.worksheet.worksheet.Worksheet) -> list[dict]:
    values = list(sheet.iter_rows(values_only=True))
    return [dict(zip(values[0], row, strict=True)) for row in values[1:]]


def test_workbook_sheets(df: pd.DataFrame, tmp_path: Path) -> None:
    path = df.rds.to_excel(tmp_path / "posts.xlsx")
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["posts", "comments", "provenance"]
    posts = rows(book["posts"])
    assert len(posts) == 2 and "comments" not in posts[0]
    first = posts[0]
    # Lists and objects as JSON; text exactly as posted, in a text cell, never a formula.
    assert json.loads(first["mentioned_brands"]) == ["Oatly", "Alpro"]
    assert json.loads(first["hooks"]) == [{"type": "question", "text": "why?"}]
    assert first["text"] == HOSTILE
    cell = book["posts"].cell(row=2, column=list(first).index("text") + 1)
    assert cell.data_type == "s" and cell.quotePrefix
    assert first["title"] == "Café ☕ bell"  # the control character Excel refuses is gone
    assert str(first["created_at (UTC)"]) == "2026-01-01 00:00:00"
    comments = rows(book["comments"])
    assert [c["author_username"] for c in comments] == ["sam", "lea"]
    assert comments[0]["body"] == "+1 agreed" and comments[1]["body"] == "@maya -so true"
    assert rows(book["provenance"])[0] == {"key": "kind", "value": "mentions"}


def test_csv_for_excel_and_plain(df: pd.DataFrame, tmp_path: Path) -> None:
    path = df.rds.to_csv(tmp_path / "posts.csv")
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 BOM: Excel reads accents and emoji
    table = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert json.loads(table[0]["mentioned_brands"]) == ["Oatly", "Alpro"]
    assert table[0]["text"] == "'" + HOSTILE  # a CSV has no cell types: Excel needs the '

    assert "Café ☕" in table[0]["title"]
    assert json.loads(table[0]["comments"])[1]["author_username"] == "lea"
    sidecar = json.loads((tmp_path / "posts.csv.provenance.json").read_text())
    assert sidecar["kind"] == "mentions"
    plain = df.rds.to_csv(tmp_path / "plain.csv", excel=False).read_bytes()
    assert not plain.startswith(b"\xef\xbb\xbf")
    assert pd.read_csv(tmp_path / "plain.csv")["text"].tolist()[0] == HOSTILE


def test_sandbox_frame_exports_with_its_provenance(research: Research, tmp_path: Path) -> None:
    df = research.mentions()
    book = openpyxl.load_workbook(df.rds.to_excel(tmp_path / "all.xlsx"))
    assert book["posts"].max_row == len(df) + 1
    assert book["comments"].max_row == len(df.rds.comments()) + 1
    provenance = {r[0]: r[1] for r in book["provenance"].iter_rows(min_row=2, values_only=True)}
    assert provenance["fetch 1: account_id"] == research.client.me().account_id
    assert research.datasets["Oatly"] in provenance["fetch 1: datasets"]
    raw = df.rds.to_csv(tmp_path / "all.csv").read_bytes()
    for blob in (raw, (tmp_path / "all.csv.provenance.json").read_bytes()):
        assert research.api_key.encode() not in blob


def test_other_frames_and_bad_input(tmp_path: Path) -> None:
    profiles = frames.profiles_frame([{"id": "p1", "interest_clusters": ["tea", "yoga"]}])
    book = openpyxl.load_workbook(profiles.rds.to_excel(tmp_path / "p.xlsx"))
    assert book.sheetnames == ["posts", "provenance"]
    assert json.loads(rows(book["posts"])[0]["interest_clusters"]) == ["tea", "yoga"]
    with pytest.raises(InvalidParameter, match="no columns"):
        pd.DataFrame().rds.to_csv(tmp_path / "x.csv")


def expected_cells(frame: pd.DataFrame) -> dict[str, list[object]]:
    """Every cell the export should hold, by column: scalars as they are, nested values as
    their Python value (the JSON text parsed back), timestamps as naive UTC."""
    cells: dict[str, list[object]] = {}
    for name in frame.columns:
        column = frame[name]
        if isinstance(column.dtype, pd.DatetimeTZDtype):
            naive = column.dt.tz_convert("UTC").dt.tz_localize(None)
            cells[f"{name} (UTC)"] = [None if pd.isna(v) else v.to_pydatetime() for v in naive]
            continue
        values = column.astype(object).tolist()
        if isinstance(column.dtype, pd.ArrowDtype) and pa.types.is_nested(
            column.dtype.pyarrow_dtype
        ):
            values = pa.chunked_array(column.array.__arrow_array__()).to_pylist()
            values = [None if v is None else json.loads(cell_json(v)) for v in values]
        cells[str(name)] = [None if v is None or v is pd.NA or v != v else v for v in values]
    return cells


def read_cells(table: dict[str, list[object]], nested: set[str]) -> dict[str, list[object]]:
    return {
        name: [json.loads(v) if name in nested and isinstance(v, str) else v for v in values]
        for name, values in table.items()
    }


def nested_names(frame: pd.DataFrame) -> set[str]:
    return {
        str(n)
        for n in frame.columns
        if isinstance(frame[n].dtype, pd.ArrowDtype)
        and pa.types.is_nested(frame[n].dtype.pyarrow_dtype)
    }


def test_every_cell_survives_excel_and_csv(research: Research, tmp_path: Path) -> None:
    tricky = frames.mentions_frame(
        [
            {
                "source": "tiktok",
                "id": "-HduGaVNcpG",
                "created_at": 1767225600,
                "text": HOSTILE,
                "title": "@oatly",
                "url": "+33 1 23",
                "mentioned_brands": ["a; b", "c"],
                "num_likes": 3,
                "engagement_rate": "0.125",
            },
            {"source": "reddit", "id": "=1+1", "text": "-5", "mentioned_brands": []},
        ]
    )
    for frame in (tricky, research.mentions().drop(columns=["comments"])):
        frame = frame.drop(columns=[c for c in ("comments",) if c in frame.columns])
        expected = expected_cells(frame)
        nested = nested_names(frame)
        # Excel: every cell, by cell type (no text edited).
        book = openpyxl.load_workbook(frame.rds.to_excel(tmp_path / "r.xlsx"))
        sheet = rows(book["posts"])
        got = {name: [row[name] for row in sheet] for name in expected}
        got = read_cells(got, nested)
        for name, values in expected.items():
            # An empty text cell is an empty cell in Excel: it reads back as None.
            values = [None if v == "" else v for v in values]
            if isinstance(frame[name.removesuffix(" (UTC)")].dtype, pd.ArrowDtype) and str(
                frame[name].dtype
            ).startswith("double"):
                assert got[name] == pytest.approx(values, nan_ok=True), name
            else:
                assert got[name] == values, name
        # CSV without the Excel prefixes: every cell, JSON lists parsed back.
        path = frame.rds.to_csv(tmp_path / "r.csv", excel=False)
        back = pd.read_csv(path, dtype=str, keep_default_na=False)
        for name, values in expected.items():
            for text, value in zip(back[name], values, strict=True):
                if value is None:
                    assert text == "", name
                elif name in nested:
                    assert json.loads(text) == value, name
                elif isinstance(value, datetime):
                    assert pd.Timestamp(text) == pd.Timestamp(value), name
                elif isinstance(value, bool):
                    assert text == str(value), name
                elif isinstance(value, int | float | Decimal):
                    assert float(text) == pytest.approx(float(value)), name
                else:
                    assert text == str(value), name
