"""The study file (``study.toml``) and :class:`Study`, its typed form.

A study declares once what is collected and how it is shared: its title, creators and
licence (the DataCite fields of its package), a budget, the datasets (query, sources,
window, count, analyses, comments per post), custom parameters extracted over them, and
the figures to produce. ``rdskit study run`` builds every run from it; nothing else is
typed twice.

A bad file is one :class:`StudyFileError` naming the file and the field
(``datasets[1].count``), never a pydantic traceback.

Example:
    >>> study = Study.model_validate({
    ...     "title": "Oat brands", "creators": [{"name": "A. Researcher"}],
    ...     "datasets": [{"name": "oatly", "query": "oatly", "sources": ["reddit"],
    ...                   "count": 20}]})
    >>> study.datasets[0].search_query()
    {'type': 'prompt', 'sources': ['reddit'], 'search_query': 'oatly'}
"""

from __future__ import annotations

import json
import tomllib
from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from rdskit.errors import InvalidParameter
from rdskit.frames.preregistration import Plan
from rdskit.models.vocab import SOURCES
from rdskit.study.runner import run_study, study_status

__all__ = [
    "Analysis",
    "Creator",
    "CustomParameterSpec",
    "DatasetSpec",
    "Study",
    "StudyFileError",
    "Window",
    "dump_study",
    "load_study",
    "parse_study",
    "template",
]


class StudyFileError(InvalidParameter):
    """A study file that cannot be used: ``field`` names the value (``datasets[0].count``).

    Example:
        >>> str(StudyFileError("datasets[0].count", "must be at least 1", "study.toml"))
        'study.toml: datasets[0].count: must be at least 1'
    """

    def __init__(self, field: str, message: str, path: str | Path | None = None) -> None:
        super().__init__(field, message)
        if path is not None:
            self.args = (f"{path}: {field}: {message}",)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Creator(_Strict):
    """A creator of the study (DataCite ``creators``)."""

    name: str = Field(min_length=1)
    orcid: str | None = None
    affiliation: str | None = None


class Window(_Strict):
    """The publication dates searched, inclusive (``from``/``to`` as YYYY-MM-DD)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    start: date = Field(alias="from")
    end: date = Field(alias="to")

    @model_validator(mode="after")
    def _ordered(self) -> Window:
        if self.end < self.start:
            raise ValueError(f"'to' ({self.end}) is before 'from' ({self.start})")
        return self

    def wire(self) -> dict[str, str]:
        """The run's ``date_range``."""
        return {"from": self.start.isoformat(), "to": self.end.isoformat()}


class DatasetSpec(_Strict):
    """One dataset of the study: a search and how much of it to collect."""

    name: str = Field(min_length=1, max_length=200)
    query: str = Field(min_length=1)
    sources: list[str] = Field(min_length=1)
    count: int = Field(ge=1)
    window: Window | None = None
    analyses: list[Literal["sentiment", "hook", "cta"]] = []
    comments: int = Field(default=0, ge=0)
    note: str = ""

    @field_validator("sources")
    @classmethod
    def _known_sources(cls, sources: list[str]) -> list[str]:
        unknown = [s for s in sources if s not in SOURCES]
        if unknown:
            raise ValueError(f"unknown source {unknown[0]!r}: one of {', '.join(SOURCES)}")
        return sources

    def search_query(self) -> dict[str, Any]:
        """The run's ``search_query``."""
        return {"type": "prompt", "sources": list(self.sources), "search_query": self.query}

    def run_params(self) -> dict[str, Any]:
        """Keyword arguments of ``client.datasets.runs.create`` for this dataset."""
        return {
            "search_query": self.search_query(),
            "count": self.count,
            "date_range": self.window.wire() if self.window else None,
            "num_comments_per_post": self.comments,
            "content_analysis_actions": list(self.analyses) or None,
        }


class CustomParameterSpec(_Strict):
    """A custom parameter extracted over some (default: every) dataset of the study."""

    name: str = Field(min_length=1)
    instructions: str = Field(min_length=1)
    datasets: list[str] = []


class Analysis(_Strict):
    """A figure of the study: posts counted, or a column's mean, per value of ``by``."""

    name: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9_-]*$")
    kind: Literal["count", "mean"] = "count"
    by: str = "source"
    column: str | None = None

    @model_validator(mode="after")
    def _column_for_mean(self) -> Analysis:
        if self.kind == "mean" and not self.column:
            raise ValueError("a 'mean' analysis needs 'column' (e.g. sentiment_score)")
        return self


class Study(_Strict):
    """A study: what is collected, within which budget, and how it is described.

    Example:
        >>> study = load_study("study.toml")  # doctest: +SKIP
        >>> study.run(client)  # doctest: +SKIP
    """

    title: str = Field(min_length=1)
    description: str = ""
    creators: list[Creator] = Field(min_length=1)
    licence: str = "CC-BY-4.0"
    keywords: list[str] = []
    budget_credits: float | None = Field(default=None, gt=0)
    datasets: list[DatasetSpec] = Field(min_length=1)
    parameters: list[CustomParameterSpec] = []
    analyses: list[Analysis] = []
    plan: Plan | None = None
    """The pre-registered hypotheses and analysis plan (``[plan]``); ``df.rds.methods(plan=
    study.plan)`` reports every deviation from it."""
    _source: str | None = PrivateAttr(default=None)  # the file's text, as written

    @property
    def source(self) -> str:
        """The study file's text: as read by :func:`load_study`, else written from the
        fields (:func:`dump_study`)."""
        return self._source or dump_study(self)

    @model_validator(mode="after")
    def _names(self) -> Study:
        names = [d.name for d in self.datasets]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"dataset name {name!r} is used twice")
        for parameter in self.parameters:
            for name in parameter.datasets:
                if name not in names:
                    raise ValueError(f"parameter {parameter.name!r} names no dataset {name!r}")
        return self

    def dataset(self, name: str) -> DatasetSpec:
        """The dataset called ``name``."""
        for spec in self.datasets:
            if spec.name == name:
                return spec
        raise KeyError(name)

    # The actions live in their modules; these are the Python face of `rdskit study ...`.
    def run(self, client: Any, **kw: Any) -> Any:
        """Collect what is not collected yet (see :func:`rdskit.study.run_study`)."""
        return run_study(self, client, **kw)

    def status(self, client: Any) -> Any:
        """What is done and what finishing would cost (see :func:`rdskit.study.study_status`)."""
        return study_status(self, client)


