"""A methods paragraph for a paper: ``df.rds.methods()``.

Every number (posts, posts per source and per dataset, ads, publication dates, comments,
posts with sentiment analysed, posts in several datasets) is computed from the frame as
it is, filtered or not; what was asked (queries, sources, date windows, plan features,
analyses, the mentions query, when it was fetched, from which service) and what was done
to it (ads left out, pseudonymisation, comparisons, shares corrected with a validation)
comes from its provenance, so a step not recorded there is never claimed, and the
paragraph says when one was not taken (authors not pseudonymised, verbatim texts kept, ads
included). A validation of the labels (:func:`rdskit.validation.validity`) is stated when a
figure of the frame was corrected with it, or when it is passed as
``methods(validation=...)`` (which then says that no share was corrected); without one,
the paragraph says nothing about validation.

Example:
    >>> print(df.rds.methods().text)  # doctest: +SKIP
    We analysed 200 posts (reddit 80, tiktok 70, youtube 50) ...
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rdskit._version import __version__
from rdskit.errors import InvalidParameter
from rdskit.frames import _arrow
from rdskit.frames._checks import MissingColumnsError, ad_rows, dataset_labels
from rdskit.frames.provenance import Provenance, RunRecord, provenance_of
from rdskit.frames.pseudonymise import author_handles, normalise

if TYPE_CHECKING:
    from rdskit.validation import Validity

__all__ = ["MethodsText", "Scope", "methods_paragraph", "scope_of"]

SOFTWARE = "rdskit"


class MethodsText(str):
    """The paragraph as Markdown (the string itself); ``.text`` is plain text.

    Example:
        >>> MethodsText("We used *oat milk*.").text
        'We used oat milk.'
    """

    @property
    def markdown(self) -> str:
        return str(self)

    @property
    def text(self) -> str:
        return re.sub(r"[*`]", "", str(self))

    def _repr_markdown_(self) -> str:
        return str(self)


@dataclass(frozen=True)
class Scope:
    """What every figure of a frame stands on, from the frame and its record: its rows,
    ads in or out, and whether it is a selection of what was loaded (the methods
    paragraph and every chart say these).

    Example:
        >>> from rdskit.frames import mentions_frame
        >>> scope_of(mentions_frame([{"source": "x", "id": "1", "content_type": "ad"}])).ads
        1
    """

    posts: int
    ads: int
    unknown: int
    """Rows whose content type is unknown (no advertiser either): ads or not, nobody knows."""
    marked: bool
    """The frame has a column saying which posts are ads."""
    removed: int | None
    """Ads left out by ``df.rds.organic()`` (recorded), else None."""
    loaded: int | None
    """Posts the recorded reads loaded, when they say."""
    repeated: int
    """Rows repeating a (source, id) of an earlier row (stacked reads that overlap)."""
    filters: tuple[str, ...] = ()
    """The filters the recorded reads applied (text query, sources, filters), if any."""

    @property
    def subset(self) -> bool:
        """The frame holds fewer rows than were loaded (ads aside): it was narrowed."""
        return self.loaded is not None and self.posts < self.loaded - (self.removed or 0)

    def ads_words(self) -> str:
        """Ads in or out, in a few words (for a chart)."""
        unknown = f", {self.unknown:,} of unknown type" if 0 < self.unknown < self.posts else ""
        if not self.marked:
            return "ads: not known"
        if self.posts and self.unknown == self.posts:
            # organic() keeps posts of unknown type: what it removed says nothing of them.
            if self.removed:
                return f"ads left out ({self.removed:,}), the rest of unknown type"
            return "ads: not known"
        if self.ads:
            return f"{_plural(self.ads, 'ad')} included{unknown}"
        if self.removed is not None:
            return f"ads left out ({self.removed:,}){unknown}"
        return f"no ads{unknown}"

    def line(self, n: int, what: str = "posts") -> str:
        """A chart's scope line: its n, ads in or out, and whether the frame is a subset.

        Example:
            >>> Scope(120, 0, 0, True, 5, 125, 0).line(115, "analysed posts")
            'n = 115 analysed posts; ads left out (5)'
            >>> Scope(120, 0, 0, True, 5, 125, 0).line(1, "analysed posts")
            'n = 1 analysed post; ads left out (5)'
        """
        if n == 1 and what.endswith("s"):  # callers name the plural: "posts", "profiles"
            what = what[:-1]
        subset = f"; a subset of the {self.loaded:,} posts loaded" if self.subset else ""
        repeated = (
            f"; {_plural(self.repeated, 'row')} {_verb(self.repeated, 'repeat')} a post of "
            "an earlier row"
            if self.repeated
            else ""
        )
        read = "; read with " + " / ".join(self.filters) if self.filters else ""
        if len(read) > 80:  # a long text query: the methods paragraph has it whole
            read = read[:79] + "…"
        return f"n = {n:,} {what}; {self.ads_words()}{subset}{repeated}{read}"


def scope_of(frame: pd.DataFrame, rows: Any = None) -> Scope:
    """The :class:`Scope` of a mentions frame; with ``rows`` (a boolean mask: the posts a
    figure is of), its ``ads`` and ``unknown`` count those rows only.

    Example:
        >>> from rdskit.frames import mentions_frame
        >>> df = mentions_frame([{"source": "x", "id": str(i), "content_type": t}
        ...     for i, t in enumerate(["ad", "organic"])])
        >>> scope_of(df).ads, scope_of(df, [False, True]).ads
        (1, 0)
    """
    prov = provenance_of(frame)
    chosen = None if rows is None else np.asarray(rows, dtype=bool)
    marked = "content_type" in frame.columns or "ad_advertiser_id" in frame.columns
    ads = int(_of(ad_rows(frame), chosen).sum()) if marked else 0
    unknown = 0
    if "content_type" in frame.columns:
        missing = frame["content_type"].isna().to_numpy(dtype=bool)
        if "ad_advertiser_id" in frame.columns:
            missing = missing & frame["ad_advertiser_id"].isna().to_numpy(dtype=bool)
        unknown = int(_of(missing, chosen).sum())
    left_out = [s for s in prov.steps if s.step == "exclude_ads"]
    removed = sum(int(s.settings.get("removed", 0)) for s in left_out) if left_out else None
    loaded_rows = [f.rows for f in prov.fetches if f.resource == "mentions"]
    complete = loaded_rows and None not in loaded_rows
    loaded = sum(r for r in loaded_rows if r is not None) if complete else None
    if loaded is not None:  # rows df.rds.dedupe() dropped were repeats, not a selection
        loaded -= sum(int(s.settings.get("removed", 0)) for s in prov.steps if s.step == "dedupe")
    reads = [f for f in prov.fetches if f.resource in ("mentions", "patterns")]
    filters = tuple(dict.fromkeys(d for f in reads if (d := _filters(f.query))))
    return Scope(len(frame), ads, unknown, marked, removed, loaded, _repeated(frame), filters)


def scope_line(frame: pd.DataFrame, n: int, what: str = "posts", drawn: Any = None) -> str:
    """The scope line of a figure of ``frame``: its n, ads in or out, subset or not
    (:meth:`rdskit.frames.methods.Scope.line`). ``drawn`` (a boolean mask of the rows)
    are the posts the figure is of: its ads are counted among them (an ad without
    sentiment is in no sentiment figure).

    Example:
        >>> ads = pd.DataFrame({"source": ["x", "x"], "id": ["1", "2"], "content_type": "ad"})
        >>> scope_line(ads, 2)
        'n = 2 posts; 2 ads included'
    """
    return scope_of(frame, drawn).line(n, what)


def _of(mask: np.ndarray, chosen: np.ndarray | None) -> np.ndarray:
    return mask if chosen is None else mask & chosen


def _repeated(frame: pd.DataFrame) -> int:
    """Rows repeating the (source, id) of an earlier row."""
    if not {"source", "id"} <= set(frame.columns):
        return 0
    if frame["id"].is_unique:  # a hash of one column: no id repeats, so no (source, id) does
        return 0
    return int(frame.duplicated(["source", "id"]).sum())


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _counts(values: pd.Series) -> str:
    counts = values.astype(str).value_counts()
    counts = counts.sort_index(kind="stable").sort_values(ascending=False, kind="stable")
    return ", ".join(f"{name} {n:,}" for name, n in counts.items())


def _date(value: Any) -> str:
    return str(pd.Timestamp(value).strftime("%Y-%m-%d"))


def methods_paragraph(
    frame: pd.DataFrame, validation: Validity | None = None, plan: Sequence[str] = ()
) -> MethodsText:
    """The methods paragraph of a mentions frame (see the module docs); ``validation``
    (:func:`rdskit.validation.validity`) is stated too, applied to a figure or not; ``plan``
    holds the sentences of a pre-registered plan and the frame's deviations from it
    (:func:`rdskit.frames.preregistration.plan_sentences`), stated before the software.

    Example:
        >>> from rdskit.frames import mentions_frame
        >>> df = mentions_frame([{"source": "reddit", "id": "t3_a",
        ...     "created_at": 1767225600}])
        >>> methods_paragraph(df).text.split(".")[0]
        'We analysed 1 post (reddit 1), published on 2026-01-01'
    """
    missing = [c for c in ("source", "id") if c not in frame.columns]
    if missing:
        raise MissingColumnsError("methods", missing, frame.rds.kind)
    if len(frame) == 0:
        raise InvalidParameter("frame", "methods() needs posts: the frame is empty")
    if frame.rds.kind not in ("mentions", "unknown"):
        raise InvalidParameter(
            "frame", f"methods() describes mentions frames; this is a {frame.rds.kind} frame"
        )
    prov = provenance_of(frame)
    n = len(frame)
    scope = scope_of(frame)
    parts = [_collected(frame, n), *_subset(scope), *_ads(scope)]
    parts += _datasets(frame, prov)
    parts += _runs(prov, frame)
    parts += _plans(prov)
    parts += _fetches(prov)
    parts += _contents(frame, n)
    parts += _repairs(prov)
    parts += _dedupes(prov)
    parts.append(_identity(frame, scope))
    parts += _pseudonymisation(prov, frame)
    parts += _comparisons(prov, n)
    parts += _validations(prov, validation)
    parts += plan
    version = prov.rdskit_version or __version__
    parts.append(
        f"Data were collected and processed with {SOFTWARE} {version} "
        f"(cite as: {SOFTWARE} developers, *{SOFTWARE}: the Research Data Service in Python*, "
        f"version {version})."
    )
    return MethodsText(" ".join(parts))


def _repairs(prov: Provenance) -> list[str]:
    """The text repaired on loading (lone surrogates replaced by U+FFFD), as recorded.

    Example:
        >>> from rdskit.frames.provenance import Step
        >>> prov = Provenance(steps=(Step("repair_text", "", {"texts": 2,
        ...     "fields": {"text": 1, "comments[].body": 1}}),))
        >>> print(_repairs(prov)[0])  # doctest: +NORMALIZE_WHITESPACE
        In 2 texts, characters that are not Unicode text (lone halves of UTF-16 surrogate
        pairs, as when an emoji is cut in two) were replaced by U+FFFD on loading (text:
        1 row; comments[].body: 1 row).
    """
    out = []
    for step in prov.steps:
        if step.step != "repair_text":
            continue
        fields = dict(step.settings.get("fields") or {})
        where = "; ".join(f"{path}: {_plural(int(rows), 'row')}" for path, rows in fields.items())
        out.append(
            f"In {_plural(int(step.settings.get('texts') or 0), 'text')}, characters that are"
            " not Unicode text (lone halves of UTF-16 surrogate pairs, as when an emoji is cut"
            f" in two) were replaced by U+FFFD on loading ({where})."
        )
    return out


def _dedupes(prov: Provenance) -> list[str]:
    """The repeated rows of stacked reads that ``df.rds.dedupe()`` dropped."""
    removed = sum(int(s.settings.get("removed", 0)) for s in prov.steps if s.step == "dedupe")
    if not removed:
        return []
    return [
        f"{_plural(removed, 'row')} repeating a post (the same source and post id) of stacked "
        "reads were dropped, keeping the first."
    ]


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _verb(n: int, verb: str) -> str:
    """``verb`` agreeing with ``n`` things: ``repeats`` for one, ``repeat`` for more."""
    return verb + "s" if n == 1 else verb


def _subset(scope: Scope) -> list[str]:
    if not scope.subset or scope.loaded is None:
        return []
    of = (
        f"of the {scope.loaded - scope.removed:,} posts left of the {scope.loaded:,} loaded "
        f"once {_plural(scope.removed, 'ad')} {'was' if scope.removed == 1 else 'were'} left out"
        if scope.removed
        else f"of the {scope.loaded:,} posts loaded"
    )
    return [
        f"They are {scope.posts:,} {of}: the frame was narrowed after loading by a selection "
        "its record does not hold."
    ]


def _ads(scope: Scope) -> list[str]:
    """Ads in or out, from the frame (and, when none is left, from the record of
    ``df.rds.organic()``); posts of unknown content type are counted, never assumed."""
    if not scope.marked:
        return ["Whether posts are ads is not known (the frame has no `content_type`)."]
    unknown = (
        f" {_plural(scope.unknown, 'post')} {'has' if scope.unknown == 1 else 'have'} no "
        "content type: whether they are ads is not known."
        if scope.unknown
        else ""
    )
    if scope.ads:
        paid = "a paid post by a brand" if scope.ads == 1 else "paid posts by brands"
        return [
            f"They include {_plural(scope.ads, 'ad')} ({paid}), analysed together with the "
            "organic posts." + unknown
        ]
    if scope.removed is not None:
        return [
            f"Ads were left out before analysis ({_plural(scope.removed, 'ad')} removed)." + unknown
        ]
    if scope.unknown == scope.posts:
        return ["Whether posts are ads is not known: no post has a content type."]
    return ["No post is marked as an ad." + unknown if unknown else "None of the posts is an ad."]


def _identity(frame: pd.DataFrame, scope: Scope) -> str:
    if scope.repeated:
        return (
            f"Posts are identified by their source and post id; {_plural(scope.repeated, 'row')} "
            f"of the frame {_verb(scope.repeated, 'repeat')} a post of an earlier row (it "
            "stacks reads that overlap), so "
            "the counts above include those posts more than once."
        )
    return (
        "Posts are identified by their source and post id and appear once each, however "
        "many runs or datasets collected them"
        + (
            f" ({_multi(frame):,} of them belong to more than one dataset)."
            if "datasets" in frame.columns and _multi(frame)
            else "."
        )
    )


def _searched(settings: dict[str, Any]) -> str:
    """What pseudonymisation replaced in texts, as recorded (an older record: handles,
    names and profile links)."""
    found = settings.get("in_texts") or ["handles", "names", "profile links"]
    return _join([str(x) for x in found]).capitalize()


def _pseudonymisation(prov: Provenance, frame: pd.DataFrame) -> list[str]:
    """What pseudonymisation did, as recorded; nothing recorded, nothing claimed; a
    column is named only when this frame holds a pseudonym in it (a frame without
    comments has no commenter to claim); the counts say which posts they were counted
    on; and whether the frame's authors are all pseudonyms (a stack of pseudonymised
    and other data carries the step in its record though part of it was not
    pseudonymised)."""
    step = prov.pseudonymised
    if step is None:
        return _not_pseudonymised(prov, frame)
    settings = step.settings
    prefix, length = settings.get("prefix", ""), settings.get("length")
    done = _holding_pseudonyms(frame, settings)
    commenters = any(c.startswith("comments[]") for c in done)
    authors = any(not c.startswith("comments[]") for c in done)
    who = {(True, True): "Authors and commenters", (False, True): "Commenters"}.get(
        (authors, commenters), "Authors"
    )
    text = (
        f"{who} were pseudonymised before analysis with keyed hashes "
        f"(HMAC-SHA-256 truncated to {length} hex digits, prefixed `{prefix}`; the key is "
        "held by the researchers and not published)"
    )
    if "removed" not in settings:  # a record from an rdskit that did not list its steps
        return [
            text + "; the record does not say which fields were removed, so none is claimed here."
        ]
    listed = _join([f"`{c}`" for c in done])
    were = "was" if len(done) == 1 else "were"
    sentences = [
        text
        + (
            f": {listed} {were} replaced by pseudonyms."
            if done
            else ", but no column of this frame holds a pseudonym."
        )
    ]
    steps = sum(s.step == "pseudonymise" for s in prov.steps)
    if steps > 1:
        sentences.append(
            f"The record holds {steps} pseudonymisation steps (the data were pseudonymised "
            "more than once, or stacked from parts pseudonymised separately; whether with "
            "the same key is not recorded): what follows is the last one's."
        )
    plain = _not_pseudonyms(frame, settings)
    if plain:
        sentences.append(
            f"But {_plural(plain, 'post')} of this frame {'has' if plain == 1 else 'have'} an "
            "author that is not a pseudonym: the frame combines pseudonymised data with "
            "data that were not, and what follows holds for the pseudonymised part only."
        )
    counts = _removed_and_rewritten(settings)
    if counts and step.rows != len(frame):
        sentences.append(
            f"The counts below are of the {step.rows:,} posts pseudonymised, not of these "
            f"{len(frame):,}."
            if step.rows is not None
            else "The counts below are of the data as pseudonymised (the record does not say "
            "how many posts that was)."
        )
    return [*sentences, *counts, *_what_was_kept(frame, settings)]


def _not_pseudonymised(prov: Provenance, frame: pd.DataFrame) -> list[str]:
    """What a frame without a pseudonymisation step shares: its dehydrated ids, or its
    authors (and commenters) as they are."""
    if any(s.step == "dehydrate" for s in prov.steps):
        return [
            "What is shared holds each post's source, id and link only (links without the "
            "author's handle): no text, author name, handle or profile link."
        ]
    who = "Authors and commenters" if _comment_count(frame) else "Authors"
    return [f"{who} were not pseudonymised: the data hold their handles, names and profile links."]


def _what_was_kept(frame: pd.DataFrame, settings: Any) -> list[str]:
    """What a pseudonymisation kept: public accounts' post URLs in this frame, the texts
    (dropped, cut or kept), the accounts allowed and the post ids."""
    sentences = []
    if settings.get("post_urls") != "keep" and "url" in frame.columns:
        # pseudonymise() keeps the URLs of posts whose author is allow-listed.
        public = int((_public_rows(frame, settings) & frame["url"].notna().to_numpy()).sum())
        if public:
            sentences.append(
                f"In this frame, {_plural(public, 'post')} by public accounts "
                f"{_verb(public, 'keep')} {'its' if public == 1 else 'their'} post URL"
                f"{'' if public == 1 else 's'}."
            )
    policy = settings.get("text")
    if policy == "drop":
        n = sum(v for k, v in (settings.get("removed") or {}).items() if k.endswith("(dropped)"))
        sentences.append(f"Verbatim texts were removed ({_plural(n, 'text')}).")
    elif policy == "truncate":
        cut = sum(v for k, v in (settings.get("rewritten") or {}).items() if "(truncated)" in k)
        sentences.append(
            f"Verbatim texts were cut to their first words ({_plural(cut, 'text')}); a "
            "short quote can still be searched for."
        )
    else:
        sentences.append(
            "Verbatim texts were kept: a quoted passage can be searched for and leads to "
            "its author."
        )
    if kept := settings.get("allow") or []:
        sentences.append(f"Public accounts kept as they are: {', '.join(kept)}.")
    sentences.append("Post ids were kept.")
    return sentences


def _removed_and_rewritten(settings: Any) -> list[str]:
    """The sentences of what pseudonymisation removed and rewrote, with its counts."""
    sentences = []
    removed = dict(settings.get("removed") or {})
    urls = removed.pop("url", 0)
    other = {k: v for k, v in removed.items() if not k.endswith("(dropped)")}
    if other:
        listed = _join([f"`{k}` ({v:,})" for k, v in other.items()])
        sentences.append(f"Links and avatars removed (values per column): {listed}.")
    if settings.get("post_urls") == "keep":
        sentences.append("Post URLs were kept: each leads to its post and its author.")
    elif urls:
        sentences.append(f"{_plural(urls, 'post URL')} {'was' if urls == 1 else 'were'} removed.")
    rewritten = {
        k: v for k, v in (settings.get("rewritten") or {}).items() if "(truncated)" not in k
    }
    # people_known counts the distinct names and handles learnt, not people: a person
    # usually has both.
    known = int(settings.get("people_known", 0))
    people = (
        f"{known:,} {'name or handle' if known == 1 else 'distinct names and handles'} of "
        "the people the data list searched for; people the data do not list cannot be found "
        "by name"
    )
    if rewritten:
        total = sum(rewritten.values())
        sentences.append(
            f"{_searched(settings)} written in texts were replaced in "
            f"{_plural(total, 'text')} ({people})."
        )
    elif "rewritten" in settings:  # searched, nothing found: said, not left out
        sentences.append(
            f"{_searched(settings)} were searched for in texts and none was found ({people})."
        )
    return sentences


def _holding_pseudonyms(frame: pd.DataFrame, settings: Any) -> list[str]:
    """The recorded pseudonymised columns (``comments[].author_name``...) that hold a
    pseudonym in this frame: one absent, empty or filtered to no pseudonym is not claimed."""
    columns = [str(c) for c in settings.get("pseudonymised") or []]
    if "length" not in settings:
        return columns  # an older record: nothing to recognise a pseudonym by
    pattern = (
        f"^@?{re.escape(str(settings.get('prefix', '')))}[0-9a-f]{{{int(settings['length'])}}}$"
    )
    held = []
    for path in columns:
        name, _, field = path.partition("[].")
        if name not in frame.columns:
            continue
        values = _arrow.column(frame, name)
        if field:
            items = pc.list_flatten(values)
            if not pa.types.is_struct(items.type) or items.type.get_field_index(field) < 0:
                continue
            values = pc.struct_field(items, [items.type.get_field_index(field)])
        hits = pc.match_substring_regex(values.cast(pa.string()), pattern)
        if pc.any(pc.fill_null(hits, False)).as_py():
            held.append(path)
    return held


def _public_rows(frame: pd.DataFrame, settings: Any) -> np.ndarray:
    """Rows whose author is an allow-listed account, known by its handle (pseudonymise()
    keeps it with the profile link) or by a display name equal to it in any case."""
    allow = {normalise(str(a)) for a in settings.get("allow") or []}
    if not allow:
        return np.zeros(len(frame), dtype=bool)
    handles = pd.Series(author_handles(frame).to_pylist(), index=frame.index, dtype="string")
    public = _listed(handles, allow)
    if "author_title" in frame.columns:
        public |= _listed(frame["author_title"].astype("string"), allow)
    return public


def _not_pseudonyms(frame: pd.DataFrame, settings: Any) -> int:
    """Posts whose ``author_title`` is neither a pseudonym nor an allow-listed account."""
    if "author_title" not in frame.columns or "length" not in settings:
        return 0
    pattern = f"^{re.escape(str(settings.get('prefix', '')))}[0-9a-f]{{{int(settings['length'])}}}$"
    names = frame["author_title"].astype("string")[~_public_rows(frame, settings)].dropna()
    return int((~names.str.match(pattern).astype(bool)).sum())


def _listed(values: pd.Series, allow: set[str]) -> np.ndarray:
    """Which values are on the (normalised) allow-list; each distinct value once."""
    distinct = values.dropna().unique()
    # A plain-Python look first (a fraction of a microsecond a value; normalise() builds an
    # Arrow array a call), normalise() then confirms the few candidates.
    on = {
        v
        for v in distinct
        if str(v).strip().lstrip("@").lower() in allow and normalise(str(v)) in allow
    }
    flags: np.ndarray = values.isin(on).to_numpy(dtype=bool, copy=True)
    return flags


_LATER = {"exclude_ads": "ads were left out", "pseudonymise": "pseudonymisation"}
"""Steps that change the rows or their content, as a comparison made before them says."""


def _comparisons(prov: Provenance, n: int) -> list[str]:
    """The comparisons run on this frame (``df.rds.compare``), each once; one made on
    an earlier state of the data (before ads were left out, before pseudonymisation, or
    on another number of posts) says so."""
    seen: dict[str, tuple[dict[str, Any], list[str]]] = {}
    for i, step in enumerate(prov.steps):
        if step.step == "compare":
            settings = dict(step.settings)
            later = [_LATER[s.step] for s in prov.steps[i + 1 :] if s.step in _LATER]
            key = repr(sorted((k, v) for k, v in settings.items() if k != "at"))
            seen.setdefault(key, (settings, list(dict.fromkeys(later))))
    out = []
    for settings, later in seen.values():
        confidence = f"{float(settings.get('confidence', 0.95)):.0%}"
        posts = settings.get("posts")
        earlier = ""
        if later or (posts is not None and int(posts) != n):
            on = f"{int(posts):,} posts" if posts is not None else "posts"
            before = f", before {_join(later)}" if later else ""
            other = f"; not these {n:,}" if posts is None or int(posts) != n else ""
            earlier = f"On an earlier state of these data ({on}{before}{other}), "
        out.append(
            (
                earlier + f"groups by {settings.get('by')}"
                if earlier
                else f"Groups by {settings.get('by')}"
            )
            + f" were compared ({confidence} intervals): "
            + (
                "each group's sentiment shares with Wilson score intervals (its share of "
                "the posts has none: the design fixed that split); differences between two "
                "groups' sentiment "
                if settings.get("volume_fixed")
                else "each group's shares with Wilson score intervals; differences between "
                "two groups' "
            )
            + "shares with Newcombe's hybrid score intervals and two-sided z tests of equal "
            "proportions; median engagement with percentile bootstrap intervals "
            f"({settings.get('resamples', 2000):,} resamples, seed {settings.get('seed', 0)}); "
            "distinguishing words by log-odds ratios with an informative Dirichlet prior "
            "(Monroe, Colaresi and Quinn 2008), words of the search query marked."
        )
        if settings.get("mixed_views"):
            out.append(
                "Median views and engagement rates were compared across posts of sources "
                f"that estimate views ({settings['mixed_views']}) and sources that count "
                "them; those medians are not comparable."
            )
    return out


def _validations(prov: Provenance, given: Validity | None) -> list[str]:
    """Each validation a figure of this frame was corrected with (recorded by
    ``compare(validation=...)`` and the share charts), and the one ``given``, once each:
    the sample and its design, the coders and their alpha, the correction applied or not.

    Example:
        >>> from rdskit.frames.provenance import Step
        >>> v = {"codebook": "tone v1", "posts_coded": 40, "design_weighted": False,
        ...      "stratified": False, "method": "Rogan-Gladen", "confidence": 0.95,
        ...      "resamples": 2000, "seed": 0, "coders": None, "alpha": None}
        >>> prov = Provenance(steps=(Step("correct_shares", "", {"validation": v,
        ...     "figure": "compare(by='dataset')", "clipped": [], "uncorrectable": []}),))
        >>> print(_validations(prov, None)[0])  # doctest: +NORMALIZE_WHITESPACE
        The service's labels were validated against 40 hand-coded posts (codebook tone
        v1; unweighted: the sample as drawn). No agreement between coders was recorded
        with this validation. Sentiment shares were corrected for the labels' errors by
        Rogan-Gladen, beside the raw shares (95 % BCa bootstrap intervals over the
        validation sample, 2,000 resamples, seed 0), in compare(by='dataset').
    """
    found: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    for step in prov.steps:
        if step.step == "correct_shares":
            summary = dict(step.settings.get("validation") or {})
            key = json.dumps(summary, sort_keys=True, default=str)
            found.setdefault(key, (summary, []))[1].append(dict(step.settings))
    if given is not None:
        summary = given.summary()
        found.setdefault(json.dumps(summary, sort_keys=True, default=str), (summary, []))
    return [_validation(summary, uses) for summary, uses in found.values()]


def _validation(v: dict[str, Any], uses: list[dict[str, Any]]) -> str:
    """One validation's sentences (see :func:`_validations`)."""
    design = (
        "a stratified sample, its estimates design-weighted to the collection"
        if v.get("design_weighted")
        else "unweighted: the sample as drawn"
    )
    coded = _plural(int(v["posts_coded"]), "hand-coded post")
    text = (
        f"The service's labels were validated against {coded} (codebook {v.get('codebook')}; "
        f"{design})."
    )
    alpha, coders = v.get("alpha"), v.get("coders")
    if coders:
        text += (
            f" {_plural(len(coders), 'coder')} ({_join([str(c) for c in coders])}) coded "
            f"{int(v['coded_by_all']):,} of them"
        )
        if alpha and alpha.get("value") is not None:
            level = f"{float(alpha.get('confidence') or 0.95):.0%}".replace("%", " %")
            interval = (
                f"{level} BCa bootstrap interval {alpha['low']:.2f} to {alpha['high']:.2f}"
                if alpha.get("low") is not None
                else f"no interval: {alpha.get('reason')}"
            )
            text += f"; {alpha['name']} {alpha['value']:.2f} ({interval})."
        else:
            text += "; their Krippendorff's alpha is undefined (no variation in the codes)."
    else:
        text += " No agreement between coders was recorded with this validation."
    if not uses:
        return text + " No share reported from this frame was corrected for these errors."
    level = f"{float(v.get('confidence') or 0.95):.0%}".replace("%", " %")
    figures = _join(list(dict.fromkeys(str(u.get("figure")) for u in uses)))
    text += (
        f" Sentiment shares were corrected for the labels' errors by {v.get('method')}, beside "
        f"the raw shares ({level} BCa bootstrap intervals over the validation sample, "
        f"{int(v.get('resamples') or 0):,} resamples, seed {v.get('seed')}), in {figures}."
    )
    clipped = sorted({str(g) for u in uses for g in u.get("clipped") or []})
    if clipped:
        text += (
            f" The corrected shares of {_join(clipped)} left 0-1 and were clipped and renormalised."
        )
    failed = sorted({str(g) for u in uses for g in u.get("uncorrectable") or []})
    if failed:
        text += f" The errors could not be inverted for {_join(failed)}: no corrected shares."
    return text


