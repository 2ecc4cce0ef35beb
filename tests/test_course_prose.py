"""The lessons' prose cannot contradict their outputs: every number in a markdown cell is
either a documented non-result (a lesson number, a price or limit of the spec, a parameter
the lesson's own code sets, a rule of thumb, a legal reference) or checked by a checkpoint.

What it sees: numerals (``29,203``, ``17.2 %``, ``444``) in markdown cells, challenge
solutions' prose included, outside code (fenced blocks and inline code are run, and the
solutions' code by ``tests/test_notebook_reruns.py`` and ``tests/test_course_on_trial.py``).
A numeral is protected when a phrase of :data:`NON_RESULTS` covers it (each says why it is
not a result), or when it appears in the arguments of a ``checkpoint(...)`` call of the same
notebook (lesson cells or solutions), which the course-on-Trial and re-run tests require to
be on track on every plan.

What it cannot see: a result stated in words ("higher", "most", "the largest cluster",
"no difference"). Those were audited sentence by sentence and each is either printed by a
cell (an f-string of the result) or asserted by a checkpoint; a new one must be too
(docs/notebooks.md, "Writing a lesson").
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

NOTEBOOKS_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(path.name for path in NOTEBOOKS_DIR.glob("[0-9][0-9]-*.ipynb"))

NUMERAL = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?:th)?")
FENCED = re.compile(r"```.*?```", re.S)
INLINE = re.compile(r"`[^`\n]*`")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
LINE_BREAK = re.compile(r"[ \t]*\n[ \t]*(?![#\n])")

NON_RESULTS: dict[str, str] = {
    # the course's structure
    r"^#+ (?:Challenge )?\d+[.:]|\(?Challenge \d\b": "a section or challenge number",
    r"^# \d\d · ": "the lesson's number in its title",
    r"\b(?:section|challenge) \d\b": "a section or challenge of the lesson",
    r"\[\d\d(?: · [^\]]*)?\]": "a link to a lesson",
    r"\b(?:lesson|lessons|ran|in|Like a query's wording in) \d\d\b": "a lesson number",
    r"\*\*Time\.\*\* about \d+ minutes \(\d+ teaching, \d+ exercises\)": (
        "the lesson's time, computed by scripts/lesson_times.py (tests/test_course_times.py)"
    ),
    # the service's specification: prices, limits, defaults, status codes
    r"the last 365 days|last 365 days": "the service's default window (spec)",
    r"100 posts (?:on Trial|per run)": "the Trial plan's research depth (spec)",
    r"1 to 5 posts": "the custom-parameter preview's limit (spec)",
    r"\(at most 50\)": "the most post references an ask sends (rdskit)",
    r"HTTP 402|a 402\b|with a 409": "an HTTP status code",
    r"one credit per source|\(1,000 credits\)": "a price or wallet size of the spec",
    r"HMAC-SHA-256|UTF-8": "the name of a hash function or an encoding",
    # statistics: definitions, conventions and rules of thumb, not results
    r"95 % (?:Wilson )?(?:interval|margin|intervals)": "the confidence level",
    r"two 95 % intervals": "the confidence level",
    r"\$1\.96 \\cdot sd / \\sqrt\{n\}\$": "the formula of a 95 % margin",
    r"(?:includes|excludes|include|exclude) 0\b": "zero difference",
    r"add up to (?:100 %|1)\b": "shares sum to one",
    r"1 is perfect agreement, 0 is no better than chance, below 0 is worse": "kappa's scale",
    r"0\.7 or more": "a rule of thumb for kappa, quoted as such",
    r"1 − (?:recall|precision)": "a definition",
    r"often 50 to 100 posts": "a rule of thumb for a reliability sample, quoted as such",
    r"fewer than about 10 posts": "a rule of thumb for a weekly point, quoted as such",
    r"1,000 times|the 2\.5th and 97\.5th percentiles": "the bootstrap the challenge asks for",
    # parameters the lesson's own code sets (the cell shows them)
    r"\(200 here\)|a 200-post sample|the same 200 posts|200 posts\.": "lesson 01's count",
    r"in 200 posts|\"200 of about N posts\"": "the sample size lesson 08 plans (`SAMPLE`)",
    r"October to December 2025": "lesson 01's pinned window",
    r"the first 50 characters": "the excerpt length lesson 01's code uses",
    r"The 20\s+most liked|the 20 most liked|those 20 posts": "the frame lesson 02 asks about",
    r"500 posts each": "lesson 06's example design",
    r"only 30 credits": "the wallet lesson 06's demonstration sets",
    r"2,000 credits": "the budget of lesson 06's challenge",
    r"100 posts per cycle for a 15-week semester": "the design of lesson 05's challenge",
    r"200 posts in total|\(50 each\)": "the budget of lesson 08's challenge",
    # references
    r"Art\. 9 and 89|Art\. \d+(?:\(\d+\))*(?:\([a-z]\))?"
    r"|\b\d+\(\d+\)(?:\([a-z]\))?": "a GDPR article",
    r"Recitals? \d+": "a GDPR recital",
    r"Directive (?:\(EU\) )?\d{4}/\d+(?:/EC)?": "an EU directive's number",
    r"Case C-\d+/\d+, \*[^*]+\*, \d{4}": "a judgment of the Court of Justice",
    r"WP 248\s+rev\.01": "the DPIA guidelines' reference",
    r"Ethical Guidelines 3\.0, 2019": "the AoIR guidelines' title and year",
    r"Monroe, Colaresi and Quinn 2008": "a citation",
    r"^ ?\*\*Read\.\*\*.*$": "the lesson's readings: references' years, volumes and pages",
}
"""Phrases whose numerals are not results, each with the reason; a numeral outside them must
be checked by a checkpoint."""


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _checkpoint_calls(code: str) -> list[str]:
    """The argument text of every ``checkpoint(...)`` call in ``code`` (paren-matched)."""
    calls = []
    for match in re.finditer(r"\bcheckpoint\(", code):
        depth, end = 1, match.end()
        while depth and end < len(code):
            depth += {"(": 1, ")": -1}.get(code[end], 0)
            end += 1
        calls.append(code[match.end() : end])
    return calls


def checked_numbers(notebook: dict[str, Any]) -> set[str]:
    """Every numeral (commas dropped) in the arguments of the notebook's checkpoint calls,
    in code cells and in the challenge solutions' code blocks."""
    code = [_source(c) for c in notebook["cells"] if c["cell_type"] == "code"]
    code += [
        block
        for c in notebook["cells"]
        if c["cell_type"] == "markdown"
        for block in FENCED.findall(_source(c))
    ]
    return {
        numeral.replace(",", "")
        for text in code
        for call in _checkpoint_calls(text)
        for numeral in NUMERAL.findall(call)
    }


