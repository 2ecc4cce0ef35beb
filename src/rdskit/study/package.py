"""A study as a package others can check and re-collect: RO-Crate 1.2 + Frictionless.

:func:`package_study` writes a directory that is at once an RO-Crate 1.2
(``ro-crate-metadata.json``, written by the ``rocrate`` package) and holds a Frictionless
Data Package (``datapackage.json``, a table schema for every CSV table, checked with
``frictionless``):

==========================  ==============================================================
``data/ids.csv``            the dehydrated posts: source, id, url, collected_at, dataset, run
``study.toml``              the study file as it was run
``methods.md``              the methods paragraph of the collected posts
``provenance.json``         the frame's provenance (runs, their parameters, fetches, steps)
``environment.json``        rdskit version, the API version, the plans at retrieval
``datacite.json``           DataCite fields (creators, titles, rights, dates...) of the study
``figures/NAME.csv``        each declared analysis as a table with its n
``validation/...``          the codebook, codes and agreement, when present (see below)
``manifest.json``           the content level, what was left out, every file's SHA-256
==========================  ==============================================================

Content: ``"ids"`` (default) shares no post content; ``"pseudonymised"`` adds
``data/posts-pseudonymised.csv`` (metrics and labels, the author as a keyed pseudonym; no
text, name, handle or link); ``"full"`` is refused unless ``confirm_full=True``, and the
manifest then says the package holds content that platform terms may forbid sharing.

A URL is kept without the author's handle: ``url`` is the post's canonical link
(:func:`dehydrated_url`: a TikTok link names the author, ``m.tiktok.com/v/ID.html`` does
not), which is what a re-collection by URL needs.

Validation hook: a study folder holding ``validation/codebook.csv``, ``validation/codes.csv``
or ``validation/agreement.json`` (the files the labels-validation workflow writes) has them
copied and described; nothing else of that workflow is needed here.

Example:
    >>> package_study(study, client, "oat-package")  # doctest: +SKIP
    PosixPath('oat-package')
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import shutil
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from rdskit._extras import require
from rdskit._version import __version__
from rdskit.errors import InvalidParameter
from rdskit.frames.provenance import add_step
from rdskit.study.model import Study
from rdskit.study.runner import study_status

__all__ = [
    "CONTENT_LEVELS",
    "ID_COLUMNS",
    "METRICS",
    "VALIDATION_FILES",
    "dehydrated_url",
    "package_study",
]

CONTENT_LEVELS = ("ids", "pseudonymised", "full")
ID_COLUMNS = ("source", "id", "url", "collected_at", "dataset", "run")
VALIDATION_FILES = ("codebook.csv", "codes.csv", "agreement.json")
"""Files of ``validation/`` next to the study file that a package carries when present."""
METRICS = ("num_views", "num_likes", "num_comments", "num_shares")
"""The public metrics a package keeps per post, which a re-collection compares."""
API_VERSION = "v1"  # the REST path prefix the client speaks (spec: Versioning)

# Derived columns a pseudonymised table keeps: metrics and labels, never text or links.
_DERIVED = (
    "source",
    "id",
    "created_at",
    "language",
    "country_code",
    "content_type",
    "num_views",
    "num_likes",
    "num_comments",
    "num_shares",
    "engagement_rate",
    "sentiment",
    "sentiment_score",
)

_CANONICAL = {
    "reddit": "https://www.reddit.com/comments/{id}/",
    "tiktok": "https://m.tiktok.com/v/{id}.html",
    "youtube": "https://www.youtube.com/watch?v={id}",
    "instagram": "https://www.instagram.com/p/{id}/",
    "linkedin": "https://www.linkedin.com/feed/update/urn:li:activity:{id}/",
}


def dehydrated_url(source: str, post_id: str, url: str | None) -> str:
    """The post's link without its author's handle (the platform's id-only form).

    Example:
        >>> dehydrated_url("tiktok", "7312", "https://www.tiktok.com/@maya/video/7312")
        'https://m.tiktok.com/v/7312.html'
    """
    form = _CANONICAL.get(source)
    return form.format(id=post_id) if form else (url or "")


def _content_level(content: str, confirm_full: bool) -> str:
    if content not in CONTENT_LEVELS:
        raise InvalidParameter("content", f"one of {', '.join(CONTENT_LEVELS)}, not {content!r}")
    if content == "full" and not confirm_full:
        raise InvalidParameter(
            "content",
            "'full' shares the posts' texts, names and links, which platform terms and data "
            "protection usually forbid: pass confirm_full=True (--confirm-full) if you may",
        )
    return content


def _ids(frame: pd.DataFrame, runs: Mapping[str, Any]) -> pd.DataFrame:
    """One row per (post, dataset of the study holding it)."""
    rows = []
    for source, post_id, url, datasets in zip(
        frame["source"].astype(str), frame["id"], frame["url"], frame["datasets"], strict=True
    ):
        for ref in datasets:
            run = runs.get(ref["id"])
            if run is None:
                continue
            rows.append(
                {
                    "source": source,
                    "id": post_id,
                    "url": dehydrated_url(source, post_id, url),
                    "collected_at": run["collected_at"],
                    "dataset": run["dataset"],
                    "run": run["run"],
                }
            )
    return pd.DataFrame(rows, columns=list(ID_COLUMNS))


def _dataset_of(frame: pd.DataFrame, names: Mapping[str, str]) -> pd.Series:
    return frame["datasets"].map(
        lambda refs: " & ".join(sorted(names[r["id"]] for r in refs if r["id"] in names))
    )


def _figure(frame: pd.DataFrame, analysis: Any) -> pd.DataFrame:
    """A declared analysis as a table: the value of ``by``, its figure and its n."""
    groups = frame.groupby(analysis.by, observed=True, dropna=False)
    if analysis.kind == "count":
        table = groups.size().rename("posts").to_frame()
        table["n"] = table["posts"]
    else:
        values = pd.to_numeric(frame[analysis.column], errors="coerce")
        table = values.groupby(frame[analysis.by], observed=True, dropna=False).agg(
            ["mean", "count"]
        )
        table.columns = [f"mean_{analysis.column}", "n"]
    out = table.reset_index()
    out[analysis.by] = out[analysis.by].astype(str)
    return out


def _write_csv(table: pd.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(path, index=False, lineterminator="\n")


def _datacite(study: Study, now: str) -> dict[str, Any]:
    creators = []
    for c in study.creators:
        creator: dict[str, Any] = {"name": c.name, "nameType": "Personal"}
        if c.orcid:
            creator["nameIdentifiers"] = [
                {"nameIdentifier": f"https://orcid.org/{c.orcid}", "nameIdentifierScheme": "ORCID"}
            ]
        if c.affiliation:
            creator["affiliation"] = [{"name": c.affiliation}]
        creators.append(creator)
    return {
        "types": {"resourceTypeGeneral": "Dataset", "resourceType": "Social media study"},
        "creators": creators,
        "titles": [{"title": study.title}],
        "descriptions": [{"description": study.description, "descriptionType": "Abstract"}],
        "subjects": [{"subject": k} for k in study.keywords],
        "rightsList": [{"rightsIdentifier": study.licence, "rightsIdentifierScheme": "SPDX"}],
        "dates": [{"date": now[:10], "dateType": "Created"}],
        "publicationYear": now[:4],
        "publisher": {"name": "to be filled by the repository"},
    }


def package_study(
    study: Study,
    client: Any,
    out: str | Path,
    *,
    study_file: str | Path | None = None,
    content: Literal["ids", "pseudonymised", "full"] = "ids",
    confirm_full: bool = False,
    pseudonym_key: str | bytes | None = None,
    zip: bool = False,
) -> Path:
    """Write the study's package to ``out`` (a new or empty directory); ``zip=True`` also
    writes ``out.zip``. Reads are free; every dataset must have a completed run.

    Example:
        >>> package_study(study, client, "pkg", content="pseudonymised")  # doctest: +SKIP
        PosixPath('pkg')
    """
    require("study", "rdskit study package")
    level = _content_level(content, confirm_full)
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise InvalidParameter("out", f"{out} is not empty: choose a new directory")
    runs = _collected_runs(study, client)
    frame = client.mentions.to_frame(dataset_ids=list(runs))
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    out.mkdir(parents=True, exist_ok=True)

    dataset = _dataset_of(frame, {ds_id: r["dataset"] for ds_id, r in runs.items()})
    tables = _write_tables(out, study, frame, runs, dataset)  # path -> description
    safe = _write_posts(out, frame, dataset, level, pseudonym_key, tables)
    (out / "study.toml").write_text(study.source, encoding="utf-8")
    if study_file is not None:
        _copy_validation(Path(study_file).parent / "validation", out, tables)
    # The paragraph describes what is shared: the posts' ids only (recorded as a step), the
    # pseudonymised frame, or the posts as collected.
    described = {
        "ids": lambda: add_step(frame.copy(), "dehydrate", {"columns": list(ID_COLUMNS)}),
        "pseudonymised": lambda: safe,
        "full": lambda: frame,
    }[level]()
    methods = described.rds.methods()
    (out / "methods.md").write_text(f"# Methods\n\n{methods}\n", encoding="utf-8")
    _write_provenance(out, frame)
    _json(out / "datacite.json", _datacite(study, now))
    _data_package(out, study, tables)
    _manifest(out, level, now)
    _ro_crate(out, study, tables, now)
    if zip:
        shutil.make_archive(str(out), "zip", root_dir=out)
    return out


def _collected_runs(study: Study, client: Any) -> dict[str, dict[str, Any]]:
    """Each dataset id -> its name, its completed run and when that run collected; a
    dataset not collected yet is an error naming it."""
    status = study_status(study, client)
    pending = [d.name for d in status.datasets if not d.done]
    if pending:
        raise InvalidParameter(
            "study", f"not collected yet: {', '.join(pending)} (run `rdskit study run` first)"
        )
    runs: dict[str, dict[str, Any]] = {}
    for state in status.datasets:
        run = client.datasets.runs.get(state.dataset_id, state.run_id)
        when = run.updated_at or run.created_at
        runs[str(state.dataset_id)] = {
            "dataset": state.name,
            "run": state.run_id,
            "collected_at": when.isoformat().replace("+00:00", "Z"),
        }
    return runs


def _write_tables(
    out: Path,
    study: Study,
    frame: pd.DataFrame,
    runs: dict[str, dict[str, Any]],
    dataset: pd.Series,
) -> dict[str, str]:
    """The tables every package holds (ids, metrics, the study's figures); their paths ->
    descriptions."""
    tables: dict[str, str] = {}
    _write_csv(_ids(frame, runs), out / "data" / "ids.csv")
    tables["data/ids.csv"] = "The collected posts, dehydrated: one row per post and dataset."
    metrics = frame[["source", "id", *METRICS]].astype({"source": "string"})
    _write_csv(metrics, out / "data" / "metrics.csv")
    tables["data/metrics.csv"] = "Each post's public metrics when collected (for attrition)."
    with_dataset = frame.assign(dataset=dataset)
    for analysis in study.analyses:
        name = f"figures/{analysis.name}.csv"
        _write_csv(_figure(with_dataset, analysis), out / name)
        what = "posts" if analysis.kind == "count" else f"mean {analysis.column}"
        tables[name] = f"{what} per {analysis.by}, with its n (all {len(frame)} posts)"
    return tables


def _write_posts(
    out: Path,
    frame: pd.DataFrame,
    dataset: pd.Series,
    level: str,
    pseudonym_key: str | bytes | None,
    tables: dict[str, str],
) -> pd.DataFrame:
    """The posts at the content level beyond ids (added to ``tables``); returns the frame
    that is shared (pseudonymised, or ``frame`` itself)."""
    if level == "pseudonymised":
        # No key given: a random one, not kept, so the pseudonyms link one author's posts
        # within this package and nowhere else.
        safe = frame.rds.pseudonymise(pseudonym_key or secrets.token_hex(32), text="drop")
        columns = [c for c in _DERIVED if c in safe.columns]
        derived = safe[columns].assign(
            author=safe["author_title"].astype("string"), dataset=dataset
        )
        _write_csv(derived, out / "data" / "posts-pseudonymised.csv")
        tables["data/posts-pseudonymised.csv"] = (
            "Metrics and labels of each post; the author as a keyed pseudonym; no text or link."
        )
        return safe
    if level == "full":
        full = frame.rds.to_numpy_dtypes()
        for column in full.columns:
            if full[column].dtype == object:
                full[column] = full[column].map(
                    lambda v: v if v is None or isinstance(v, str) else json.dumps(v, default=str)
                )
        _write_csv(full, out / "data" / "posts-full.csv")
        tables["data/posts-full.csv"] = "Every column of every post, as collected (full content)."
    return frame


def _copy_validation(validation: Path, out: Path, tables: dict[str, str]) -> None:
    """The study's validation files that exist, copied (their CSVs added to ``tables``)."""
    for name in VALIDATION_FILES:
        if (validation / name).is_file():
            (out / "validation").mkdir(exist_ok=True)
            shutil.copyfile(validation / name, out / "validation" / name)
            if name.endswith(".csv"):
                tables[f"validation/{name}"] = f"The labels' {name[:-4]} (validation)."


def _write_provenance(out: Path, frame: pd.DataFrame) -> None:
    """``provenance.json`` and ``environment.json``: where and when the posts came from."""
    provenance = frame.rds.provenance()
    _json(out / "provenance.json", provenance.to_dict())
    _json(
        out / "environment.json",
        {
            "rdskit_version": __version__,
            "api_version": API_VERSION,
            "plans_at_retrieval": [dict(p) for p in provenance.plans],
            "fetched_at": provenance.fetched_at,
        },
    )


def _json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, default=str) + "\n", encoding="utf-8")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-") or "table"


