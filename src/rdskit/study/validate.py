"""Check a study package: both standards, and the completeness of its post ids.

:func:`validate_package` reads the RO-Crate with ``rocrate`` (``ROCrate(path)``: RO-Crate
1.2, every file of the package described), validates ``datapackage.json`` with
``frictionless`` (descriptors, table schemas and every row), checks the manifest's SHA-256
of each file, and that ``data/ids.csv`` has every id column filled, no repeated (source,
id, dataset) and every dataset of the study file.

Example:
    >>> validate_package("oat-package").ok  # doctest: +SKIP
    True
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from rdskit._extras import require
from rdskit.study.package import ID_COLUMNS

__all__ = ["PackageCheck", "validate_package"]


@dataclass
class PackageCheck:
    """The problems found (empty: the package is valid)."""

    path: Path
    problems: list[str] = field(default_factory=list)
    posts: int = 0

    @property
    def ok(self) -> bool:
        """Whether nothing is wrong."""
        return not self.problems

    def __str__(self) -> str:
        if self.ok:
            return f"{self.path}: valid RO-Crate 1.2 and Data Package, {self.posts} post ids"
        return "\n".join([f"{self.path}: {len(self.problems)} problem(s)", *self.problems])


def validate_package(path: str | Path) -> PackageCheck:
    """Every problem of the package at ``path`` (see the module docs)."""
    require("study", "rdskit study validate")
    path = Path(path)
    check = PackageCheck(path)
    _crate(path, check)
    _data_package(path, check)
    _manifest(path, check)
    _ids(path, check)
    return check


def _crate(path: Path, check: PackageCheck) -> None:
    from rocrate.rocrate import ROCrate  # type: ignore[import-untyped]

    if not (path / "ro-crate-metadata.json").is_file():
        check.problems.append("ro-crate-metadata.json: missing")
        return
    try:
        crate = ROCrate(path)
    except Exception as exc:  # rocrate raises plain exceptions on a bad crate
        check.problems.append(f"ro-crate-metadata.json: not an RO-Crate: {exc}")
        return
    if crate.version != "1.2":
        check.problems.append(f"ro-crate-metadata.json: RO-Crate {crate.version}, not 1.2")
    described = {e.id for e in crate.get_entities()}
    for file in sorted(p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file()):
        if file != "ro-crate-metadata.json" and file not in described:
            check.problems.append(f"ro-crate-metadata.json: {file} is not described")


def _data_package(path: Path, check: PackageCheck) -> None:
    from frictionless import validate

    if not (path / "datapackage.json").is_file():
        check.problems.append("datapackage.json: missing")
        return
    report = validate(str(path / "datapackage.json"))
    for task in report.tasks:
        for error in task.errors:
            check.problems.append(f"datapackage.json: {task.name}: {error.message}")
    for error in report.errors:
        check.problems.append(f"datapackage.json: {error.message}")


def _manifest(path: Path, check: PackageCheck) -> None:
    manifest = path / "manifest.json"
    if not manifest.is_file():
        check.problems.append("manifest.json: missing")
        return
    for name, digest in json.loads(manifest.read_text(encoding="utf-8"))["sha256"].items():
        file = path / name
        if not file.is_file():
            check.problems.append(f"manifest.json: {name} is missing")
        elif hashlib.sha256(file.read_bytes()).hexdigest() != digest:
            check.problems.append(f"manifest.json: {name} was changed since packaging")


def _ids(path: Path, check: PackageCheck) -> None:
    file = path / "data" / "ids.csv"
    if not file.is_file():
        check.problems.append("data/ids.csv: missing")
        return
    ids = pd.read_csv(file, dtype=str, keep_default_na=False)
    for column in ID_COLUMNS:
        if column not in ids.columns:
            check.problems.append(f"data/ids.csv: no column {column!r}")
        elif (ids[column] == "").any():
            check.problems.append(
                f"data/ids.csv: {int((ids[column] == '').sum())} row(s) without {column}"
            )
    if set(ID_COLUMNS) <= set(ids.columns):
        repeated = int(ids.duplicated(["source", "id", "dataset"]).sum())
        if repeated:
            check.problems.append(f"data/ids.csv: {repeated} repeated (source, id, dataset)")
        study = path / "study.toml"
        if study.is_file():
            names = {d["name"] for d in tomllib.loads(study.read_text("utf-8"))["datasets"]}
            for name in sorted(names - set(ids["dataset"])):
                check.problems.append(f"data/ids.csv: no post of dataset {name!r}")
        check.posts = len(ids.drop_duplicates(["source", "id"]))
