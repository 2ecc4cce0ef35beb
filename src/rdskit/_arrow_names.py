"""Arrow type names read back into pandas dtypes (``"list<item: string>[pyarrow]"``).

pandas writes each column's dtype name into a parquet or feather file's metadata
(``str(dtype)``) and, reading the file back, parses the name again. pandas cannot parse
the names of nested Arrow dtypes (``list<...>``, ``struct<...>``), so
``pd.read_parquet`` of a ``df.to_parquet`` file holding an Arrow list column raises
``TypeError: data type 'list<item: string>[pyarrow]' not understood`` (pandas #57411,
Arrow #39914 and #46328, open upstream). ``import rdskit`` registers
:class:`ArrowTypeName` with pandas so such names parse in every process that imported
rdskit; files rdskit writes itself carry metadata any pandas reads
(:func:`rdskit.frames.dtypes.portable_table`).

Example:
    >>> str(arrow_type("list<item: struct<text: string, n: int64>>"))
    'list<item: struct<text: string, n: int64>>'
    >>> str(arrow_type("timestamp[us, tz=UTC]")), str(arrow_type("decimal128(24, 6)"))
    ('timestamp[us, tz=UTC]', 'decimal128(24, 6)')
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import pyarrow as pa
from pandas.core.dtypes.base import _registry

__all__ = ["ArrowTypeName", "arrow_type", "register"]

_SUFFIX = "[pyarrow]"
# The names pandas' own ArrowDtype refuses: nested types and decimals.
_NESTED = re.compile(r"^(list|large_list|struct|map|dictionary)<|^decimal\d+\(")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Reader:
    """A recursive-descent reader of ``str(pa.DataType)`` output."""

    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def fail(self) -> TypeError:
        return TypeError(f"not an Arrow type name: {self.text!r}")

    def eat(self, token: str) -> bool:
        if self.text.startswith(token, self.at):
            self.at += len(token)
            return True
        return False

    def expect(self, token: str) -> None:
        if not self.eat(token):
            raise self.fail()

    def word(self) -> str:
        match = _WORD.match(self.text, self.at)
        if match is None:
            raise self.fail()
        self.at = match.end()
        return match.group()

    def until(self, stops: str) -> str:
        start = self.at
        while self.at < len(self.text) and self.text[self.at] not in stops:
            self.at += 1
        return self.text[start : self.at]

    def field(self) -> Any:
        name = self.until(":")
        self.expect(": ")
        kind = self.type()
        return pa.field(name, kind, nullable=not self.eat(" not null"))

    def fields(self) -> list[Any]:
        found = [self.field()]
        while self.eat(", "):
            found.append(self.field())
        return found

    def type(self) -> Any:
        name = self.word()
        if name in ("list", "large_list") and self.eat("<"):
            item = self.field()
            self.expect(">")
            return pa.list_(item) if name == "list" else pa.large_list(item)
        if name == "struct" and self.eat("<"):
            members = [] if self.eat(">") else self.fields()
            if members:
                self.expect(">")
            return pa.struct(members)
        if name == "map" and self.eat("<"):
            key = self.type()
            self.expect(", ")
            value = self.type()
            self.expect(">")
            return pa.map_(key, value)
        if name == "dictionary" and self.eat("<values="):
            values = self.type()
            self.expect(", indices=")
            indices = self.type()
            self.expect(", ordered=")
            ordered = self.until(">")
            self.expect(">")
            return pa.dictionary(indices, values, ordered=ordered == "1")
        if name in ("timestamp", "duration", "time32", "time64", "date32", "date64") and self.eat(
            "["
        ):
            unit = self.until(",]")
            zone = self.until("]")[len(", tz=") :] if self.text.startswith(",", self.at) else None
            self.expect("]")
            if name == "timestamp":
                return pa.timestamp(unit, tz=zone)
            if name == "duration":
                return pa.duration(unit)
            return pa.type_for_alias(name if name.startswith("date") else f"{name}[{unit}]")
        if name in ("decimal32", "decimal64", "decimal128", "decimal256") and self.eat("("):
            precision = int(self.until(","))
            self.expect(", ")
            scale = int(self.until(")"))
            self.expect(")")
            return getattr(pa, name)(precision, scale)
        try:
            return pa.type_for_alias(name)
        except ValueError:
            raise self.fail() from None


def arrow_type(text: str) -> Any:
    """The ``pa.DataType`` whose ``str()`` is ``text``; TypeError when it is not one."""
    reader = _Reader(text)
    kind = reader.type()
    if reader.at != len(text):
        raise reader.fail()
    return kind


class ArrowTypeName(pd.api.extensions.ExtensionDtype):  # type: ignore[misc]  # pandas is untyped here
    """Parses the Arrow dtype names pandas cannot (``"list<item: string>[pyarrow]"``,
    ``"decimal128(24, 6)[pyarrow]"``) into ``pd.ArrowDtype``; registered with pandas by
    ``import rdskit``, never instantiated.

    Example:
        >>> import rdskit  # registers it
        >>> pd.api.types.pandas_dtype("list<item: string>[pyarrow]")
        list<item: string>[pyarrow]
    """

    name = "rdskit-arrow-type-name"
    type = object

    @classmethod
    def construct_from_string(cls, string: str) -> Any:
        """``pd.ArrowDtype`` of a nested Arrow type name; TypeError for any other text, so
        pandas goes on with its own dtypes."""
        if not (isinstance(string, str) and string.endswith(_SUFFIX) and _NESTED.search(string)):
            raise TypeError(f"{string!r} is not a nested or decimal Arrow dtype name")
        return pd.ArrowDtype(arrow_type(string[: -len(_SUFFIX)]))


_registered: list[bool] = []


def register() -> None:
    """Let pandas parse nested Arrow dtype names (see the module docs); idempotent."""
    if _registered:
        return
    pd.api.extensions.register_extension_dtype(ArrowTypeName)
    # pandas asks each registered dtype in turn and stops at the first error that is not a
    # TypeError: ArrowDtype raises NotImplementedError for any name with brackets inside
    # (``list<item: struct<t: timestamp[us, tz=UTC]>>``), so this parser must come first.
    # It refuses every other name with a TypeError, leaving them to pandas.
    if _registry.dtypes and _registry.dtypes[-1] is ArrowTypeName:
        _registry.dtypes.insert(0, _registry.dtypes.pop())
    _registered.append(True)
