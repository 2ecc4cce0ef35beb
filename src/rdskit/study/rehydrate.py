"""Re-collect a shared study by its posts' links, and report what is gone (attrition).

:func:`rehydrate` reads a package's ``data/ids.csv``, prices the re-collection first (one
mention per link, the service's prices; refused over ``budget_credits``), then collects the
posts by URL (the ``url`` search type) into one dataset, in runs of at most
:data:`URLS_PER_RUN` links, each started with ``reuse=True``: an interrupted re-collection
run again pays nothing twice. It returns an :class:`Attrition` report, per source and per
run of the original study: posts, found, missing, found with other metrics; and writes it
(``attrition.csv``, ``attrition.md`` with the methods sentence) to ``out``. On an rdskit
sandbox, and only there, it first tells the sandbox which runs the posts came from (see
:func:`_hold_on_sandbox`: its corpus cannot rebuild a post from its link alone).

Example:
    >>> report = rehydrate("oat-package", client, budget_credits=200)  # doctest: +SKIP
    >>> print(report.sentence)  # doctest: +SKIP
    Of the 100 posts of the package, 95 (95.0%) were found again on 2026-11-20 ...
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd

from rdskit._base_client import APIRequest
from rdskit._format import money
from rdskit.errors import BudgetExceeded, InvalidParameter, RdsError
from rdskit.study.package import ID_COLUMNS, METRICS

__all__ = ["URLS_PER_RUN", "Attrition", "rehydrate"]

URLS_PER_RUN = 100
"""Links per run: the service's bound on ``source_urls``."""
HELD_POSTS_PER_CALL = 1000
"""Posts per ``POST /sandbox/platforms`` (a sandbox's bound on a body's lists)."""


@dataclass(frozen=True)
class Attrition:
    """What a re-collection found: ``posts`` (one row per post, ``found`` and
    ``metrics_changed``), ``by_source`` and ``by_run`` tables, and the methods sentence."""

    posts: pd.DataFrame
    by_source: pd.DataFrame
    by_run: pd.DataFrame
    sentence: str
    dataset_id: str

    @property
    def found(self) -> int:
        """Posts found again."""
        return int(self.posts["found"].sum())

    @property
    def missing(self) -> int:
        """Posts not found (deleted, private or unavailable)."""
        return int((~self.posts["found"]).sum())


def _read_ids(package: Path) -> pd.DataFrame:
    path = package / "data" / "ids.csv"
    if not path.is_file():
        raise InvalidParameter("package", f"{package} holds no data/ids.csv: not a study package")
    ids = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in ID_COLUMNS if c not in ids.columns]
    if missing:
        raise InvalidParameter("package", f"data/ids.csv has no column {missing[0]!r}")
    return ids


def _summary(posts: pd.DataFrame, by: str) -> pd.DataFrame:
    table = posts.groupby(by, sort=True).agg(
        posts=("id", "size"),
        found=("found", "sum"),
        metrics_changed=("metrics_changed", "sum"),
    )
    table["missing"] = table["posts"] - table["found"]
    table["missing_share"] = (table["missing"] / table["posts"]).round(4)
    return table[["posts", "found", "missing", "missing_share", "metrics_changed"]].reset_index()


def rehydrate(
    package: str | Path,
    client: Any,
    *,
    dataset: str | None = None,
    budget_credits: float | None = None,
    out: str | Path | None = None,
    timeout: float = 3600.0,
    progress: bool = False,
) -> Attrition:
    """Re-collect the package's posts by URL and write the attrition report to ``out``
    (default: ``PACKAGE/attrition``).

    Example:
        >>> rehydrate("pkg", client).missing  # doctest: +SKIP
        5
    """
    package = Path(package)
    ids = _read_ids(package)
    posts = ids.drop_duplicates(["source", "id"]).reset_index(drop=True)
    urls = list(dict.fromkeys(posts["url"]))
    estimate = client.estimate("dataset_run", count=len(urls)).credits
    if budget_credits is not None and (estimate is None or estimate > Decimal(str(budget_credits))):
        raise BudgetExceeded(
            "rehydrate",
            estimate,
            Decimal(str(budget_credits)),
            f"re-collecting {len(urls)} links: raise --budget or share fewer posts",
        )
    _hold_on_sandbox(package, client, posts)
    title = _title(package)
    target = client.datasets.get_or_create(dataset or f"{title} · rehydrated")
    runs = []
    for start in range(0, len(urls), URLS_PER_RUN):
        chunk = urls[start : start + URLS_PER_RUN]
        run = client.datasets.runs.create(
            target.id,
            {"type": "url", "source_urls": chunk},
            count=len(chunk),
            reuse=True,
        )
        runs.append(run.wait(timeout=timeout, progress=progress))
    again = client.mentions.to_frame(dataset_ids=[target.id])
    finished = max((r.updated_at or r.created_at for r in runs), default=datetime.now(UTC))
    report = _report(package, ids, again, target.id, finished.date().isoformat())
    where = Path(out) if out is not None else package / "attrition"
    where.mkdir(parents=True, exist_ok=True)
    report.posts.to_csv(where / "attrition-posts.csv", index=False, lineterminator="\n")
    report.by_source.to_csv(where / "attrition-by-source.csv", index=False, lineterminator="\n")
    report.by_run.to_csv(where / "attrition-by-run.csv", index=False, lineterminator="\n")
    (where / "attrition.md").write_text(_markdown(report, estimate), encoding="utf-8")
    return report


