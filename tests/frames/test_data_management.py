"""``df.rds.data_management_note``: the note follows the provenance and says what is open."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from research_sandbox import Research

import rdskit.frames as frames
from rdskit.errors import InvalidParameter
from rdskit.frames.data_management import LAWFUL_BASES
from rdskit.frames.networks import author_keys

LATER = dt.date.today() + dt.timedelta(days=730)  # a retention date after any collection


def test_the_note_states_the_collection_from_the_provenance(research: Research) -> None:
    df = research.mentions()
    prov = df.rds.provenance()
    note = df.rds.data_management_note()
    for run in prov.runs:
        assert f"run {run.id} of dataset {run.dataset_id}: {run.search_query!r}" in note
    authors = len(author_keys(df).drop_null().unique())
    assert f"held: {len(df):,} posts by {authors:,} authors, fetched {prov.fetched_at[:10]}" in note
    assert "not pseudonymised" in note and "author_title" in note
    # Nothing the researcher has not answered is filled in for them.
    assert note.count("**to complete**") == 4  # basis, special categories, retention, screening
    assert "minors_possible, special_categories, large_scale" in note.text
    # Large scale is judged by the researcher from the people counted, never assumed.
    assert "large-scale" not in note
    assert "large-scale processing" in df.rds.data_management_note(large_scale=True)


def test_answers_and_what_each_basis_needs(research: Research) -> None:
    df = research.mentions()
    safe = df.rds.pseudonymise("a key for the test only")
    note = safe.rds.data_management_note(
        lawful_basis="6(1)(e)",
        special_categories=True,
        infers_traits=True,
        minors_possible=True,
        retention_until=LATER,
    )
    assert LAWFUL_BASES["6(1)(e)"] in note and "Art. 6(3)): **to complete**" in note
    assert "9(2)(j)" in note and "9(2)(e)" in note and "Art. 89" in note
    assert "14(5)(b)" in note and f"deleted by {LATER}" in note
    assert "a DPIA is likely required" in note and "pseudonymised (the key kept apart)" in note
    assert "a key for the test only" not in note  # the key never
    private = {
        "lawful_basis": "6(1)(f)",
        "special_categories": False,
        "minors_possible": False,
        "large_scale": False,
    }
    plain = df.rds.data_management_note(**private, retention_until=LATER)
    assert "not available to public authorities" in plain
    assert "**to complete**" not in plain and "record why no DPIA is needed" in plain
    assert "Pseudonymise before analysis" in plain


@pytest.mark.parametrize(
    ("answers", "field"),
    [
        ({"lawful_basis": "6(1)(b)"}, "lawful_basis"),
        ({"retention_until": "next year"}, "retention_until"),
        ({"retention_until": "2000-01-01"}, "retention_until"),
    ],
)
def test_a_wrong_answer_names_its_field(
    research: Research, answers: dict[str, str], field: str
) -> None:
    with pytest.raises(InvalidParameter, match=field):
        research.mentions().rds.data_management_note(**answers)


def test_a_frame_without_provenance_says_so() -> None:
    df = frames.mentions_frame([{"source": "reddit", "id": "1", "text": "oat"}])
    assert "the frame records no collection run" in df.rds.data_management_note()


def test_the_docs_recipe_runs_as_written(research: Research) -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs/research.md").read_text("utf-8")
    section = docs[docs.index("## The data-management note") :]
    recipe = section[section.index("```python\n") + 10 : section.index("```\n", 10)]
    scope = {"df": research.mentions()}
    exec(recipe, scope)
    note = scope["note"]
    assert "the act that gives the university its research task" in note
    assert "deleted by 20" in note and "**to complete**" not in note
