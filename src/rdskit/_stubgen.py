"""Generates ``rdskit/_async.pyi``: the static types of :class:`rdskit.AsyncClient`.

Each resource method is written once (``rdskit.resources``), annotated with what the
blocking :class:`~rdskit.Client` returns; the async client runs the same method and
returns an awaitable (list calls: an :class:`~rdskit.AsyncPager`). Python's type system
cannot map ``T`` to ``Awaitable[T]`` over a class, so this module derives the async
signatures from the sync ones and writes them as a stub, which type checkers read for
``rdskit.AsyncClient`` (``client.py`` imports it under ``TYPE_CHECKING``):

- ``X`` -> ``Awaitable[X]``; ``SyncPage[X]`` -> ``AsyncPager[X]``;
- a nested resource (``datasets.runs``) -> its async counterpart;
- DataFrame loaders (sync only: they raise ``TypeError`` on AsyncClient) are left out.

``tests/test_static.py`` fails when the stub is stale. Regenerate with
``python -m rdskit._stubgen > src/rdskit/_async.pyi``.

Example:
    >>> "def get(self, dataset_id: str) -> Awaitable[Dataset]: ..." in render()
    True
"""

from __future__ import annotations

import builtins
import collections.abc
import functools
import inspect
import re
import typing
from typing import Any

from rdskit import client as _client
from rdskit import models
from rdskit.resources._resource import Resource

__all__ = ["render"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_CHILD = re.compile(r"self\.([a-z_]+) = ([A-Z]\w*)\(")  # a nested resource made in __init__
_SYNC_ONLY = ("_frames_client(", "sync_only(")
_BUILTINS = frozenset(dir(builtins)) | {"None", "self", "cls"}


class _Writer:
    def __init__(self) -> None:
        self.homes: dict[str, str] = {}  # name -> the module it is imported from
        self.classes: dict[str, list[str]] = {}

    def need(self, annotation: str, module: Any) -> None:
        """Record the imports the names of ``annotation`` (as written in ``module``) need."""
        for name in _NAME.findall(annotation):
            if name in _BUILTINS or name in ("SyncPage", *self.homes) or name.startswith("Async"):
                continue
            if name in ("Any", "Literal", "Self"):
                self.homes[name] = "typing"
            elif hasattr(collections.abc, name):
                self.homes[name] = "collections.abc"
            elif name in vars(module):
                value = vars(module)[name]
                home = getattr(value, "__module__", None)
                if inspect.isclass(value) and home:
                    self.homes[name] = home  # a class is imported from its home
                elif getattr(models, name, None) is value:
                    self.homes[name] = "rdskit.models"  # a model alias (Order, SearchQuery)
                else:
                    self.homes[name] = module.__name__

    @property
    def imports(self) -> dict[str, set[str]]:
        by_module: dict[str, set[str]] = {}
        for name, module in self.homes.items():
            by_module.setdefault(module, set()).add(name)
        return by_module

    def resource(self, cls: type[Any]) -> str:
        """The async stub class of resource ``cls`` (written once), by name."""
        name = f"Async{cls.__name__}"
        if name not in self.classes:
            self.classes[name] = []  # placeholder against recursion
            self.classes[name] = self.members(cls)
        return name

    def members(self, cls: type[Any]) -> list[str]:
        lines: list[str] = []
        module = inspect.getmodule(cls)
        init = vars(cls).get("__init__")
        for attr, child in _CHILD.findall(inspect.getsource(init) if init else ""):
            nested = vars(module).get(child)
            if inspect.isclass(nested) and issubclass(nested, Resource):
                lines += ["    @property", f"    def {attr}(self) -> {self.resource(nested)}: ..."]
        for attr, member in sorted(_public(cls).items()):
            if isinstance(member, functools.cached_property | property):
                getter = (
                    member.func if isinstance(member, functools.cached_property) else member.fget
                )
                returned = typing.get_type_hints(getter).get("return")
                if inspect.isclass(returned) and issubclass(returned, Resource):
                    lines += [
                        "    @property",
                        f"    def {attr}(self) -> {self.resource(returned)}: ...",
                    ]
                elif getter is not None:
                    text = inspect.signature(getter).return_annotation
                    self.need(str(text), inspect.getmodule(getter))
                    lines += ["    @property", f"    def {attr}(self) -> {text}: ..."]
                continue
            function = getattr(member, "__func__", member)
            if not inspect.isfunction(function):
                continue
            source = inspect.getsource(function)
            if any(marker in source for marker in _SYNC_ONLY):
                continue  # a DataFrame loader: Client only
            home = inspect.getmodule(function)
            signature = inspect.signature(function)
            returned = str(signature.return_annotation)
            self.need(returned, home)
            params = self.parameters(signature, home)
            if isinstance(member, classmethod):
                lines += ["    @classmethod", f"    def {attr}({params}) -> {returned}: ..."]
                continue
            if returned.startswith("SyncPage["):
                returned = "AsyncPager[" + returned.removeprefix("SyncPage[")
            else:
                returned = f"Awaitable[{returned}]"
            lines.append(f"    def {attr}({params}) -> {returned}: ...")
        return lines

    def parameters(self, signature: inspect.Signature, module: Any) -> str:
        """The parameter list as source, annotations unquoted."""
        parts: list[str] = []
        star = False
        for parameter in signature.parameters.values():
            text = parameter.name
            if parameter.kind is parameter.VAR_POSITIONAL:
                text, star = f"*{text}", True
            elif parameter.kind is parameter.VAR_KEYWORD:
                text = f"**{text}"
            elif parameter.kind is parameter.KEYWORD_ONLY and not star:
                parts.append("*")
                star = True
            if parameter.annotation is not parameter.empty:
                self.need(str(parameter.annotation), module)
                text += f": {parameter.annotation}"
            if parameter.default is not parameter.empty:
                text += " = ..." if parameter.annotation is not parameter.empty else "=..."
            parts.append(text)
        return ", ".join(parts)


def _public(cls: type[Any]) -> dict[str, Any]:
    """Public attributes defined by ``cls`` and its rdskit bases (nearest wins)."""
    found: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        if not base.__module__.startswith("rdskit") or base.__name__.endswith("APIClient"):
            continue
        for attr, member in vars(base).items():
            if not attr.startswith("_"):
                found[attr] = member
    return found


def render() -> str:
    """The text of ``rdskit/_async.pyi``."""
    writer = _Writer()
    client = writer.members(_client.AsyncClient)
    writer.homes |= {
        "Awaitable": "collections.abc",
        "AsyncPager": "rdskit.pagination",
        "AsyncAPIClient": "rdskit._base_client",
    }
    head = [
        "# Generated by `python -m rdskit._stubgen > src/rdskit/_async.pyi`: do not edit.",
        "# The static types of rdskit.AsyncClient (see rdskit/_stubgen.py).",
        "",
    ]
    imports = [
        f"from {module} import {', '.join(sorted(names))}"
        for module, names in sorted(writer.imports.items())
    ]
    body: list[str] = []
    for name, lines in sorted(writer.classes.items()):
        body += ["", "", f"class {name}:", *(lines or ["    pass"])]
    body += [
        "",
        "",
        "class AsyncClient(AsyncAPIClient):",
        '    """The asyncio client: every call returns an awaitable, list calls an AsyncPager."""',
        "",
        *client,
    ]
    return "\n".join([*head, *imports, *body]) + "\n"


if __name__ == "__main__":
    print(render(), end="")
