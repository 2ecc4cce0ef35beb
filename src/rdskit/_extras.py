"""Optional features and the extra that installs each: one clear error when one is missing.

A feature that needs an extra calls :func:`require` before importing it, so a base install
gets ``rdskit sandbox needs the "sandbox" extra (uvicorn is not installed): pip install
"rdskit[sandbox]"`` instead of a bare ``ModuleNotFoundError``.

Example:
    >>> require("research", "df.rds.network()")  # installed here: nothing happens
    >>> MissingExtra("rdskit.mcp", "mcp", "mcp").args[0]
    'rdskit.mcp needs the "mcp" extra (mcp is not installed): pip install "rdskit[mcp]"'
"""

from __future__ import annotations

from importlib.util import find_spec

from rdskit.errors import RdsError

__all__ = ["EXTRAS", "MissingExtra", "require"]

EXTRAS: dict[str, tuple[str, ...]] = {
    "sandbox": ("fastapi", "uvicorn", "vaderSentiment"),
    "mcp": ("mcp", "httpx2"),
    "research": ("networkx", "scipy", "openpyxl", "krippendorff", "yaml"),
    "jupyter": ("IPython", "ipywidgets", "matplotlib", "mistune"),
    "teaching": ("sklearn",),
    "study": ("rocrate", "frictionless"),
}
"""The modules each extra brings that rdskit imports (top-level names)."""


class MissingExtra(RdsError, ModuleNotFoundError):
    """A feature needs an extra that is not installed; the message says what to install."""

    def __init__(self, feature: str, extra: str, module: str) -> None:
        super().__init__(
            f'{feature} needs the "{extra}" extra ({module} is not installed): '
            f'pip install "rdskit[{extra}]"'
        )
        self.feature, self.extra, self.name = feature, extra, module


def require(extra: str, feature: str, modules: tuple[str, ...] | None = None) -> None:
    """Raise :class:`MissingExtra` unless every module of ``extra`` (or just ``modules``)
    can be imported; nothing is imported here."""
    for module in modules if modules is not None else EXTRAS[extra]:
        try:
            found = find_spec(module)
        except (ImportError, ValueError):
            found = None
        if found is None:
            raise MissingExtra(feature, extra, module)