def _data_package(out: Path, study: Study, tables: Mapping[str, str]) -> None:
    """``datapackage.json``: a resource with an inferred table schema per CSV table."""
    from frictionless import Package, Resource

    package = Package(
        name=_slug(study.title),
        title=study.title,
        description=study.description,
        licenses=[{"name": study.licence}],
        basepath=str(out),
    )
    for path, description in tables.items():
        resource = Resource(path=path, basepath=str(out))
        resource.infer()
        resource.name = _slug(path.rsplit(".", 1)[0])
        resource.description = description
        package.add_resource(resource)
    descriptor = package.to_descriptor()
    for resource in descriptor["resources"]:
        resource.pop("basepath", None)
    _json(out / "datapackage.json", descriptor)


def _manifest(out: Path, level: str, now: str) -> None:
    files = {
        str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }
    left_out = {
        "ids": "every post's content: texts, authors, names, handles, profile links",
        "pseudonymised": "texts, names, handles and links (authors are keyed pseudonyms)",
        "full": "nothing",
    }[level]
    _json(
        out / "manifest.json",
        {
            "content": level,
            "left_out": left_out,
            "full_content_confirmed": level == "full",
            "warning": (
                "this package holds the posts' full content: platform terms and data "
                "protection law may forbid sharing it"
                if level == "full"
                else None
            ),
            "written_at": now,
            "sha256": files,
        },
    )


