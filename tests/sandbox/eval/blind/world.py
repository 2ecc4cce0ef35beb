"""The blind evaluation's world: a fresh sandbox, its datasets, and the posts as frames.

Everything here uses the product as a user would: REST over real HTTP (httpx), the
spec's endpoints only (POST /v1/datasets, POST /v1/datasets/{id}/runs, POST /v1/mentions,
POST /v1/ask, GET /v1/chats/{chat}/messages/{msg}). Nothing reads the assistant's code.

Two topics the project's suites never used (fitness at home, personal finance for
students), two datasets each, so that questions can compare datasets of one topic.
Set 3 has its own world (DATASETS_SET3: e-bikes and cargo bikes, sourdough and stand
mixers), set 4 too (DATASETS_SET4: cat food and dog training, heat pumps and solar panels),
set 5 too (DATASETS_SET5: a bus strike and library closures, houseplants and board games),
set 6 too (DATASETS_SET6: a sugar tax and a vape ban, camping tents and hiking boots),
each built in a separate sandbox with the same date, seed and speed; sets 1 and 2 keep
DATASETS, unchanged.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import httpx
import pandas as pd

#: The sandbox's fixed date (its clock starts at 12:00 UTC that day) and seed.
TODAY = "2026-11-20"
SEED = "0"
SPEED = "1000"

ALL_SOURCES = ["reddit", "tiktok", "youtube", "instagram", "linkedin"]


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset of the world: its key in the question sets, its name, its runs."""

    key: str
    name: str
    query: str
    sources: tuple[str, ...]
    count: int


DATASETS: tuple[DatasetSpec, ...] = (
    DatasetSpec("gym", "Home gym", "home gym equipment", tuple(ALL_SOURCES), 300),
    DatasetSpec("yoga", "Yoga mats", "yoga mat", ("reddit", "tiktok", "instagram", "youtube"), 200),
    DatasetSpec(
        "budget",
        "Budgeting apps",
        "budgeting app",
        ("reddit", "linkedin", "youtube", "tiktok"),
        300,
    ),
    DatasetSpec(
        "loans",
        "Student loans",
        "student loan repayment",
        ("reddit", "linkedin", "tiktok", "instagram"),
        200,
    ),
)
#: Set 3's world (a separate sandbox, same date, seed and speed; sets 1 and 2 keep
#: DATASETS above): two more topics nothing in the project used before, cycling with a
#: motor or a load (e-bikes, cargo bikes) and baking bread at home (sourdough, stand mixers).
DATASETS_SET3: tuple[DatasetSpec, ...] = (
    DatasetSpec("ebike", "E-bikes", "electric bike", tuple(ALL_SOURCES), 300),
    DatasetSpec(
        "cargo", "Cargo bikes", "cargo bike", ("reddit", "youtube", "instagram", "tiktok"), 200
    ),
    DatasetSpec(
        "sourdough",
        "Sourdough",
        "sourdough starter",
        ("reddit", "tiktok", "instagram", "youtube"),
        300,
    ),
    DatasetSpec(
        "mixer", "Stand mixers", "stand mixer", ("reddit", "youtube", "tiktok", "linkedin"), 200
    ),
)
#: Set 4's world (a separate sandbox, same date, seed and speed): two more everyday topics
#: nothing in the project used before, pets (cat food, dog training) and energy at home
#: (heat pumps, solar panels).
DATASETS_SET4: tuple[DatasetSpec, ...] = (
    DatasetSpec("catfood", "Cat food", "cat food", tuple(ALL_SOURCES), 300),
    DatasetSpec(
        "dogs", "Dog training", "puppy training", ("reddit", "tiktok", "instagram", "youtube"), 200
    ),
    DatasetSpec(
        "heatpump", "Heat pumps", "heat pump", ("reddit", "youtube", "linkedin", "tiktok"), 300
    ),
    DatasetSpec(
        "solar",
        "Solar panels",
        "rooftop solar panels",
        ("reddit", "linkedin", "youtube", "instagram"),
        200,
    ),
)
#: Set 5's world (a separate sandbox, same date, seed and speed): a public debate (a local
#: bus drivers' strike, public library closures) and an everyday pastime at home
#: (houseplants, board games), two topics nothing in the project used before.
DATASETS_SET5: tuple[DatasetSpec, ...] = (
    DatasetSpec("strike", "Bus strike", "bus drivers strike", tuple(ALL_SOURCES), 300),
    DatasetSpec(
        "library",
        "Library closures",
        "public library closure",
        ("reddit", "linkedin", "youtube", "instagram"),
        200,
    ),
    DatasetSpec(
        "plants",
        "Houseplants",
        "houseplant care",
        ("reddit", "tiktok", "instagram", "youtube"),
        300,
    ),
    DatasetSpec(
        "games",
        "Board games",
        "board game night",
        ("reddit", "youtube", "tiktok", "instagram"),
        200,
    ),
)
#: Set 6's world (a separate sandbox, same date, seed and speed): a public-health debate (a
#: sugar tax on soft drinks, a ban on disposable vapes) and the outdoors (camping tents,
#: hiking boots), two topics nothing in the project used before.
DATASETS_SET6: tuple[DatasetSpec, ...] = (
    DatasetSpec("sugar", "Sugar tax", "sugar tax", tuple(ALL_SOURCES), 300),
    DatasetSpec(
        "vape", "Vape ban", "disposable vape ban", ("reddit", "tiktok", "youtube", "linkedin"), 200
    ),
    DatasetSpec(
        "tents", "Camping tents", "camping tent", ("reddit", "youtube", "tiktok", "instagram"), 300
    ),
    DatasetSpec(
        "boots",
        "Hiking boots",
        "hiking boots",
        ("reddit", "instagram", "youtube", "linkedin"),
        200,
    ),
)
ACTIONS = ["sentiment", "emotions", "hook", "cta"]
COMMENTS_PER_POST = 3


