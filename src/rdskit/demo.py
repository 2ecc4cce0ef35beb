"""``rdskit demo``: the whole toolkit end to end, offline, in well under a minute.

On a private sandbox (no key, no network) it creates a dataset, collects posts with a
live progress line, loads them into a DataFrame, asks the assistant a question and
prints the answer with its references, then saves charts (PNG), the frame (parquet) and
the answer (markdown) into ``--out`` (default ``./rdskit-demo``).

The charts follow the rules the answer follows: they show the organic posts only (the
assistant leaves ads out of what people think, and says so), every share per period
carries its n (periods under :data:`rdskit.frames.plots.MIN_N` posts are not drawn),
every chart states under its title its n and that ads were left out (each PNG also holds
that line as its ``Description`` metadata), and the engagement chart marks the sources
whose views are estimated, saying so on the terminal too.

Service text is hostile until proven otherwise: what reaches the terminal goes through
:func:`rdskit._safe.terminal` (no escape sequences), and ``answer.md`` is the answer's
safe markdown form (no raw HTML or images, names escaped, one line each).

Example:
    $ rdskit demo --out /tmp/rdskit-demo
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from rdskit._extras import require
from rdskit._safe import terminal
from rdskit.errors import EstimatedViewsWarning

__all__ = ["CHARTS", "QUESTION", "add_demo", "run_demo"]

QUESTION = (
    "Without ads, what do people complain about most, and how does sentiment split by source?"
)
"""The question the demo asks about its dataset: two parts, answered as two sections of one
reply whose ``[N]`` markers are numbered across the whole message. Ads are left out, as in
the demo's charts (the assistant includes them unless a question says otherwise)."""

# Every chart is drawn on the organic posts (see run_demo).
CHARTS: dict[str, Callable[[Any, Any], Any]] = {
    "volume.png": lambda df, ax: df.rds.plot.volume("weekly", ax=ax),
    "sentiment.png": lambda df, ax: df.rds.plot.sentiment("quarterly", ax=ax),
    "sources.png": lambda df, ax: df.rds.plot.sources(ax=ax),
    "emotions.png": lambda df, ax: df.rds.plot.emotions(ax=ax),
    "engagement.png": lambda df, ax: df.rds.plot.engagement(ax=ax),
}
"""The charts the demo saves: file name -> how to draw it on a frame."""


def run_demo(
    out: Path, *, speed: float = 20.0, count: int = 120, stream: IO[str] | None = None
) -> int:
    """Run the demo into ``out``; returns the process exit code (0).

    ``speed`` speeds up the sandbox's simulated time; ``count`` is how many posts the
    collection asks for. Progress goes to stderr, the story to ``stream`` (stdout).

    Example:
        >>> run_demo(Path("/tmp/rdskit-demo"), speed=50)  # doctest: +SKIP
        0
    """
    require("sandbox", "rdskit demo")
    require("jupyter", "rdskit demo (its charts)", ("matplotlib",))
    from rdskit.client import Client
    from rdskit.jupyter.render import answer_bundle
    from rdskit.sandbox import start

    say = _printer(stream or sys.stdout)
    out.mkdir(parents=True, exist_ok=True)
    say("Starting a private sandbox: offline, no API key needed.")
    with start(speed=speed) as sandbox, Client(sandbox.api_key, base_url=sandbox.url) as client:
        dataset = client.datasets.create("Oat milk (rdskit demo)")
        cost = client.estimate("dataset_run", count=count)  # str(): "120 credits (1.78 USD)"
        say(f"Created dataset {dataset.id}; collecting up to {count} posts (at most {cost})...")
        run = client.datasets.runs.create(
            dataset.id,
            search_query={
                "type": "prompt",
                "sources": ["reddit", "tiktok", "youtube", "instagram"],
                "search_query": "oat milk",
            },
            count=count,
            content_analysis_actions=["sentiment", "hook", "cta"],
        )
        run.wait(progress=True)
        frame = client.mentions.to_frame(dataset_ids=[dataset.id])
        by_source = ", ".join(f"{n} {s}" for s, n in frame["source"].value_counts().items() if n)
        say(f"Loaded {len(frame)} posts into a DataFrame ({by_source}).")
        organic = frame.rds.organic()  # what people say: the answer leaves ads out too

        say(f"\nAsking the assistant: {QUESTION}")
        answer = client.ask(QUESTION, dataset_ids=[dataset.id]).wait(progress=True)
        bundle = answer_bundle(answer)
        say("\n" + bundle["text/plain"] + "\n")  # the markdown with numbered footnotes

        ads = len(frame) - len(organic)
        say(
            f"Charts: the {len(organic)} organic posts ({_plural(ads, 'ad')} left out, as in "
            "the answer), each with its n under the title; shares per quarter show their n."
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", EstimatedViewsWarning)
            charts = _save_charts(out, organic)
        for warning in caught:
            if issubclass(warning.category, EstimatedViewsWarning):
                say(f"engagement.png: {warning.message} (their bars are hatched).")
        saved = [
            _save_answer(out, bundle["text/markdown"]),
            _save_frame(out, frame),
            *charts,
        ]
    say(f"Saved into {out.resolve()}:")
    for path in saved:
        say(f"  {path.name}")
    say(
        "Read the posts back with rdskit.frames.read_parquet(...) (or pandas.read_parquet(..., "
        "dtype_backend='pyarrow'))."
    )
    say("Next: open a notebook, run `%load_ext rdskit`, then `%%ask` a question of your own.")
    return 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _printer(stream: IO[str]) -> Callable[[str], None]:
    def say(text: str) -> None:
        print(terminal(text), file=stream, flush=True)

    return say


def _save_answer(out: Path, markdown: str) -> Path:
    path = out / "answer.md"
    path.write_text(markdown + "\n", encoding="utf-8")
    return path


def _save_frame(out: Path, frame: Any) -> Path:
    path = out / "mentions.parquet"
    # Readable by plain pd.read_parquet; rdskit.frames.read_parquet restores the dtypes.
    frame.rds.to_parquet(path)
    return path


def _save_charts(out: Path, frame: Any) -> list[Path]:
    # A bare Figure renders with Agg without touching pyplot's global backend.
    from matplotlib.figure import Figure

    from rdskit.frames.plots import SCOPE_GID

    saved = []
    for name, draw in CHARTS.items():
        figure = Figure(figsize=(8, 4.5), layout="constrained")
        ax = draw(frame, figure.add_subplot())
        # The line under the title (n, ads) also as PNG metadata, for a reader or a test.
        scope = " | ".join(t.get_text() for t in ax.texts if t.get_gid() == SCOPE_GID)
        metadata = {"Title": ax.get_title(), "Description": scope, "Software": "rdskit"}
        figure.savefig(out / name, dpi=110, metadata=metadata)
        saved.append(out / name)
    return saved


def _main(args: argparse.Namespace) -> int:
    return run_demo(Path(args.out), speed=args.speed, count=args.count)


def add_demo(subparsers: Any) -> None:
    """``rdskit demo``: the offline end-to-end tour."""
    parser = subparsers.add_parser(
        "demo", help="run an offline tour: collect, analyse, ask, save charts and parquet"
    )
    parser.add_argument(
        "--out", default="./rdskit-demo", help="where to save the files (default ./rdskit-demo)"
    )
    parser.add_argument(
        "--speed", type=float, default=20.0, help="sandbox simulated-time speed-up (default 20)"
    )
    parser.add_argument("--count", type=int, default=120, help="posts to collect (default 120)")
    parser.set_defaults(handler=_main)