def _collected(frame: pd.DataFrame, n: int) -> str:
    text = f"We analysed {n:,} post{'s' if n != 1 else ''} ({_counts(frame['source'])})"
    if "created_at" in frame.columns and frame["created_at"].notna().any():
        first, last = _date(frame["created_at"].min()), _date(frame["created_at"].max())
        text += f", published on {first}" if first == last else f", published {first} to {last}"
    return text + "."


def _dataset_names(frame: pd.DataFrame) -> pd.Series:
    return dataset_labels(frame)


def _dataset_ids(frame: pd.DataFrame) -> list[str]:
    """The ids of the datasets the frame's posts belong to, each once."""
    flat = pc.list_flatten(_arrow.column(frame, "datasets"))
    ids = pc.unique(pc.struct_field(flat, ["id"])).drop_null()
    return [str(i) for i in ids.to_pylist()]


def _multi(frame: pd.DataFrame) -> int:
    lengths = pc.fill_null(pc.list_value_length(_arrow.column(frame, "datasets")), 0)
    return int(pc.sum(pc.greater(lengths, 1)).as_py() or 0)


def _datasets(frame: pd.DataFrame, prov: Provenance) -> list[str]:
    if "datasets" in frame.columns:
        names = _dataset_names(frame)
        if len(names):
            return [f"Posts per dataset: {_counts(names)}."]
    if prov.datasets:
        return [f"Datasets: {_join([d.name or d.id for d in prov.datasets])}."]
    return []


