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
import re
import unicodedata
from collections.abc import Callable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rdskit.frames import _arrow

__all__ = ["MIN_IDENT", "Known", "canonical", "flagged", "word_char", "words_of"]

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


# A canonical name: words joined by single spaces (most names already are). In ASCII
# for RE2 (its Unicode classes take milliseconds to compile, on every call), and for
# Python's re (the other names) with the same word characters as RE2's [\pL\pN\pM_].
_CANONICAL_ASCII = r"^\w+(?:[.'-]\w+)*(?: \w+(?:[.'-]\w+)*)*$"


@functools.cache
def _canonical_pattern() -> re.Pattern[str]:
    word = word_char()
    return re.compile(rf"{word}+(?:[.'’-]{word}+)*(?: {word}+(?:[.'’-]{word}+)*)*")


# A possessive or contraction after a name ("maya's", "maya'll"; ’ is read as ').
_ENDING = re.compile(r"'[^\W\d_]{1,2}$")
_GAP_MAX = 3  # non-space characters allowed between the words of a name
_FIND_MAX = 100  # more first words than this: a text's words are read, not looked for


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
    # "maya's", "maya'll": the word is also what stands before its ending, a ' and one
    # or two letters (_ENDING; no regex: RE2 takes milliseconds to compile \pL).
    quoted = pc.match_substring(extra, "'").to_numpy(zero_copy_only=False)
    words = extra.filter(pa.array(quoted))
    parts = pc.split_pattern(words, "'", max_splits=1, reverse=True)
    before, after = pc.list_element(parts, 0), pc.list_element(parts, 1)
    ending = pc.and_(pc.utf8_is_alpha(after), pc.less_equal(pc.utf8_length(after), 2))
    base = pc.if_else(ending, before, words)
    return (
        pa.concat_arrays([flat, extra, base]),
        np.concatenate([parents, extra_parents, extra_parents[quoted]]),
    )


