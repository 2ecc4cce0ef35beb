"""The people of a frame found by name in texts (for :mod:`rdskit.frames.pseudonymise`).

A name or bare handle is found as whole words: a text's words are letters, digits,
combining marks and ``_``, joined by single ``.``, ``'``, ``’`` or ``-`` (``maya.chen``,
``o'neil``, ``नमस्ते``; ``_word_pattern``), compared lower-cased and in
Unicode NFC (an ``é`` typed as ``e`` + accent is the same letter). The words of a name
may be separated in a text by any whitespace or by up to three other characters
(``Dr. Maya Chen``, ``Maya (Chen)``). A name is therefore never found inside a longer
word (``Sam`` is not in ``sample``), and scripts written without spaces between words
(Chinese, Japanese, Thai) are only found where the name stands apart.

Finding is in two steps: :meth:`Known.found` marks, for a whole column at once in Arrow,
the texts one of whose words is the first word of a known name; :meth:`Known.replace`
rewrites those few texts in Python. Both read words the same way, so every text the
second would change is marked by the first.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import unicodedata
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rdskit.frames import _arrow

__all__ = ["MIN_IDENT", "Known", "canonical", "word_char", "words_of"]

MIN_IDENT = 4  # shorter names would rewrite ordinary words ("Al", "Jo")
_JOINERS = ".'’-"
# The words of _word_pattern in RE2: runs of word chars and joiners, split at doubled
# joiners; punctuation that may stand around a word ("(Maya", "chen,", "#oatly").
_SPLIT = r"[^\pL\pN\pM_.'’-]+|[.'’-]{2,}"
_TRIM = ".,;:!?()[]{}<>\"'“”‘’«»#@*…/|~-"


@functools.cache
def word_char() -> str:
    """A word char as a Python regex class: ``\\w`` (``isalnum()`` or ``_``) and
    combining marks, which ``\\w`` leaves out (Devanagari vowel signs, Arabic
    diacritics), as RE2's ``[\\pL\\pN\\pM_]``."""
    marks: list[str] = []
    start = None
    for code in [*range(0x40000), *range(0xE0000, 0xE0200), 0xE0200]:
        is_mark = code < 0xE0200 and unicodedata.category(chr(code))[0] == "M"
        if is_mark and start is None:
            start = code
        elif not is_mark and start is not None:
            marks.append(f"{re.escape(chr(start))}-{re.escape(chr(code - 1))}")
            start = None
    return rf"[\w{''.join(marks)}]"


@functools.cache
def _word_pattern() -> re.Pattern[str]:
    """WORD: word chars joined by single joiners."""
    char = word_char()
    return re.compile(rf"{char}+(?:[.'’-]{char}+)*")


# A canonical name: words joined by single spaces (most names already are).
_CANONICAL = r"^[\pL\pN\pM_]+(?:[.'’-][\pL\pN\pM_]+)*(?: [\pL\pN\pM_]+(?:[.'’-][\pL\pN\pM_]+)*)*$"
# A possessive or contraction after a name ("maya's", "maya'll"; ’ is read as ').
_ENDING = re.compile(r"'[^\W\d_]{1,2}$")
_ENDING_RE2 = r"'\pL{1,2}$"
_GAP_MAX = 3  # non-space characters allowed between the words of a name
_CHUNK = 20_000  # texts searched by one thread
_WORKERS = min(4, os.cpu_count() or 1)