def _runs(prov: Provenance, frame: pd.DataFrame) -> list[str]:
    """The completed runs that collected the frame's posts: with a ``datasets`` column,
    only the runs of the datasets its posts belong to (a frame narrowed to one brand is
    not said to come from the other's run)."""
    runs = [r for r in prov.runs if r.status in (None, "completed")]
    if "datasets" in frame.columns:
        ids = set(_dataset_ids(frame))
        runs = [r for r in runs if r.dataset_id is None or r.dataset_id in ids]
    if not runs:
        return []
    queries = list(dict.fromkeys(f"*{r.search_query}*" for r in runs if r.search_query))
    sources = list(dict.fromkeys(s for r in runs for s in r.sources))
    windows = list(dict.fromkeys(_window(r) for r in runs))
    analyses = list(dict.fromkeys(a for r in runs for a in r.analyses))
    comments = sorted({int(c) for r in runs if (c := r.params.get("num_comments_per_post"))})
    text = (
        f"They were collected by {len(runs)} completed run{'s' if len(runs) != 1 else ''} of the "
        "Research Data Service"
    )
    if queries:
        text += f" searching for {_join(queries)}"
    if sources:
        text += f" on {_join(sources)}"
    text += f", for posts published {_join(windows)}"
    if any(_requested(r) for r in runs):
        # The run echoes its request; the spec applies an explicit range "subject to plan
        # restrictions" and returns no applied window: never state more than was asked.
        text += (
            " as requested (the service applies a requested window subject to the plan's "
            "restrictions and does not return the window it applied)"
        )
    if comments:
        text += f", with up to {_join([str(c) for c in comments])} comments per post"
    text += "; analyses run: " + (_join(analyses) if analyses else "none requested") + "."
    return [text, *_outside(runs, frame)]