def _pieces(texts: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """``texts`` cut where each run of non-spaces begins, and where each text's pieces
    begin (text ``i`` holds pieces ``starts[i]`` to ``starts[i + 1] - 1``).

    A piece is one run and the spaces after it (or a text's leading spaces); cutting only
    at ASCII spaces (and control characters) changes nothing, as :func:`words_of` splits
    a piece at any other space or character that is not in a word itself. The pieces
    share the texts' bytes: only their offsets are new, found in numpy (Arrow's
    splitting kernels copy every word, several times slower).

    Example:
        >>> pieces, starts = _pieces(pa.array(["hi  maya", None, "", " x"]))
        >>> pieces.to_pylist(), starts.tolist()
        (['hi  ', 'maya', ' ', 'x'], [0, 2, 2, 2, 4])
    """
    texts = texts.cast(pa.string())
    if texts.null_count:
        texts = pc.fill_null(texts, "")  # a null's bytes, if any, are not its text
    raw, offsets = _arrow.string_bytes(texts)
    if not len(raw):
        return pa.array([], pa.string()), np.zeros(len(texts) + 1, np.int64)
    # ASCII spaces and control characters (never in a word; never a byte of a longer
    # UTF-8 character): a piece begins where a run of them ends, and where a text does.
    space = raw <= 32
    cut = np.empty(len(raw), dtype=bool)
    cut[0] = True
    np.greater(space[:-1], space[1:], out=cut[1:])
    starts = offsets[:-1]
    cut[starts[starts < len(raw)]] = True
    at = np.flatnonzero(cut).astype(np.int32)
    bounds = np.empty(len(at) + 1, np.int32)
    bounds[:-1] = at
    bounds[-1] = len(raw)
    pieces = pa.StringArray.from_buffers(len(at), pa.py_buffer(bounds), pa.py_buffer(raw))
    return pieces, np.searchsorted(at, offsets)


@functools.cache
def _arrow_composes() -> bool:
    """Whether Arrow's ``utf8_normalize(..., "NFC")`` composes: pyarrow 20 decomposes
    whatever form it is asked for (every form gives NFD), which would leave every accented
    name unmatched; then NFC is done in Python."""
    composed: list[str] = pc.utf8_normalize(pa.array(["e\u0301"]), "NFC").to_pylist()
    return composed == ["\u00e9"]


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
    ascii = pc.fill_null(pc.string_is_ascii(values), True).to_numpy(zero_copy_only=False)
    plain = pc.fill_null(pc.match_substring_regex(values, _CANONICAL_ASCII), True)
    plain = plain.to_numpy(zero_copy_only=False) & ascii
    other = np.flatnonzero(~ascii)
    if len(other):
        full = _canonical_pattern().fullmatch
        plain[other] = [full(v) is not None for v in values.take(pa.array(other)).to_pylist()]
    odd = np.flatnonzero(~plain)
    if len(odd):
        word = _word_pattern()
        odd_values = values.take(pa.array(odd)).to_pylist()
        fixed = [" ".join(_fold(w) for w in word.findall(v)) for v in odd_values]
        mask = np.zeros(len(values), dtype=bool)
        mask[odd] = True
        values = pc.replace_with_mask(values, pa.array(mask), pa.array(fixed, pa.string()))
    return values.take(encoded.indices)


def flagged(texts: pa.Array, *tests: Callable[[pa.Array], np.ndarray]) -> np.ndarray:
    """Which ``texts`` hold a piece for which one of ``tests`` holds. A piece is a run of
    non-spaces and the spaces after it (cut at ASCII spaces and control characters, see
    :func:`_pieces`), so a test must look for something that holds none of those (a
    word, an ``@``, ``://``); each test is given every distinct piece once (texts repeat
    their words: a post of 40 words, a language of a few thousand) and says which hold it.

    Example:
        >>> at = lambda pieces: pc.match_substring(pieces, "@").to_numpy(zero_copy_only=False)
        >>> flagged(pa.array(["hi @maya", "hi", None, "a@b.c"]), at).tolist()
        [True, False, False, True]
    """
    hits = np.zeros(len(texts), dtype=bool)
    if not len(texts):
        return hits
    pieces, starts = _pieces(texts)
    runs = pc.dictionary_encode(pieces)
    marked = np.zeros(len(runs.dictionary), dtype=bool)
    for test in tests:
        marked |= test(runs.dictionary)
    if marked.any():
        # The few marked pieces are placed in their texts (no per-piece row numbers).
        at = np.flatnonzero(marked[runs.indices.to_numpy(zero_copy_only=False)])
        hits[np.searchsorted(starts, at, side="right") - 1] = True
    return hits


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
        # What was learnt, as Arrow tables in the order learnt: source, ident (as
        # searched), pseudonym, and the ident's first word. Python lookups are built only
        # for the names the texts to rewrite may hold (:meth:`rewrite`).
        self._learnt: list[pa.Table] = []
        self._rows: pa.Table | None = None
        self._first_words: pa.Array | None = None
        self.longest = 1

    def __len__(self) -> int:
        rows = self._table()
        return int(pc.count_distinct(rows["i"]).as_py()) if rows.num_rows else 0

    def add(
        self,
        sources: pa.Array,
        idents: pa.Array,
        pseudonyms: pa.Array,
        *,
        kept: bool = True,
        repeats: bool = True,
    ) -> None:
        """Learn that ``idents[i]`` on ``sources[i]`` is ``pseudonyms[i]``. People kept as
        they are (allow-listed) are left out; ``kept=False`` says none is (no allow-list),
        which saves comparing every pseudonym with its ident; ``repeats=False`` says the
        (source, ident) pairs hardly repeat (one row per person), so they are learnt as
        they are (a repeat is harmless: the first row wins, see :class:`_Lookup`)."""
        sources, idents = sources.cast(pa.string()), idents.cast(pa.string())
        pseudonyms = pseudonyms.cast(pa.string())
        # Each (source, ident) as written once, the first seen winning (people repeat:
        # one per post or comment).
        firsts = _arrow.first_indices([sources, idents]) if repeats else None
        if firsts is not None:
            sources, idents, pseudonyms = (a.take(firsts) for a in (sources, idents, pseudonyms))
        normal = canonical(pc.utf8_ltrim(idents, "@"))
        keep = pc.greater_equal(pc.utf8_length(normal), MIN_IDENT)
        if kept:
            keep = pc.and_(keep, pc.not_equal(normal, canonical(pseudonyms)))
        keep = pc.fill_null(keep, False)
        normal = normal.filter(keep)
        if not len(normal):
            return
        first = pc.list_element(pc.split_pattern(normal, " ", max_splits=1), 0)
        table = pa.table(
            {"s": sources.filter(keep), "i": normal, "p": pseudonyms.filter(keep), "w": first}
        )
        self.learn([table])

    def learnt(self, since: int = 0) -> list[pa.Table]:
        """What was learnt, one table per :meth:`add` that learnt something (from the
        ``since``-th on), for :meth:`learn`."""
        return self._learnt[since:]

    def learn(self, tables: Sequence[pa.Table]) -> None:
        """Learn again what :meth:`learnt` gave (the same people, in another frame)."""
        for table in tables:
            self._learnt.append(table)
            spaces = pc.max(pc.count_substring(table["i"], " ")).as_py()
            self.longest = max(self.longest, spaces + 1)
        self._rows = self._first_words = None

    def _table(self) -> pa.Table:
        """Everything learnt, in the order learnt (a (source, ident) may repeat: the
        first row wins, see :class:`_Lookup`)."""
        if self._rows is None:
            empty = pa.table({c: pa.array([], pa.string()) for c in "sipw"})
            self._rows = pa.concat_tables([empty, *self._learnt])
        return self._rows

    def first_words(self) -> pa.Array:
        """The first word of every name and handle."""
        if self._first_words is None:
            self._first_words = pc.unique(self._table()["w"])
        return self._first_words

    def found(self, texts: pa.Array) -> np.ndarray:
        """Which texts may write one of them out (:func:`flagged` by :meth:`starts`)."""
        return flagged(texts, self.starts)

    def starts(self, pieces: pa.Array) -> np.ndarray:
        """Which pieces of text (as :func:`flagged` gives them) hold a word that is the
        first word of a known name: one vectorised hash lookup, so the cost does not grow
        with how many people are known."""
        marked = np.zeros(len(pieces), dtype=bool)
        if not self._learnt or not len(pieces):
            return marked
        words, owner = words_of(pieces)
        known = pc.fill_null(pc.is_in(words, value_set=self.first_words()), False)
        marked[owner[known.to_numpy(zero_copy_only=False)]] = True
        return marked

    def replace(self, source: str | None, text: str) -> str:
        """``text`` with every known name or bare handle replaced by its pseudonym (the
        text in NFC when one was)."""
        return self.rewrite([source], [text])[0]

    def rewrite(self, sources: Sequence[str | None], texts: Sequence[str]) -> list[str]:
        """:meth:`replace` of each text (``texts[i]`` on ``sources[i]``), with one lookup
        built for all of them: the names whose first word one of them holds."""
        words, _ = words_of(pa.array(texts, pa.string()))
        rows = self._table()
        rows = rows.filter(pc.is_in(rows["w"], value_set=pc.unique(words)))
        lookup = _Lookup(rows, self.longest)
        return [lookup.replace(s, t) for s, t in zip(sources, texts, strict=True)]


class _Lookup:
    """The names and handles of :class:`Known` in Python dicts, for rewriting texts."""

    def __init__(self, rows: pa.Table, longest: int) -> None:
        # Reversed so that the first row of a (source, ident), and of an ident, is
        # written last and wins: people already known keep their pseudonym.
        source, ident, new, first = (rows[c].to_pylist()[::-1] for c in "sipw")
        self.by_source: dict[tuple[str | None, str], str] = dict(
            zip(zip(source, ident, strict=True), new, strict=True)
        )
        self.anywhere: dict[str, str] = dict(zip(ident, new, strict=True))
        self.starts = frozenset(first)
        self.longest = longest

    def replace(self, source: str | None, text: str) -> str:
        if not unicodedata.is_normalized("NFC", text):
            new = self.replace(source, unicodedata.normalize("NFC", text))
            return text if new == unicodedata.normalize("NFC", text) else new
        # Most words start no name: the text's words are read at C speed (findall) and
        # only those that may start a name are placed and read on. The text is folded
        # once when folding keeps every character in place, as it does but for a few
        # letters ("İ" lower-cases to two): then each word is read and folded.
        pattern = _word_pattern()
        folded = _fold(text)
        if len(folded) == len(text):
            positions = self._starting(folded)
            if not positions:
                return text

            def read(at: int) -> list[tuple[int, int, str]]:
                found = itertools.islice(pattern.finditer(folded, at), self.longest)
                return [(m.start(), m.end(), m.group()) for m in found]
        else:
            every = [(m.start(), m.end(), _fold(m.group())) for m in pattern.finditer(text)]
            index = {w[0]: k for k, w in enumerate(every)}
            positions = [w[0] for w in every if self.may_start(w[2])]

            def read(at: int) -> list[tuple[int, int, str]]:
                return every[index[at] : index[at] + self.longest]

        anywhere = self.anywhere
        out: list[str] = []
        last = 0
        for at in positions:
            if at < last:
                continue  # inside a name already replaced
            words_on = read(at)
            for n in range(len(words_on), 0, -1):
                span = words_on[:n]
                if n > 1 and not all(_gap(text[a[1] : b[0]]) for a, b in itertools.pairwise(span)):
                    continue
                ident = " ".join(w[2] for w in span)
                # "Maya Chen's", "Maya Chen'll": the name and its ending.
                end = span[-1][1]
                ending = _ENDING.search(ident) if ident not in anywhere else None
                if ending:
                    ident, end = ident[: ending.start()], end - len(ending.group())
                pseudonym = self.by_source.get((source, ident)) or anywhere.get(ident)
                if pseudonym is not None:
                    out += [text[last : span[0][0]], pseudonym]
                    last = end
                    break
        return "".join(out) + text[last:] if out else text

    def _starting(self, folded: str) -> list[int]:
        """Where the words of ``folded`` that may start a name begin."""
        if len(self.starts) > _FIND_MAX:
            words = _word_pattern().finditer(folded)
            return [m.start() for m in words if self.may_start(m.group())]
        # Few first words (the usual case: only those these texts hold): each is looked
        # for as a string (at C speed), and kept where a word begins.
        match = _word_pattern().match
        found: set[int] = set()
        for start in self.starts:
            at = folded.find(start)
            while at >= 0:
                word = match(folded, at) if _starts_word(folded, at) else None
                if word is not None and self.may_start(word.group()):
                    found.add(at)
                at = folded.find(start, at + 1)
        return sorted(found)

    def may_start(self, word: str) -> bool:
        """Whether ``word`` is a name's first word (or it with an ending: "maya's")."""
        return word in self.starts or ("'" in word and _ENDING.sub("", word) in self.starts)


def _starts_word(text: str, at: int) -> bool:
    """Whether a word read from the start of ``text`` begins at ``at``: not right after a
    word character, nor after a joiner that follows one (``maya.chen`` is one word)."""
    is_char = _word_char_pattern().fullmatch
    if at == 0:
        return True
    before = text[at - 1]
    if is_char(before):
        return False
    return not (before in _JOINERS and at >= 2 and is_char(text[at - 2]) is not None)


@functools.cache
def _word_char_pattern() -> re.Pattern[str]:
    return re.compile(word_char())


def _gap(between: str) -> bool:
    """Whether two words with ``between`` them may be two words of one name."""
    return between.isspace() or (len(between.strip()) <= _GAP_MAX and "\n" not in between)