def unprotected_numbers(notebook: dict[str, Any]) -> list[str]:
    """Each numeral of the prose that no documented phrase covers and no checkpoint checks,
    with its context."""
    checked = checked_numbers(notebook)
    found = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        prose = LINK_TARGET.sub("]", INLINE.sub("`code`", FENCED.sub("", _source(cell))))
        prose = LINE_BREAK.sub(" ", prose)  # a phrase may wrap; headings keep their lines
        covered = [
            span.span() for pattern in NON_RESULTS for span in re.finditer(pattern, prose, re.M)
        ]
        for numeral in NUMERAL.finditer(prose):
            if any(start <= numeral.start() < end for start, end in covered):
                continue
            if numeral.group().replace(",", "") in checked:
                continue
            context = " ".join(prose[max(0, numeral.start() - 50) : numeral.end() + 30].split())
            found.append(f"{numeral.group()!r} in '...{context}...'")
    return found


def _load(name: str) -> dict[str, Any]:
    notebook: dict[str, Any] = json.loads((NOTEBOOKS_DIR / name).read_text(encoding="utf-8"))
    return notebook


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_number_in_the_prose_is_documented_or_checked(name: str) -> None:
    found = unprotected_numbers(_load(name))
    assert not found, (
        f"{name}: numbers in prose that no checkpoint checks (print them from the result, "
        f"check them in a checkpoint, or document why they are not results): {found}"
    )


def _planted(text: str, checkpoint: str = "") -> dict[str, Any]:
    notebook = _load("01-quickstart.ipynb")
    notebook["cells"].insert(3, {"cell_type": "markdown", "metadata": {}, "source": text})
    if checkpoint:
        notebook["cells"].insert(4, {"cell_type": "code", "metadata": {}, "source": checkpoint})
    return notebook


def test_a_planted_claim_is_caught() -> None:
    """A result typed into the prose fails the check; the same sentence passes once a
    checkpoint checks it; a documented non-result passes; numbers in code do not count."""
    claim = "TikTok holds 48.4 % of the organic posts, the largest share."
    assert unprotected_numbers(_planted(claim)) == [
        "'48.4' in '...TikTok holds 48.4 % of the organic posts, the l...'"
    ]
    checked = 'checkpoint(abs(sov.loc["tiktok", "share"] - 0.484) < 1e-3, "48.4 %")'
    assert unprotected_numbers(_planted(claim, checked)) == []
    assert unprotected_numbers(_planted("Without one it searches the last 365 days.")) == []
    assert unprotected_numbers(_planted("Run `df.rds.top(5)` and read ```x = 41```.")) == []
    in_a_solution = "<details><summary>Solution</summary>\n\nSo 41 posts fit.\n</details>"
    assert len(unprotected_numbers(_planted(in_a_solution))) == 1
    # a reading's year and pages are not results; a number in a discussion prompt is
    readings = "**Discuss.**\n- Why 41 posts?\n\n**Read.**\n- A, B. (2018). T. *J* 15(5), 662-679."
    assert [found[:5] for found in unprotected_numbers(_planted(readings))] == ["'41' "]


def test_checkpoint_calls_are_read_to_their_closing_parenthesis() -> None:
    code = 'x = 7\ncheckpoint(len(f(3)) == 444 and g(2), "fits")\ny = 9'
    assert _checkpoint_calls(code) == ['len(f(3)) == 444 and g(2), "fits")']
