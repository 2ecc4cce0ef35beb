"""One vocabulary (``rdskit.models.vocab``), and the Mention shape defined consistently.

- every fixed set of names the spec shows is written once: no module under ``src/rdskit``
  spells a tuple, list or set literal equal to one of the vocabulary's (an AST scan);
- the models' fields and static ``Literal`` spellings equal the vocabulary;
- the three shapes of a mention agree: the ``Mention`` model, the Arrow wire schema the
  frame loader reads (``rdskit.frames.mentions.WIRE``) and the column catalogue
  (``rdskit.frames.columns.MENTIONS``): every wire field is a model field (recursively),
  every model field is read, and every catalogue column reads a field the model has.
"""

from __future__ import annotations

import ast
import types
import typing
from pathlib import Path
from typing import Any, get_args, get_origin

import pyarrow as pa
import pytest
from pydantic import BaseModel

from rdskit import billing
from rdskit.frames.columns import MENTIONS, Column
from rdskit.frames.mentions import WIRE
from rdskit.models import (
    AdMeta,
    Emotions,
    Mention,
    PlanFeatures,
    SentimentScores,
    filters,
    vocab,
)

SRC = Path(__file__).resolve().parents[2] / "src" / "rdskit"
SETS = {
    name: frozenset(value)
    for name, value in vars(vocab).items()
    if name.isupper() and isinstance(value, tuple | dict) and len(value) >= 2
}


def _literals(path: Path) -> list[tuple[int, frozenset[str]]]:
    """String collections a module *defines*: constants assigned at module or class level
    and the right side of ``in`` / ``not in``. (A sequence passed to a call, such as
    weights' labels or a tie-break order, is a use, and a ``Literal[...]`` is the static
    spelling checked below.)"""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    candidates: list[ast.expr] = []
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]:
        for node in scope.body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                candidates.append(node.value)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In | ast.NotIn):
            candidates.append(node.comparators[0])
    found = []
    for node in candidates:
        strings = isinstance(node, ast.Tuple | ast.List | ast.Set) and bool(node.elts)
        if strings and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str)
            for e in node.elts  # type: ignore[attr-defined]
        ):
            found.append((node.lineno, frozenset(e.value for e in node.elts)))  # type: ignore[attr-defined]
    return found


def test_the_vocabulary_is_written_once() -> None:
    copies = [
        f"{path.relative_to(SRC)}:{line} repeats vocab.{name}"
        for path in sorted(SRC.rglob("*.py"))
        if path.name != "vocab.py"
        for line, values in _literals(path)
        for name, known in SETS.items()
        if values == known
    ]
    assert copies == []


def test_the_scan_finds_a_copy(tmp_path: Path) -> None:
    sample = tmp_path / "copy.py"
    sample.write_text(
        'EMOTIONS = ["disgust", "fear", "surprise", "anger", "sadness", "joy", "neutral"]\n'
    )
    assert (1, SETS["EMOTIONS"]) in _literals(sample)


@pytest.mark.parametrize(
    ("model", "names"),
    [
        (PlanFeatures, vocab.PLAN_FEATURES),
        (AdMeta, vocab.AD_META_FIELDS),
        (Emotions, vocab.EMOTIONS),
        (SentimentScores, vocab.SENTIMENTS),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_model_fields_are_the_vocabulary_in_wire_order(
    model: type[BaseModel], names: tuple[str, ...]
) -> None:
    assert tuple(model.model_fields) == names


def test_static_literals_spell_the_vocabulary() -> None:
    assert set(get_args(filters.Sentiment)) == set(vocab.SENTIMENTS)
    assert set(get_args(filters.Emotion)) == set(vocab.EMOTIONS)


def test_run_kinds_are_priced_in_known_categories() -> None:
    assert set(vocab.RUN_KIND_CATEGORIES.values()) <= set(vocab.PRICE_CATEGORIES)
    assert billing.ESTIMATE_CATEGORIES is vocab.RUN_KIND_CATEGORIES


# -- the mention's three shapes -----------------------------------------------------------------
def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model inside ``X | None``, ``list[X]``, ``dict[str, X]``, ``Annotated[X, ...]``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = get_origin(annotation)
    if origin in (typing.Union, types.UnionType, list, dict, typing.Annotated):
        for arg in get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
    return None


def _struct_of(arrow: pa.DataType) -> pa.StructType | None:
    while pa.types.is_list(arrow) or pa.types.is_map(arrow):
        arrow = arrow.value_type if pa.types.is_list(arrow) else arrow.item_type
    return arrow if pa.types.is_struct(arrow) else None


def _wire_drift(struct: pa.StructType, model: type[BaseModel], where: str) -> list[str]:
    drift = []
    for field in struct:
        if field.name not in model.model_fields:
            drift.append(f"{where}{field.name}: in the Arrow wire schema, not in {model.__name__}")
            continue
        inner, nested = _struct_of(field.type), _model_in(model.model_fields[field.name].annotation)
        if inner is not None and nested is not None:
            drift += _wire_drift(inner, nested, f"{where}{field.name}.")
    return drift


def test_the_arrow_wire_schema_reads_only_mention_fields() -> None:
    assert _wire_drift(WIRE, Mention, "") == []


def test_the_arrow_wire_schema_reads_every_mention_field() -> None:
    assert [name for name in Mention.model_fields if WIRE.get_field_index(name) < 0] == []


def test_nested_objects_are_read_whole_where_the_frame_flattens_them() -> None:
    for name, model in (
        ("ad_meta", AdMeta),
        ("sentiment", SentimentScores),
        ("emotions", Emotions),
    ):
        struct = WIRE.field(name).type
        assert [f.name for f in struct] == list(model.model_fields), name


def _resolves(path: list[str], model: type[BaseModel]) -> bool:
    head, *rest = path
    head = head.removesuffix("[]").split("[", 1)[0]
    if head in ("*", "") or head.startswith("<"):
        return True  # a family key or any key of a map
    if head not in model.model_fields:
        return False
    nested = _model_in(model.model_fields[head].annotation)
    return not rest or nested is None or _resolves(rest, nested)


def test_every_catalogue_column_reads_a_mention_field() -> None:
    bad = []
    for entry in MENTIONS.entries:
        source = entry.source
        if isinstance(entry, Column) and not entry.derived and source.startswith("ad_flight"):
            source = source  # flat fields named like the ad_ family
        if not _resolves(source.split("."), Mention):
            bad.append(f"{getattr(entry, 'name', entry)}: {entry.source}")
    assert bad == []


def test_every_mention_field_has_a_column() -> None:
    read = {entry.source.split(".")[0].split("[")[0] for entry in MENTIONS.entries}
    assert [name for name in Mention.model_fields if name not in read] == []


def test_country_code_is_a_mention_field_now() -> None:
    # The catalogue had it and the model did not (drift): the model declares it now.
    assert (
        Mention.model_validate({"source": "reddit", "id": "a", "country_code": "US"}).country_code
        == "US"
    )
