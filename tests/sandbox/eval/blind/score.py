"""Score a blind question set against the sandbox's assistant, over real HTTP.

    python tests/sandbox/eval/blind/score.py set1 [--out results/set1.json]
    python tests/sandbox/eval/blind/score.py set1 --truth-only   # no question is asked
    python tests/sandbox/eval/blind/score.py set1 --rejudge results/set1.json --out ...

It starts a fresh sandbox (world.TODAY, world.SEED, speed world.SPEED), builds the set's
four datasets (world.DATASETS; sets 3 to 6 their own: world.DATASETS_SET3, _SET4, _SET5,
_SET6), asks every question through POST /v1/ask (follow-ups in one chat), recomputes the
truth from POST /v1/mentions, judges each answer (judge.auto_verdict, then the hand verdicts of
verdicts/<set>.json when present) and prints the scores and a table.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from judge import Alt, Q, auto_verdict, compute_truth  # noqa: E402
from world import DATASETS, SEED, SPEED, TODAY, World  # noqa: E402

PASS = {"correct", "correct_caveat"}


def load(set_name: str) -> list[Q]:
    return list(importlib.import_module(set_name).QUESTIONS)


def datasets_of(set_name: str) -> Any:
    """A set's world: its module's DATASETS when it names one (sets 3-6), else world.DATASETS."""
    return getattr(importlib.import_module(set_name), "DATASETS", DATASETS)


def questions_sha256(set_name: str) -> str:
    """The digest of a set's file: a frozen result names the exact questions it scored."""
    return hashlib.sha256((HERE / f"{set_name}.py").read_bytes()).hexdigest()


def jsonable(value: Any) -> Any:
    if isinstance(value, Alt):
        return {"any_of": [jsonable(v) for v in value.options]}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and value != value:
        return None
    return value


def from_jsonable(value: Any) -> Any:
    if isinstance(value, dict) and "any_of" in value:
        return Alt(*(from_jsonable(v) for v in value["any_of"]))
    if isinstance(value, list):
        return [from_jsonable(v) for v in value]
    return value


def hand_verdicts(set_name: str) -> dict[str, dict[str, str]]:
    path = HERE / "verdicts" / f"{set_name}.json"
    return json.loads(path.read_text()) if path.exists() else {}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    verdicts = Counter(r["verdict"] for r in rows)
    plain = sum(verdicts[v] for v in PASS)
    by: dict[str, dict[str, list[int]]] = {"category": defaultdict(list), "lang": defaultdict(list)}
    for r in rows:
        for key in by:
            by[key][r[key]].append(1 if r["verdict"] in PASS else 0)
    return {
        "n": n,
        "plain": plain,
        "strict": verdicts["correct"],
        "confident_wrong": verdicts["confident_wrong"],
        "plain_pct": round(100 * plain / n, 1),
        "strict_pct": round(100 * verdicts["correct"] / n, 1),
        "verdicts": dict(verdicts),
        "by_category": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(by["category"].items())},
        "by_lang": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(by["lang"].items())},
    }


def table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'id':<10} {'lang':<4} {'category':<16} {'verdict':<16} question"]
    for r in rows:
        q = r["q"] if len(r["q"]) < 70 else r["q"][:67] + "..."
        lines.append(f"{r['id']:<10} {r['lang']:<4} {r['category']:<16} {r['verdict']:<16} {q}")
    return "\n".join(lines)


def commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=HERE, capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run(set_name: str, truth_only: bool = False) -> dict[str, Any]:
    t0 = time.perf_counter()
    questions = load(set_name)
    world = World(datasets_of(set_name))
    try:
        world.build()
        built = time.perf_counter() - t0
        hand = hand_verdicts(set_name)
        chats: dict[str, str] = {}
        rows = []
        for q in questions:
            truth = compute_truth(q, world.frames)
            row: dict[str, Any] = asdict(q) | {"truth_value": jsonable(truth)}
            if not truth_only:
                chat_id = chats.get(q.chat) if q.chat else None
                chat_id, text, _raw, secs = world.ask(q.q, q.scope, chat_id)
                if q.chat:
                    chats[q.chat] = chat_id
                auto = auto_verdict(q, truth, text)
                verdict = hand.get(q.id, {}).get("verdict", auto)
                row |= {
                    "answer": text,
                    "seconds": round(secs, 3),
                    "auto_verdict": auto,
                    "verdict": verdict,
                    "hand_note": hand.get(q.id, {}).get("note", ""),
                }
            rows.append(row)
    finally:
        world.stop()
    result: dict[str, Any] = {
        "set": set_name,
        "questions_sha256": questions_sha256(set_name),
        "commit": commit(),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "sandbox": {"today": TODAY, "seed": SEED, "speed": SPEED},
        "build_seconds": round(built, 1),
        "total_seconds": round(time.perf_counter() - t0, 1),
        "rows": rows,
    }
    if not truth_only:
        result["summary"] = summarise(rows)
    return result


def rejudge(path: Path) -> dict[str, Any]:
    """Judge a results file's answers again (automatic rules + hand verdicts), asking nothing."""
    result = json.loads(path.read_text())
    hand = hand_verdicts(result["set"])
    fields = set(Q.__dataclass_fields__)
    for row in result["rows"]:
        q = Q(**{k: v for k, v in row.items() if k in fields})
        row["auto_verdict"] = auto_verdict(q, from_jsonable(row["truth_value"]), row["answer"])
        row["verdict"] = hand.get(q.id, {}).get("verdict", row["auto_verdict"])
        row["hand_note"] = hand.get(q.id, {}).get("note", "")
    result.setdefault("questions_sha256", questions_sha256(result["set"]))
    result["judged_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    result["summary"] = summarise(result["rows"])
    return result


def below_baseline(summary: dict[str, Any], baseline_path: Path) -> list[str]:
    """What got worse than a frozen result: a lower score or more confident wrong answers."""
    base = json.loads(baseline_path.read_text())["summary"]
    worse = []
    if summary["plain"] < base["plain"]:
        worse.append(f"score {summary['plain']} < baseline {base['plain']}")
    if summary["confident_wrong"] > base["confident_wrong"]:
        worse.append(
            f"confident wrong {summary['confident_wrong']} > baseline {base['confident_wrong']}"
        )
    return worse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set_name", help="set1 to set6 (a module of this folder)")
    parser.add_argument("--out", help="write the full results (answers, truths, verdicts) here")
    parser.add_argument("--truth-only", action="store_true", help="compute truths, ask nothing")
    parser.add_argument(
        "--rejudge",
        metavar="RESULTS",
        help="judge a results file again (hand verdicts), ask nothing",
    )
    parser.add_argument(
        "--baseline", metavar="RESULTS", help="exit 1 if the score is below this frozen result's"
    )
    args = parser.parse_args()
    result = rejudge(Path(args.rejudge)) if args.rejudge else run(args.set_name, args.truth_only)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    if args.truth_only:
        for r in result["rows"]:
            print(f"{r['id']:<10} {json.dumps(r['truth_value'], ensure_ascii=False)[:100]}")
        print(f"{len(result['rows'])} truths computed in {result['total_seconds']} s")
        return
    print(table(result["rows"]))
    s = result["summary"]
    print(json.dumps({k: s[k] for k in ("by_category", "by_lang", "verdicts")}, indent=1))
    print(
        f"\n{args.set_name}: score {s['plain']}/{s['n']} ({s['plain_pct']} %), "
        f"strict {s['strict']}/{s['n']} ({s['strict_pct']} %), "
        f"confident wrong answers: {s['confident_wrong']}; "
        f"scored on {result['commit'][:12]} at {result['date_utc']}; "
        f"{result['total_seconds']} s (build {result['build_seconds']} s)"
    )
    if args.baseline:
        worse = below_baseline(s, Path(args.baseline))
        if worse:
            print("WORSE THAN THE BASELINE: " + "; ".join(worse))
            sys.exit(1)
        print("not below the baseline")


if __name__ == "__main__":
    main()
