"""Plain pandas reads of a file, importable without rdskit (the fresh-process reader of
test_round_trips)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd


def pandas_reads(path: Path, feather_file: bool, nested: str, plain: str) -> dict[str, Any]:
    """Every plain-pandas read of ``path``: the shape and the plain column's values."""
    read = pd.read_feather if feather_file else pd.read_parquet
    reads = {}
    for label, options in {
        "default": {},
        "pyarrow": {"dtype_backend": "pyarrow"},
        "columns plain": {"dtype_backend": "pyarrow", "columns": [plain]},
        "columns nested": {"columns": [nested, plain]},
        "default columns plain": {"columns": [plain]},
    }.items():
        frame = read(path, **options)
        reads[label] = {
            "shape": list(frame.shape),
            "plain": [None if pd.isna(v) else int(v) for v in frame[plain]],
        }
    return reads
