"""Audience profiles -> a flat DataFrame (one row per profile, unique on ``id``).

Example:
    >>> df = profiles_frame([{"id": "p1", "source": "tiktok", "follower_count": 12000,
    ...     "creator_tier": "micro", "ocean": {"openness": 0.7}, "interest_clusters": ["tea"],
    ...     "platform_metadata": {"heart_count": 5}}])
    >>> df.loc[0, "ocean_openness"], df.loc[0, "platform_heart_count"], df.loc[0, "creator_tier"]
    (0.7, 5, 'micro')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rdskit.frames import _arrow
from rdskit.frames._surrogates import Replaced, repaired_dicts
from rdskit.frames.columns import FLOAT, INT, PROFILES, STRING, STRINGS

__all__ = ["WIRE", "profiles_frame", "profiles_table"]

_S = STRING

WIRE = pa.struct(
    [
        *[
            (n, _S)
            for n in (
                "id",
                "run_id",
                "source",
                "username",
                "display_name",
                "bio",
                "external_link",
                "authenticity_reason",
                "posting_cadence",
                "creator_tier",
                "aesthetic",
                "communication_tone",
                "occupation",
                "industry",
                "location_country",
                "location_city",
                "primary_language",
                "summary",
                "gender",
            )
        ],
        ("is_verified", pa.bool_()),
        *[
            (n, INT)
            for n in (
                "follower_count",
                "following_count",
                "content_count",
                "authenticity_score_version",
                "age",
            )
        ],
        *[
            (n, FLOAT)
            for n in ("engagement_rate", "authenticity_score", "authenticity_confidence", "score")
        ],
        *[(n, STRINGS) for n in ("content_niche", "interest_clusters", "brand_affinities")],
        ("ocean", pa.map_(_S, FLOAT)),
        ("avatar", pa.struct([("version_list", pa.list_(pa.struct([("url", _S)])))])),
        ("created_at", pa.timestamp("s", tz="UTC")),
    ]
)
"""The Audience profile wire schema (free-form objects are read separately)."""

_OCEAN = next(f for f in PROFILES.families if f.prefix == "ocean_")


def profiles_table(profiles: Iterable[Any]) -> pa.Table:
    """The Arrow table behind :func:`profiles_frame`."""
    rows = _arrow.wire_rows(profiles)
    replaced = Replaced()  # one warning for the table
    wire = _arrow.struct_array(rows, WIRE, replaced)
    keep = _arrow.first_indices([_arrow.field_at(wire, ["id"])])
    if keep is not None:
        wire, rows = wire.take(keep), [rows[i] for i in keep.to_pylist()]
    labels = _arrow.field_at(wire, ["id"]).to_pylist()
    avatar = _arrow.first_of(_arrow.field_at(wire, ("avatar", "version_list")))
    families = {
        "ocean_<trait>": _arrow.map_columns(
            _arrow.field_at(wire, ["ocean"]), _OCEAN.prefix, _OCEAN.keys
        ),
        # Keys and value types differ by platform: read them as they come.
        "platform_<key>": _arrow.dict_columns(
            repaired_dicts(
                [r.get("platform_metadata") for r in rows], "platform_", labels, replaced
            ),
            "platform_",
        ),
        "custom_<key>": _arrow.dict_columns(
            repaired_dicts([r.get("custom_parameters") for r in rows], "custom_", labels, replaced),
            "custom_",
        ),
    }
    replaced.warn()
    derived = {"avatar_url": pc.struct_field(avatar, [0])}
    return replaced.marked(_arrow.build_table(PROFILES, wire, derived, families))


def profiles_frame(profiles: Iterable[Any]) -> pd.DataFrame:
    """Audience profiles (wire dicts or :class:`~rdskit.models.AudienceProfile`, any
    iterable or a client page) as a DataFrame: OCEAN traits as ``ocean_<trait>``,
    platform metadata as ``platform_<key>``, interest lists kept as list columns.

    Example:
        >>> df = profiles_frame([{"id": "p1", "is_verified": True, "follower_count": 900}])
        >>> df["follower_count"].dtype.name, df.loc[0, "ocean_neuroticism"] is pd.NA
        ('int64[pyarrow]', True)
    """
    return _arrow.to_frame(profiles_table(profiles), "profiles")