def _outside(runs: list[RunRecord], frame: pd.DataFrame) -> list[str]:
    """Posts of the frame published outside every window the runs asked for (only when
    each run asked for a full window: a default or URL run covers other dates)."""
    if "created_at" not in frame.columns or not all(
        _requested(r) and all(r.date_range) for r in runs
    ):
        return []
    dates = pd.to_datetime(frame["created_at"], utc=True)
    inside = pd.Series(False, index=frame.index)
    for run in runs:
        start, end = (pd.Timestamp(str(d), tz="UTC") for d in run.date_range)
        inside |= (dates >= start) & (dates < end + pd.Timedelta(days=1))
    out = int((~inside & dates.notna()).sum())
    if not out:
        return []
    windows = "windows" if len({r.date_range for r in runs}) > 1 else "window"
    return [
        f"{_plural(out, 'post')} of this frame {'was' if out == 1 else 'were'} published "
        f"outside the {windows} requested."
    ]


def _plans(prov: Provenance) -> list[str]:
    """The plans read at load time (``GET /v1/me``): a run may have run under another."""
    out = []
    for plan in prov.plans:
        features = [f"`{f}`" for f in plan.get("features") or []]
        out.append(
            "When the posts were retrieved, the account's plan was "
            f"{plan.get('name') or 'unnamed'}"
            + (f", with {_join(features)}." if features else ", with no features shown.")
        )
    return out