def words_of(texts: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """Every word of ``texts`` as :meth:`Known.replace` reads them (:func:`_folded`),
    possibly with a few extra ones, and the index of the text holding each."""
    split = pc.utf8_split_whitespace(_folded(texts.cast(pa.string())))
    flat = pc.utf8_trim(pc.list_flatten(split), _TRIM)
    parents = pc.list_parent_indices(split).to_numpy(zero_copy_only=False)
    # Most words are letters and digits only: those are words as they stand. The others
    # (joiners, "ask:maya", "x(maya", emoji, marks) are split as _word_pattern would.
    other = pc.invert(pc.utf8_is_alnum(flat)).to_numpy(zero_copy_only=False)
    if not other.any():
        return flat, parents
    pieces = pc.split_pattern_regex(flat.filter(pa.array(other)), _SPLIT)
    extra = pc.utf8_trim(pc.list_flatten(pieces), _JOINERS)
    extra_parents = parents[other][pc.list_parent_indices(pieces).to_numpy(zero_copy_only=False)]
    # "maya's", "maya'll": the word is also what stands before its ending.
    base = pc.replace_substring_regex(extra, _ENDING_RE2, "")
    return (
        pa.concat_arrays([flat, extra, base]),
        np.concatenate([parents, extra_parents, extra_parents]),
    )


@functools.cache
def _arrow_composes() -> bool:
    """Whether Arrow's ``utf8_normalize(..., "NFC")`` composes: pyarrow 20 decomposes
    whatever form it is asked for (every form gives NFD), which would leave every accented
    name unmatched; then NFC is done in Python."""
    return pc.utf8_normalize(pa.array(["e\u0301"]), "NFC").to_pylist() == ["\u00e9"]


def _nfc(texts: pa.Array) -> pa.Array:
    """``texts`` in NFC (Arrow's kernel where it works, else Python once per distinct text)."""
    if _arrow_composes():
        return pc.utf8_normalize(texts, "NFC")
    encoded = pc.dictionary_encode(texts)
    values = [
        None if v is None else unicodedata.normalize("NFC", v)
        for v in encoded.dictionary.to_pylist()
    ]
    return pa.array(values, pa.string()).take(encoded.indices)


def _folded(texts: pa.Array) -> pa.Array:
    """Texts as compared: lower-cased, NFC, ``’`` as ``'``, ``ς`` as ``σ`` (Python
    lower-cases a final sigma as ``ς``, Arrow as ``σ``)."""
    lower = pc.utf8_lower(texts)
    if pc.all(pc.string_is_ascii(lower)).as_py() is not False:
        return lower
    lower = _nfc(lower)
    return pc.replace_substring(pc.replace_substring(lower, "’", "'"), "ς", "σ")


def _fold(word: str) -> str:
    """A word as :func:`_folded` makes it (``word`` is in NFC)."""
    return word.lower().replace("’", "'").replace("ς", "σ")


def canonical(names: pa.Array) -> pa.Array:
    """Names and bare handles as searched for: lower-cased, NFC, their words (as
    :func:`words_of` reads them) joined by single spaces; ``"Dr. Maya  Chen 🌱"`` is
    ``"dr maya chen"``. Once per distinct value."""
    encoded = pc.dictionary_encode(names.cast(pa.string()))
    values = _folded(pc.utf8_trim_whitespace(encoded.dictionary))
    values = pc.replace_substring_regex(values, r"\s+", " ")
    plain = pc.fill_null(pc.match_substring_regex(values, _CANONICAL), True)
    odd = np.flatnonzero(~plain.to_numpy(zero_copy_only=False))
    if len(odd):
        word = _word_pattern()
        odd_values = values.take(pa.array(odd)).to_pylist()
        fixed = [" ".join(_fold(w) for w in word.findall(v)) for v in odd_values]
        mask = np.zeros(len(values), dtype=bool)
        mask[odd] = True
        values = pc.replace_with_mask(values, pa.array(mask), pa.array(fixed, pa.string()))
    return values.take(encoded.indices)


class Known:
    """The people of one frame by the display names and bare handles they may be written
    as in texts (:func:`canonical`, four characters or more), with their pseudonyms: per
    source first, else the first seen on any source.

    Example:
        >>> known = Known()
        >>> known.add(pa.array(["tiktok"]), pa.array(["Maya Chen"]), pa.array(["u_1"]))
        >>> known.replace("tiktok", "met maya  chen, Maya Chen's friend (MAYA-chen: no)")
        "met u_1, u_1's friend (MAYA-chen: no)"
    """

    def __init__(self) -> None:
        self.by_source: dict[tuple[str | None, str], str] = {}
        self.anywhere: dict[str, str] = {}
        self.longest = 1
        self._first_words: pa.Array | None = None
        self._starts: frozenset[str] = frozenset()

    def __len__(self) -> int:
        return len(self.anywhere)

    def add(self, sources: pa.Array, idents: pa.Array, pseudonyms: pa.Array) -> None:
        """Learn that ``idents[i]`` on ``sources[i]`` is ``pseudonyms[i]`` (allow-listed
        people, kept as they are, are left out)."""
        sources, idents = sources.cast(pa.string()), idents.cast(pa.string())
        pseudonyms = pseudonyms.cast(pa.string())
        # Each (source, ident) as written once, the first seen winning (people repeat:
        # one per post or comment).
        firsts = _arrow.first_indices([sources, idents])
        if firsts is not None:
            sources, idents, pseudonyms = (a.take(firsts) for a in (sources, idents, pseudonyms))
        normal = canonical(pc.utf8_ltrim(idents, "@"))
        keep = pc.and_(
            pc.greater_equal(pc.utf8_length(normal), MIN_IDENT),
            pc.not_equal(normal, canonical(pseudonyms)),
        )
        keep = pc.fill_null(keep, False)
        table = pa.table(
            {"s": sources.filter(keep), "i": normal.filter(keep), "p": pseudonyms.filter(keep)}
        )
        if not table.num_rows:
            return
        # The dicts are built and merged in C, reversed so that the first row of a
        # (source, ident) is written last and wins; people already known keep theirs.
        source, ident, new = (table[c].to_pylist()[::-1] for c in "sip")
        self.by_source = {
            **dict(zip(zip(source, ident, strict=True), new, strict=True)),
            **self.by_source,
        }
        self.anywhere = {**dict(zip(ident, new, strict=True)), **self.anywhere}
        spaces = pc.max(pc.count_substring(table["i"], " ")).as_py()
        self.longest = max(self.longest, spaces + 1)
        self._first_words = None

    def first_words(self) -> pa.Array:
        """The first word of every name and handle."""
        if self._first_words is None:
            idents = pa.array(list(self.anywhere), pa.string())
            firsts = pc.unique(pc.list_element(pc.split_pattern(idents, " ", max_splits=1), 0))
            self._starts = frozenset(firsts.to_pylist())
            self._first_words = firsts
        return self._first_words

    def found(self, texts: pa.Array) -> np.ndarray:
        """Which texts may write one of them out: each text's words looked up in one
        vectorised hash lookup, so the cost does not grow with how many people are
        known."""
        hits = np.zeros(len(texts), dtype=bool)
        if not self.anywhere or not len(texts):
            return hits
        first_words = self.first_words()

        def search(start: int) -> np.ndarray:
            words, rows = words_of(texts.slice(start, _CHUNK))
            known = pc.fill_null(pc.is_in(words, value_set=first_words), False)
            return start + rows[known.to_numpy(zero_copy_only=False)]

        # Arrow releases the GIL: the chunks of a long column are searched in parallel.
        starts = range(0, len(texts), _CHUNK)
        workers = min(len(starts), _WORKERS)
        if workers > 1:
            with ThreadPoolExecutor(workers) as pool:
                found = list(pool.map(search, starts))
        else:
            found = [search(0)]
        hits[np.concatenate(found)] = True
        return hits

    def replace(self, source: str | None, text: str) -> str:
        """``text`` with every known name or bare handle replaced by its pseudonym (the
        text in NFC when one was)."""
        if not unicodedata.is_normalized("NFC", text):
            new = self.replace(source, unicodedata.normalize("NFC", text))
            return text if new == unicodedata.normalize("NFC", text) else new
        words = [(m.start(), m.end(), _fold(m.group())) for m in _word_pattern().finditer(text)]
        self.first_words()
        starts = self._starts
        out: list[str] = []
        last = i = 0
        while i < len(words):
            # Only a name's first word (or it with an ending: "maya's") starts a name.
            first = words[i][2]
            if first not in starts and _ENDING.sub("", first) not in starts:
                i += 1
                continue
            for n in range(min(self.longest, len(words) - i), 0, -1):
                span = words[i : i + n]
                if n > 1 and not all(_gap(text[a[1] : b[0]]) for a, b in itertools.pairwise(span)):
                    continue
                ident = " ".join(w[2] for w in span)
                # "Maya Chen's", "Maya Chen'll": the name and its ending.
                end = span[-1][1]
                ending = _ENDING.search(ident) if ident not in self.anywhere else None
                if ending:
                    ident, end = ident[: ending.start()], end - len(ending.group())
                new = self.by_source.get((source, ident)) or self.anywhere.get(ident)
                if new is not None:
                    out += [text[last : span[0][0]], new]
                    last, i = end, i + n
                    break
            else:
                i += 1
        return "".join(out) + text[last:] if out else text


def _gap(between: str) -> bool:
    """Whether two words with ``between`` them may be two words of one name."""
    return between.isspace() or (len(between.strip()) <= _GAP_MAX and "\n" not in between)
