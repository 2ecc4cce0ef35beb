"""The ``%%ask`` answers a saved notebook holds, read back into a frame.

Every ``%%ask`` output keeps its record in ``metadata["rdskit"]``
(``rdskit.jupyter.provenance``, ``docs/schemas/ask-answer.schema.json``), so a notebook
read without its kernel still says which question (as sent) got which answer, in which
chat, citing which posts, at what charge.

Example:
    >>> answers_from_notebook("analysis.ipynb")[["question", "chat_id"]]  # doctest: +SKIP
                         question chat_id
    0  Which 2 tiktok posts ...      ch_1
"""

from __future__ import annotations

import json
from os import PathLike
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["ANSWER_COLUMNS", "answers_from_notebook"]

ANSWER_COLUMNS = (
    "cell",
    "execution_count",
    "question",
    "cell_text",
    "datasets",
    "posts_in_scope",
    "chat_id",
    "message_id",
    "status",
    "text",
    "citations",
    "charged",
    "asked_at",
    "seconds",
)
"""The frame's columns: ``cell`` is the cell's index, ``citations`` a list of
``{citation, source, id, url}``; unknown record fields are kept as extra columns."""

_RENAMED = {"cell": "cell_text"}


def answers_from_notebook(path: str | PathLike[str]) -> pd.DataFrame:
    """One row per ``%%ask`` answer in the notebook at ``path``, in cell order.

    Raises:
        ValueError: the file is not a notebook (names the file).

    Example:
        >>> answers_from_notebook("lesson.ipynb").citations[0][0]["source"]  # doctest: +SKIP
        'reddit'
    """
    source = Path(path)
    try:
        notebook = json.loads(source.read_text(encoding="utf-8"))
        cells = notebook["cells"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{source.name}: not a Jupyter notebook ({exc})") from None
    rows: list[dict[str, Any]] = []
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        for output in cell.get("outputs") or []:
            record = (output.get("metadata") or {}).get("rdskit")
            if not isinstance(record, dict) or "message_id" not in record:
                continue
            row: dict[str, Any] = {"cell": index, "execution_count": cell.get("execution_count")}
            row.update({_RENAMED.get(str(key), str(key)): value for key, value in record.items()})
            rows.append(row)
    frame = pd.DataFrame(rows)
    for column in ANSWER_COLUMNS:
        if column not in frame.columns:
            frame[column] = pd.Series(dtype=object)
    frame["asked_at"] = pd.to_datetime(frame["asked_at"], utc=True)
    extra = [column for column in frame.columns if column not in ANSWER_COLUMNS]
    return frame[[*ANSWER_COLUMNS, *extra]]
