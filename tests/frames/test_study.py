"""A study as a package, over real HTTP against the sandbox: a two-dataset study file written
with ``rdskit study new``, run from the shell, killed with SIGKILL halfway and resumed
(nothing paid twice), packaged (RO-Crate 1.2 read by ``rocrate``, Data Package validated by
``frictionless validate``, no author name, handle or profile link in any file), and
re-collected by another user on another sandbox where some posts were deleted (the
attrition report's figures checked against the deletions)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import rdskit
from rdskit.sandbox import SandboxHandle, start
from rdskit.study import (
    Study,
    StudyFileError,
    load_study,
    package_study,
    rehydrate,
    study_status,
    template,
    validate_package,
)

TODAY = date(2026, 11, 20)  # both sandboxes: the same day, so the same corpus


def cli(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rdskit", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def environment(handle: SandboxHandle, api_key: str) -> dict[str, str]:
    return {
        **os.environ,
        "RDSKIT_API_KEY": api_key,
        "RDSKIT_BASE_URL": handle.url,
        "PYTHONPATH": os.pathsep.join(sys.path),
    }


@pytest.fixture(scope="module")
def slow_sandbox() -> Iterator[SandboxHandle]:
    """Runs take a few seconds (speed 2), so that a run can be killed halfway."""
    with start(speed=2, rate_limit=10_000, today=TODAY) as handle:
        yield handle


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("study")


@pytest.fixture(scope="module")
def researcher(slow_sandbox: SandboxHandle, study_dir: Path) -> dict[str, Any]:
    """A fresh user who writes a two-dataset study file, runs it, kills the run with SIGKILL
    halfway and runs it again."""
    account = slow_sandbox.admin.create_account(plan="Business")
    env = environment(slow_sandbox, account.api_key)
    env["RDSKIT_CACHE_DIR"] = str(study_dir / "cache")
    made = cli("study", "new", "study.toml", "--title", "Oat brands", env=env, cwd=study_dir)
    assert made.returncode == 0, made.stderr
    text = (study_dir / "study.toml").read_text()
    (study_dir / "study.toml").write_text(text.replace("count = 50", "count = 20"))

    running = subprocess.Popen(
        [sys.executable, "-m", "rdskit", "study", "run", "study.toml"],
        env=env,
        cwd=study_dir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert running.stdout is not None
    first = running.stdout.readline()  # "brand a: started run dsr_... of ds_..."
    assert first.startswith("brand a: started run"), first
    running.send_signal(signal.SIGKILL)
    running.wait(timeout=60)
    assert running.returncode == -signal.SIGKILL

    with rdskit.Client(account.api_key, base_url=slow_sandbox.url) as client:
        halfway = study_status(load_study(study_dir / "study.toml"), client)
        resumed = cli("study", "run", "study.toml", env=env, cwd=study_dir)
        assert resumed.returncode == 0, resumed.stderr
        datasets = {d.name: d.id for d in client.datasets.list(limit=100)}
        runs = {name: list(client.datasets.runs.list(ds_id)) for name, ds_id in datasets.items()}
        status = cli("study", "status", "study.toml", env=env, cwd=study_dir)
    return {
        "account": account,
        "env": env,
        "halfway": halfway,
        "resumed": resumed.stdout,
        "runs": runs,
        "status": status,
        "first": first,
    }


def test_run_killed_halfway_resumes_without_paying_twice(researcher: dict[str, Any]) -> None:
    halfway = researcher["halfway"]
    states = {d.name: d for d in halfway.datasets}
    # Killed after brand a's run was started: it exists, brand b was never started.
    assert states["brand a"].run_id is not None and states["brand a"].run_id in researcher["first"]
    assert states["brand b"].run_id is None and states["brand b"].estimate_credits == 20
    assert halfway.to_finish_credits == 20
    # The second run reused brand a's run and started brand b's: one run per dataset.
    assert f"brand a: reused run {states['brand a'].run_id}" in researcher["resumed"]
    assert "brand b: started run" in researcher["resumed"]
    assert {name: len(r) for name, r in researcher["runs"].items()} == {
        "brand a": 1,
        "brand b": 1,
    }
    assert all(r[0].status.type == "completed" for r in researcher["runs"].values())
    status = researcher["status"]
    assert status.returncode == 0 and "to finish: 0 credits" in status.stdout


def test_run_again_pays_nothing(researcher: dict[str, Any], study_dir: Path) -> None:
    again = cli("study", "run", "study.toml", env=researcher["env"], cwd=study_dir)
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("reused run") == 2 and "started run" not in again.stdout


def _people(frame: pd.DataFrame) -> set[str]:
    """Every author name, handle and profile link of the posts and their comments."""
    found: set[str] = set()
    for column in ("author_title", "author_title_url", "author_headline_url"):
        found |= {str(v) for v in frame[column].dropna()}
    for url in frame["author_title_url"].dropna():
        handle = re.search(r"/(?:@|user/|u/|channel/|in/)?([^/@?]+)/?$", str(url))
        if handle:
            found.add(f"@{handle.group(1)}")
            found.add(f"/{handle.group(1)}")
    for comments in frame["comments"].dropna():
        for comment in comments:
            found |= {comment["author_username"], comment["author_name"]} - {None, ""}
    return {p for p in found if len(p) > 3 and "reddit.com/r/" not in p}


@pytest.fixture(scope="module")
def packages(
    researcher: dict[str, Any], study_dir: Path, slow_sandbox: SandboxHandle
) -> dict[str, Any]:
    env = researcher["env"]
    # The labels-validation workflow's files, by convention next to the study file.
    (study_dir / "validation").mkdir()
    (study_dir / "validation" / "codebook.csv").write_text("code,definition\npraise,likes it\n")
    ids = cli("study", "package", "study.toml", "pkg", "--zip", env=env, cwd=study_dir)
    assert ids.returncode == 0, ids.stderr
    account = researcher["account"]
    with rdskit.Client(account.api_key, base_url=slow_sandbox.url) as client:
        study = load_study(study_dir / "study.toml")
        package_study(study, client, study_dir / "pseudo", content="pseudonymised")
        frame = client.mentions.to_frame(
            dataset_ids=[d.id for d in client.datasets.list(limit=100)]
        )
    return {"ids": study_dir / "pkg", "pseudo": study_dir / "pseudo", "frame": frame}


def test_package_is_an_ro_crate_and_a_valid_data_package(
    packages: dict[str, Any], tmp_path: Path
) -> None:
    from rocrate.rocrate import ROCrate

    crate = ROCrate(packages["ids"])
    assert crate.version == "1.2"
    described = {e.id for e in crate.get_entities()}
    assert {"data/ids.csv", "study.toml", "methods.md", "datapackage.json"} <= described
    frictionless = Path(sys.executable).with_name("frictionless")
    checked = subprocess.run(
        [str(frictionless), "validate", "datapackage.json"],
        cwd=packages["ids"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # rdskit's own check: both standards (rocrate, frictionless), the ids, the manifest.
    check = validate_package(packages["pseudo"])
    assert check.ok and check.posts == 40, check
    tampered = shutil.copytree(packages["pseudo"], tmp_path / "tampered")
    (tampered / "methods.md").write_text("changed")
    (tampered / "data" / "ids.csv").write_text("source,id\nreddit,\n")
    problems = str(validate_package(tampered))
    assert "methods.md was changed" in problems and "no column 'url'" in problems
    descriptor = json.loads((packages["ids"] / "datapackage.json").read_text())
    schemas = {r["path"]: r["schema"]["fields"] for r in descriptor["resources"]}
    assert [f["name"] for f in schemas["data/ids.csv"]] == [
        "source", "id", "url", "collected_at", "dataset", "run",
    ]  # fmt: skip
    assert Path(f"{packages['ids']}.zip").is_file()
    assert "validation/codebook.csv" in schemas and "validation/codebook.csv" in described


def test_package_ids_are_complete_and_say_what_was_collected(packages: dict[str, Any]) -> None:
    frame = packages["frame"]
    ids = pd.read_csv(packages["ids"] / "data" / "ids.csv", dtype=str)
    assert len(ids.drop_duplicates(["source", "id"])) == len(frame) == 40
    assert set(ids["dataset"]) == {"brand a", "brand b"}
    assert ids.notna().all().all()
    manifest = json.loads((packages["ids"] / "manifest.json").read_text())
    assert manifest["content"] == "ids" and not manifest["full_content_confirmed"]
    datacite = json.loads((packages["ids"] / "datacite.json").read_text())
    assert datacite["titles"] == [{"title": "Oat brands"}]
    assert datacite["creators"][0]["name"] == "Your Name"
    assert datacite["rightsList"][0]["rightsIdentifier"] == "CC-BY-4.0"
    figure = pd.read_csv(packages["ids"] / "figures" / "posts-per-source.csv")
    assert figure["n"].sum() == 40
    methods = (packages["ids"] / "methods.md").read_text()
    assert "We analysed 40 posts" in methods and "not pseudonymised" not in methods
    assert "What is shared holds each post's source, id and link only" in methods
    pseudo = (packages["pseudo"] / "methods.md").read_text()
    assert "pseudonym" in pseudo and "not pseudonymised" not in pseudo


def test_no_name_handle_or_profile_link_in_any_file(packages: dict[str, Any]) -> None:
    people = _people(packages["frame"])
    assert len(people) > 20  # the scan looks for something
    for package in (packages["ids"], packages["pseudo"]):
        for file in package.rglob("*"):
            if file.is_file():
                text = file.read_text(encoding="utf-8")
                leaked = sorted(p for p in people if p in text)
                assert not leaked, f"{file.relative_to(package)}: {leaked[:5]}"
    derived = pd.read_csv(packages["pseudo"] / "data" / "posts-pseudonymised.csv")
    assert len(derived) == 40 and derived["author"].str.startswith("u_").all()


def test_full_content_is_refused_unless_confirmed(
    researcher: dict[str, Any], study_dir: Path
) -> None:
    refused = cli(
        "study", "package", "study.toml", "full", "--content", "full",
        env=researcher["env"], cwd=study_dir,
    )  # fmt: skip
    assert refused.returncode == 1 and "confirm" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert not (study_dir / "full").exists()


def test_bad_study_file_is_one_error_naming_the_field(tmp_path: Path) -> None:
    good = template("T")
    for broken, field in (
        (good.replace("count = 50", "count = 0", 1), "datasets[0].count"),
        (good.replace('"tiktok"', '"myspace"', 1), "datasets[0].sources"),
        (good.replace('name = "brand b"', 'name = "brand a"', 1), "study: dataset name"),
        (good.replace("[study]", "[study]\nbugdet = 3", 1), "study.bugdet"),
        (good.replace("to = ", "too = ", 1), "datasets[0].window.to"),
    ):
        (tmp_path / "study.toml").write_text(broken)
        with pytest.raises(StudyFileError, match=re.escape(f"study.toml: {field}")):
            load_study(tmp_path / "study.toml")
    done = cli("study", "status", "study.toml", env=dict(os.environ), cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "study.toml: datasets[0].window.to" in done.stderr


def user_env(handle: SandboxHandle, api_key: str, home: Path) -> dict[str, str]:
    """Another user's shell: the key and URL the docs say to set, and a HOME of their own
    (no cache, ledger or settings of the test process)."""
    env = environment(handle, api_key)
    for name in [n for n in env if n.startswith(("XDG_", "RDSKIT_CACHE"))]:
        del env[name]
    return {**env, "HOME": str(home)}


def _keys(table: pd.DataFrame) -> pd.Series:
    return pd.Series(list(zip(table["source"], table["id"], strict=True)), index=table.index)


def test_rehydrate_on_a_brand_new_sandbox_reports_the_true_attrition(
    packages: dict[str, Any], tmp_path: Path
) -> None:
    """User B, on a brand-new sandbox (another database, another HOME) where nobody
    collected the study, re-collects user A's ids-only package with the CLI as
    docs/studies.md says, after the sandbox's admin deleted some of its posts and gave
    others more views or likes: the report's counts per source and per run are the truth,
    and every other post comes back with the metrics the study recorded."""
    package = packages["ids"]
    rows = pd.read_csv(package / "data" / "ids.csv", dtype=str)
    ids = rows.drop_duplicates(["source", "id"])
    recorded = pd.read_csv(package / "data" / "metrics.csv", dtype={"source": str, "id": str})
    recorded = recorded.set_index(["source", "id"])
    gone = ids.groupby("source").head(1)  # one post of each source deleted
    rest = ids[~_keys(ids).isin(set(_keys(gone)))]
    viewed, liked = rest.iloc[:2], rest.iloc[2:5]
    home = tmp_path / "home-b"
    home.mkdir()
    with start(db=tmp_path / "sandbox-2.db", speed=500, rate_limit=10_000, today=TODAY) as other:
        assert other.admin.change_posts(gone["url"].tolist(), deleted=True) == len(gone)
        other.admin.change_posts(viewed["url"].tolist(), extra_views=1000)
        other.admin.change_posts(liked["url"].tolist(), extra_likes=7)
        user = other.admin.create_account(plan="Pro")
        env = user_env(other, user.api_key, home)
        done = cli("study", "rehydrate", str(package), "--budget", "100", env=env, cwd=home)
        assert done.returncode == 0, done.stderr
        with rdskit.Client(user.api_key, base_url=other.url) as client:
            again = rehydrate(package, client, out=tmp_path / "again")  # resumed: free
            datasets = list(client.datasets.list())
            assert len(datasets) == 1
            assert len(list(client.datasets.runs.list(datasets[0].id))) == 1
            found = client.mentions.to_frame(dataset_ids=[datasets[0].id])
            with pytest.raises(rdskit.errors.BudgetExceeded, match="rehydrate"):
                rehydrate(package, client, budget_credits=5)

    # The truth, from what the admin did.
    deleted, changed = set(_keys(gone)), set(_keys(viewed)) | set(_keys(liked))
    truth = rows.drop_duplicates(["source", "id", "run"]).assign(
        found=lambda t: ~_keys(t).isin(deleted), changed=lambda t: _keys(t).isin(changed)
    )
    unique = truth.drop_duplicates(["source", "id"])
    for report, by, table in (("source", "source", unique), ("run", "run", truth)):
        expected = table.groupby(by).agg(
            posts=("id", "size"), found=("found", "sum"), metrics_changed=("changed", "sum")
        )
        expected["missing"] = expected["posts"] - expected["found"]
        written = pd.read_csv(package / "attrition" / f"attrition-by-{report}.csv", dtype={by: str})
        for got in (written.set_index(by), getattr(again, f"by_{report}").set_index(by)):
            for column in ("posts", "found", "missing", "metrics_changed"):
                assert got[column].to_dict() == expected[column].to_dict(), (report, column)
    assert again.missing == len(deleted) == len(gone) and again.found == len(ids) - len(deleted)
    # Every post found has the metrics the study recorded, plus what the admin added.
    assert set(_keys(found)) == set(_keys(ids)) - deleted
    for post in found.itertuples(index=False):
        key = (str(post.source), str(post.id))
        extra_views = 1000 if key in set(_keys(viewed)) else 0
        extra_likes = 7 if key in set(_keys(liked)) else 0
        then = recorded.loc[key]
        assert (post.num_views, post.num_likes) == (
            then["num_views"] + extra_views,
            then["num_likes"] + extra_likes,
        ), key
        assert (post.num_comments, post.num_shares) == (then["num_comments"], then["num_shares"])
    total = len(ids)
    assert (
        f"Of the {total} posts of the shared study (collected 2026-11-20), "
        f"{total - len(deleted)} ({(total - len(deleted)) / total:.1%}) were found again on "
        "2026-11-20" in again.sentence
    )
    assert f"{len(changed)} of those found had other views, likes" in again.sentence
    assert again.sentence in (package / "attrition" / "attrition.md").read_text()
    assert f"{again.found} ({again.found / total:.1%})" in done.stdout


def test_rehydrate_on_a_sandbox_of_another_seed_is_refused(
    packages: dict[str, Any], tmp_path: Path
) -> None:
    """A sandbox of another seed is another corpus: none of the package's posts ever
    existed there, so rehydrate refuses (one line) instead of reporting them all deleted."""
    with start(seed=1, speed=500, rate_limit=10_000, today=TODAY) as other:
        user = other.admin.create_account(plan="Pro")
        env = user_env(other, user.api_key, tmp_path)
        done = cli("study", "rehydrate", str(packages["ids"]), env=env, cwd=tmp_path)
        with rdskit.Client(user.api_key, base_url=other.url) as client:
            assert list(client.datasets.list()) == []  # nothing collected, nothing charged
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "holds 0 of the package's 40 posts" in done.stderr and "seed" in done.stderr


def test_only_a_sandbox_is_told_the_runs(tmp_path: Path) -> None:
    """A service whose GET /v1/me has no instance header (the real service) is sent that
    read and nothing emulator-only; a sandbox reached where POST /sandbox/platforms is not
    served (the Jupyter gateway forwards /v1 only) is one error naming the fix."""
    import httpx

    from rdskit.study.rehydrate import _hold_on_sandbox

    with start(speed=500) as sandbox:
        me = httpx.get(f"{sandbox.url}/v1/me", headers={"x-api-key": sandbox.api_key})
    package = tmp_path / "pkg"
    package.mkdir()
    run = {"id": "dsr_1", "dataset_id": "ds_1", "status": "completed", "params": {}}
    (package / "provenance.json").write_text(json.dumps({"fetches": [{"runs": [run]}]}))
    posts = pd.DataFrame({"source": ["reddit"], "id": ["abc1234"]})
    for sandboxed in (False, True):
        seen: list[tuple[str, str]] = []
        transport = _service(me, sandboxed, seen)
        options = {"base_url": "https://service.example", "transport": transport}
        with rdskit.Client("rds_test_key", rate_limit=None, **options) as client:
            if sandboxed:
                with pytest.raises(rdskit.errors.InvalidParameter, match="Jupyter gateway"):
                    _hold_on_sandbox(package, client, posts)
                assert seen == [("GET", "/v1/me"), ("POST", "/sandbox/platforms")]
            else:
                _hold_on_sandbox(package, client, posts)
                assert seen == [("GET", "/v1/me")]


def _service(me: Any, sandboxed: bool, seen: list[tuple[str, str]]) -> Any:
    """A service answering GET /v1/me with ``me``'s body (and the sandbox's instance header
    when ``sandboxed``) and 404 to anything else, recording every request in ``seen``."""
    import httpx

    from rdskit.models.account import INSTANCE_HEADER

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, request.url.path))
        if request.url.path == "/v1/me":
            extra = {INSTANCE_HEADER: me.headers[INSTANCE_HEADER]} if sandboxed else {}
            headers = {"content-type": "application/json", **extra}
            return httpx.Response(200, content=me.content, headers=headers)
        return httpx.Response(404, text="<html>Not found</html>")

    return httpx.MockTransport(answer)


def test_a_study_over_its_budget_starts_nothing(slow_sandbox: SandboxHandle) -> None:
    account = slow_sandbox.admin.create_account(plan="Business")
    study = Study.model_validate(
        {
            "title": "Too big",
            "creators": [{"name": "A"}],
            "budget_credits": 30,
            "datasets": [
                {"name": n, "query": "oat milk", "sources": ["reddit"], "count": 20}
                for n in ("one", "two")
            ],
        }
    )
    with rdskit.Client(account.api_key, base_url=slow_sandbox.url) as client:
        refused = r"study\.budget_credits is 30 credits"
        with pytest.raises(rdskit.errors.BudgetExceeded, match=refused):
            study.run(client)
        assert list(client.datasets.list()) == []


def test_pandas_verbs_on_two_stacked_loads(
    researcher: dict[str, Any], slow_sandbox: SandboxHandle
) -> None:
    account = researcher["account"]
    with rdskit.Client(account.api_key, base_url=slow_sandbox.url) as client:
        names = {d.name: d.id for d in client.datasets.list(limit=100)}
        a = client.mentions.to_frame(dataset_ids=[names["brand a"]])
        both = client.mentions.to_frame(dataset_ids=list(names.values()))
    stacked = pd.concat([a, both])
    assert len(stacked) == 60
    unique = stacked.drop_duplicates()
    assert len(unique) == 40  # both copies of a's posts are equal rows: the first is kept
    assert unique["id"].iloc[:20].tolist() == a["id"].tolist()
    assert stacked.nunique()["id"] == 40
    assert stacked.describe(include="all").loc["unique", "id"] == 40
    assert stacked["datasets"].value_counts().sum() == 60
    with pytest.raises(rdskit.frames.ListColumnError, match=r"df\.rds\.dedupe\(\)"):
        stacked.sort_values("datasets")
    with pytest.raises(rdskit.frames.ListColumnError, match="to_numpy_dtypes"):
        stacked.groupby("datasets")
    deduped = stacked.rds.dedupe()
    assert len(deduped) == 40
    for column in ("source", "content_type", "language"):
        assert isinstance(deduped[column].dtype, pd.CategoricalDtype), column
    assert set(deduped["language"].cat.categories) == set(stacked["language"].dropna())
    assert {r.id for r in deduped.rds.provenance().runs} == {
        r.id for r in both.rds.provenance().runs
    }
    assert "20 rows repeating a post" in deduped.rds.methods().text
    assert "narrowed" not in deduped.rds.methods().text