def _hold_on_sandbox(package: Path, client: Any, posts: pd.DataFrame) -> None:
    """On an rdskit sandbox only, tell its platforms which runs the package's posts came
    from, so that a fresh sandbox holds them (its corpus cannot rebuild a post from its
    link alone); then check that they are this sandbox's posts.

    The real service is sent nothing emulator-only: a sandbox names its database in a
    header of ``GET /v1/me`` (:data:`~rdskit.models.account.INSTANCE_HEADER`), the real
    service does not, and only then is ``POST /sandbox/platforms`` called (free, with the
    same key). A sandbox of another seed or generator holds none of the posts: that is an
    error, not an attrition of 100 %.
    """
    client.me()  # a free read; a sandbox answers with its instance header
    if getattr(getattr(client, "_core", None), "instance", None) is None:
        return
    provenance = package / "provenance.json"
    record = json.loads(provenance.read_text(encoding="utf-8")) if provenance.is_file() else {}
    runs = list({r["id"]: r for f in record.get("fetches", []) for r in f.get("runs", [])}.values())
    if not runs:
        raise InvalidParameter(
            "package", f"{provenance} records no runs: a sandbox cannot hold its posts"
        )
    refs = [{"source": s, "id": i} for s, i in zip(posts["source"], posts["id"], strict=True)]
    known = 0
    for start in range(0, len(refs), HELD_POSTS_PER_CALL):  # runs replayed once, then skipped
        chunk = refs[start : start + HELD_POSTS_PER_CALL]
        body = {"runs": runs, "posts": chunk}
        request = APIRequest("POST", "/sandbox/platforms", kind="free_post", json=body, cast=dict)
        try:
            known += int(client._request(request)["known"])
        except RdsError as exc:  # e.g. a sandbox behind the Jupyter gateway (/v1 only)
            raise InvalidParameter(
                "client",
                f"this service is an rdskit sandbox but its POST /sandbox/platforms failed "
                f"({exc}): re-collect with a client of the sandbox itself (its own URL, not "
                "the Jupyter gateway's)",
            ) from None
    if known < len(refs):
        raise InvalidParameter(
            "package",
            f"this sandbox's corpus holds {known} of the package's {len(refs)} posts: "
            "the package was collected on a sandbox with another seed (rdskit sandbox --seed, "
            "RDSKIT_SANDBOX_SEED) or another rdskit version; an attrition report here would "
            "count posts that never existed as deleted",
        )


def _title(package: Path) -> str:
    crate = package / "ro-crate-metadata.json"
    if crate.is_file():
        graph = json.loads(crate.read_text(encoding="utf-8")).get("@graph", [])
        root: dict[str, Any] = next((e for e in graph if e.get("@id") == "./"), {})
        if root.get("name"):
            return str(root["name"])
    return package.name


def _report(
    package: Path, ids: pd.DataFrame, again: pd.DataFrame, dataset_id: str, today: str
) -> Attrition:
    """The attrition of ``ids`` given the posts found ``again`` (re-collected on ``today``,
    the service's date of the re-collection)."""
    before_path = package / "data" / "metrics.csv"
    before = (
        pd.read_csv(before_path, dtype={"source": str, "id": str})
        if before_path.is_file()
        else None
    )
    now_rows = {
        (str(s), str(i)): tuple(again[m].iloc[n] for m in METRICS)
        for n, (s, i) in enumerate(zip(again["source"], again["id"], strict=True))
    }
    then_rows = (
        {
            (str(r.source), str(r.id)): tuple(getattr(r, m) for m in METRICS)
            for r in before.itertuples(index=False)
        }
        if before is not None
        else {}
    )
    rows = ids.copy()
    keys = list(zip(rows["source"], rows["id"], strict=True))
    rows["found"] = [k in now_rows for k in keys]
    rows["metrics_changed"] = [
        k in now_rows and k in then_rows and _differ(now_rows[k], then_rows[k]) for k in keys
    ]
    rows = rows.drop_duplicates(["source", "id", "run"]).reset_index(drop=True)
    unique = rows.drop_duplicates(["source", "id"])
    total, found = len(unique), int(unique["found"].sum())
    changed = int(unique["metrics_changed"].sum())
    collected = sorted(set(rows["collected_at"].str[:10]))
    when = collected[0] if len(collected) == 1 else f"{collected[0]} to {collected[-1]}"
    share = f"{found / total:.1%}" if total else "n/a"
    sentence = (
        f"Of the {total} posts of the shared study (collected {when}), {found} ({share}) "
        f"were found again on {today} by re-collecting them by their links (the service's "
        f"url search); {total - found} could not be found (deleted, made private or "
        f"unavailable)"
        + (
            f", and {changed} of those found had other views, likes, comments or shares "
            "than when collected."
            if then_rows
            else "; the package kept no metrics to compare."
        )
    )
    return Attrition(rows, _summary(unique, "source"), _summary(rows, "run"), sentence, dataset_id)


def _differ(now: tuple[Any, ...], then: tuple[Any, ...]) -> bool:
    def number(v: Any) -> float | None:
        return None if pd.isna(v) else float(v)

    return any(number(a) != number(b) for a, b in zip(now, then, strict=True))


def _markdown(report: Attrition, estimate: Decimal | None) -> str:
    cost = "unknown" if estimate is None else f"{money(estimate)} at most"
    return (
        "# Attrition\n\n"
        f"{report.sentence}\n\n"
        f"Re-collected into dataset {report.dataset_id} ({cost}).\n\n"
        "## Per source\n\n"
        f"```\n{report.by_source.to_string(index=False)}\n```\n\n"
        "## Per run of the study\n\n"
        f"```\n{report.by_run.to_string(index=False)}\n```\n"
    )
