"""Pseudonymisation: stable keyed pseudonyms for the people in mentions, comments and
audience profile frames (``df.rds.pseudonymise(key)``).

A person is identified by their platform handle on a source: the mention author's handle
(read from their profile URL or ``@headline``), a commenter's ``author_username``, a
profile's ``username``. Their pseudonym is ``prefix + HMAC-SHA-256(key, source + handle)``
truncated to ``length`` hex digits, so the same person gets the same pseudonym in every
frame and every call with the same key, and nobody without the key can link it back.

What changes (columns absent from a frame are skipped):

- handles and display names become the person's pseudonym (``author_title``,
  ``author_headline`` when it is an ``@handle``, comments' ``author_username`` and
  ``author_name``, profiles' ``username``, ``display_name`` and ``platform_vanity_name``,
  ``sound_author``); a display name seen without a handle gets a pseudonym of its own;
- profile URLs and avatars are removed (``author_title_url``, ``author_headline_url``
  when it is the profile, ``author_avatar_url``, ``avatar_url``, ``external_link``);
  other identifiers of a profile (``platform_*`` text such as a channel id) are hashed;
- post URLs are removed (``post_urls="drop"``, the default): on every platform a post's
  page shows who wrote it. So are the other links to a post's content (media files,
  the sound's page and cover), which show the author or their face; ``post_urls="keep"``
  keeps post and content links (profile links are removed either way);
- in every text, nested ones included (comment bodies, hook texts, evidence, entity
  lists...), ``@handles`` (any script, any case) become ``@pseudonym``, profile links
  become ``[profile link removed]``, e-mail addresses ``[email removed]``, and with
  ``post_urls="drop"`` every other link (``http(s)://``, ``www.``) ``[link removed]``;
  the display names and bare handles of every person in the frame (authors,
  commenters, profiles; four characters or more) become their pseudonym wherever they
  are written as whole words: any case, any script, accents composed or not, next to
  punctuation (``ask:maya.chen``, ``(Maya Chen)``), with a possessive or contraction
  (``Maya's``, ``Maya'll``), their words separated by whitespace or up to three other
  characters (``Dr. Maya Chen``). A name is never replaced inside a longer word
  (``Sam`` in ``sample``) or joined to one (``Maya-approved``), so ordinary words stay;
  a person's name that is also an ordinary phrase (a display name ``Oat Lover``) is
  replaced wherever that phrase is written. Scripts written without spaces (Chinese,
  Japanese, Thai) are matched only where the name stands apart, and names shorter than
  four characters (``Al``, a two- or three-character Chinese name) are not searched.
  A person the frame does not list (a friend named in a comment) cannot be recognised
  by name.

Verbatim text (``text=``): a quoted sentence pasted into a search engine or the
platform's own search finds the post, and the post shows its author, so a pseudonymised
frame whose texts are kept is *not* anonymous: anyone can re-identify a person whose
words it quotes. ``text="keep"`` (the default) keeps them for analysis;
``text="truncate"`` keeps the first :data:`TRUNCATE_WORDS` words of each (a short quote
is harder, not impossible, to find); ``text="drop"`` removes them. The columns are
:data:`rdskit.frames.columns.VERBATIM_TEXTS` (post titles and texts, comment bodies,
profile bios, hook texts and quoted evidence); service summaries are kept.

Accounts in ``allow`` (brands, advertisers, public figures; handles, with or without
``@``) are kept as they are, with their profile links in any text; their own posts keep
the links they wrote (every column but ``comments``: comments are the commenters'), other
people's profile links in them still go. Without them in ``allow``, an advertiser's name
becomes a pseudonym in every text (``mentioned_brands`` too): pseudonymising the authors of
ads emits one :class:`rdskit.errors.AdvertiserWarning` saying how many. Ad columns
(``ad_*``) describe advertisers and are kept.
Post and comment ids (``id``, ``comment_id``) are kept: they are the join keys, and
whoever holds the service account can look the posts up. The key is never stored: the
frame's provenance records the method, the prefix, the length, the allow-list, the URL
and text policies, what texts were searched for (``in_texts``) and what was done (the
columns pseudonymised, only those changed, removed and rewritten, with counts).

Example:
    >>> p = Pseudonymiser("a long secret key held by the team")
    >>> p.pseudonym("tiktok", "@Maya.Chen") == p.pseudonym("tiktok", "maya.chen")
    True
    >>> p.pseudonym("tiktok", "maya.chen")[:2]
    'u_'
"""

from __future__ import annotations

import functools
import hashlib
import re
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rdskit.errors import AdvertiserWarning, InvalidParameter, warn
from rdskit.frames import _arrow
from rdskit.frames._names import Known, flagged, word_char
from rdskit.frames.columns import VERBATIM_TEXTS
from rdskit.frames.provenance import add_step

__all__ = ["MIN_KEY_LENGTH", "TRUNCATE_WORDS", "Pseudonymiser", "pseudonymise_frame"]

MIN_KEY_LENGTH = 16
"""Shorter keys work but warn: a short key can be guessed, and with it every pseudonym."""

TRUNCATE_WORDS = 8
"""``text="truncate"`` keeps this many words of each verbatim text (then ``[…]``)."""

PostUrls = Literal["drop", "keep"]
TextPolicy = Literal["keep", "drop", "truncate"]

# Profile pages on the five sources and link-in-bio hosts: never kept in a text.
_PROFILE_URL = re.compile(
    r"(?:https?://)?(?:[\w-]+\.)*(?:tiktok\.com/@|youtube\.com/(?:@|c/|channel/|user/)|"
    r"reddit\.com/(?:user|u)/|linkedin\.com/in/|instagram\.com/(?!p/|reel/|reels/|explore/)|"
    r"linktr\.ee/)(?:[^\s)\]>\"']*[^\s)\]>\"'.,;:!?])?",
    re.IGNORECASE,
)
_URL_REMOVED = "[profile link removed]"
# A value that is a link and nothing else (media files, a sound's page...).
_URL_ONLY = r"^\s*(?:[A-Za-z][A-Za-z0-9+.-]*://|www\.)\S*\s*$"
# The post's and comment's keys and the researcher's own labels; ad_* columns describe
# advertisers.
_NOT_PEOPLE = frozenset({"source", "id", "comment_id", "datasets", "collections"})
# A comment's key and its commenter (pseudonymised first): not searched as texts.
_COMMENT_KEYS = frozenset({"id", "author_username", "author_name"})


