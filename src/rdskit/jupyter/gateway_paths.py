"""Which paths the gateway forwards: normalised ``v1/...`` paths only, checked as received.

Example:
    >>> upstream_path("v1/datasets"), upstream_path("v1/../admin")
    ('v1/datasets', None)
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = ["upstream_path"]


# An encoded "/", "\", "?", "#", "." or NUL would let a segment turn into a separator or a
# dot segment once the upstream decodes it.
_ENCODED = re.compile(r"%(?:2f|5c|3f|23|2e|00)", re.IGNORECASE)


def upstream_path(raw: str) -> str | None:
    """``raw`` (a path under the gateway, as received, still percent-encoded) when it is a
    normalised ``v1/...`` path, else None.

    Refused: dot segments, empty segments, a backslash, control characters, and encoded
    ``/``, ``\\``, ``?``, ``#``, ``.`` or NUL, so nothing can reach the upstream outside
    ``<base>/v1/``.

    Example:
        >>> upstream_path("v1/datasets/ds_1"), upstream_path("v1/..%2F..%2Fadmin%2Fkeys")
        ('v1/datasets/ds_1', None)
        >>> upstream_path("v1/../admin"), upstream_path("v2/x"), upstream_path("v1//x")
        (None, None, None)
    """
    if _ENCODED.search(raw) or "\\" in raw:
        return None
    segments = raw.split("/")
    if segments[0] != "v1" or len(segments) < 2:
        return None
    if any(segment in ("", ".", "..") for segment in segments[1:]):
        return None
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in unquote(raw)):
        return None
    return raw
