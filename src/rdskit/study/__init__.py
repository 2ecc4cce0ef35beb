"""A study as a package: declare it once, collect it, share it, re-collect it.

- :class:`Study` / :func:`load_study`: the study file (``study.toml``), typed;
- :func:`run_study` / :func:`study_status`: collect idempotently within the budget, and
  what is done and left (with the service's estimates);
- :func:`package_study`: an RO-Crate 1.2 holding a Frictionless Data Package (post ids by
  default), checked by :func:`validate_package`;
- :func:`rehydrate`: re-collect a package by its links and report the attrition.

``rdskit study new|status|run|package|validate|rehydrate`` is the same from a shell.

Example:
    >>> import rdskit
    >>> study = rdskit.Study.model_validate({"title": "Oat", "creators": [{"name": "A"}],
    ...     "datasets": [{"name": "oat", "query": "oat milk", "sources": ["reddit"],
    ...                   "count": 10}]})
    >>> study.datasets[0].count
    10
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rdskit.study.model import Study, StudyFileError, load_study, template
    from rdskit.study.package import package_study
    from rdskit.study.rehydrate import Attrition, rehydrate
    from rdskit.study.runner import StudyStatus, run_study, study_status
    from rdskit.study.validate import PackageCheck, validate_package

# Loaded on first use: `rdskit --help` and the other subcommands do not import pydantic
# models, pandas or the packaging libraries for the study subcommand.
_LAZY = {
    "Study": "model",
    "StudyFileError": "model",
    "load_study": "model",
    "template": "model",
    "package_study": "package",
    "Attrition": "rehydrate",
    "rehydrate": "rehydrate",
    "StudyStatus": "runner",
    "run_study": "runner",
    "study_status": "runner",
    "PackageCheck": "validate",
    "validate_package": "validate",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'rdskit.study' has no attribute {name!r}")
    value = getattr(import_module(f"rdskit.study.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "Attrition",
    "PackageCheck",
    "Study",
    "StudyFileError",
    "StudyStatus",
    "load_study",
    "package_study",
    "rehydrate",
    "run_study",
    "study_status",
    "template",
    "validate_package",
]