_SEEN: dict[str, dict[str, str]] = {}
_SEEN_MAX = 2_000_000
# The people last worked out (:func:`_people`), one set in the process: a mentions frame
# and then its comments frame hold the same commenters, and pseudonymising both with the
# same key and settings works them out once. The key's seen-cache digest and the
# settings, the inputs (source, handle, name arrays), the pseudonyms, what was learnt.
_LAST_PEOPLE: list[tuple[str, list[pa.Array], pa.Array, list[pa.Table]]] = []


class _Key:
    """The key, kept out of every repr (and so out of tracebacks and notebooks)."""

    __slots__ = ("_inner", "_outer", "ident", "seen")

    def __init__(self, key: str | bytes) -> None:
        raw = key.encode() if isinstance(key, str) else bytes(key)
        # HMAC (RFC 2104) with its two keyed SHA-256 states computed once and copied per
        # value: the same digests as hmac.new(key, message, "sha256"), at a third of the
        # cost of hmac's Python wrapper per call.
        block = hashlib.sha256().block_size
        raw = hashlib.sha256(raw).digest() if len(raw) > block else raw
        raw = raw.ljust(block, b"\0")
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in raw))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in raw))
        # Digests already computed with this key in this process (mentions, then their
        # comments, then profiles: the same people), found by the key's own digest.
        self.ident = self.digest("rdskit seen-cache")
        self.seen = _SEEN.setdefault(self.ident, {})
        if len(self.seen) > _SEEN_MAX:
            self.seen.clear()

    def digest(self, message: str) -> str:
        inner = self._inner.copy()
        inner.update(message.encode())
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.hexdigest()

    def __repr__(self) -> str:
        return "<key hidden>"

    def __reduce__(self) -> Any:
        raise TypeError("a pseudonymisation key cannot be pickled")


