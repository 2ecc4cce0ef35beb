"""``{name}`` in an ``%%ask`` question: the kernel's variables, read before anything is sent.

``{name}``, ``{name.attr}``, ``{name[0]}``, ``{name["key"]}`` and ``In[n]``/``Out[n]``/
``Err[n]`` (the error cell ``n`` raised, which ``%load_ext rdskit`` records) are replaced by
the value's text (an :class:`~rdskit.answers.Answer` by its text); ``{{`` and ``}}`` are
literal braces. A DataFrame of posts in braces is **scope, never content**: its
rows become the Ask's ``post_refs`` (as ``--posts``, at most 50) and the datasets its rows
came from its ``dataset_ids``; the question reads "these N posts". An undefined name, an
unclosed brace or an expression that is not a plain read is refused before anything is
sent or charged.

A brace holds a *read*, never code: no call, no operator, no name or attribute starting
with ``_`` (but IPython's ``_``, ``__``, ``_5``), no attribute of a module (``{os.environ}``
is refused), and a question that would carry the kernel's API key (``RDSKIT_API_KEY`` or
the session client's key) is refused whole. A hostile notebook can still compute a secret
into a variable and put that variable in braces: it is the user's own kernel.

Example:
    >>> prompt = interpolate("Which {n} {source} posts? {{literal}}", {"n": 2, "source": "tiktok"})
    >>> prompt.text
    'Which 2 tiktok posts? {literal}'
"""

from __future__ import annotations

import ast
import os
import re
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from rdskit.answers import Answer
from rdskit.errors import InvalidParameter
from rdskit.frames.accessor import MAX_POST_REFS

__all__ = ["MAX_VALUE_CHARS", "Prompt", "interpolate"]

FIELD = "question"
MAX_VALUE_CHARS = 4_000
"""The longest text one brace may put into a question (a longer value is refused)."""

_IPYTHON_NAMES = re.compile(r"_{1,3}|_i{1,3}|_\d+|_i\d+")
_BRACE = re.compile(r"[{}]")


@dataclass
class Prompt:
    """The question as sent and the scope its braces added."""

    text: str
    post_refs: list[dict[str, str]] = field(default_factory=list)
    dataset_ids: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)  # the expressions read, in order

    @property
    def changed(self) -> bool:
        """Whether a brace was read (the text sent differs from the cell)."""
        return bool(self.replaced)


def interpolate(body: str, namespace: Mapping[str, Any], secrets: Iterable[str] = ()) -> Prompt:
    """The question ``body`` with its braces read from ``namespace``.

    Raises:
        InvalidParameter: (field ``question``) an undefined name, a brace that is not a
            plain read, an unclosed brace, a frame of more than 50 posts, a value longer
            than :data:`MAX_VALUE_CHARS`, or a question carrying a key in ``secrets`` or
            ``RDSKIT_API_KEY``.

    Example:
        >>> interpolate("About {missing}?", {})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        rdskit.errors.InvalidParameter: question: {missing}: name 'missing' is not defined ...
    """
    prompt = Prompt("")
    parts: list[str] = []
    i = 0
    # From brace to brace (the text between is copied whole): a long question costs one
    # scan, not a Python step per character (50 MB took 140 s that way).
    while (brace := _BRACE.search(body, i)) is not None:
        at = brace.start()
        parts.append(body[i:at])
        char = body[at]
        if body[at : at + 2] == char * 2:
            parts.append(char)
            i = at + 2
        elif char == "}":
            raise _refused("a lone '}' (write '}}' for a literal brace)")
        else:
            end = body.find("}", at + 1)
            if end < 0:
                raise _refused("an unclosed '{' (write '{{' for a literal brace)")
            expression = body[at + 1 : end].strip()
            parts.append(_substitute(expression, namespace, prompt))
            prompt.replaced.append(expression)
            i = end + 1
    parts.append(body[i:])
    prompt.text = "".join(parts)
    _check_secrets(prompt.text, secrets)
    if len(prompt.post_refs) > MAX_POST_REFS:
        raise _refused(
            f"the frames in braces hold {len(prompt.post_refs)} posts; Ask takes at most "
            f"{MAX_POST_REFS}: narrow them first, e.g. df.rds.top({MAX_POST_REFS})"
        )
    return prompt