class World:
    """A started sandbox with the four datasets collected and their posts loaded.

    `datasets` is the world's list (DATASETS for sets 1 and 2, DATASETS_SET3 for set 3,
    DATASETS_SET4 for set 4, DATASETS_SET5 for set 5, DATASETS_SET6 for set 6).
    """

    def __init__(self, datasets: tuple[DatasetSpec, ...] = DATASETS) -> None:
        self.datasets = datasets
        import rdskit.sandbox  # the public start(): url, api_key, stop()

        # start() reads these from the environment; set them only while it starts, so a
        # test process's other sandboxes are not changed.
        settings = {
            "RDSKIT_SANDBOX_SPEED": SPEED,
            "RDSKIT_SANDBOX_SEED": SEED,
            "RDSKIT_SANDBOX_TODAY": TODAY,
        }
        saved = {k: os.environ.get(k) for k in settings}
        os.environ.update(settings)
        try:
            self.handle = rdskit.sandbox.start(today=TODAY)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        self.http = httpx.Client(
            base_url=self.handle.url, headers={"x-api-key": self.handle.api_key}, timeout=120
        )
        self.ids: dict[str, str] = {}
        self.frames: dict[str, pd.DataFrame] = {}

    # -- REST helpers -------------------------------------------------------------------
    def _call(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        for _ in range(50):
            r = self.http.request(method, path, **kw)
            if r.status_code == 429:
                time.sleep(float(r.json().get("retry_after_seconds", 1)))
                continue
            r.raise_for_status()
            return r.json()
        raise RuntimeError(f"{method} {path}: rate limited 50 times")

    def build(self) -> None:
        """Create every dataset, run its collection, wait for completion, load posts."""
        runs = []
        for spec in self.datasets:
            ds = self._call("POST", "/v1/datasets", json={"name": spec.name})["data"]
            self.ids[spec.key] = ds["id"]
            run = self._call(
                "POST",
                f"/v1/datasets/{ds['id']}/runs",
                json={
                    "count": spec.count,
                    "num_comments_per_post": COMMENTS_PER_POST,
                    "search_query": {
                        "type": "prompt",
                        "sources": list(spec.sources),
                        "search_query": spec.query,
                    },
                    "content_analysis_actions": ACTIONS,
                },
            )["data"]
            runs.append((ds["id"], run["id"]))
        for ds_id, run_id in runs:
            while True:
                status = self._call("GET", f"/v1/datasets/{ds_id}/runs/{run_id}")["data"]
                if status["status"]["type"] in ("completed", "failed"):
                    break
                time.sleep(0.3)
            if status["status"]["type"] != "completed":
                raise RuntimeError(f"run {run_id} of {ds_id} failed: {status}")
        for spec in self.datasets:
            self.frames[spec.key] = mentions_frame(self.mentions(self.ids[spec.key]), spec.name)

    def mentions(self, dataset_id: str) -> list[dict[str, Any]]:
        """Every post of a dataset: POST /v1/mentions, all pages."""
        out: list[dict[str, Any]] = []
        cursor = None
        while True:
            body: dict[str, Any] = {"dataset_ids": [dataset_id], "limit": 100}
            if cursor:
                body["cursor"] = cursor
            page = self._call("POST", "/v1/mentions", json=body)
            out.extend(page["data"])
            if not page.get("has_next"):
                return out
            cursor = page["cursor"]

    def ask(
        self, message: str, dataset_keys: list[str], chat_id: str | None = None
    ) -> tuple[str, str, dict[str, Any], float]:
        """One Ask turn through the public API; returns chat id, text, raw reply, seconds."""
        body: dict[str, Any] = {
            "message": message,
            "context": {"dataset_ids": [self.ids[k] for k in dataset_keys]},
        }
        if chat_id:
            body["chat_id"] = chat_id
        t0 = time.perf_counter()
        started = self._call("POST", "/v1/ask", json=body)["data"]
        chat, msg = started["chat_id"], started["message_id"]
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            reply = self._call("GET", f"/v1/chats/{chat}/messages/{msg}")["data"]
            if reply.get("status", "completed") == "completed" and reply.get("text") is not None:
                return chat, reply["text"], reply, time.perf_counter() - t0
            time.sleep(0.2)
        raise TimeoutError(f"no reply to {message!r}")

    def stop(self) -> None:
        self.http.close()
        self.handle.stop()


def _f(value: Any) -> float | None:
    return None if value is None else float(value)


def _argmax(scores: dict[str, Any] | None) -> str | None:
    if not scores:
        return None
    return max(scores, key=lambda k: float(scores[k]))


def mentions_frame(mentions: list[dict[str, Any]], dataset: str) -> pd.DataFrame:
    """One row per post, the wire values as plain columns (UTC datetimes)."""
    rows = []
    for m in mentions:
        author = m.get("author") or {}
        cta = m.get("cta")
        rows.append(
            {
                "dataset": dataset,
                "source": m["source"],
                "id": m["id"],
                "content_type": m.get("content_type"),
                "title": m.get("title") or "",
                "text": m.get("text") or "",
                "language": m.get("language"),
                "country": m.get("country_code"),
                "author": author.get("title"),
                "handle": author.get("headline"),
                "created": pd.Timestamp(m["created_at"], unit="s", tz="UTC"),
                "views": m.get("num_views") or 0,
                "likes": m.get("num_likes") or 0,
                "comments": m.get("num_comments") or 0,
                "shares": m.get("num_shares") or 0,
                "engagement_rate": _f(m.get("engagement_rate")),
                "sentiment_score": _f(m.get("sentiment_score")),
                "sentiment": _argmax(m.get("sentiment")),
                "emotion": _argmax(m.get("emotions")),
                "hooks": [h.get("type") for h in (m.get("hooks") or [])],
                "cta": (cta or {}).get("text") if cta else None,
                "brands": list(m.get("mentioned_brands") or []),
                "topics": [t.get("text") for t in (m.get("content_topics") or [])],
                "intention": m.get("content_intention"),
                "comment_list": list(m.get("comments") or []),
                "has_media": bool(m.get("media")),
            }
        )
    df = pd.DataFrame(rows)
    df["engagement"] = df["likes"] + df["comments"] + df["shares"]
    df["weekday"] = df["created"].dt.day_name()
    df["hour"] = df["created"].dt.hour
    df["month"] = df["created"].dt.strftime("%Y-%m")
    return df
