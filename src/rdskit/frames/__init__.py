"""pandas for the Research Data Service: typed frames, the ``df.rds`` accessor, parquet.

Importing this package registers the ``df.rds`` accessor (``import rdskit`` does it).

- Loaders (wire dicts, models or client pages -> DataFrame): :func:`mentions_frame`,
  :func:`profiles_frame`, :func:`pattern_items_frame`, :func:`messages_frame`,
  :func:`usage_frame`, :func:`datasets_frame`. Columns: ``docs/columns.md``.
- Client loaders (fetch every page): :func:`mentions_to_frame` (``cache=True`` for the
  incremental parquet cache), :func:`profiles_to_frame`, :func:`pattern_items_to_frame`,
  :func:`messages_to_frame`, :func:`usage_history_to_frame`, :func:`datasets_to_frame`.
- Scale: :func:`mentions_to_parquet` streams to partitioned parquet, :func:`read_parquet`
  reads it back.
- Research (``docs/research.md``): every loader's frame carries its provenance
  (``df.rds.provenance()``); ``df.rds.methods()``, ``.pseudonymise(key)``, ``.network(kind)``,
  ``.compare(by)``, ``.to_excel(path)``, ``.to_csv(path)``.

Example:
    >>> import rdskit.frames
    >>> df = rdskit.frames.mentions_frame([{"source": "reddit", "id": "t3_a",
    ...     "created_at": 1767225600, "num_likes": 5}])
    >>> df.rds.volume("D").tolist()
    [1]
"""

from rdskit.frames.accessor import MAX_POST_REFS, MissingColumnsError, RdsAccessor
from rdskit.frames.cache import cache_dir
from rdskit.frames.fetch import (
    datasets_to_frame,
    mentions_to_frame,
    messages_to_frame,
    pattern_items_to_frame,
    profiles_to_frame,
    usage_history_to_frame,
)
from rdskit.frames.loaders import datasets_frame, messages_frame, pattern_items_frame, usage_frame
from rdskit.frames.mentions import mentions_frame, mentions_table
from rdskit.frames.notebook import answers_from_notebook
from rdskit.frames.parquet import mentions_to_parquet, read_parquet
from rdskit.frames.profiles import profiles_frame, profiles_table
from rdskit.frames.verbs import ListColumnError

__all__ = [
    "MAX_POST_REFS",
    "ListColumnError",
    "MissingColumnsError",
    "RdsAccessor",
    "answers_from_notebook",
    "cache_dir",
    "datasets_frame",
    "datasets_to_frame",
    "mentions_frame",
    "mentions_table",
    "mentions_to_frame",
    "mentions_to_parquet",
    "messages_frame",
    "messages_to_frame",
    "pattern_items_frame",
    "pattern_items_to_frame",
    "profiles_frame",
    "profiles_table",
    "profiles_to_frame",
    "read_parquet",
    "usage_frame",
    "usage_history_to_frame",
]
