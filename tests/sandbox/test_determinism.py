"""Same numbers on every machine: the sandbox's text work gives byte-identical output under
every OpenBLAS kernel and thread count (issue 21.1).

``determinism_probe.py`` collects two realistic datasets with every analysis, detects their
patterns (items, titles, synopses, confidences, summary) and computes the frames' keyness,
and prints it all as JSON. Each variant below runs it in a fresh interpreter with
``OPENBLAS_CORETYPE`` / ``OPENBLAS_NUM_THREADS`` set (OpenBLAS picks its kernel once, at
load), plus OpenBLAS's generic kernel with numpy's SIMD dispatch cut back to its baseline;
each with its own ``PYTHONHASHSEED``.
Before the clustering was made exact, lesson 04 found 10 clusters under Haswell and 12
under SkylakeX, and one thread gave other items than two.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

PROBE = Path(__file__).with_name("determinism_probe.py")

# (OPENBLAS_CORETYPE, threads, extra env): the kernels cloud machines get (Haswell on AMD
# EPYC and older Xeons, SkylakeX on AVX-512 Xeons, Sandybridge on AVX-only CPUs, Zen), each
# with one and two threads, and the generic kernel with numpy's plain baseline loops.
VARIANTS: list[tuple[str, int, dict[str, str]]] = [
    *((kernel, threads, {}) for kernel in ("Haswell", "SkylakeX", "Sandybridge", "Zen")
      for threads in (1, 2)),
    ("Prescott", 1, {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"}),
]  # fmt: skip

# What threadpoolctl reports for each requested kernel (OpenBLAS runs Zen on its Haswell
# kernels, and the oldest generic x86-64 kernel is named Katmai).
REPORTED = {
    "Haswell": {"Haswell"},
    "SkylakeX": {"SkylakeX"},
    "Sandybridge": {"Sandybridge"},
    "Zen": {"Zen", "Haswell"},
    "Prescott": {"Prescott", "Katmai"},
}
# CPU flags a kernel needs: a kernel this CPU cannot run is left out.
NEEDS = {
    "Haswell": {"avx2", "fma"},
    "Zen": {"avx2", "fma"},
    "SkylakeX": {"avx512f"},
    "Sandybridge": {"avx"},
}


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    line = next((line for line in text.splitlines() if line.startswith("flags")), "")
    return set(line.partition(":")[2].split())


def _probe(kernel: str, threads: int, extra: dict[str, str]) -> dict[str, Any]:
    prefixes = ("OPENBLAS_", "NPY_", "OMP_", "PYTHONHASHSEED")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env |= {"OPENBLAS_CORETYPE": kernel, "OPENBLAS_NUM_THREADS": str(threads), **extra}
    # Each run its own string-hash seed: no output may follow a set's iteration order.
    env["PYTHONHASHSEED"] = str(zlib.crc32(f"{kernel}{threads}".encode()))
    done = subprocess.run(
        [sys.executable, str(PROBE)], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, f"{kernel} x{threads}: {done.stderr[-2000:]}"
    result: dict[str, Any] = json.loads(done.stdout)
    result["stdout"] = done.stdout
    return result


def test_text_work_is_identical_under_every_blas_kernel_and_thread_count() -> None:
    pytest.importorskip("threadpoolctl")
    flags = _cpu_flags()
    if not flags:
        pytest.skip("no /proc/cpuinfo: cannot tell which OpenBLAS kernels this CPU runs")
    variants = [v for v in VARIANTS if NEEDS.get(v[0], set()) <= flags]
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda v: _probe(*v), variants))
    if not any(blas["internal_api"] == "openblas" for blas in runs[0]["blas"]):
        pytest.skip(f"numpy is not linked to OpenBLAS here ({runs[0]['blas']})")
    ran = []
    for (kernel, threads, _), run in zip(variants, runs, strict=True):
        (blas,) = run["blas"]
        # The variable took effect: the kernel and thread count are the ones asked for.
        assert blas["architecture"] in REPORTED[kernel], (kernel, blas)
        assert blas["num_threads"] == threads, (kernel, blas)
        ran.append(f"{kernel}->{blas['architecture']} x{threads}")
    assert len({run["blas"][0]["architecture"] for run in runs}) >= 3, ran
    reference = runs[0]
    items = reference["results"][0]["items"]
    assert len(items) >= 5 and len(reference["results"][0]["posts"]) == 200  # a real test
    assert reference["results"][0]["keyness"] and reference["results"][1]["items"]
    expected = reference["stdout"].partition('"results"')[2]
    for name, run in zip(ran, runs, strict=True):
        # Byte for byte: the JSON holds each float's shortest round-trip repr.
        same = run["stdout"].partition('"results"')[2] == expected
        assert same, f"{name} differs from {ran[0]}"