def _substitute(expression: str, namespace: Mapping[str, Any], prompt: Prompt) -> str:
    value = _read(expression, namespace)
    if isinstance(value, pd.DataFrame):
        return _scope(expression, value, prompt)
    text = value.text if _is_answer(value) else str(value)
    text = text or ""
    if len(text) > MAX_VALUE_CHARS:
        raise _refused(
            f"{{{expression}}} is {len(text):,} characters long; a brace puts at most "
            f"{MAX_VALUE_CHARS:,} into a question"
        )
    return text


def _scope(expression: str, frame: pd.DataFrame, prompt: Prompt) -> str:
    """A frame of posts: its rows as post refs, its rows' datasets as dataset ids."""
    if not {"source", "id"} <= set(frame.columns):
        raise _refused(
            f"{{{expression}}} is a DataFrame without 'source' and 'id' columns: only a frame "
            "of posts can scope a question (its content is never sent)"
        )
    if len(frame) > MAX_POST_REFS:
        raise _refused(
            f"{{{expression}}} has {len(frame)} rows; Ask takes at most {MAX_POST_REFS} posts: "
            f"narrow it first, e.g. {expression}.rds.top({MAX_POST_REFS})"
        )
    prompt.post_refs.extend(frame.rds.post_refs())
    if "datasets" in frame.columns:
        for cell in frame["datasets"]:
            for item in cell if isinstance(cell, list | tuple) else getattr(cell, "tolist", list)():
                ident = item.get("id") if isinstance(item, Mapping) else None
                if isinstance(ident, str) and ident not in prompt.dataset_ids:
                    prompt.dataset_ids.append(ident)
    return f"these {len(frame)} posts"


def _read(expression: str, namespace: Mapping[str, Any]) -> Any:
    """The value of a plain read (names, attributes, literal subscripts), walked by hand."""
    if not expression:
        raise _refused("an empty '{}' (write '{{}}' for literal braces)")
    try:
        tree = ast.parse(expression, mode="eval").body
    except SyntaxError:
        raise _refused(f"{{{expression}}} is not a variable or expression") from None
    return _walk(tree, expression, namespace)


def _walk(node: ast.expr, expression: str, namespace: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Name):
        if node.id.startswith("_") and not _IPYTHON_NAMES.fullmatch(node.id):
            raise _refused(f"{{{expression}}}: names starting with '_' are not read")
        if node.id not in namespace:
            raise _refused(f"{{{expression}}}: name {node.id!r} is not defined")
        return _guard(namespace[node.id], expression)
    if isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            raise _refused(f"{{{expression}}}: attributes starting with '_' are not read")
        base = _walk(node.value, expression, namespace)
        if isinstance(base, types.ModuleType):
            raise _refused(f"{{{expression}}}: a module's attributes are not read; use a variable")
        try:
            return _guard(getattr(base, node.attr), expression)
        except AttributeError as exc:
            raise _refused(f"{{{expression}}}: {exc}") from None
    if isinstance(node, ast.Subscript):
        base = _walk(node.value, expression, namespace)
        key = _literal(node.slice, expression)
        try:
            return _guard(base[key], expression)
        except (LookupError, TypeError) as exc:
            raise _refused(f"{{{expression}}}: {type(exc).__name__}: {exc}") from None
    raise _refused(
        f"{{{expression}}}: a brace reads a variable, an attribute or an item "
        "(no call or operator); compute it in a cell first"
    )


def _literal(node: ast.expr, expression: str) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | str):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    raise _refused(f"{{{expression}}}: an index is a number or a quoted key")


def _guard(value: Any, expression: str) -> Any:
    if value is os.environ or isinstance(value, type(os.environ)):
        raise _refused(f"{{{expression}}}: the environment is not read into a question")
    return value


def _check_secrets(text: str, secrets: Iterable[str]) -> None:
    keys = [os.environ.get("RDSKIT_API_KEY", ""), *secrets]
    if any(len(key) >= 8 and key in text for key in keys):
        raise _refused("it would carry an API key; nothing was sent")


def _is_answer(value: Any) -> bool:
    return isinstance(value, Answer)


def _refused(problem: str) -> InvalidParameter:
    suffix = "" if "nothing was sent" in problem else " (nothing was sent or charged)"
    return InvalidParameter(FIELD, problem + suffix)
