"""Exports for spreadsheet users: the workbook's three sheets, CSV with a BOM, flattened
lists, formulas neutralised, provenance alongside."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from research_sandbox import Research

import rdskit.frames as frames
from rdskit.errors import InvalidParameter

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
    # Lists flattened readably; lists of objects as compact JSON; text never a formula.
    assert first["mentioned_brands"] == "Oatly; Alpro"
    assert json.loads(first["hooks"]) == [{"type": "question", "text": "why?"}]
    assert first["text"] == "'" + HOSTILE
    assert book["posts"].cell(row=2, column=list(first).index("text") + 1).data_type == "s"
    assert first["title"] == "Café ☕ bell"  # the control character Excel refuses is gone
    assert str(first["created_at (UTC)"]) == "2026-01-01 00:00:00"
    comments = rows(book["comments"])
    assert [c["author_username"] for c in comments] == ["sam", "lea"]
    assert comments[0]["body"] == "'+1 agreed" and comments[1]["body"] == "'@maya -so true"
    assert rows(book["provenance"])[0] == {"key": "kind", "value": "mentions"}


def test_csv_for_excel_and_plain(df: pd.DataFrame, tmp_path: Path) -> None:
    path = df.rds.to_csv(tmp_path / "posts.csv")
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 BOM: Excel reads accents and emoji
    table = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert table[0]["mentioned_brands"] == "Oatly; Alpro" and table[0]["text"] == "'" + HOSTILE
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
    assert rows(book["posts"])[0]["interest_clusters"] == "tea; yoga"
    with pytest.raises(InvalidParameter, match="no columns"):
        pd.DataFrame().rds.to_csv(tmp_path / "x.csv")
