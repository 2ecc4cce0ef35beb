"""Extension points: features the core offers and the layers above it implement.

The core (configuration, HTTP, models, errors, resources, billing, waiting) imports nothing
from ``rdskit.frames``, ``rdskit.jupyter`` or ``rdskit.sandbox`` (``tests/test_layers.py``
checks it). Where a core object offers a feature one of those layers implements (a
resource's ``to_frame()``, the notebook HTML of a model or an error, the live display of
``wait()``, ``Client.sandbox()``), it calls the hook of that name here.

A hook gets its implementation in one of two ways:

- a layer calls :func:`register` (e.g. a test, or a layer replacing a default);
- the package root (``rdskit/__init__.py``, the one place that knows every layer) names,
  with :func:`provide`, the ``module:attribute`` implementing it; the module is imported
  the first time the hook is used. So a script's ``run.wait()`` never loads the Jupyter
  layer, and ``import rdskit`` loads neither pandas loaders nor the sandbox.

Example:
    >>> register("example.double", lambda value: 2 * value)
    >>> call("example.double", 21)
    42
    >>> resolve("example.missing") is None
    True
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

__all__ = ["call", "provide", "register", "resolve"]

_IMPLEMENTATIONS: dict[str, Callable[..., Any]] = {}
_PROVIDERS: dict[str, str] = {}  # hook name -> "module:attribute", imported on first use


def register(name: str, implementation: Callable[..., Any]) -> None:
    """Make ``implementation`` the hook ``name`` (replacing any earlier one)."""
    _IMPLEMENTATIONS[name] = implementation


def provide(name: str, target: str) -> None:
    """Name the ``module:attribute`` that implements ``name``, imported on first use.

    Example:
        >>> provide("example.sqrt", "math:sqrt")
        >>> call("example.sqrt", 9.0)
        3.0
    """
    module, _, attribute = target.partition(":")
    if not module or not attribute:
        raise ValueError(f"a hook target is 'module:attribute', got {target!r}")
    _PROVIDERS[name] = target


def resolve(name: str) -> Callable[..., Any] | None:
    """The implementation of ``name``; None when nothing registers or provides it.

    Raises:
        ImportError: the providing module cannot be imported (a missing optional
            dependency); the message names the hook.
    """
    implementation = _IMPLEMENTATIONS.get(name)
    if implementation is not None:
        return implementation
    target = _PROVIDERS.get(name)
    if target is None:
        return None
    module, _, attribute = target.partition(":")
    try:
        found: Callable[..., Any] = getattr(import_module(module), attribute)
    except ImportError as exc:
        if getattr(exc, "extra", None):  # rdskit's MissingExtra already says what to install
            raise
        raise ImportError(f"{name} needs {module}, which cannot be imported here: {exc}") from exc
    _IMPLEMENTATIONS[name] = found
    return found


def call(name: str, *args: Any, **kwargs: Any) -> Any:
    """Call the hook ``name``.

    Raises:
        LookupError: nothing implements it in this process.
    """
    implementation = resolve(name)
    if implementation is None:
        raise LookupError(
            f"nothing implements {name!r} in this process: import the rdskit package "
            "(its __init__ wires the frames, Jupyter and sandbox layers)"
        )
    return implementation(*args, **kwargs)
