"""Inline post links -> numeric citation markers, and a checker for the result.

The service writes markdown (assistant replies, tracking-agent alerts) with inline post
links ``[label](post:source:id)``. Before it is returned, each link becomes a marker
``[N]`` and the post is listed once in ``references[]``:

- N counts from 1 per message, in order of first appearance over distinct (source, id);
- a repeated post reuses its number and is listed once;
- ``start_index``/``end_index`` are a half-open range over the rewritten text at the
  post's first marker, so ``text[start_index:end_index] == "[N]"``.

Indices count Python ``str`` positions (code points), so they stay right for any unicode.

Example:
    >>> text, refs = rewrite_post_links("Foam [a](post:reddit:t3_1) vs [b](post:tiktok:9)")
    >>> text
    'Foam [1] vs [2]'
    >>> refs[0]["id"], refs[0]["citation"], text[refs[0]["start_index"] : refs[0]["end_index"]]
    ('t3_1', 1, '[1]')
    >>> check_references(text, refs)
    []
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from rdskit._safe import safe_url
from rdskit.models.references import ENTITY_REFERENCE_TYPES

__all__ = [
    "ENTITY_REFERENCE_TYPES",
    "POST_LINK",
    "PostLink",
    "check_references",
    "find_post_links",
    "link_markers",
    "rewrite_post_links",
]

POST_LINK = re.compile(r"\[(?P<label>[^\[\]]*)\]\(post:(?P<source>[A-Za-z_]+):(?P<id>[^()\s]+)\)")
"""An inline post link ``[label](post:source:id)`` whose label has no brackets.

:func:`find_post_links` also finds labels with balanced or escaped brackets; the rewrite
and the checker use it."""

_LINK_TARGET = re.compile(r"\(post:(?P<source>[A-Za-z_]+):(?P<id>[^()\s]+)\)")


_MARKER = re.compile(r"\[(\d+)\]")
# Where a marker is not text: code spans, inline links (label and target), autolinks and
# HTML. link_markers leaves markers there alone (item 8 of the security review). Every
# repeated part stops at the character that could start the next attempt ("(" in a target,
# "<" in a tag), so the scan stays linear on hostile text (20,000 "<" took 25 s before).
_NOT_TEXT = re.compile(
    r"(?P<skip>`[^`]*`|\[(?:[^\[\]]|\[[^\[\]]*\])*\]\([^()]*\)|<[^<>]*>)"
    r"|(?P<marker>\[(?P<n>\d+)\](?!\())"
)


@dataclass(frozen=True)
class PostLink:
    """One ``[label](post:source:id)`` link in a text: its code-point span and its parts."""

    start: int
    end: int
    label: str
    source: str
    id: str


def _bracket_pairs(text: str) -> dict[int, int]:
    """Map each ``[`` to its balanced ``]`` in one pass; backslash-escaped brackets are text."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    escaped = False
    for index, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            opened.append(index)
        elif char == "]" and opened:
            pairs[opened.pop()] = index
    return pairs


def find_post_links(text: str) -> list[PostLink]:
    """Every ``[label](post:source:id)`` link in ``text``, left to right.

    As in CommonMark, a label may hold balanced or backslash-escaped brackets; brackets
    that do not open a post link are plain text, and a link inside another link's label
    belongs to that label.

    Example:
        >>> [(link.label, link.id) for link in find_post_links("a [b [x]](post:reddit:1) [c]")]
        [('b [x]', '1')]
    """
    links: list[PostLink] = []
    pairs = _bracket_pairs(text)
    resume = 0
    for start in sorted(pairs):
        target = _LINK_TARGET.match(text, pairs[start] + 1) if start >= resume else None
        if target is not None:
            label = text[start + 1 : pairs[start]]
            links.append(PostLink(start, target.end(), label, target["source"], target["id"]))
            resume = target.end()
    return links


def link_markers(
    text: str, references: Sequence[Mapping[str, Any]], urls: Mapping[tuple[str, str], str]
) -> str:
    """Turn ``[N]`` markers into markdown links ``[[N]](url)`` to the cited posts.

    ``urls`` maps (source, id) to the post's URL; markers without an ``http(s)`` URL stay
    as they are, and so do markers inside code, links, URLs and HTML (text only). URLs are
    percent-encoded where they could end the link (:func:`rdskit._safe.safe_url`).

    Example:
        >>> refs = [{"type": "post", "source": "reddit", "id": "a", "citation": 1}]
        >>> link_markers("see [1], [2]", refs, {("reddit", "a"): "https://r.example/a"})
        'see [[1]](https://r.example/a), [2]'
        >>> link_markers("`[1]` [x](https://h.example/[1])", refs, {("reddit", "a"): "https://r"})
        '`[1]` [x](https://h.example/[1])'
    """
    targets: dict[str, str] = {}
    for ref in references:
        if ref.get("type") == "post" and (ref.get("source"), ref.get("id")) in urls:
            url = safe_url(urls[(ref["source"], ref["id"])])
            if url is not None:
                targets[f"[{ref['citation']}]"] = url

    def linked(found: re.Match[str]) -> str:
        marker = found["marker"]
        if marker is None or marker not in targets:
            return found[0]
        return f"[{marker}]({targets[marker]})"

    return _NOT_TEXT.sub(linked, text)