def _ro_crate(out: Path, study: Study, tables: Mapping[str, str], now: str) -> None:
    """``ro-crate-metadata.json`` (RO-Crate 1.2) describing every file of the package."""
    from rocrate.model.person import Person  # type: ignore[import-untyped]
    from rocrate.rocrate import ROCrate  # type: ignore[import-untyped]

    crate = ROCrate(version="1.2")
    crate.name = study.title
    crate.description = study.description or study.title
    crate.license = study.licence
    crate.root_dataset["datePublished"] = now
    crate.root_dataset["keywords"] = list(study.keywords)
    people = []
    for n, creator in enumerate(study.creators):
        ident = f"https://orcid.org/{creator.orcid}" if creator.orcid else f"#creator-{n}"
        props: dict[str, Any] = {"name": creator.name}
        if creator.affiliation:
            props["affiliation"] = creator.affiliation
        people.append(crate.add(Person(crate, ident, properties=props)))
    crate.root_dataset["author"] = people
    described = {
        "study.toml": "The study file: datasets, queries, windows, counts, analyses, budget.",
        "methods.md": "The methods paragraph, computed from the collected posts.",
        "provenance.json": "Where the posts came from: runs, their parameters, fetches.",
        "environment.json": "rdskit and API versions, the plans at retrieval.",
        "datacite.json": "DataCite metadata of the study.",
        "manifest.json": "The content level of this package and every file's SHA-256.",
        "datapackage.json": "The Frictionless Data Package describing the tables.",
        **tables,
    }
    for path in sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()):
        props = {"name": path, "description": described.get(path, path)}
        if path.endswith(".csv"):
            props["encodingFormat"] = "text/csv"
        elif path.endswith(".json"):
            props["encodingFormat"] = "application/json"
        crate.add_file(out / path, dest_path=path, properties=props)
    staging = out.with_name(out.name + ".crate-tmp")
    crate.write(staging)
    shutil.move(staging / "ro-crate-metadata.json", out / "ro-crate-metadata.json")
    shutil.rmtree(staging)
