"""Validation samples, sample sizes, codebooks from YAML, and the coders' append-only logs."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from rdskit.errors import InvalidParameter
from rdskit.validation import (
    Codebook,
    CodingLog,
    read_codes,
    sample_size_for_kappa,
    sample_size_for_precision,
    validation_sample,
)
from rdskit.validation import log as log_module

BOOK = Codebook.of("sentiment", ["negative", "neutral", "positive"])


def test_a_stratified_sample_records_its_design() -> None:
    frame = pd.DataFrame(
        {
            "source": ["reddit"] * 60 + ["tiktok"] * 40,
            "id": [str(i) for i in range(100)],
            "sentiment": ["positive"] * 50 + ["negative"] * 10 + ["neutral"] * 40,
        }
    )
    sample = validation_sample(frame, 8, strata=["sentiment", "source"], seed=2)
    assert sample.groupby("stratum").size().to_dict() == {
        "negative / reddit": 8,
        "neutral / tiktok": 8,
        "positive / reddit": 8,
    }
    by = sample.groupby("stratum")["weight"].sum()
    assert by.to_dict() == {
        "negative / reddit": 10,
        "neutral / tiktok": 40,
        "positive / reddit": 50,
    }
    assert (sample["inclusion"] * sample["weight"] == 1).all()
    assert not sample.duplicated(["source", "id"]).any()
    assert validation_sample(frame, 8, strata="sentiment", seed=2).equals(
        validation_sample(frame, 8, strata="sentiment", seed=2)
    )


def test_sample_sizes_by_hand() -> None:
    # z = 1.96: 1.96^2 * .8 * .2 / .1^2 = 61.5 -> 62.
    assert sample_size_for_precision(0.8, width=0.2) == 62
    # po = .7 * .5 + .5 = .85; 1.96^2 * .85 * .15 / (.5^2 * .1^2) = 195.9 -> 196.
    assert sample_size_for_kappa(0.7, width=0.2, chance=0.5) == 196
    with pytest.raises(InvalidParameter):
        sample_size_for_precision(1.2)


def test_a_codebook_from_yaml(tmp_path: Path) -> None:
    path = tmp_path / "book.yaml"
    path.write_text(
        "name: complaint\nversion: '2'\ncodes:\n"
        "  - {value: 'no', definition: no problem reported}\n"
        "  - {value: 'yes', definition: a problem reported, examples: [It broke], key: y}\n"
    )
    book = Codebook.from_yaml(path)
    assert book.label == "complaint v2" and book.keys == {"1": "no", "y": "yes"}
    assert book.codes[1].examples == ("It broke",)
    with pytest.raises(InvalidParameter, match="listed twice"):
        Codebook.from_yaml("name: x\ncodes: [{value: a}, {value: a}]")
    with pytest.raises(InvalidParameter, match="reserved"):
        Codebook.from_yaml("name: x\ncodes: [{value: a, key: '?'}, {value: b}]")


def test_every_decision_is_fsynced_and_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = []
    real = log_module.os.fsync
    monkeypatch.setattr(log_module.os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    log = CodingLog(tmp_path, "ann", BOOK)
    log.code("reddit", "1", "positive")
    log.code("reddit", "2", "neutral", unsure=True)
    log.note("reddit", "2", "a question")
    log.code("reddit", "2", "negative")
    log.undo("reddit", "2")
    assert len(synced) == 5
    state = log.state()
    assert state[("reddit", "2")].code == "neutral" and state[("reddit", "2")].unsure
    assert state[("reddit", "2")].note == "a question"
    lines = (tmp_path / "ann.jsonl").read_text().splitlines()
    assert [json.loads(x)["event"] for x in lines] == ["code", "code", "note", "code", "undo"]
    assert all(json.loads(x)["codebook"] == "sentiment v1" for x in lines)


def test_a_torn_last_line_is_skipped_and_the_next_write_starts_afresh(tmp_path: Path) -> None:
    log = CodingLog(tmp_path, "ann", BOOK)
    log.code("reddit", "1", "positive")
    with open(log.path, "ab") as f:
        f.write(b'{"event": "code", "source": "reddit", "id": "2", "co')  # a crash mid-write
    with pytest.warns(UserWarning, match=r"skipped 1 unfinished line\(s\) \(2\)"):
        assert set(log.state()) == {("reddit", "1")}
    log.code("tiktok", "3", "negative")
    with pytest.warns(UserWarning, match=r"\(2\)"):
        assert set(log.state()) == {("reddit", "1"), ("tiktok", "3")}


def test_read_codes_gives_one_row_per_coder_and_post(tmp_path: Path) -> None:
    CodingLog(tmp_path, "ann", BOOK).code("reddit", "1", "positive")
    bob = CodingLog(tmp_path, "bob", BOOK)
    bob.code("reddit", "1", "neutral")
    judge = CodingLog(tmp_path, "cy", BOOK, adjudication=True)
    judge.code("reddit", "1", "positive", codes={"ann": "positive", "bob": "neutral"})
    codes = read_codes(tmp_path)
    assert codes[["coder", "code"]].values.tolist() == [["ann", "positive"], ["bob", "neutral"]]
    settled = read_codes(tmp_path, adjudications=True)
    assert settled.loc[0, "codes"] == {"ann": "positive", "bob": "neutral"}
    with pytest.raises(InvalidParameter, match="coder"):
        CodingLog(tmp_path, "../etc", BOOK)
    with pytest.raises(InvalidParameter, match="Positive"):
        bob.code("reddit", "2", "Positive")