def _field(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "study"


def parse_study(data: dict[str, Any], path: str | Path | None = None) -> Study:
    """A :class:`Study` from parsed TOML (``[study]`` table, ``[[datasets]]``...)."""
    body = {**data.get("study", {}), **{k: v for k, v in data.items() if k != "study"}}
    try:
        return Study.model_validate(body)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = tuple(error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        field = _field(loc)
        top = {"datasets", "parameters", "analyses", "plan"}
        if loc and loc[0] not in top:  # a key of the [study] table
            field = f"study.{field}"
        raise StudyFileError(field, message, path) from None


def load_study(path: str | Path) -> Study:
    """Read and check a study file.

    Example:
        >>> load_study("study.toml").title  # doctest: +SKIP
        'Oat milk brands'
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise StudyFileError("study", f"not valid TOML: {exc}", path) from None
    study = parse_study(data, path)
    study._source = path.read_text(encoding="utf-8")
    return study


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(str(value), ensure_ascii=False)  # a TOML basic string


def dump_study(study: Study) -> str:
    """The study file of ``study`` (TOML that :func:`load_study` reads back equal).

    Example:
        >>> study = Study.model_validate({"title": "T", "creators": [{"name": "A"}],
        ...     "datasets": [{"name": "d", "query": "q", "sources": ["reddit"], "count": 5}]})
        >>> parse_study(tomllib.loads(dump_study(study))) == study
        True
    """
    data = study.model_dump(mode="json", by_alias=True, exclude_none=True)
    lines = ["[study]"]
    tables = {k: data.pop(k) for k in ("datasets", "parameters", "analyses")}
    creators = data.pop("creators")
    plan = data.pop("plan", None)
    lines += [f"{key} = {_toml(value)}" for key, value in data.items()]
    for creator in creators:
        lines += ["", "[[study.creators]]", *(f"{k} = {_toml(v)}" for k, v in creator.items())]
    for name, rows in tables.items():
        for row in rows:
            lines += ["", f"[[{name}]]", *(f"{k} = {_toml(v)}" for k, v in row.items())]
    if plan is not None:
        lines += ["", "[plan]", *(f"{k} = {_toml(v)}" for k, v in plan.items())]
    return "\n".join(lines) + "\n"


def template(title: str = "My study") -> str:
    """A commented ``study.toml`` to edit (what ``rdskit study new`` writes)."""
    return _TEMPLATE.replace("@TITLE@", title.replace('"', "'"))


_TEMPLATE = """\
# A study for rdskit: `rdskit study status` shows what it would cost,
# `rdskit study run` collects it (again: nothing is paid twice),
# `rdskit study package OUT` writes a shareable package (post ids only by default).

[study]
title = "@TITLE@"
description = "What the study asks, in one or two sentences."
licence = "CC-BY-4.0"          # of the package you share (SPDX id)
keywords = ["social media"]
budget_credits = 500           # `run` refuses to spend more than this

[[study.creators]]              # one block per creator (DataCite creators)
name = "Your Name"
# orcid = "0000-0000-0000-0000"
# affiliation = "Your university"

# One block per dataset; every name must be unique in your account.
[[datasets]]
name = "brand a"
query = "oatly"
sources = ["reddit", "tiktok", "instagram", "youtube"]
count = 50                     # posts to collect (the service charges each one)
window = { from = "2025-10-01", to = "2025-11-30" }   # omit: the last 365 days
analyses = ["sentiment"]       # any of sentiment, hook, cta
comments = 0                   # comments per post
note = "Why this dataset, what it stands for."

[[datasets]]
name = "brand b"
query = "alpro"
sources = ["reddit", "tiktok", "instagram", "youtube"]
count = 50
window = { from = "2025-10-01", to = "2025-11-30" }
analyses = ["sentiment"]

# Custom parameters extracted over the datasets (0.5 credit a post):
# [[parameters]]
# name = "price mentioned"
# instructions = "The price the post quotes, if any"
# datasets = ["brand a"]       # omit: every dataset

# The pre-registered plan, fixed before the data are seen; `df.rds.methods(plan=study.plan)`
# names every deviation from it (a filter, a test, a sample size):
# [plan]
# registered = "2026-11-01"
# hypotheses = [{ id = "H1", statement = "Brand a's posts are more negative than brand b's." }]
# exclude_ads = true
# compare_by = "dataset"
# confidence = 0.95
# posts = 90                   # posts analysed at least
# pseudonymise = true

# Figures of the package (a table each, with its n):
[[analyses]]
name = "posts-per-source"
kind = "count"
by = "source"

[[analyses]]
name = "sentiment-per-dataset"
kind = "mean"
column = "sentiment_score"
by = "dataset"
"""
