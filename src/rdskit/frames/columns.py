"""The column catalogue: every column of every rdskit frame, documented once.

Each frame kind (mentions, audience profiles, pattern items, tracking messages, usage
history, datasets and the child frames of ``df.rds``) is a :class:`FrameSpec`: an ordered
list of :class:`Column` (a fixed name) and :class:`Family` (a set of columns named after
keys found in the data, e.g. ``vibe_<key>``). The loaders build their tables in this
order and cast every column to the type given here, so the catalogue *is* the schema;
``docs/columns.md`` is rendered from it (``python -m rdskit.frames > docs/columns.md``)
and a test checks the two agree.

A plain column reads the field at ``source`` (a dotted path; ``items[].title`` is the
``title`` of each element of ``items``, the rows of a frame built from a list) and casts
it; a ``derived`` column is computed by its loader and ``source`` says from what.

Example:
    >>> MENTIONS["engagement_rate"].dtype_name
    'double[pyarrow]'
    >>> MENTIONS["created_at"].dtype_name, MENTIONS["source"].dtype_name
    ('datetime64[us, UTC]', 'category')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from rdskit.models import vocab

__all__ = [
    "COMMENTS",
    "DATASETS",
    "FRAMES",
    "HOOKS",
    "MEDIA",
    "MENTIONS",
    "MESSAGES",
    "PARAMETERS",
    "PATTERN_ITEMS",
    "PROFILES",
    "TOPICS",
    "USAGE",
    "Column",
    "Family",
    "FrameSpec",
    "pandas_dtype",
    "render_markdown",
]

# --- Arrow types -----------------------------------------------------------------------

STRING = pa.string()
INT = pa.int64()
FLOAT = pa.float64()
BOOL = pa.bool_()
CATEGORY = pa.dictionary(pa.int32(), pa.string())
TIMESTAMP = pa.timestamp("us", tz="UTC")
STRINGS = pa.list_(pa.string())
# Exact money: credits have six places; USD amounts get twelve so no wire value is rounded.
CREDITS = pa.decimal128(24, 6)
USD = pa.decimal128(30, 12)

TEXT_EVIDENCE = pa.struct([("text", STRING), ("evidence", STRING)])
MEDIA_VERSION = pa.struct([("url", STRING), ("width", INT), ("height", INT)])
MEDIA_OBJECT = pa.struct(
    [("type", STRING), ("version_list", pa.list_(MEDIA_VERSION)), ("description", STRING)]
)
COMMENT = pa.struct(
    [
        ("id", STRING),
        ("author_username", STRING),
        ("author_name", STRING),
        ("body", STRING),
        ("num_likes", INT),
        ("num_replies", INT),
        ("created_at", TIMESTAMP),
    ]
)
HOOK = pa.struct([("type", STRING), ("text", STRING)])
PARAMETER = pa.struct(
    [
        ("parameter_id", STRING),
        ("name", STRING),
        ("value", STRING),
        ("status", STRING),
        ("computed_at", TIMESTAMP),
    ]
)
ASSIGNMENT = pa.struct(
    [
        ("pattern_id", STRING),
        ("pattern_item_id", STRING),
        ("name", STRING),
        ("confidence", FLOAT),
    ]
)
REFERENCE = pa.struct(
    [
        ("type", STRING),
        ("id", STRING),
        ("source", STRING),
        ("citation", INT),
        ("start_index", INT),
        ("end_index", INT),
    ]
)

# --- catalogue types -------------------------------------------------------------------


def pandas_dtype(arrow: pa.DataType) -> object:
    """The pandas dtype a column of ``arrow`` type gets in a frame.

    Dictionary-encoded strings become ``category``, timestamps ``datetime64[us, UTC]``
    (so ``resample`` and ``pd.Grouper`` work; a timestamp without a zone, as a user's own
    column may be, stays naive: ``datetime64[us]``); everything else stays Arrow-backed.

    Example:
        >>> str(pandas_dtype(pa.int64())), str(pandas_dtype(TIMESTAMP))
        ('int64[pyarrow]', 'datetime64[us, UTC]')
    """
    if pa.types.is_dictionary(arrow):
        return "category"
    if pa.types.is_timestamp(arrow):
        if arrow.tz is None:
            return np.dtype(f"datetime64[{arrow.unit}]")
        return pd.DatetimeTZDtype(unit=arrow.unit, tz=arrow.tz)
    return pd.ArrowDtype(arrow)


@dataclass(frozen=True)
class Column:
    """One column: its name, Arrow type and the wire field it comes from.

    A ``category`` column's categories are ``categories`` (its vocabulary, in that fixed
    order) followed by any other value found, sorted; so frames of the same vocabulary
    keep their category dtype through ``pd.concat``.
    """

    name: str
    arrow: pa.DataType
    source: str
    note: str = ""
    derived: bool = False
    categories: tuple[str, ...] = ()

    def category_order(self, found: Iterable[str]) -> list[str]:
        """The categories of this column for the values ``found``.

        Example:
            >>> MENTIONS["source"].category_order(["tiktok", "mastodon"])[-2:]
            ['linkedin', 'mastodon']
        """
        fixed = list(self.categories)
        return fixed + sorted(set(found) - set(fixed))

    @property
    def path(self) -> tuple[str, ...]:
        """Where a plain column is read from in its row: ``"sentiment.negative"`` is two
        steps, ``"items[].title"`` is ``("title",)`` (the rows are the list's elements)."""
        return tuple(self.source.rsplit("[].", 1)[-1].split("."))

    @property
    def dtype_name(self) -> str:
        """The pandas dtype as ``df.dtypes`` prints it."""
        return str(pandas_dtype(self.arrow))


@dataclass(frozen=True)
class Family:
    """Columns named after keys found in the data (``vibe_<key>``, custom parameters...).

    ``arrow`` None means the type is inferred per key; ``keys`` are always present.
    """

    pattern: str
    arrow: pa.DataType | None
    source: str
    note: str = ""
    keys: tuple[str, ...] = ()

    @property
    def prefix(self) -> str:
        """The name before the ``<key>`` placeholder (``vibe_`` for ``vibe_<key>``)."""
        return self.pattern.split("<", 1)[0]

    @property
    def dtype_name(self) -> str:
        """The pandas dtype as ``df.dtypes`` prints it, or how it is chosen."""
        return "inferred per key" if self.arrow is None else str(pandas_dtype(self.arrow))


@dataclass(frozen=True)
class FrameSpec:
    """The ordered columns of one frame kind."""

    name: str
    title: str
    entries: tuple[Column | Family, ...]
    intro: str = ""
    _by_name: dict[str, Column] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_name = {e.name: e for e in self.entries if isinstance(e, Column)}
        if len(by_name) != sum(isinstance(e, Column) for e in self.entries):
            raise ValueError(f"duplicate column names in the {self.name} catalogue")
        object.__setattr__(self, "_by_name", by_name)

    def __getitem__(self, name: str) -> Column:
        return self._by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    @property
    def columns(self) -> tuple[Column, ...]:
        """The fixed columns (families left out)."""
        return tuple(e for e in self.entries if isinstance(e, Column))

    @property
    def families(self) -> tuple[Family, ...]:
        """The key-named column families."""
        return tuple(e for e in self.entries if isinstance(e, Family))


def _plain(names: str, arrow: pa.DataType, prefix: str = "", path: str = "") -> list[Column]:
    """Columns ``<prefix><name>`` read from ``<path><name>`` (space-separated names)."""
    return [Column(prefix + n, arrow, path + n) for n in names.split()]


def _derived(
    name: str, arrow: pa.DataType, source: str, note: str = "", categories: tuple[str, ...] = ()
) -> Column:
    return Column(name, arrow, source, note, derived=True, categories=categories)


# --- mentions --------------------------------------------------------------------------

SENTIMENT_LABELS = vocab.SENTIMENTS
SENTIMENT_COLORS: dict[str, str] = {
    "negative": "#D55E00",  # vermillion
    "neutral": "#999999",  # grey
    "positive": "#0072B2",  # blue
}
"""One colour per sentiment label in every chart (Okabe and Ito's palette: told apart
with every common colour-vision deficiency, and in greyscale by lightness)."""
_SOURCES = vocab.SOURCES
CONTENT_TYPES = vocab.CONTENT_TYPES
EMOTIONS = vocab.EMOTIONS
_AD_META_TYPES: dict[str, pa.DataType] = {
    "is_active": BOOL,
    "ended_at": TIMESTAMP,
    "publisher_platforms": STRINGS,
    "eu_reach": INT,
    "duration_sec": FLOAT,
    "advertiser_likes": INT,
    "advertiser_verified": BOOL,
    "advertiser_ig_followers": INT,
    "advertiser_ig_verified": BOOL,
}
AD_META_FIELDS: dict[str, pa.DataType] = {
    name: _AD_META_TYPES.get(name, STRING) for name in vocab.AD_META_FIELDS
}
"""``ad_meta`` fields (flattened to ``ad_<field>``) and their types (text unless listed)."""

MENTIONS = FrameSpec(
    "mentions",
    "Mentions",
    (
        Column("source", CATEGORY, "source", "with `id`, identifies the post", categories=_SOURCES),
        Column("id", STRING, "id"),
        Column("created_at", TIMESTAMP, "created_at", "Unix seconds on the wire"),
        Column("dataset_run_at", TIMESTAMP, "dataset_run_at", "Unix seconds on the wire"),
        Column("content_type", CATEGORY, "content_type", "`organic` or `ad`", False, CONTENT_TYPES),
        Column("language", CATEGORY, "language", "codes found, sorted (an open vocabulary)"),
        Column("country_code", STRING, "country_code", "sent by the service, not in the spec"),
        *_plain("url title text summary category content_intention speech_tempo", STRING),
        Column("music_genre", STRING, "music_genre"),
        *_plain("title title_url headline headline_url", STRING, "author_", "author."),
        _derived("author_avatar_url", STRING, "author.avatar.version_list[0].url"),
        *_plain("num_views num_likes num_comments num_shares", INT),
        Column("are_views_estimated", BOOL, "are_views_estimated"),
        Column("engagement_rate", FLOAT, "engagement_rate", "a string on the wire"),
        Column("sentiment_score", FLOAT, "sentiment_score", "a string on the wire"),
        *_plain(" ".join(SENTIMENT_LABELS), FLOAT, "sentiment_", "sentiment."),
        _derived(
            "sentiment", STRING, "sentiment.*", "the largest of the three shares; ties: neutral"
        ),
        *_plain(" ".join(EMOTIONS), FLOAT, "emotion_", "emotions."),
        _derived("dominant_emotion", STRING, "emotions.*", "the largest share; ties: neutral"),
        Column("tone_of_voice", STRING, "tone_of_voice.text"),
        Column("tone_of_voice_evidence", STRING, "tone_of_voice.evidence"),
        Column("narrative_structure", STRING, "narrative_structure.text"),
        Column("narrative_structure_evidence", STRING, "narrative_structure.evidence"),
        Column("cta_text", STRING, "cta.text"),
        Column("cta_evidence", STRING, "cta.evidence"),
        _derived("hook_types", STRINGS, "hooks[].type"),
        _derived("topics", STRINGS, "content_topics[].text"),
        Family("vibe_<key>", FLOAT, "vibe.<key>", "one column per vibe key present"),
        Column("mentioned_brands", STRINGS, "mentioned_brands"),
        Column("entities", STRINGS, "entities"),
        _derived("media_count", INT, "media", "0 when the post has no media"),
        _derived("has_media", BOOL, "media"),
        *_plain("name author cover_image_url url", STRING, "sound_", "sound."),
        *_plain("flight_days flight_seconds", INT, "ad_", "ad_"),
        *(Column(f"ad_{n}", t, f"ad_meta.{n}") for n, t in AD_META_FIELDS.items()),
        Family(
            "<parameter name>",
            STRING,
            "parameters.<parameter_id>.value",
            "one column per custom parameter (named after it; `param_<name>` when the name "
            "is already a column)",
        ),
        _derived("pattern_item_ids", STRINGS, "pattern_assignments.*[].pattern_item_id"),
        Column("media", pa.list_(MEDIA_OBJECT), "media"),
        Column("comments", pa.list_(COMMENT), "comments", "comment `created_at` parsed"),
        Column("content_topics", pa.list_(TEXT_EVIDENCE), "content_topics"),
        Column("hooks", pa.list_(HOOK), "hooks"),
        Column("questions", pa.list_(TEXT_EVIDENCE), "questions"),
        Column("datasets", pa.list_(pa.struct([("id", STRING), ("name", STRING)])), "datasets"),
        Column(
            "collections", pa.list_(pa.struct([("uid", STRING), ("name", STRING)])), "collections"
        ),
        _derived(
            "parameters",
            pa.list_(PARAMETER),
            "parameters",
            "the map as a list: `parameter_id` (the key), `name`, `value` (as text), `status`, "
            "`computed_at`",
        ),
        _derived(
            "pattern_assignments",
            pa.list_(ASSIGNMENT),
            "pattern_assignments",
            "the map as a list, keyed by `pattern_id`",
        ),
    ),
    "One row per mention, unique on (`source`, `id`). Numbers the wire sends as strings "
    "are numbers; nested lists stay Arrow list columns (`df.rds.comments()` and friends "
    "explode them).",
)

VERBATIM_TEXTS: dict[str, tuple[str, ...]] = {
    "mentions": (
        "title",
        "text",
        "cta_text",
        "cta_evidence",
        "tone_of_voice_evidence",
        "narrative_structure_evidence",
        "comments[].body",
        "hooks[].text",
        "content_topics[].evidence",
        "questions[].text",
        "questions[].evidence",
    ),
    "comments": ("body",),
    "profiles": ("bio",),
}
"""The columns (``column[].field`` inside list columns) that hold what people wrote, word
for word, or a quote of it: ``pseudonymise(text="drop" | "truncate")`` acts on these."""

# --- audience profiles -----------------------------------------------------------------

OCEAN = ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")
CREATOR_TIERS = ("nano", "micro", "mid", "macro", "mega")

PROFILES = FrameSpec(
    "profiles",
    "Audience profiles",
    (
        Column("id", STRING, "id"),
        Column("run_id", STRING, "run_id"),
        Column("source", CATEGORY, "source", categories=_SOURCES),
        *_plain("username display_name bio external_link", STRING),
        Column("is_verified", BOOL, "is_verified"),
        *_plain("follower_count following_count content_count", INT),
        *_plain("engagement_rate authenticity_score authenticity_confidence score", FLOAT),
        Column("authenticity_score_version", INT, "authenticity_score_version"),
        Column("authenticity_reason", STRING, "authenticity_reason"),
        Column("posting_cadence", STRING, "posting_cadence"),
        Column(
            "creator_tier",
            CATEGORY,
            "creator_tier",
            "nano, micro, mid, macro, mega",
            categories=CREATOR_TIERS,
        ),
        *_plain("aesthetic communication_tone occupation industry", STRING),
        *_plain("location_country location_city primary_language summary", STRING),
        Column("age", INT, "age"),
        Column("gender", STRING, "gender"),
        *_plain("content_niche interest_clusters brand_affinities", STRINGS),
        Family("ocean_<trait>", FLOAT, "ocean.<trait>", "the Big Five always", OCEAN),
        Family("platform_<key>", None, "platform_metadata.<key>", "keys differ by platform"),
        _derived("avatar_url", STRING, "avatar.version_list[0].url"),
        Column("created_at", TIMESTAMP, "created_at", "Unix seconds on the wire"),
        Family("custom_<key>", None, "custom_parameters.<key>"),
    ),
    "One row per profile, unique on `id`.",
)

# --- small resources -------------------------------------------------------------------

PATTERN_ITEMS = FrameSpec(
    "pattern_items",
    "Pattern items",
    (
        _derived("pattern_id", STRING, "id", "of the pattern"),
        Column("item_id", STRING, "items[].item_id"),
        Column("title", STRING, "items[].title"),
        Column("synopsis", STRING, "items[].synopsis"),
        Column("post_count", INT, "items[].post_count"),
    ),
    "One row per pattern item. `client.patterns.items_frame(pattern_id, posts=True)` "
    "returns a mentions frame instead, with `item_id` and `item_title` in front (one row "
    "per item and post).",
)

MESSAGES = FrameSpec(
    "messages",
    "Tracking agent messages",
    (
        Column("message_id", STRING, "message_id"),
        Column("agent_id", STRING, "agent_id"),
        Column("agent_name", STRING, "agent_name"),
        Column("created_at", TIMESTAMP, "created_at", "Unix seconds on the wire"),
        Column("new_mention_count", INT, "new_mention_count"),
        Column("comment_count", INT, "comment_count"),
        Column("sentiment_score", FLOAT, "sentiment_score"),
        Column("short_preview_message", STRING, "short_preview_message"),
        Column("text", STRING, "text", "markdown with `[N]` markers"),
        Column("references", pa.list_(REFERENCE), "references"),
    ),
    "One row per alert message, newest first.",
)

USAGE = FrameSpec(
    "usage",
    "Usage history",
    (
        Column("id", INT, "id"),
        Column("created_at", TIMESTAMP, "created_at", "Unix seconds on the wire"),
        Column("category", CATEGORY, "category", categories=vocab.USAGE_CATEGORIES),
        Column("quantity", USD, "quantity", "USD charged (exact decimal), never credits"),
        Column("quantity_credits", CREDITS, "quantity_credits", "six-decimal string on the wire"),
        Column("credit_rate_usd", USD, "credit_rate_usd", "decimal string on the wire"),
        Column("billing_catalog_version", STRING, "billing_catalog_version"),
        Column("credit_value_basis", STRING, "credit_value_basis", "`snapshot` or `current`"),
    ),
    "One row per charge, newest first.",
)

DATASETS = FrameSpec(
    "datasets",
    "Datasets",
    (
        Column("id", STRING, "id"),
        Column("name", STRING, "name"),
        Column("created_at", TIMESTAMP, "created_at", "ISO 8601 on the wire"),
        Column("updated_at", TIMESTAMP, "updated_at", "ISO 8601 on the wire"),
        *_plain("mentions_count images_count videos_count", INT),
        Column("url", STRING, "url"),
    ),
    "One row per dataset.",
)

# --- child frames (df.rds.comments() ...) ----------------------------------------------

_PARENT = (
    _derived("source", CATEGORY, "source", "of the parent mention", _SOURCES),
    _derived("id", STRING, "id", "of the parent mention"),
)

COMMENTS = FrameSpec(
    "comments",
    "df.rds.comments()",
    (
        *_PARENT,
        Column("comment_id", STRING, "comments[].id"),
        *_plain("author_username author_name body", STRING, path="comments[]."),
        *_plain("num_likes num_replies", INT, path="comments[]."),
        Column("created_at", TIMESTAMP, "comments[].created_at", "ISO 8601 on the wire"),
    ),
    "One row per comment.",
)

TOPICS = FrameSpec(
    "topics",
    "df.rds.topics()",
    (
        *_PARENT,
        Column("topic", STRING, "content_topics[].text"),
        Column("evidence", STRING, "content_topics[].evidence"),
    ),
    "One row per content topic of a mention.",
)

HOOKS = FrameSpec(
    "hooks",
    "df.rds.hooks()",
    (
        *_PARENT,
        Column("hook_type", STRING, "hooks[].type"),
        Column("text", STRING, "hooks[].text"),
    ),
    "One row per hook of a mention.",
)

MEDIA = FrameSpec(
    "media",
    "df.rds.media()",
    (
        *_PARENT,
        _derived("position", INT, "media[] index", "0 for the first media object"),
        Column("type", STRING, "media[].type"),
        Column("description", STRING, "media[].description"),
        _derived("url", STRING, "media[].version_list[0].url", "the first rendition"),
        _derived("width", INT, "media[].version_list[0].width"),
        _derived("height", INT, "media[].version_list[0].height"),
        _derived("versions", INT, "media[].version_list", "number of renditions"),
    ),
    "One row per media object of a mention.",
)

PARAMETERS = FrameSpec(
    "parameters",
    "df.rds.parameters()",
    (
        *_PARENT,
        Column("parameter_id", STRING, "parameters[].parameter_id"),
        Column("parameter", STRING, "parameters[].name", "the id when the name is unknown"),
        Column("value", STRING, "parameters[].value"),
        Column("status", STRING, "parameters[].status", "`pending` is seen"),
        Column("computed_at", TIMESTAMP, "parameters[].computed_at"),
    ),
    "One row per custom parameter value of a mention (read from the `parameters` column).",
)

FRAMES = (
    MENTIONS,
    PROFILES,
    PATTERN_ITEMS,
    MESSAGES,
    USAGE,
    DATASETS,
    COMMENTS,
    TOPICS,
    HOOKS,
    MEDIA,
    PARAMETERS,
)
"""Every frame kind, in the order ``docs/columns.md`` lists them."""

# --- docs/columns.md -------------------------------------------------------------------


def _rows(spec: FrameSpec) -> Iterator[str]:
    for entry in spec.entries:
        name = entry.name if isinstance(entry, Column) else entry.pattern
        note = entry.note
        if isinstance(entry, Column) and entry.categories:
            fixed = ", ".join(entry.categories)
            note = f"{note}; " if note else ""
            note += f"categories: {fixed}, then any other value (sorted)"
        yield f"| `{name}` | `{entry.dtype_name}` | `{entry.source}` | {note} |"


_PANDAS_VS_RDSKIT = (
    "## pandas vs rdskit",
    "",
    "What common pandas calls do on rdskit frames, and the rdskit way when pandas cannot "
    "(Arrow has no hash or sort kernel for lists and structs, pandas cannot parse the "
    "nested Arrow dtype names it writes into files: pandas #57411, Arrow #46328).",
    "",
    "| pandas | on an rdskit frame | rdskit alternative |",
    "|---|---|---|",
    "| `df.to_parquet(p)`, `df.to_feather(p)` then `pd.read_parquet(p)` / `pd.read_feather(p)` "
    "| reads back in a process that imported rdskit (it teaches pandas the nested dtype "
    "names); a process without rdskit fails on list columns; Polars' `pl.read_ipc` refuses "
    "pandas' own feather of a category column holding a missing value (pandas stores code "
    "-1 under the null) | `df.rds.to_parquet(p)` / "
    "`df.rds.to_feather(p)`: any pandas, DuckDB, Polars, pyarrow reads them; "
    "`rdskit.frames.read_parquet(p)` restores dtypes and provenance |",
    '| `df.drop_duplicates()`, `df.duplicated()`, `df.nunique()`, `df.describe(include="all")`, '
    "`value_counts()`, `unique()` | work: where pyarrow cannot hash a list column, rdskit "
    "answers them on its values as tuples and returns the frame's own rows "
    "(`rdskit.frames.verbs`) | `df.rds.dedupe()`: one row per (source, id), for stacked loads |",
    '| `df.sort_values("topics")`, `df.groupby("topics")` | a list column: '
    "`rdskit.frames.ListColumnError` naming the alternatives; other columns sort and group | "
    '`df.rds.to_numpy_dtypes().sort_values("topics")` (lists as tuples) |',
    "| `pd.concat([a, b])` | keeps `category` when both frames have the same categories: "
    "`source`, `content_type`, `creator_tier` and usage `category` do (their vocabulary "
    "in a fixed order) unless one frame holds a value outside it (a new source); "
    "`language` (an open vocabulary) does only when both saw the same codes, so with "
    "pandas 3 not with an empty frame (pandas 2 keeps it there) | "
    "`pd.concat([a, b]).rds.dedupe()` restores the categories and keeps both provenances; "
    "`df.rds.to_numpy_dtypes()` for plain `object` columns |",
    '| seaborn `hue="num_likes"`, scikit-learn, statsmodels | Arrow integers, booleans '
    "and text may be refused | `df.rds.to_numpy_dtypes()`: `int64` (`float64` with NaN "
    "when one is missing), `float64`, `bool`, `object` |",
    "| `df.to_excel(p)` | fails on tz-aware dates; lists written as reprs | `df.rds.to_excel(p)` |",
    "| `df.to_csv(p)` | lists written as Python reprs | `df.rds.to_csv(p)`: lists as JSON "
    "(`json.loads` reads them back) |",
)


def render_markdown() -> str:
    """``docs/columns.md``: one table per frame kind (name, dtype, wire source, notes).

    Example:
        >>> "| `engagement_rate` | `double[pyarrow]` |" in render_markdown()
        True
    """
    lines = [
        "# rdskit frame columns",
        "",
        "<!-- Generated by `python -m rdskit.frames > docs/columns.md`; "
        "edit src/rdskit/frames/columns.py instead. -->",
        "",
        "Every column of every frame rdskit builds: its name, the pandas dtype it gets and "
        "the wire field it comes from (a dotted path; `[]` walks a list). Columns written "
        "`x_<key>` are families: one column per key found in the data. `category` columns "
        "are pandas categoricals, timestamps are tz-aware UTC, everything else is "
        "Arrow-backed (`pd.ArrowDtype`), so integers and booleans are nullable. Text "
        "holding a lone surrogate (half of a UTF-16 pair, as JSON's `\\ud800` escape "
        "decodes: not Unicode text, which Arrow cannot store) is kept with U+FFFD in its "
        "place, an `rdskit.errors.InvalidTextWarning` names the fields and rows, and the "
        "frame records it (a `repair_text` step of its provenance, which `df.rds.methods()` "
        "states).",
    ]
    lines += ["", *_PANDAS_VS_RDSKIT]
    for spec in FRAMES:
        lines += [
            "",
            f"## {spec.title}",
            "",
            spec.intro,
            "",
            "| Column | dtype | Source | Notes |",
            "|---|---|---|---|",
            *_rows(spec),
        ]
    return "\n".join(lines) + "\n"