def _requested(run: RunRecord) -> bool:
    """The run asked for an explicit publication window (a prompt search's ``date_range``)."""
    url = (run.params.get("search_query") or {}).get("type") == "url"
    return not url and any(run.date_range)


def _window(run: RunRecord) -> str:
    """The publication window a run asked for; a URL search applies none (the spec)."""
    start, end = run.date_range
    if (run.params.get("search_query") or {}).get("type") == "url":
        return "at any date (a URL search applies no date filter)"
    if start and end:
        return f"{start} to {end}"
    if start or end:
        return f"from {start}" if start else f"until {end}"
    return "in the 365 days before each run"


def _fetches(prov: Provenance) -> list[str]:
    fetches = [f for f in prov.fetches if f.resource == "mentions" or f.resource == "patterns"]
    if not fetches:
        return []
    dates = sorted({f.fetched_at[:10] for f in fetches if f.fetched_at})
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    urls = _join(list(prov.base_urls))
    text = f"Posts were retrieved on {when} (UTC) from {urls}"
    described = [(_filters(f.query), f.rows) for f in fetches]
    kinds = list(dict.fromkeys(d for d, _ in described))
    if kinds == [""]:
        return [text + "."]
    if len(kinds) == 1:
        return [text + ", with " + kinds[0] + "."]
    # Reads with different filters: each read's filter and rows, not one list for all.
    reads = [
        (f"{rows:,} posts" if rows is not None else "posts")
        + (f" with {d}" if d else " without a filter")
        for d, rows in described
    ]
    return [text + f" in {len(reads)} reads: " + "; ".join(reads) + "."]


