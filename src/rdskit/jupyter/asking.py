"""Checks ``%%ask`` makes before it pays: which datasets the question is about.

``%%ask --dataset`` takes ids or names. Both are resolved against the account's datasets
(the free ``GET /v1/datasets`` list) before the paid Ask is sent: an unknown one, or a
name several datasets share, is refused with the choices, and an account with no dataset
at all is told how to make one in Python (the assistant itself would answer, for a fee,
that there is nothing to answer from).

Example:
    >>> resolve_datasets(client, ["Oat milk", "ds_2"])  # doctest: +SKIP
    ['ds_1', 'ds_2']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rdskit.errors import InvalidParameter
from rdskit.models import Dataset

__all__ = ["NO_DATASETS", "resolve_datasets"]

FIELD = "--dataset"

NO_DATASETS = (
    "this account has no datasets yet, so the assistant has nothing to answer from "
    "(nothing was sent or charged). Make one in Python "
    "(client = rdskit.jupyter.current_session().client): "
    'ds = client.datasets.create("Oat milk"); '
    "client.datasets.runs.create(ds.id, search_query={'type': 'prompt', "
    "'sources': ['reddit'], 'search_query': 'oat milk'}, count=100).wait()"
)
"""The refusal when the account has no dataset (the assistant's own reply names REST paths)."""

_SHOWN = 8  # datasets listed in a refusal


def resolve_datasets(client: Any, given: Sequence[str] | None) -> list[str] | None:
    """The dataset ids ``given`` (ids or names) stand for; None when none were given.

    Raises:
        InvalidParameter: (field ``--dataset``) the account has no dataset, a value
            matches no dataset, or a name matches several.

    Example:
        >>> resolve_datasets(client, None)  # doctest: +SKIP
    """
    datasets: list[Dataset] = list(client.datasets.list(limit=100))
    if not datasets:
        raise InvalidParameter(FIELD, NO_DATASETS)
    if not given:
        return None
    given = [_unquoted(value) for value in given]
    by_id = {dataset.id: dataset for dataset in datasets}
    by_name: dict[str, list[Dataset]] = {}
    for dataset in datasets:
        by_name.setdefault(_key(dataset.name), []).append(dataset)
    ids: list[str] = []
    unknown: list[str] = []
    for value in given:
        if value in by_id:
            ids.append(value)
            continue
        named = by_name.get(_key(value), [])
        if len(named) > 1:
            choices = ", ".join(f"{d.id} (created {d.created_at:%Y-%m-%d})" for d in named)
            raise InvalidParameter(
                FIELD,
                f"{len(named)} datasets are named {value!r}: {choices}; give the id instead",
            )
        if named:
            ids.append(named[0].id)
        else:
            unknown.append(value)
    if unknown:
        raise InvalidParameter(FIELD, _unknown(unknown, by_name, datasets))
    return list(dict.fromkeys(ids))  # each once, in the order given


def _unquoted(value: str) -> str:
    # IPython splits magic arguments without removing quotes ("Oat milk" keeps them).
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


def _unknown(unknown: list[str], by_name: dict[str, list[Dataset]], datasets: list[Dataset]) -> str:
    listed = ", ".join(repr(value) for value in unknown)
    joined = " ".join(unknown)
    if _key(joined) in by_name and len(unknown) > 1:  # an unquoted name with spaces
        return (
            f"no dataset has the id or name {listed}; quote a name with spaces: {FIELD} {joined!r}"
        )
    known = ", ".join(f"{d.name!r} ({d.id})" for d in datasets[:_SHOWN])
    extra = len(datasets) - _SHOWN
    more = f" and {extra} more (%rds datasets lists them)" if extra > 0 else ""
    return (
        f"no dataset has the id or name {listed} (nothing was sent or charged); "
        f"this account has {known}{more}"
    )
