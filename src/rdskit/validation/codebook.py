"""The codebook: the codes a coder may give, their definitions, examples and keys.

A :class:`Codebook` is small and typed; it loads from YAML (:meth:`Codebook.from_yaml`)
and checks codes before any statistic is computed (:meth:`Codebook.check`): a code it
does not hold is refused in one line naming it, with the code it most likely meant
(``"Positive"`` -> ``positive``).

Each code has a key for the coding widget: the one given, else ``1``..``9`` then
``a``..``z`` in order (the keys :data:`RESERVED` name the widget's own commands).

Example:
    >>> book = Codebook.from_yaml('''
    ... name: sentiment
    ... version: "1"
    ... ordinal: true
    ... codes:
    ...   - {value: negative, definition: the author dislikes the product}
    ...   - {value: neutral, definition: no evaluation}
    ...   - {value: positive, definition: the author likes the product}
    ... ''')
    >>> book.values, book.keys
    (('negative', 'neutral', 'positive'), {'1': 'negative', '2': 'neutral', '3': 'positive'})
    >>> book.check(["positive", "Positive"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rdskit.errors.InvalidParameter: codes: item 2 has the code 'Positive', ... 'positive'?); ...
"""

from __future__ import annotations

import difflib
import string
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rdskit._extras import require
from rdskit.errors import InvalidParameter

__all__ = ["RESERVED", "Code", "Codebook"]

RESERVED = frozenset("?<>~#!")
"""The coding widget's command keys (unsure, previous, next, undo, comments, note)."""

_DEFAULT_KEYS = [k for k in string.digits[1:] + string.ascii_lowercase]


def _missing(value: Any) -> bool:
    """None, NaN, pandas' NA or NaT: no code."""
    return value is None or bool(pd.isna(value)) if not isinstance(value, (list, tuple)) else False


class Code(BaseModel):
    """One code: its value, what it means, examples, and its key in the coding widget."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    value: str = Field(min_length=1, max_length=200)
    definition: str = ""
    examples: tuple[str, ...] = ()
    key: str | None = Field(default=None, min_length=1, max_length=1)


class Codebook(BaseModel):
    """A named, versioned list of codes (see the module docs).

    ``ordinal=True`` says the codes are in order (weighted kappa and ordinal alpha use it).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    version: str = "1"
    codes: tuple[Code, ...] = Field(min_length=2)
    ordinal: bool = False
    instructions: str = ""

    @model_validator(mode="after")
    def _distinct(self) -> Codebook:
        values = [c.value for c in self.codes]
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise ValueError(f"the code {twice[0]!r} is listed twice")
        given = [c.key for c in self.codes if c.key is not None]
        bad = [k for k in given if k in RESERVED or given.count(k) > 1]
        if bad:
            raise ValueError(
                f"the key {bad[0]!r} is reserved or given twice (reserved: "
                f"{' '.join(sorted(RESERVED))})"
            )
        if len(self.codes) > len(_DEFAULT_KEYS) and len(given) < len(self.codes):
            raise ValueError(f"more than {len(_DEFAULT_KEYS)} codes: give each a key")
        return self

    @classmethod
    def of(cls, name: str, values: Iterable[str], **options: Any) -> Codebook:
        """A codebook from bare values (no definitions).

        Example:
            >>> Codebook.of("complaint", ["no", "yes"]).keys
            {'1': 'no', '2': 'yes'}
        """
        return cls(name=name, codes=tuple(Code(value=v) for v in values), **options)

    @classmethod
    def from_yaml(cls, text_or_path: str | Path) -> Codebook:
        """A codebook from YAML text or a ``.yaml``/``.yml`` file (``name``, ``version``,
        ``ordinal``, ``codes``: a list of ``{value, definition, examples, key}``)."""
        require("research", "Codebook.from_yaml()", ("yaml",))
        import yaml

        text = (
            Path(text_or_path).read_text(encoding="utf-8")
            if isinstance(text_or_path, Path) or str(text_or_path).endswith((".yaml", ".yml"))
            else str(text_or_path)
        )
        try:
            data = yaml.safe_load(text)
            return cls.model_validate(data)
        except (yaml.YAMLError, ValidationError) as exc:
            raise InvalidParameter("codebook", f"not a valid codebook: {exc}") from None

    @property
    def values(self) -> tuple[str, ...]:
        """The codes' values, in the codebook's order."""
        return tuple(c.value for c in self.codes)

    @property
    def keys(self) -> dict[str, str]:
        """Key -> code value for the coding widget."""
        free = iter(k for k in _DEFAULT_KEYS if k not in {c.key for c in self.codes})
        return {(c.key or next(free)): c.value for c in self.codes}

    @property
    def label(self) -> str:
        """``name vVERSION``, as a methods sentence names the codebook."""
        return f"{self.name} v{self.version}"

    def check(self, codes: Sequence[Any], *, field: str = "codes") -> None:
        """Refuse the first code (missing ones, None or NaN, are allowed) that is not the
        codebook's, naming it and its position."""
        allowed = set(self.values)
        for i, code in enumerate(codes, 1):
            if _missing(code):
                continue
            if str(code) not in allowed:
                near = difflib.get_close_matches(str(code), self.values, n=1, cutoff=0.6)
                lower = [v for v in self.values if v.casefold() == str(code).casefold()]
                hint = f" (did you mean {(lower or near)[0]!r}?)" if lower or near else ""
                raise InvalidParameter(
                    field,
                    f"item {i} has the code {code!r}, which the codebook {self.label} does "
                    f"not hold{hint}; its codes: {', '.join(self.values)}",
                )