def _filters(query: Any) -> str:
    filters = []
    if query.get("q"):
        filters.append(f"text query *{query['q']}*")
    if query.get("sources"):
        filters.append(f"sources {', '.join(query['sources'])}")
    if query.get("filters"):
        filters.append(f"filters `{query['filters']}`")
    return _join(filters)


def _comment_sizes(frame: pd.DataFrame) -> np.ndarray:
    """Each post's number of comments (none without a ``comments`` column)."""
    if "comments" not in frame.columns:
        return np.zeros(len(frame), dtype=np.int64)
    lengths = pc.list_value_length(_arrow.column(frame, "comments"))
    return np.asarray(pc.fill_null(lengths, 0).to_numpy(zero_copy_only=False))


def _comment_count(frame: pd.DataFrame) -> int:
    return int(_comment_sizes(frame).sum())


def _contents(frame: pd.DataFrame, n: int) -> list[str]:
    parts = []
    if "comments" in frame.columns:
        sizes = _comment_sizes(frame)
        total, with_comments = int(sizes.sum()), int((sizes > 0).sum())
        parts.append(
            f"The data include {total:,} comment{'s' if total != 1 else ''} on "
            f"{with_comments:,} of the posts."
            if total
            else "No comments were collected."
        )
    if "sentiment" in frame.columns:
        analysed = int(frame["sentiment"].notna().sum())
        parts.append(f"Sentiment was analysed for {analysed:,} of the {n:,} posts.")
    return parts
