"""A data-management note from a frame's provenance: ``df.rds.data_management_note(...)``.

What an ethics committee, a data protection officer and a final-project rubric ask of a
study of people's posts, in one Markdown note: what was collected (datasets, queries,
sources, windows, when: from the provenance, never typed), the lawful basis under the GDPR
(one jurisdiction's example) with what that basis needs, the special categories, the
retention date, whether the frame was pseudonymised and still holds columns about people,
and a screening for a data protection impact assessment (Art. 35). What the researcher
has not decided is listed as **to complete**, never filled in for them.

The screening counts the criteria of the EDPB's guidelines on DPIAs (WP248 rev.01) that
the answers show; two or more usually mean a DPIA is required. It is a screening, not the
assessment: the data protection officer decides.
"""

from __future__ import annotations

import datetime as dt

import pandas as pd

from rdskit.errors import InvalidParameter
from rdskit.frames.methods import MethodsText
from rdskit.frames.networks import author_keys
from rdskit.frames.provenance import provenance_of

__all__ = ["LAWFUL_BASES", "data_management_note"]

LAWFUL_BASES = {
    "6(1)(a)": "consent of the people whose posts are processed (GDPR Art. 6(1)(a))",
    "6(1)(e)": (
        "a task carried out in the public interest (GDPR Art. 6(1)(e)), which needs a basis "
        "in Union or Member State law (Art. 6(3))"
    ),
    "6(1)(f)": (
        "legitimate interests (GDPR Art. 6(1)(f)), weighed against the authors' interests; "
        "not available to public authorities (many universities) for their tasks"
    ),
}
"""The lawful bases a study of public posts can name, with what each needs."""

_TO_COMPLETE = "**to complete**"


def data_management_note(
    frame: pd.DataFrame,
    *,
    lawful_basis: str | None = None,
    law: str | None = None,
    special_categories: bool | None = None,
    infers_traits: bool = False,
    minors_possible: bool | None = None,
    large_scale: bool | None = None,
    retention_until: dt.date | str | None = None,
) -> MethodsText:
    """The study's data-management note (Markdown; ``.text`` plain), from the frame's
    provenance and the researcher's answers; unanswered items say **to complete**.

    ``lawful_basis``: a key of :data:`LAWFUL_BASES` (``"6(1)(e)"`` wants ``law``, the
    Union or Member State law that gives the task); ``special_categories``: posts may reveal
    health, politics, religion, sexuality, ethnicity... (Art. 9); ``infers_traits``: the
    study infers traits of people (age, gender, personality: profiling); ``minors_possible``:
    the sources may hold minors' posts (TikTok, Instagram); ``large_scale``: the study
    processes many people's data (judged from the number of people, the volume, the
    duration and the reach, WP 248: the note counts the frame's authors to judge from);
    ``retention_until``: when the raw data are deleted (a date after the collection).

    Example:
        >>> note = df.rds.data_management_note(  # doctest: +SKIP
        ...     lawful_basis="6(1)(e)", law="the university act", special_categories=False,
        ...     minors_possible=True, retention_until="2027-06-30")
    """
    if lawful_basis is not None and lawful_basis not in LAWFUL_BASES:
        raise InvalidParameter(
            "lawful_basis", f"must be one of {sorted(LAWFUL_BASES)}, not {lawful_basis!r}"
        )
    prov = provenance_of(frame)
    fetched = (prov.fetched_at or "")[:10] or None
    until = _date("retention_until", retention_until)
    if until is not None and fetched is not None and until.isoformat() <= fetched:
        raise InvalidParameter(
            "retention_until", f"{until} is not after the collection ({fetched})"
        )
    lines = ["## Data management note", "", "**What was collected.**"]
    for run in prov.runs:
        start, end = run.date_range
        window = f"{start} to {end}" if start or end else "the default window (last 365 days)"
        lines.append(
            f"- run {run.id} of dataset {run.dataset_id}: {run.search_query!r} on "
            f"{', '.join(run.sources) or 'the URLs given'}, {window}, "
            f"{run.mentions_count if run.mentions_count is not None else 'unknown'} posts"
        )
    if not prov.runs:
        lines.append(f"- {_TO_COMPLETE}: the frame records no collection run")
    people = [c for c in frame.columns if str(c).startswith("author") or c in ("url", "comments")]
    pseudonymised = prov.pseudonymised is not None
    lines += [
        f"- held: {_authors(frame)}, fetched {fetched or 'at an unknown date'}; "
        f"{'pseudonymised (the key kept apart)' if pseudonymised else 'not pseudonymised'}; "
        f"columns about people: {', '.join(people) if people else 'none'}",
        "",
        "**Lawful basis.** "
        + (LAWFUL_BASES[lawful_basis] if lawful_basis else f"{_TO_COMPLETE} (GDPR Art. 6)"),
    ]
    if lawful_basis == "6(1)(e)":
        lines.append(f"- the law that gives the task (Art. 6(3)): {law or _TO_COMPLETE}")
    lines += ["", "**Special categories (Art. 9).** " + _special(special_categories)]
    lines += [
        "",
        "**Transparency (Art. 14).** The authors were not told: publish a notice of the "
        "study; Art. 14(5)(b) exempts individual notices only where they are impossible or "
        "would take a disproportionate effort, with safeguards (Art. 89) and the notice made "
        "public.",
        "",
        "**Retention.** Raw data deleted by "
        + (until.isoformat() if until else _TO_COMPLETE)
        + "; the post ids (source, id) kept for sharing.",
        "",
        "**Impact-assessment screening (Art. 35).** "
        + _screening(
            special_categories,
            infers_traits,
            minors_possible,
            large_scale,
            pseudonymised,
        ),
    ]
    return MethodsText("\n".join(lines))


