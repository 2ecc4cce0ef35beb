"""What keeps the gateway's API key inside the Jupyter server process: out of its initial
environment block (:func:`scrub_environ`), out of core dumps and same-user memory reads
(:func:`make_undumpable`), and out of every answer passed back to a kernel
(:func:`redact_key`, :func:`carries_key`).

Example:
    >>> carries_key(b'{"k": "bz_live_secret"}', "bz_live_secret")
    True
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import json
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["carries_key", "make_undumpable", "redact_key", "scrub_environ"]


def scrub_environ(names: Iterable[str]) -> bool:
    """Remove ``names`` from this process's environment, including its initial block.

    ``os.environ.pop`` only unsets a variable for this process and its future children;
    ``/proc/<pid>/environ`` shows the block the process started with, which any process
    of the same user (a kernel, a terminal) can read. On Linux this overwrites those
    variables in that block with NULs. Returns whether ``/proc/self/environ`` no longer
    shows any of them (False on other systems: keep the key out of the server's
    environment there, e.g. with ``c.RdsGateway.api_key_file``).

    Example:
        >>> scrub_environ(["RDSKIT_NOT_SET_ANYWHERE"])  # doctest: +SKIP
        True
    """
    names = list(names)
    for name in names:
        os.environ.pop(name, None)  # unsetenv(): C code no longer points into the block
    environ = Path("/proc/self/environ")
    if not sys.platform.startswith("linux") or not environ.exists():
        return False
    prefixes = tuple(f"{name}=".encode() for name in names)
    try:
        # Fields 50 and 51 of /proc/self/stat (man 5 proc): the block's start and end.
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        start, end = int(fields[47]), int(fields[48])
        if not 0 < start < end:
            return False
        offset = 0
        for entry in ctypes.string_at(start, end - start).split(b"\0"):
            if entry.startswith(prefixes):
                ctypes.memset(start + offset, 0, len(entry))
            offset += len(entry) + 1
        shown = environ.read_bytes().split(b"\0")
    except (OSError, IndexError, ValueError):
        return False
    return not any(entry.startswith(prefixes) for entry in shown)


PR_SET_DUMPABLE, PR_GET_DUMPABLE = 4, 3  # <linux/prctl.h>


def make_undumpable() -> bool:
    """Make this process non-dumpable (Linux ``prctl(PR_SET_DUMPABLE, 0)``): no core file
    is written whatever its core limit (a kernel raising it with ``prlimit`` and sending
    SIGSEGV gets nothing), and ``/proc/<pid>/mem``, ``maps``, ``environ`` and ptrace are
    refused to every process of the same user that is not root. Returns whether the flag
    is now 0 (False elsewhere: say so, the key is then as exposed as the process).

    Example:
        >>> make_undumpable()  # doctest: +SKIP
        True
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
            return False
        return bool(libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def redact_key(
    content: bytes, headers: Iterable[tuple[str, str]], key: str
) -> tuple[bytes, list[tuple[str, str]]]:
    """``content`` and ``headers`` of an upstream answer with every copy of the key (and
    any header that carries it) removed: an upstream that echoes the request's headers
    cannot hand the key to a kernel.

    Example:
        >>> redact_key(b'{"x-api-key": "bz_live_k"}', [("x-echo", "bz_live_k")], "bz_live_k")
        (b'{"x-api-key": "[redacted]"}', [])
    """
    secret = key.encode()
    if len(secret) >= 8 and secret in content:
        content = content.replace(secret, b"[redacted]")
    kept = [(name, value) for name, value in headers if len(key) < 8 or not carries_key(value, key)]
    return content, kept


# Runs of base64 (standard or URL-safe) long enough to hold an encoded key.
_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/_-]{12,}")


def carries_key(content: bytes | str, key: str) -> bool:
    """Whether ``content`` holds the key in a form the gateway recognises: as is, base64
    (standard or URL-safe, at any alignment), hex, or JSON whose strings (``\\u``-escaped
    or not) hold it alone or joined in document order (a key split across fields). Other
    encodings (compressed, encrypted, reversed, split across responses) are not found.

    Example:
        >>> import base64
        >>> carries_key(base64.b64encode(b'{"k": "bz_live_secret"}'), "bz_live_secret")
        True
        >>> carries_key('{"a": "bz_live", "b": "_secret"}', "bz_live_secret")
        True
        >>> carries_key(b'{"a": 1}', "bz_live_secret")
        False
    """
    raw = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    secret = key.encode()
    if secret in raw or secret.hex().encode() in raw.lower():
        return True
    for run in _BASE64_RUN.findall(raw.replace(b"\\/", b"/")):
        for start in range(4):
            chunk = run[start:]
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                with contextlib.suppress(ValueError):
                    if secret in decode(chunk):
                        return True
    try:
        parsed = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    values, names = _strings(parsed)
    if key in "".join(values):
        return True
    whole = raw.decode("utf-8", "ignore")
    return any(carries_key(text, key) for text in [*values, *names] if text != whole)


def _strings(value: Any) -> tuple[list[str], list[str]]:
    """The string values of a parsed JSON value in document order, and its object keys."""
    values: list[str] = []
    names: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            values.append(item)
        elif isinstance(item, dict):
            names.extend(item)
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return values, names