def rewrite_post_links(text: str) -> tuple[str, list[dict[str, Any]]]:
    """Rewrite every ``[label](post:source:id)`` to ``[N]``; return the text and post references.

    Example:
        >>> text, refs = rewrite_post_links("é [x](post:reddit:a) [y](post:reddit:a)")
        >>> text, [(r["citation"], r["start_index"], r["end_index"]) for r in refs]
        ('é [1] [1]', [(1, 2, 5)])
    """
    pieces: list[str] = []
    references: dict[tuple[str, str], dict[str, Any]] = {}
    length = 0  # length of the rewritten text so far, so indices need no second pass
    last = 0
    for link in find_post_links(text):
        before = text[last : link.start]
        pieces.append(before)
        length += len(before)
        key = (link.source, link.id)
        reference = references.get(key)
        if reference is None:
            number = len(references) + 1
            marker = f"[{number}]"
            reference = {
                "type": "post",
                "source": key[0],
                "id": key[1],
                "citation": number,
                "start_index": length,
                "end_index": length + len(marker),
            }
            references[key] = reference
        marker = f"[{reference['citation']}]"
        pieces.append(marker)
        length += len(marker)
        last = link.end
    pieces.append(text[last:])
    return "".join(pieces), list(references.values())


def check_references(text: str, references: Sequence[Mapping[str, Any]]) -> list[str]:
    """List every way ``text`` and ``references`` break the reference rules (empty if valid).

    Example:
        >>> check_references("see [1]", [{"type": "post", "source": "reddit", "id": "a",
        ...                                "citation": 1, "start_index": 0, "end_index": 3}])
        ['post reddit:a: text[0:3] is "see" (expected "[1]")']
    """
    problems: list[str] = []
    if find_post_links(text):
        problems.append("the text still contains an inline post link")
    seen_posts: set[tuple[str, str]] = set()
    posts: list[Mapping[str, Any]] = []
    for index, ref in enumerate(references):
        kind = ref.get("type")
        if kind == "post":
            problems.extend(_check_post(text, ref, seen_posts))
            posts.append(ref)
        elif kind in ENTITY_REFERENCE_TYPES:
            if not isinstance(ref.get("id"), str) or not ref["id"]:
                problems.append(f"reference {index} ({kind}) has no id")
        else:
            problems.append(f"reference {index} has unknown type {kind!r}")

    ordered = sorted(posts, key=lambda r: r.get("start_index", -1))
    numbers = [r.get("citation") for r in ordered]
    if numbers != list(range(1, len(posts) + 1)):
        problems.append(f"citations by first appearance are {numbers}, expected 1..{len(posts)}")
    cited = {str(r.get("citation")) for r in posts}
    for stray in sorted({m.group(1) for m in _MARKER.finditer(text)} - cited, key=int):
        problems.append(f"marker [{stray}] has no post reference")
    return problems


def _integer(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_post(text: str, ref: Mapping[str, Any], seen: set[tuple[str, str]]) -> list[str]:
    """Problems of one post reference: identity, duplicates and its marker range."""
    source, post_id = ref.get("source"), ref.get("id")
    label = f"post {source}:{post_id}"
    if not isinstance(source, str) or not isinstance(post_id, str):
        return [f"{label}: source and id must be strings"]
    problems = []
    if (source, post_id) in seen:
        problems.append(f"{label}: listed more than once")
    seen.add((source, post_id))
    start, end, number = ref.get("start_index"), ref.get("end_index"), ref.get("citation")
    if not (_integer(start) and _integer(end) and _integer(number)):
        return [*problems, f"{label}: citation, start_index and end_index must be integers"]
    marker = f"[{number}]"
    if not 0 <= start <= end <= len(text) or text[start:end] != marker:
        problems.append(
            f'{label}: text[{start}:{end}] is "{text[start:end]}" (expected "{marker}")'
        )
    elif text.find(marker) != start:
        problems.append(f"{label}: range is not the first occurrence of {marker}")
    return problems