class Pseudonymiser:
    """Keyed pseudonyms (HMAC-SHA-256, truncated, prefixed) for handles and names.

    Example:
        >>> p = Pseudonymiser("team key, 32 random characters..", allow=["@Oatly"])
        >>> p.pseudonym("instagram", "oatly"), p.pseudonym("instagram", "maya")[:2]
        ('oatly', 'u_')
        >>> "team key" in repr(p)
        False
    """

    def __init__(
        self,
        key: str | bytes | None,
        *,
        allow: Iterable[str] = (),
        prefix: str = "u_",
        length: int = 12,
    ) -> None:
        if key is None or len(key) == 0:
            raise InvalidParameter(
                "key",
                "pseudonymise() needs a key (a secret string kept by your team, e.g. "
                "secrets.token_hex(32)): the same key gives the same pseudonyms",
            )
        if not isinstance(key, str | bytes):
            raise InvalidParameter("key", f"must be a string or bytes, not {type(key).__name__}")
        if not 8 <= length <= 64:
            raise InvalidParameter("length", f"must be between 8 and 64 hex digits, not {length}")
        if len(key) < MIN_KEY_LENGTH:
            warnings.warn(
                f"a pseudonymisation key shorter than {MIN_KEY_LENGTH} characters can be "
                "guessed; use e.g. secrets.token_hex(32)",
                UserWarning,
                stacklevel=3,
            )
        self._key = _Key(key)
        self.prefix, self.length = prefix, length
        self.allow = frozenset(_normal(pa.array([a for a in allow if a], pa.string())).to_pylist())

    def __repr__(self) -> str:
        return f"Pseudonymiser(prefix={self.prefix!r}, length={self.length}, key=<hidden>)"

    def settings(self) -> dict[str, Any]:
        """What the provenance records (never the key)."""
        return {
            "method": "HMAC-SHA-256",
            "prefix": self.prefix,
            "length": self.length,
            "allow": sorted(self.allow),
        }

    def pseudonym(self, source: str | None, handle: str) -> str:
        """The pseudonym of ``handle`` on ``source`` (allow-listed handles unchanged)."""
        out = self.handles(pa.array([source], pa.string()), pa.array([handle], pa.string()))
        return str(out[0].as_py())

    def name_pseudonym(self, source: str | None, name: str) -> str:
        """The pseudonym of a display name seen without its handle."""
        out = self.handles(pa.array([source], pa.string()), pa.array([name]), names=True)
        return str(out[0].as_py())

    # --- vectorised over Arrow arrays ---------------------------------------------------

    def handles(self, sources: pa.Array, handles: pa.Array, *, names: bool = False) -> pa.Array:
        """Pseudonyms of ``handles`` (or display ``names``) on ``sources``; null stays
        null, allow-listed ones stay as they are; each distinct one is hashed once."""
        text = handles.cast(pa.string())
        normal = _normal(text, names)
        tag = "\x1fname\x1f" if names else "\x1f"
        message = pc.binary_join_element_wise(
            pc.fill_null(sources.cast(pa.string()), ""), normal, tag
        )
        # One hash pass gives the distinct messages and where each row's is (nulls stay).
        encoded = pc.dictionary_encode(message)
        seen, digest = self._key.seen, self._key.digest
        values = encoded.dictionary.to_pylist()
        hexdigests = list(map(seen.get, values))
        for at in [at for at, hexdigest in enumerate(hexdigests) if hexdigest is None]:
            hexdigests[at] = seen[values[at]] = digest(values[at])
        # Cut and prefixed in Arrow (a Python string each would cost more).
        cut = pc.utf8_slice_codeunits(pa.array(hexdigests, pa.string()), 0, self.length)
        mapped = pc.binary_join_element_wise(pa.scalar(self.prefix), cut, "")
        out = mapped.take(encoded.indices)
        if not self.allow:
            return out
        kept = text if names else pc.utf8_ltrim(pc.utf8_trim_whitespace(text), "@")
        return pc.if_else(self.allowed(normal), kept, out)

    def allowed(self, normal: pa.Array) -> pa.Array:
        """Which normalised handles are on the allow-list."""
        allow = pa.array(sorted(self.allow), pa.string())
        return pc.fill_null(pc.is_in(normal, value_set=allow), False)

    def people(
        self,
        sources: pa.Array,
        handles: pa.Array,
        names: pa.Array | None,
        *,
        by_handle: pa.Array | None = None,
    ) -> pa.Array:
        """Each person's pseudonym: their handle's (``by_handle``, when the caller has
        them: ``handles(sources, handles)``), else (no handle) their name's."""
        by_handle = self.handles(sources, handles) if by_handle is None else by_handle
        if names is None:
            return by_handle
        unknown = pc.is_null(by_handle)
        only = pc.if_else(unknown, names.cast(pa.string()), pa.nulls(len(names), pa.string()))
        return pc.coalesce(by_handle, self.handles(sources, only, names=True))

    def scrub(self, sources: Sequence[str | None], rows: np.ndarray, texts: pa.Array) -> pa.Array:
        """Texts with ``@handles`` replaced and profile URLs and e-mail addresses removed;
        text ``i`` belongs to the row ``rows[i]`` whose source is ``sources[rows[i]]``."""
        changed = self.scrubbed(pa.array(sources, pa.string()), rows, texts)
        return texts if changed is None else changed

    def scrubbed(
        self,
        sources: pa.Array,
        rows: np.ndarray,
        texts: pa.Array,
        known: Known | None = None,
        *,
        links: bool = False,
        encoded: pa.DictionaryArray | None = None,
        scan: np.ndarray | None = None,
        keep: np.ndarray | None = None,
    ) -> pa.Array | None:
        """:meth:`scrub` (and the names and bare handles ``known`` written out replaced,
        and with ``links`` every link removed), or None when no text needs it (nothing is
        copied then). ``sources`` holds each row's source (strings, or dictionary-encoded
        once for many calls); ``encoded`` is ``texts`` dictionary-encoded, if the caller
        has it, and ``scan`` which of its distinct values to search (the others are
        left as they are); ``keep`` marks the rows (by index, as in ``rows``) whose texts
        keep their links (a public account's own post: its shop and its pages)."""
        texts = texts.cast(pa.string())
        # Each distinct text is searched once and each distinct (source, text) rewritten
        # once: columns repeat their values (labels, comment bodies, hook texts).
        encoded = pc.dictionary_encode(texts) if encoded is None else encoded
        distinct = encoded.dictionary
        hits = np.zeros(len(distinct), dtype=bool)
        where = np.arange(len(distinct)) if scan is None else np.flatnonzero(scan)
        if len(where):
            values = distinct if scan is None else distinct.take(pa.array(where))
            # One pass over the texts' pieces finds both what the regexes below look for
            # and the words that start a known name.
            tests = [functools.partial(_suspect, links=links)]
            hits[where] = flagged(values, *tests, *([known.starts] if known is not None else []))
        if not hits.any():
            return None
        codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
        codes = codes.astype(np.int64)
        found = np.flatnonzero((codes >= 0) & hits[codes])
        on = sources if pa.types.is_dictionary(sources.type) else pc.dictionary_encode(sources)
        source_codes = pc.fill_null(on.indices, -1).to_numpy(zero_copy_only=False)
        source_names = [None, *on.dictionary.to_pylist()]
        pair = (source_codes[rows[found]].astype(np.int64) + 1) * len(distinct) + codes[found]
        # Each distinct (source, text, links kept or not) is rewritten once.
        kept = np.zeros(len(found), np.int64) if keep is None else keep[rows[found]]
        pairs_found, which = np.unique(pair * 2 + kept, return_inverse=True)
        flags, pairs_found = (pairs_found % 2).astype(bool), pairs_found // 2
        where_on = [source_names[k] for k in (pairs_found // len(distinct)).tolist()]
        values = distinct.take(pa.array(pairs_found % len(distinct))).to_pylist()
        cleaned = [
            _without_links(text, links and not flag, self.allow)
            for text, flag in zip(values, flags.tolist(), strict=True)
        ]
        pattern = _handle()
        handles = [
            (s, h) for s, t in zip(where_on, cleaned, strict=True) for h in pattern.findall(t)
        ]
        lookup: dict[tuple[str | None, str], str] = {}
        if handles:
            on_source, named = zip(*handles, strict=True)
            mapped = self.handles(pa.array(on_source, pa.string()), pa.array(named, pa.string()))
            lookup = dict(zip(handles, mapped.to_pylist(), strict=True))
        values = [
            pattern.sub(_replacer(lookup, source), text) if handles else text
            for source, text in zip(where_on, cleaned, strict=True)
        ]
        if known is not None:
            values = known.rewrite(where_on, values)
        mask = np.zeros(len(texts), dtype=bool)
        mask[found] = True
        new = pa.array(values, pa.string()).take(pa.array(which.reshape(-1)))
        return pc.replace_with_mask(texts, pa.array(mask), new)

    def scrub_text(self, source: str | None, text: str) -> str:
        """One text with ``@handles`` replaced and profile URLs and e-mail addresses
        removed."""
        out = self.scrub([source], np.zeros(1, dtype=np.int64), pa.array([text], pa.string()))
        return str(out[0].as_py())


_PROFILE_HOSTS = (
    "tiktok.com/@",
    "youtube.com/",
    "reddit.com/u",
    "linkedin.com/in/",
    "instagram.com/",
    "linktr.ee/",
)
# An e-mail address names its owner: removed from every text.
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_EMAIL_REMOVED = "[email removed]"
# Any link (post_urls="drop"): a post's, its media's, or any page that may show a person.
_LINK = re.compile(
    # Up to the next space or bracket; a full stop or comma after it ends the sentence.
    r"(?:\b[A-Za-z][A-Za-z0-9+.-]*://|\bwww\.)[^\s<>\"'()\[\]]*[^\s<>\"'()\[\].,;:!?]",
    re.IGNORECASE,
)
_LINK_REMOVED = "[link removed]"


@functools.cache
def _handle() -> re.Pattern[str]:
    """An ``@handle`` in a text, in any script (not an e-mail's ``@``: those go first)."""
    char = word_char()
    return re.compile(rf"(?<![\w.@/])@({char}(?:(?:{char}|[.-])*{char})?)")


def _without_links(text: str, links: bool, allow: frozenset[str] = frozenset()) -> str:
    """``text`` without profile links and e-mail addresses (and, ``links``, any link);
    the profile links of ``allow``-listed accounts are kept (they are kept by name).

    Example:
        >>> _without_links("www.tiktok.com/@oatly and tiktok.com/@maya", False, {"oatly"})
        'www.tiktok.com/@oatly and [profile link removed]'
    """
    # The regexes are slow on long texts: each runs only where its sign appears.
    lower = text.lower()
    if any(host in lower for host in _PROFILE_HOSTS):
        text = _PROFILE_URL.sub(_unless_public(_URL_REMOVED, allow), text)
    if links and ("://" in text or "www." in lower):
        text = _LINK.sub(_unless_public(_LINK_REMOVED, allow), text)
    return _EMAIL.sub(_EMAIL_REMOVED, text) if "@" in text else text


def _unless_public(removed: str, allow: frozenset[str]) -> str | Callable[[re.Match[str]], str]:
    """The replacement of a link: ``removed``, unless it is an allow-listed account's
    profile page."""
    if not allow:
        return removed

    def replace(match: re.Match[str]) -> str:
        link = match.group(0)
        handle = handle_from_url(link) if _PROFILE_URL.fullmatch(link) else None
        return link if handle is not None and handle.lower() in allow else removed

    return replace


def _replacer(
    lookup: dict[tuple[str | None, str], str], source: str | None
) -> Callable[[re.Match[str]], str]:
    return lambda match: "@" + lookup[(source, match.group(1))]


def _suspect(pieces: pa.Array, links: bool = False) -> np.ndarray:
    """Which pieces of text may hold a handle, an e-mail address or a profile link (or,
    with ``links``, any link): one vectorised search, so only those few texts go through
    Python. No sign holds a space, as :func:`rdskit.frames._names.flagged` requires."""
    # One case-sensitive RE2 pass (ignore_case is several times slower): cases spelt out.
    signs = r"@|\.[Cc][Oo][Mm]/|[Ll][Ii][Nn][Kk][Tt][Rr]\.[Ee][Ee]/"
    found = pc.match_substring_regex(pieces, signs + r"|://|[Ww][Ww][Ww]\." if links else signs)
    flags: np.ndarray = pc.fill_null(found, False).to_numpy(zero_copy_only=False)
    return flags


def _normal(text: pa.Array, names: bool = False) -> pa.Array:
    """Handles as compared: trimmed, without ``@``, lower-cased; names: trimmed, inner
    whitespace collapsed, lower-cased."""
    # Once per distinct value: handles and names repeat (one per post or comment).
    return _per_distinct(text, lambda values: _normal_distinct(values, names))


def _normal_distinct(text: pa.Array, names: bool) -> pa.Array:
    trimmed = pc.utf8_trim_whitespace(text)
    if names:
        return pc.utf8_lower(pc.replace_substring_regex(trimmed, r"\s+", " "))
    return pc.utf8_lower(pc.utf8_ltrim(trimmed, "@"))


def _per_distinct(values: pa.Array, fn: Callable[[pa.Array], pa.Array]) -> pa.Array:
    """The element-wise ``fn`` of ``values``, computed once per distinct value (a
    column's values repeat: one author per post, a few labels) and taken back."""
    encoded = pc.dictionary_encode(values)
    return fn(encoded.dictionary).take(encoded.indices)


def normalise(handle: str) -> str:
    """A handle as compared: trimmed, without ``@``, lower-cased.

    Example:
        >>> normalise(" @Maya.Chen ")
        'maya.chen'
    """
    return str(_normal(pa.array([handle], pa.string()))[0].as_py())


# The same pattern in Arrow (RE2) and Python (re): ASCII classes only.
_PROFILE_URL_HANDLE = (
    r"^(?:[A-Za-z]+://)?[^/?#]+/(?:@|user/|u/|in/|c/|channel/)?"
    r"(?P<handle>[A-Za-z0-9_.-]+)/?(?:[?#].*)?$"
)


def handles_from_urls(urls: pa.Array) -> pa.Array:
    """:func:`handle_from_url` over an array (one vectorised regex)."""
    if not len(urls):
        return pa.array([], pa.string())
    return _per_distinct(urls.cast(pa.string()), _handles_from_distinct_urls)


def _handles_from_distinct_urls(urls: pa.Array) -> pa.Array:
    found = pc.extract_regex(urls, _PROFILE_URL_HANDLE)
    return pc.struct_field(found, ["handle"])


def handle_from_url(url: str | None) -> str | None:
    """The handle in a profile URL (``https://www.tiktok.com/@maya`` -> ``maya``).

    Example:
        >>> handle_from_url("https://www.reddit.com/user/oat_fan_12/")
        'oat_fan_12'
    """
    match = re.match(_PROFILE_URL_HANDLE, url.strip()) if url else None
    return match.group("handle") if match else None


# --- frames -------------------------------------------------------------------------------


def _leaves(
    array: pa.Array,
    rows: np.ndarray,
    fn: Callable[[np.ndarray, pa.Array], pa.Array | None],
    skip: frozenset[str] = frozenset(),
) -> pa.Array | None:
    """``array`` with ``fn(rows, strings)`` applied to every string inside it, however
    nested (lists, structs); ``rows`` gives each element's top-level row. None when ``fn``
    changed nothing (None from ``fn``): nothing is rebuilt then."""
    kind = array.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return fn(rows, array)
    if pa.types.is_struct(kind):
        children = array.flatten()
        fields = [
            None if field.name in skip else _leaves(child, rows, fn, skip)
            for field, child in zip(kind, children, strict=True)
        ]
        if all(f is None for f in fields):
            return None
        merged = [c if f is None else f for c, f in zip(children, fields, strict=True)]
        return pa.StructArray.from_arrays(merged, fields=list(kind), mask=array.is_null())
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        flat = pc.list_flatten(array)
        parents = pc.list_parent_indices(array).to_numpy(zero_copy_only=False)
        values = _leaves(flat, rows[parents], fn, skip)
        if values is None:
            return None
        return pa.ListArray.from_arrays(_arrow.offsets(array), values, mask=array.is_null())
    return None


def _has_strings(kind: pa.DataType) -> bool:
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return True
    if pa.types.is_struct(kind):
        return any(_has_strings(f.type) for f in kind)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _has_strings(kind.value_type)
    return False


_arrow_column = _arrow.column


def _set(out: pd.DataFrame, name: str, array: pa.Array) -> None:
    dtype = out[name].dtype
    if isinstance(dtype, pd.ArrowDtype):
        values: Any = pd.arrays.ArrowExtensionArray(array.cast(dtype.pyarrow_dtype))
    else:
        values = array.to_pandas()
    out[name] = pd.Series(values, index=out.index, name=name)


def _null(out: pd.DataFrame, name: str, where: np.ndarray | None = None) -> None:
    if name in out.columns:
        out[name] = out[name].mask(pd.Series(True if where is None else where, index=out.index))


def author_handles(frame: pd.DataFrame) -> pa.Array:
    """Each mention author's handle: from the profile URL, else an ``@headline``."""
    nulls = pa.nulls(len(frame), pa.string())
    urls = _arrow_column(frame, "author_title_url") if "author_title_url" in frame else nulls
    heads = _arrow_column(frame, "author_headline") if "author_headline" in frame else nulls
    heads = heads.cast(pa.string())
    at = pc.fill_null(pc.starts_with(heads, "@"), False)
    from_head = pc.if_else(at, pc.utf8_slice_codeunits(heads, 1), nulls)
    return pc.coalesce(handles_from_urls(urls), from_head)


def strings(frame: pd.DataFrame, name: str) -> list[str | None] | None:
    """A column as Python strings (None when the frame lacks it)."""
    if name not in frame.columns:
        return None
    values: list[str | None] = _arrow_column(frame, name).cast(pa.string()).to_pylist()
    return values


class _Pass:
    """One pseudonymisation of a frame: the state its steps share (the copy being
    rewritten, the people known so far, what was done), one method per frame kind and one
    for every other text."""

    def __init__(self, frame: pd.DataFrame, people: Pseudonymiser, post_urls: PostUrls) -> None:
        self.frame = frame  # the input, read only
        self.out = frame.copy()
        self.people = people
        self.post_urls = post_urls
        self.sources = _arrow_column(self.out, "source").cast(pa.string())
        self.encoded_sources = pc.dictionary_encode(self.sources)
        self.done = _Done(self.out)
        self.known = Known()
        self.allowed = np.zeros(len(self.out), dtype=bool)  # rows whose author is a public account
        # Every other text, nested ones included: @handles, profile links, the frame's people
        # written out; a value that is only a link to the post's content is removed.
        self.content_links = post_urls == "drop"
        self.counts = {"rewritten": 0, "removed": 0}
        # A public account's own post keeps the links it wrote (its shop, its pages); its
        # comments are written by commenters and do not (set per column in texts()).
        self.keep_links: np.ndarray | None = None

    def handles(self, name: str, values: pa.Array | None = None, names: bool = False) -> None:
        if name in self.out.columns:
            raw = _arrow_column(self.out, name) if values is None else values
            new = self.people.handles(self.sources, raw, names=names)
            self.known.add(self.sources, raw, new, kept=bool(self.people.allow))
            self.done.replace(name, new)

    def person(self, handle: str, name: str) -> None:
        """The ``handle`` and ``name`` columns both become the person's pseudonym."""
        if handle not in self.out.columns:
            self.handles(name, names=True)
            return
        shown = _arrow_column(self.out, name) if name in self.out.columns else None
        pseudonyms = _people(
            self.people, self.known, self.sources, _arrow_column(self.out, handle), shown
        )
        for column in (handle, name) if shown is not None else (handle,):
            self.done.replace(column, pseudonyms)

    def mentions(self) -> None:
        """The author's handle, name, headline and links; sound authors; commenters."""
        author = author_handles(self.out)
        if self.people.allow:
            self.allowed = self.people.allowed(_normal(author)).to_numpy(zero_copy_only=False)
        pseudonyms = self.people.handles(self.sources, author)
        self.known.add(self.sources, author, pseudonyms, kept=bool(self.people.allow))
        title = None
        if "author_title" in self.out.columns:
            # The display name becomes the handle's pseudonym (the same person everywhere).
            kept = _arrow_column(self.out, "author_title")
            title = self.people.people(self.sources, author, kept, by_handle=pseudonyms)
            title = pc.if_else(pa.array(self.allowed), kept, title)
            self.known.add(self.sources, kept, title, kept=bool(self.people.allow))
            self.done.replace("author_title", title)
        if "author_headline" in self.out.columns:
            head = _arrow_column(self.out, "author_headline")
            is_handle = pc.fill_null(pc.starts_with(head, "@"), False)
            new = pc.binary_join_element_wise(pa.scalar("@"), pseudonyms, "")
            mask = pc.and_(is_handle, pc.invert(pa.array(self.allowed)))
            self.done.replace("author_headline", pc.if_else(mask, new, head))
        profile = ~self.allowed
        for name in ("author_title_url", "author_avatar_url"):
            self.done.remove(name, profile)
        if "author_headline_url" in self.out.columns:
            # The headline link is the profile (tiktok...) or a community (reddit r/...).
            link = _arrow_column(self.out, "author_headline_url").cast(pa.string())
            if "author_title_url" in self.frame.columns:
                same = pc.equal(
                    link, _arrow_column(self.frame, "author_title_url").cast(pa.string())
                )
                same = pc.or_kleene(same, handles_from_urls(link).is_valid())
            else:
                same = handles_from_urls(link).is_valid()
            # A community link (r/Cooking) stays: it names a place, not a person.
            community = pa.array(_matches(link, r"/r/[^/]+/?$", "/r/"))
            own = pc.and_kleene(same, pc.invert(community))
            self.done.remove(
                "author_headline_url", pc.fill_null(own, False).to_numpy(False) & profile
            )
        if "sound_author" in self.out.columns:
            # An original sound is its creator's: the sound's links lead to them.
            self.handles("sound_author", names=True)
        if self.post_urls == "drop" and "url" in self.out.columns:
            self.done.remove("url", profile)
        if "comments" in self.out.columns:
            # Commenters now (so each is self.known by name before any text is searched);
            # the comments' other texts with every other column's, below.
            before = _arrow_column(self.out, "comments")
            after = _commenters(self.people, self.known, self.sources, before)
            if not after.equals(before):
                _set(self.out, "comments", after)
                fields = pc.list_flatten(after).type
                self.done.pseudonymised += [
                    f"comments[].{f}"
                    for f in ("author_username", "author_name")
                    if f in fields.names
                ]
        _warn_ads(self.out, pseudonyms if title is None else title, self.allowed)

    def comments(self) -> None:
        """The commenter's username and name."""
        self.person("author_username", "author_name")

    def profiles(self) -> None:
        """The profile's username, names, links and every other platform handle."""
        self.person("username", "display_name")
        self.handles("platform_vanity_name")
        for name in ("avatar_url", "external_link"):
            self.done.remove(name)
        for name in [
            c for c in self.out.columns if c.startswith("platform_") and c not in self.done.names
        ]:
            if pd.api.types.is_string_dtype(self.out[name].dtype) or self.out[name].dtype == object:
                self.handles(name, _arrow_column(self.out, name).cast(pa.string()), names=True)

    def texts(self) -> None:
        """Every other text column, nested texts included, searched for the people known."""
        for name in self.out.columns:
            if name in self.done.names or name in _NOT_PEOPLE or name.startswith("ad_"):
                continue
            if isinstance(self.out[name].dtype, pd.CategoricalDtype):
                continue
            array = _arrow_column(self.out, name)
            if not _has_strings(array.type):
                continue
            self.counts.update(rewritten=0, removed=0)
            self.keep_links = self.allowed if self.allowed.any() and name != "comments" else None
            skip = _COMMENT_KEYS if name == "comments" else frozenset()
            scrubbed = _leaves(array, np.arange(len(self.out)), self._clean, skip)
            if scrubbed is not None:
                _set(self.out, name, scrubbed)
                self.done.count(name, **self.counts)

    def _clean(self, rows: np.ndarray, texts: pa.Array) -> pa.Array | None:
        texts = texts.cast(pa.string())
        if self.content_links and self.keep_links is None and _links_only(texts):
            # A column of links (thumbnails, media files) goes whole, unsearched.
            self.counts["removed"] += len(texts) - texts.null_count
            return pa.nulls(len(texts), pa.string())
        encoded = pc.dictionary_encode(texts)
        drop = scan = None
        if self.content_links:
            # A value that is a link and nothing else (a media file, a sound's page) is
            # removed, and a link removed from every row that holds it is not searched.
            link = _link_values(encoded.dictionary)
            if link.any():
                codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
                codes = codes.astype(np.int64)
                present = codes >= 0
                drop = np.zeros(len(texts), dtype=bool)
                drop[present] = link[codes[present]]
                if self.keep_links is not None:
                    drop &= ~self.keep_links[rows]
                scan = np.zeros(len(link), dtype=bool)
                scan[codes[present & ~drop]] = True
        changed = self.people.scrubbed(
            self.encoded_sources,
            rows,
            texts,
            self.known,
            links=self.content_links,
            encoded=encoded,
            scan=scan,
            keep=self.keep_links,
        )
        if changed is not None:
            differs = pc.fill_null(pc.not_equal(texts, changed), False)
            if drop is not None:
                differs = pc.and_(differs, pa.array(~drop))
            self.counts["rewritten"] += int(pc.sum(differs).as_py() or 0)
        if drop is None or not drop.any():
            return changed
        self.counts["removed"] += int(drop.sum())
        kept = texts if changed is None else changed
        return pc.if_else(pa.array(drop), pa.nulls(len(texts), pa.string()), kept)


def pseudonymise_frame(
    frame: pd.DataFrame,
    key: str | bytes | Pseudonymiser | None,
    *,
    kind: str,
    allow: Iterable[str] = (),
    post_urls: PostUrls = "drop",
    text: TextPolicy = "keep",
    prefix: str = "u_",
    length: int = 12,
) -> pd.DataFrame:
    """A pseudonymised copy of a ``mentions``, ``comments`` or ``profiles`` frame (see
    the module docs, which also explain why verbatim ``text`` re-identifies people); the
    input is left unchanged. ``key`` may be a :class:`Pseudonymiser` (``allow``,
    ``prefix`` and ``length`` are then its own). Brands are accounts too: list them in
    ``allow``, or their names become pseudonyms in every text (pseudonymising the authors
    of ads warns, :class:`rdskit.errors.AdvertiserWarning`).

    Example:
        >>> from rdskit.frames import mentions_frame
        >>> df = mentions_frame([{"source": "tiktok", "id": "1",
        ...     "author": {"title": "Maya Chen", "title_url": "https://www.tiktok.com/@maya"},
        ...     "text": "thanks @maya!"}])
        >>> out = pseudonymise_frame(df, "a key of thirty-two characters..", kind="mentions")
        >>> out.loc[0, "author_title"] == out.loc[0, "text"][8:22], out.loc[0, "author_title_url"]
        (True, <NA>)
    """
    people = (
        key
        if isinstance(key, Pseudonymiser)
        else Pseudonymiser(key, allow=allow, prefix=prefix, length=length)
    )
    del key  # only the hidden keyed state stays: no traceback's locals show the key
    if kind not in ("mentions", "comments", "profiles"):
        raise InvalidParameter(
            "kind", f"pseudonymise() works on mentions, comments and profiles frames, not {kind}"
        )
    if post_urls not in ("drop", "keep"):
        raise InvalidParameter(
            "post_urls",
            f"must be 'drop' or 'keep', not {post_urls!r} (every platform's post page shows "
            "its author, so no post URL is safe to keep by its look)",
        )
    if text not in ("keep", "drop", "truncate"):
        raise InvalidParameter("text", f"must be 'keep', 'drop' or 'truncate', not {text!r}")
    if "source" not in frame.columns:
        raise InvalidParameter(
            "source",
            f"pseudonymise() needs the column 'source' (handles are per source); "
            f"this {kind} frame has {list(frame.columns)[:8]}",
        )
    step = _Pass(frame, people, post_urls)
    {"mentions": step.mentions, "comments": step.comments, "profiles": step.profiles}[kind]()
    step.texts()
    out, done = step.out, step.done
    if text != "keep":
        _verbatim(out, VERBATIM_TEXTS.get(kind, ()), text, done)
    settings = {
        **people.settings(),
        "post_urls": post_urls,
        "text": text,
        "people_known": len(step.known),
        # What every text was searched for (methods() names exactly these).
        "in_texts": [
            "handles",
            "names",
            "e-mail addresses",
            _links_searched(step.content_links, bool(people.allow)),
        ],
        **done.record(),
    }
    return add_step(out, "pseudonymise", settings)


def _warn_ads(out: pd.DataFrame, authors: pa.Array, allowed: np.ndarray) -> None:
    """Warn when ads' authors were pseudonymised: advertisers are brands, whose names
    then become pseudonyms in every text (``mentioned_brands`` too)."""
    if "content_type" not in out.columns:
        return
    ads = pc.equal(_arrow_column(out, "content_type").cast(pa.string()), "ad")
    mask = pc.and_(pc.fill_null(ads, False), pa.array(~allowed))
    count = len(pc.unique(pc.drop_null(authors.filter(mask))))
    if count:
        warn(
            f"{count} ad author{'s were' if count > 1 else ' was'} pseudonymised (accounts, "
            "one per source): an advertiser is usually a brand, whose name then becomes a "
            "pseudonym in every text (mentioned_brands included); keep public accounts with "
            "pseudonymise(key, allow=[their handles])",
            AdvertiserWarning,
        )


def _links_only(texts: pa.Array) -> bool:
    """Whether every value of ``texts`` (one at least) is a link and nothing else."""
    first = pc.index(texts.is_valid(), True).as_py()
    # The first value decides whether the whole column is read: most columns are not.
    if first < 0 or not _link_values(texts[first : first + 1])[0]:
        return False
    valid = texts.is_valid().to_numpy(zero_copy_only=False)
    return bool(_link_values(texts)[valid].all())


def _link_values(texts: pa.Array) -> np.ndarray:
    """Which values of ``texts`` are a link and nothing else (:data:`_URL_ONLY`); a null
    is not."""
    texts = texts.cast(pa.string())
    # Most are web links with no space: "http(s)://" then no space nor control character
    # (no byte <= 32) is a link as it stands. Only the others are read by the regex.
    # (The regex is anchored: it gives up on other texts within their first characters,
    # but reads a whole link.)
    web = pc.or_(pc.starts_with(texts, "https://"), pc.starts_with(texts, "http://"))
    out: np.ndarray = pc.fill_null(web, False).to_numpy(zero_copy_only=False)
    if not out.any():
        only: np.ndarray = pc.fill_null(pc.match_substring_regex(texts, _URL_ONLY), False).to_numpy(
            False
        )
        return only
    raw, offsets = _arrow.string_bytes(texts)
    if len(raw) and raw.min() <= 32:  # (min: no array of flags when none is)
        spaced = np.flatnonzero(raw <= 32)
        out[np.searchsorted(offsets, spaced, side="right") - 1] = False
    _match_at(texts, _URL_ONLY, np.flatnonzero(~out), out)
    return out


def _matches(texts: pa.Array, regex: str, sign: str) -> np.ndarray:
    """Which ``texts`` match ``regex`` (a null does not), which cannot match a text
    without the string ``sign``: only the texts that hold it are read by the regex."""
    may = pc.fill_null(pc.match_substring(texts, sign), False)
    out = np.zeros(len(texts), dtype=bool)
    _match_at(texts, regex, np.flatnonzero(may.to_numpy(zero_copy_only=False)), out)
    return out


def _match_at(texts: pa.Array, regex: str, where: np.ndarray, out: np.ndarray) -> None:
    """Set ``out[where]`` to whether those ``texts`` match ``regex`` (a null does not):
    only they are read by the regex."""
    if len(where):
        found = pc.match_substring_regex(texts.take(pa.array(where)), regex)
        out[where] = pc.fill_null(found, False).to_numpy(zero_copy_only=False)


def _links_searched(links: bool, allow: bool) -> str:
    """The links removed from texts, as the record says (``in_texts``)."""
    if not links:
        return "profile links (not public accounts')" if allow else "profile links"
    return "links (not in public accounts' posts, nor to their profiles)" if allow else "links"


class _Done:
    """What pseudonymisation did to a frame, column by column, for its provenance:
    ``pseudonymised`` (columns of handles and names), ``removed`` (values removed per
    column) and ``rewritten`` (texts changed per column: handles, names or links
    replaced, or cut; nested columns count their texts)."""

    def __init__(self, out: pd.DataFrame) -> None:
        self.out = out
        self.names: set[str] = set()
        self.pseudonymised: list[str] = []
        self.removed: dict[str, int] = {}
        self.rewritten: dict[str, int] = {}

    def replace(self, name: str, values: pa.Array) -> None:
        before = _arrow_column(self.out, name).cast(pa.string())
        _set(self.out, name, values)
        self.names.add(name)
        # Recorded only when it changed (allow-listed accounts' names are kept).
        if name != "comments" and not before.equals(values.cast(pa.string())):
            self.pseudonymised.append(name)

    def remove(self, name: str, where: np.ndarray | None = None) -> None:
        if name not in self.out.columns:
            return
        before = int(self.out[name].notna().sum())
        _null(self.out, name, where)
        self.names.add(name)
        gone = before - int(self.out[name].notna().sum())
        if gone:
            self.removed[name] = self.removed.get(name, 0) + gone

    def count(self, name: str, rewritten: int, removed: int) -> None:
        if rewritten:
            self.rewritten[name] = self.rewritten.get(name, 0) + rewritten
        if removed:
            self.removed[name] = self.removed.get(name, 0) + removed

    def record(self) -> dict[str, Any]:
        return {
            "pseudonymised": sorted(set(self.pseudonymised)),
            "removed": dict(sorted(self.removed.items())),
            "rewritten": dict(sorted(self.rewritten.items())),
        }


def _verbatim(out: pd.DataFrame, columns: Sequence[str], policy: TextPolicy, done: _Done) -> None:
    """Drop or truncate the verbatim texts (``column`` or ``column[].field``)."""
    for path in columns:
        name, _, field = path.partition("[].")
        if name not in out.columns:
            continue
        array = _arrow_column(out, name)
        if field:
            new = _list_field(array, field, lambda texts: _cut(texts, policy))
            flat = pc.list_flatten(array)
            texts = pc.struct_field(flat, [field]) if new is not None else pa.array([])
        else:
            texts = array.cast(pa.string())
            new = _cut(texts, policy)
        if new is None:
            continue
        _set(out, name, new)
        present = len(texts) - texts.null_count
        if present:
            label = f"{path} ({'dropped' if policy == 'drop' else 'truncated'})"
            target = done.removed if policy == "drop" else done.rewritten
            target[label] = present


def _cut(texts: pa.Array, policy: TextPolicy) -> pa.Array:
    if policy == "drop":
        return pa.nulls(len(texts), pa.string())
    words = TRUNCATE_WORDS - 1
    return pc.replace_substring_regex(texts, rf"(?s)^(\s*(?:\S+\s+){{{words}}}\S+)\s.*$", r"\1 […]")


def _list_field(lists: pa.Array, field: str, fn: Callable[[pa.Array], pa.Array]) -> pa.Array | None:
    """A ``list<struct>`` column with ``fn`` applied to one string field of its items."""
    flat = pc.list_flatten(lists)
    if not pa.types.is_struct(flat.type) or flat.type.get_field_index(field) < 0:
        return None
    names = flat.type.names
    children = dict(zip(names, flat.flatten(), strict=True))
    children[field] = fn(children[field].cast(pa.string()))
    items = pa.StructArray.from_arrays(
        list(children.values()), fields=list(flat.type), mask=flat.is_null()
    )
    return pa.ListArray.from_arrays(_arrow.offsets(lists), items, mask=lists.is_null())


def _people(
    people: Pseudonymiser,
    known: Known,
    sources: pa.Array,
    handles: pa.Array,
    names: pa.Array | None,
) -> pa.Array:
    """Each row's person's pseudonym (:meth:`Pseudonymiser.people`), each person (source,
    handle, name) worked out and learnt by ``known`` once: people repeat, one per
    comment."""
    keys = [sources, handles] if names is None else [sources, handles, names]
    # The same people as last time (a mentions frame's commenters, now its comments
    # frame), with the same key and settings: their pseudonyms and what was learnt.
    ident = f"{people._key.ident} {sorted(people.settings().items())}"
    for last, inputs, pseudonyms, learnt in _LAST_PEOPLE:
        if last == ident and len(inputs) == len(keys) and all(map(pa.Array.equals, inputs, keys)):
            known.learn(learnt)
            return pseudonyms
    first, codes = _arrow.distinct_rows(keys)
    once = [k.take(first) for k in keys]
    pseudonyms = people.people(once[0], once[1], None if names is None else once[2])
    since = len(known.learnt())
    for idents in once[1:]:
        known.add(once[0], idents, pseudonyms, kept=bool(people.allow), repeats=False)
    pseudonyms = pseudonyms.take(codes)
    _LAST_PEOPLE[:] = [(ident, keys, pseudonyms, known.learnt(since))]
    return pseudonyms


def _commenters(
    people: Pseudonymiser, known: Known, sources: pa.Array, comments: pa.Array
) -> pa.Array:
    """The ``comments`` list column with commenters pseudonymised (and learnt by
    ``known``, so one commenter named in another's comment is found)."""
    flat = pc.list_flatten(comments)
    if not pa.types.is_struct(flat.type) or flat.type.get_field_index("author_username") < 0:
        return comments
    where = sources.take(pc.list_parent_indices(comments))
    fields = dict(zip(flat.type.names, flat.flatten(), strict=True))
    pseudonyms = _people(people, known, where, fields["author_username"], fields.get("author_name"))
    fields["author_username"] = pseudonyms
    if "author_name" in fields:
        fields["author_name"] = pseudonyms
    values = pa.StructArray.from_arrays(
        list(fields.values()), fields=list(flat.type), mask=flat.is_null()
    )
    return pa.ListArray.from_arrays(_arrow.offsets(comments), values, mask=comments.is_null())