def _date(name: str, value: dt.date | str | None) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise InvalidParameter(name, f"must be a date (YYYY-MM-DD), not {value!r}") from None


def _special(answer: bool | None) -> str:
    if answer is None:
        return f"{_TO_COMPLETE}: may the posts reveal health, politics, religion, sexuality..."
    if not answer:
        return "Not expected for this query; posts that reveal them are left out of analysis."
    return (
        "Expected. A condition of Art. 9(2) is needed besides the lawful basis: 9(2)(j) "
        "(research, with the safeguards of Art. 89 and a basis in Union or Member State law) "
        "or, for each post, 9(2)(e) (data the person manifestly made public: rarely clear "
        "for posts)."
    )


def _authors(frame: pd.DataFrame) -> str:
    """How many people the frame holds posts of, to judge "large scale" from."""
    authors = author_keys(frame).drop_null().unique()
    return f"{len(frame):,} posts by {len(authors):,} authors"


def _screening(
    special: bool | None,
    traits: bool,
    minors: bool | None,
    large_scale: bool | None,
    pseudonymised: bool,
) -> str:
    # The criteria of the EDPB-endorsed WP 248 rev.01 that a collection of public posts can
    # meet. Collecting posts by query without telling their authors is its systematic
    # monitoring (criterion 3: people may not know who collects their data); whether it
    # is large scale is the researcher's judgement, so it is asked, never assumed.
    found = [
        "data concerning vulnerable people (minors)" if minors else "",
        "sensitive data (special categories)" if special else "",
        "evaluation or scoring (inferred traits: profiling)" if traits else "",
        "systematic monitoring (posts collected without telling their authors)",
        "large-scale processing" if large_scale else "",
    ]
    criteria = [c for c in found if c]
    unknown = [
        name
        for name, answer in (
            ("minors_possible", minors),
            ("special_categories", special),
            ("large_scale", large_scale),
        )
        if answer is None
    ]
    verdict = (
        "two or more criteria: a DPIA is likely required (ask the data protection officer)"
        if len(criteria) >= 2
        else "fewer than two criteria: record why no DPIA is needed"
    )
    pending = f" {_TO_COMPLETE}: {', '.join(unknown)}." if unknown else ""
    safeguard = "" if pseudonymised else " Pseudonymise before analysis (a safeguard of Art. 89)."
    met = "; ".join(criteria)
    return f"Criteria met: {met}. {verdict[0].upper()}{verdict[1:]}.{pending}{safeguard}"
