"""Benchmark: ``rdskit export`` memory at 100k and 1M mentions, and its speed under the limit.

The service side is a synthetic server on loopback, in its own process: it answers
``GET /v1/datasets/{id}`` and ``POST /v1/mentions`` with pages cut from 100 real sandbox
mentions (captured at start-up from an embedded sandbox), each given a unique id, so a
dataset of any size costs no collection time. ``ds_bench_<N>`` holds N mentions.
(The sandbox itself cannot hold a million mentions in a benchmark's time.)

Each export runs in a child process (``export_mentions``, parquet, default part size) and
its peak RSS is read from the kernel (``wait4``'s ``ru_maxrss``):

- memory: 100,000 and 1,000,000 mentions with the client's rate limit off; the figure is
  peak RSS at 1M as a ratio of peak RSS at 100k. Target: at most 1.5 (flat: memory holds
  one part, not the dataset).
- speed (measured first: under a minute, where 1M takes minutes): 20,000 mentions (200
  pages, so one page more or less moves the ratio by 0.005) with the service's 5
  requests/s limit on; the figure is mentions/s as a ratio of the ceiling, 5 x 100 = 500
  mentions/s. Target: at least 0.8.

Exit status 1 when a target is missed. Timings are inflated on a loaded machine.

Usage:
    python benchmarks/bench_export.py [--small 100000] [--large 1000000] [--speed-pages 200]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

KEY = "bz_test_0123456789abcdef0123456789abcdef"
PAGE = 100
RATE_LIMIT = 5.0
SPEED_PAGES = 200  # pages exported under the rate limit for the speed figure
CEILING = RATE_LIMIT * PAGE
MAX_RSS_RATIO = 1.5
MIN_SPEED_RATIO = 0.8
PLACEHOLDER = "@@ID@@"
TODAY = "2026-06-01"  # the sandbox's date: its corpus is the same whatever the day


def capture_sample(path: Path) -> None:
    """100 mentions and a dataset from an embedded sandbox, saved as JSON."""
    import rdskit
    from rdskit.sandbox import start

    with start(speed=500, rate_limit=10_000, today=TODAY) as box:
        client = rdskit.Client(box.api_key, base_url=box.url)
        dataset = client.datasets.create("bench export")
        run = client.datasets.runs.create(
            dataset.id,
            search_query={
                "type": "prompt",
                "sources": ["reddit", "tiktok", "instagram"],
                "search_query": "oat milk",
            },
            count=PAGE,
            content_analysis_actions=["sentiment", "hook", "cta"],
        )
        run.wait(progress=False)
        mentions = [m.to_wire() for m in client.mentions.list(dataset_ids=[dataset.id])]
        wire = client.datasets.get(dataset.id).to_wire()
    path.write_text(json.dumps({"mentions": mentions, "dataset": wire}))


def serve(sample: Path, port_file: Path) -> None:
    """The synthetic service (runs until killed)."""
    data = json.loads(sample.read_text())
    templates = []
    for mention in data["mentions"]:
        templates.append(json.dumps({**mention, "id": PLACEHOLDER}))
    dataset = data["dataset"]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _missing(self) -> None:
            error = {"code": "not_found", "message": "not in the benchmark server"}
            self._send(404, json.dumps({"status": "error", "error": error}).encode())

        def do_GET(self) -> None:
            if self.path.startswith("/v1/datasets/ds_bench_") and "/runs" not in self.path:
                total = int(self.path.rsplit("_", 1)[1])
                body = {**dataset, "id": f"ds_bench_{total}", "mentions_count": total}
                self._send(200, json.dumps({"status": "success", "data": body}).encode())
            else:
                self._missing()

        def do_POST(self) -> None:
            query = json.loads(self.rfile.read(int(self.headers["content-length"])))
            if self.path != "/v1/mentions":
                return self._missing()
            total = int(query["dataset_ids"][0].rsplit("_", 1)[1])
            start = int(query.get("cursor") or 0)
            end = min(total, start + int(query.get("limit") or PAGE))
            rows = ",".join(
                templates[n % len(templates)].replace(PLACEHOLDER, f"b{n:08d}")
                for n in range(start, end)
            )
            more = end < total
            cursor = json.dumps(str(end) if more else None)
            page = f'{{"status":"success","data":[{rows}],"has_next":{json.dumps(more)},'
            self._send(200, (page + f'"cursor":{cursor}}}').encode())

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port_file.write_text(str(server.server_address[1]))
    server.serve_forever()


def export(url: str, total: int, out: str, limited: bool) -> None:
    """One export (the child process): prints rows and seconds as JSON."""
    import rdskit
    from rdskit.frames.stream_export import export_mentions

    client = rdskit.Client(KEY, base_url=url, rate_limit=RATE_LIMIT if limited else None)
    started = time.perf_counter()
    result = export_mentions(client, f"ds_bench_{total}", out, "parquet")
    print(json.dumps({"rows": result.rows, "seconds": time.perf_counter() - started}))


def measured(
    url: str, total: int, limited: bool, work: Path, label: str
) -> tuple[int, float, float]:
    """(rows, seconds, peak RSS in MB) of one export child, into its own ``out-<label>``
    folder (an export refuses a folder holding another: ``--small`` may equal ``--large``)."""
    out = work / f"out-{label}"
    child = subprocess.Popen(
        [sys.executable, __file__, "--export", url, str(total), str(out), str(int(limited))],
        stdout=subprocess.PIPE,
    )
    assert child.stdout is not None
    text = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit(f"export of {total} failed (status {status})")
    figures = json.loads(text)
    return figures["rows"], figures["seconds"], usage.ru_maxrss / 1024  # KB on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=100_000)
    parser.add_argument("--large", type=int, default=1_000_000)
    parser.add_argument(
        "--speed-pages", type=int, default=SPEED_PAGES, help="pages under the rate limit"
    )
    parser.add_argument("--export", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--serve", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.export:
        url, total, out, limited = args.export
        export(url, int(total), out, limited == "1")
        return 0
    if args.serve:
        serve(Path(args.serve[0]), Path(args.serve[1]))
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        sample, port_file = work / "sample.json", work / "port"
        capture_sample(sample)
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(sample), str(port_file)]
        )
        try:
            deadline = time.monotonic() + 30
            while not port_file.exists() or not port_file.read_text():
                if time.monotonic() > deadline:
                    sys.exit("the benchmark server did not start")
                time.sleep(0.05)
            url = f"http://127.0.0.1:{port_file.read_text()}"
            with socket.create_connection(("127.0.0.1", int(port_file.read_text())), 5):
                pass
            # Speed first: it takes seconds, the 1M export takes minutes.
            speed_rows = args.speed_pages * PAGE
            rows, seconds, _ = measured(url, speed_rows, True, work, "speed")
            if rows != speed_rows:
                sys.exit(f"exported {rows} of {speed_rows} mentions")
            speed_ratio = rows / seconds / CEILING
            print(
                f"export speed under the 5 req/s limit, {args.speed_pages} pages: "
                f"{rows / seconds:,.0f} mentions/s = "
                f"{speed_ratio:.2f}x the ceiling of {CEILING:.0f}/s (target >= {MIN_SPEED_RATIO}x)",
                flush=True,
            )
            results = {}
            for label, total in (("small", args.small), ("large", args.large)):
                rows, seconds, rss = measured(url, total, False, work, label)
                if rows != total:
                    sys.exit(f"exported {rows} of {total} mentions")
                results[label] = rss
                print(
                    f"{total:>9,} mentions: peak RSS {rss:,.0f} MB, {seconds:,.1f} s "
                    f"({rows / seconds:,.0f} mentions/s, no rate limit)",
                    flush=True,
                )
        finally:
            server.kill()
            server.wait()
    rss_ratio = results["large"] / results["small"]
    print(
        f"peak RSS at {args.large:,} / at {args.small:,}: {rss_ratio:.2f}x "
        f"(target <= {MAX_RSS_RATIO}x)"
    )
    missed = rss_ratio > MAX_RSS_RATIO or speed_ratio < MIN_SPEED_RATIO
    print("MISSED a target" if missed else "all targets met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
