"""Post-link rewriting and the reference checker (``rdskit.references``).

Hypothesis builds texts out of plain runs and post links, so the expected rewrite is known
by construction: plain runs are kept, links become ``[N]`` numbered by first appearance
over distinct (source, id), and each distinct post is listed once at its first marker.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from rdskit.references import check_references, find_post_links, link_markers, rewrite_post_links


@dataclass(frozen=True)
class Link:
    label: str
    source: str
    id: str

    def markdown(self) -> str:
        return f"[{self.label}](post:{self.source}:{self.id})"


# Any unicode (astral planes, combining marks, RTL, newlines) but the link syntax itself.
plain = st.text(
    st.characters(blacklist_characters="[]\\", blacklist_categories=["Cs"]), max_size=12
)
label_text = st.text(
    st.characters(blacklist_characters="[]\\", blacklist_categories=["Cs"]), max_size=6
)
# Labels may hold balanced brackets (nested) and escaped ones, as CommonMark allows.
labels = st.recursive(
    label_text,
    lambda inner: st.one_of(
        st.tuples(inner, inner).map("".join),
        inner.map(lambda text: f"[{text}]"),
        inner.map(lambda text: f"\\[{text}\\]"),
    ),
    max_leaves=4,
)
sources = st.sampled_from(["reddit", "tiktok", "youtube", "instagram", "linkedin"])
post_ids = st.sampled_from(["1", "t3_abc", "urn:li:activity:7", "Xy-Z_9", "𝔞𝔟"])
links = st.builds(Link, labels, sources, post_ids)
segments = st.lists(st.one_of(plain, links), max_size=12)


def _expected(parts: list[str | Link]) -> tuple[str, list[tuple[str, str, int]]]:
    """The rewrite built independently: text and (source, id, citation) in first-seen order."""
    numbers: dict[tuple[str, str], int] = {}
    text = ""
    for part in parts:
        if isinstance(part, Link):
            text += f"[{numbers.setdefault((part.source, part.id), len(numbers) + 1)}]"
        else:
            text += part
    return text, [(source, post_id, n) for (source, post_id), n in numbers.items()]


@given(segments)
def test_rewrite_numbers_by_first_appearance_and_dedups(parts: list[str | Link]) -> None:
    source_text = "".join(part.markdown() if isinstance(part, Link) else part for part in parts)
    text, references = rewrite_post_links(source_text)
    expected_text, expected_refs = _expected(parts)
    assert text == expected_text
    assert [(r["source"], r["id"], r["citation"]) for r in references] == expected_refs
    for ref in references:
        marker = f"[{ref['citation']}]"
        assert ref["type"] == "post"
        assert text[ref["start_index"] : ref["end_index"]] == marker
        assert text.find(marker) == ref["start_index"]  # the first occurrence
    assert check_references(text, references) == []


@given(segments)
def test_found_links_carry_their_labels(parts: list[str | Link]) -> None:
    source_text = "".join(part.markdown() if isinstance(part, Link) else part for part in parts)
    found = find_post_links(source_text)
    expected = [part for part in parts if isinstance(part, Link)]
    assert [(f.label, f.source, f.id) for f in found] == [
        (e.label, e.source, e.id) for e in expected
    ]
    assert all(
        source_text[f.start : f.end] == e.markdown() for f, e in zip(found, expected, strict=True)
    )


@given(
    st.text(st.characters(blacklist_categories=["Cs"]), max_size=40).filter(
        lambda t: "(post:" not in t
    )
)
def test_text_without_post_links_is_unchanged(text: str) -> None:
    assert rewrite_post_links(text) == (text, [])


@given(segments)
def test_rewrite_is_idempotent(parts: list[str | Link]) -> None:
    once, _ = rewrite_post_links("".join(p.markdown() if isinstance(p, Link) else p for p in parts))
    assert rewrite_post_links(once) == (once, [])


@given(
    segments.filter(lambda parts: any(isinstance(part, Link) for part in parts)), st.integers(1, 3)
)
def test_checker_catches_a_shifted_range(parts: list[str | Link], shift: int) -> None:
    text, references = rewrite_post_links(
        "".join(p.markdown() if isinstance(p, Link) else p for p in parts)
    )
    broken = [
        dict(references[0], start_index=references[0]["start_index"] + shift),
        *references[1:],
    ]
    assert check_references(text, broken) != []


def test_astral_text_and_bracketed_label() -> None:
    text, refs = rewrite_post_links(
        "𝔉𝔬𝔞𝔪 😍 [see [1] here](post:tiktok:42) and [x](post:tiktok:42) [y](post:reddit:a)"
    )
    assert text == "𝔉𝔬𝔞𝔪 😍 [1] and [1] [2]"
    assert [(r["citation"], r["start_index"], r["end_index"]) for r in refs] == [
        (1, 7, 10),
        (2, 19, 22),
    ]


def test_brackets_that_are_not_post_links_stay_text() -> None:
    source = "[note] [web](https://x.example) \\[esc\\](post:reddit:1) [a [b](post:reddit:2)"
    text, refs = rewrite_post_links(source)
    assert text == "[note] [web](https://x.example) \\[esc\\](post:reddit:1) [a [1]"
    assert [(r["source"], r["id"]) for r in refs] == [("reddit", "2")]


def test_checker_reports_each_broken_rule() -> None:
    text = "a [2] b [1]"
    refs = [
        {
            "type": "post",
            "source": "reddit",
            "id": "a",
            "citation": 2,
            "start_index": 2,
            "end_index": 5,
        },
        {
            "type": "post",
            "source": "reddit",
            "id": "a",
            "citation": 1,
            "start_index": 8,
            "end_index": 11,
        },
        {"type": "tracking_agent", "id": "ta_1"},
    ]
    problems = "\n".join(check_references(text + " [3] [x](post:reddit:z)", refs))
    assert "listed more than once" in problems
    assert "citations by first appearance" in problems
    assert "marker [3] has no post reference" in problems
    assert "unknown type 'tracking_agent'" in problems
    assert "inline post link" in problems


def test_link_markers_point_at_post_urls() -> None:
    text, refs = rewrite_post_links(
        "A [x](post:reddit:a), B [y](post:tiktok:b), A again [z](post:reddit:a)"
    )
    urls = {("reddit", "a"): "https://reddit.example/a"}
    assert link_markers(text, refs, urls) == (
        "A [[1]](https://reddit.example/a), B [2], A again [[1]](https://reddit.example/a)"
    )
