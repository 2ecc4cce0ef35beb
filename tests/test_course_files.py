"""The course's citation file and code of conduct: present, linked, and the citation true
to the package (its version is the one ``rdskit.__version__`` states)."""

from __future__ import annotations

from pathlib import Path

import yaml

import rdskit

ROOT = Path(__file__).resolve().parents[1]


def test_citation_file_is_cff_1_2_and_names_this_version() -> None:
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    # The keys CFF 1.2.0 requires, with the types its schema gives them.
    assert cff["cff-version"] == "1.2.0"
    assert isinstance(cff["message"], str) and isinstance(cff["title"], str)
    assert cff["authors"] and all(
        isinstance(a, dict) and (a.get("name") or a.get("family-names")) for a in cff["authors"]
    )
    assert cff["type"] in ("software", "dataset")
    assert cff["version"] == rdskit.__version__
    assert cff["license"] == "MIT"  # as pyproject.toml declares
    assert set(cff) <= {
        "cff-version", "message", "type", "title", "abstract", "authors", "version",
        "license", "keywords", "date-released", "repository-code", "url", "doi",
    }  # fmt: skip


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


def test_every_lesson_has_a_discussion_prompt_and_a_reading() -> None:
    notes = (ROOT / "notebooks/instructors.md").read_text(encoding="utf-8")
    sections = notes.split("\n## ")[1:]
    lessons = [s for s in sections if s[:2].isdigit()]
    assert len(lessons) == len(list((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")))
    for section in lessons:
        assert "**Discuss.** " in section and "**Read.** " in section, section[:40]
