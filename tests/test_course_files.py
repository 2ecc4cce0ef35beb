"""The course's citation file and code of conduct: present, linked, the citation valid
CFF 1.2.0 (checked against the format's published schema) and true to the package (its
version is the one ``rdskit.__version__`` states)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import yaml
from jsonschema import Draft7Validator

import rdskit

ROOT = Path(__file__).resolve().parents[1]
# The Citation File Format's own schema, as cffconvert 2.0.0 ships it
# (cffconvert/schemas/1.2.0/schema.json; CC BY 4.0, github.com/citation-file-format):
# cffconvert itself cannot be installed beside the project (it pins jsonschema<4).
CFF_SCHEMA = ROOT / "tests" / "schemas" / "citation-file-format-1.2.0.json"


def test_citation_file_is_valid_cff_1_2_and_names_this_version() -> None:
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    schema = json.loads(CFF_SCHEMA.read_text(encoding="utf-8"))
    assert schema["$id"] == "https://citation-file-format.github.io/1.2.0/schema.json"
    validator = jsonschema.Draft7Validator(schema, format_checker=Draft7Validator.FORMAT_CHECKER)
    errors = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(cff)
    ]
    assert not errors, errors
    assert cff["version"] == rdskit.__version__
    assert cff["license"] == "MIT"  # as pyproject.toml declares


def test_the_cff_schema_refuses_what_cff_1_2_forbids() -> None:
    """The check above can fail: the schema refuses a file without authors or without its
    message, a field CFF does not define and a version of the format this file is not."""
    schema = json.loads(CFF_SCHEMA.read_text(encoding="utf-8"))
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema)
    for broken in (
        {**cff, "authors": []},
        {key: value for key, value in cff.items() if key != "message"},
        {**cff, "citation": "rdskit"},
        {**cff, "cff-version": "1.1.0"},
    ):
        assert not validator.is_valid(broken), broken


def test_the_course_map_links_the_code_of_conduct_and_the_citation() -> None:
    course_map = (ROOT / "notebooks/README.md").read_text(encoding="utf-8")
    assert "(CODE_OF_CONDUCT.md)" in course_map and "(../CITATION.cff)" in course_map
    conduct = (ROOT / "notebooks/CODE_OF_CONDUCT.md").read_text(encoding="utf-8")
    assert "Reporting" in conduct and "identify" in conduct


def test_the_rubric_describes_every_level_and_ethics_cannot_pass_with_errors() -> None:
    project = (ROOT / "notebooks/final-project.md").read_text(encoding="utf-8")
    rubric = project[project.index("## Rubric") :]
    header = next(line for line in rubric.splitlines() if line.startswith("| Criterion"))
    assert [c.strip() for c in header.strip("|").split("|")][1:] == ["0", "1", "2", "3", "4"]
    rows = [
        [c.strip() for c in line.strip("|").split("|")]
        for line in rubric.splitlines()
        if line.startswith("| ") and not line.startswith(("| Criterion", "|---"))
    ]
    assert len(rows) == 8 and all(len(r) == 6 and all(r[1:]) for r in rows)  # every level said
    ethics = next(r for r in rows if r[0] == "Ethics and law")
    assert "fails the project" in ethics[2]  # level 1: present with errors
    assert "at least 2 in *Ethics and law*" in rubric
    assert "data_management_note" in project  # the final project completes the note


def test_every_lesson_has_its_own_discussion_prompts_and_readings() -> None:
    """Learners read the prompts and readings in the lesson (issue 39), not only in the
    instructor notes, which point to them instead of keeping a second copy."""
    reference = re.compile(r"^- .+\((?:19|20)\d\d\)", re.MULTILINE)  # "- Author (year). ..."
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        texts = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
        (section,) = [t for t in texts if t.startswith("## Discuss and read\n")]
        assert texts.index(section) < texts.index(
            next(t for t in texts if t.startswith("## Key points"))
        )
        discuss, read = section.split("**Discuss.**\n")[1].split("\n\n**Read.**\n")
        prompts = [line for line in discuss.splitlines() if line.startswith("- ")]
        assert prompts and all("?" in p for p in discuss.split("\n- ")), path.name
        assert len(reference.findall(read)) >= 2, path.name  # two published readings or more
    notes = (ROOT / "notebooks/instructors.md").read_text(encoding="utf-8")
    lessons = [s for s in notes.split("\n## ")[1:] if s[:2].isdigit()]
    assert not any("**Read.**" in section for section in lessons)  # one copy: the lesson's
    assert "**Discuss and\nread** section" in notes


def test_the_ethics_cards_each_carry_the_law_and_the_points_and_lesson_10_links_them() -> None:
    cards_page = (ROOT / "notebooks/ethics-cards.md").read_text(encoding="utf-8")
    head, *cards = cards_page.split("\n## Card ")
    for question in ("Expectations", "Vulnerability", "Harm", "Benefit", "Consent"):
        assert f"*{question}.*" in head  # the AoIR questions every card is discussed with
    assert "Not legal advice" in head and "data protection officer" in head
    titles = [card.splitlines()[0] for card in cards]
    assert titles == ["1: a health support forum", "2: a minor's TikTok", "3: a politician's post"]
    for card in cards:
        for part in ("**The situation.**", "**The law.**", "**Points a discussion should reach.**"):
            assert part in card, (card[:30], part)
        assert re.search(r"Art\.\s+\d+\(", card), card[:30]  # the law named article by article
    lesson = (ROOT / "notebooks/10-ethics-and-law.ipynb").read_text(encoding="utf-8")
    assert "(ethics-cards.md)" in lesson
