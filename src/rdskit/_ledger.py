"""The local ledger of paid work: how ``reuse=True`` finds again what the service cannot list.

Four paid calls leave nothing a list endpoint shows: Ask (there is no chat list),
pattern detections, tracking triggers and research previews. So that re-running a
notebook does not pay for them twice, a call made with ``reuse=True`` writes down what it
started, keyed by :func:`ledger_key`: a SHA-256 of the account's identity (from
``GET /v1/me``, with the service's instance header when it sends one; not the base URL,
which changes with the embedded sandbox's port), the call's kind and its canonical
request. The next ``reuse=True`` call with the same key reads the resource back (free)
and checks it is what the request made, instead of paying
(:func:`rdskit.resources._reuse.remembered`).

What is stored: that key, the kind (``ask``...), the resource ids and when it was
written; never the question, the query or the key. The file lives under
:func:`rdskit._files.cache_dir` (``RDSKIT_CACHE_DIR``), is private (0600, atomic, never
through a symlink) and is rewritten under an exclusive lock, so two kernels writing at
once both keep their entries. A file that cannot be read is treated as empty, with a
:class:`~rdskit.errors.LedgerWarning`; it holds at most :data:`MAX_ENTRIES` entries
(the oldest are dropped first).

A ``reuse=True`` call holds an :class:`InFlight` marker from its lookup to its record, so
concurrent identical calls (threads, coroutines, other kernels of the same user) pay once:
the others wait for the marker, then find the first one's entry and read it back.

Example:
    >>> import tempfile
    >>> ledger = Ledger(Path(tempfile.mkdtemp()) / "paid-calls.json")
    >>> key = ledger_key("identity", "pattern_detection", {"name": "switch"})
    >>> ledger.record([key], "pattern_detection", {"run_id": "pdr_1"})
    >>> ledger.lookup(key)
    {'run_id': 'pdr_1'}
    >>> ledger.lookup(ledger_key("identity", "pattern_detection", {"name": "other"})) is None
    True
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from rdskit._files import NOFOLLOW, cache_dir, private_dir, read_private, write_private
from rdskit._flow import Flow, Sleep
from rdskit.errors import LedgerWarning, RdsError, warn

__all__ = [
    "IN_FLIGHT_WAIT",
    "LEDGER_FILE",
    "MAX_ENTRIES",
    "InFlight",
    "Ledger",
    "identity_digest",
    "ledger_key",
    "ledger_path",
]

LEDGER_FILE: Final = "paid-calls.json"
"""The ledger's file name under :func:`rdskit._files.cache_dir`."""

MAX_ENTRIES: Final = 10_000
"""Entries kept; the oldest are dropped first (a notebook re-run needs only recent ones)."""

_VERSION = 1

IN_FLIGHT_WAIT: Final = 300.0
"""Seconds a ``reuse=True`` call waits for an identical one in flight before giving up."""

_POLL = 0.05  # seconds between tries of a held marker
_BUCKETS = 256  # marker files: keys share one when their hashes agree (bounded file count)
_LOCAL_LOCKS: dict[str, threading.Lock] = {}  # markers where there is no flock
_LOCAL_GUARD = threading.Lock()

Ids = dict[str, Any]
"""What an entry remembers of a resource: ids (strings), timestamps and lists of ids."""


def ledger_path() -> Path:
    """The ledger file: ``<cache dir>/paid-calls.json`` (``RDSKIT_CACHE_DIR`` moves it).

    Example:
        >>> ledger_path().name
        'paid-calls.json'
    """
    return cache_dir() / LEDGER_FILE


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def identity_digest(
    account_id: str | None, user_id: str, created_at: Any, instance: str | None = None
) -> str:
    """Who paid, as a hash: the account, the seat (chats are per seat), when the account
    was made and, when the service names one, its instance
    (:data:`~rdskit.models.account.INSTANCE_HEADER`: a fresh sandbox repeats the last
    one's ids and, on a fixed date, its account's creation time too).

    Example:
        >>> identity_digest("acc_1", "usr_1", 1767225600) == identity_digest(
        ...     "acc_1", "usr_1", 1767225600)
        True
        >>> identity_digest("acc_1", "usr_1", 1) == identity_digest("acc_1", "usr_1", 2)
        False
        >>> identity_digest("acc_1", "usr_1", 1, "a") == identity_digest("acc_1", "usr_1", 1, "b")
        False
    """
    who = {"account": account_id, "user": user_id, "created": created_at}
    if instance is not None:  # a service that names no instance keeps its earlier keys
        who["instance"] = instance
    return _digest(who)


def ledger_key(identity: str, kind: str, request: Any) -> str:
    """The key of one paid call: a hash of who asked (:func:`identity_digest`), the
    kind of call and its canonical request (JSON with sorted keys).

    Example:
        >>> ledger_key("me", "ask", {"a": 1, "b": 2}) == ledger_key("me", "ask", {"b": 2, "a": 1})
        True
        >>> len(ledger_key("me", "ask", {"message": "Why?"}))
        64
    """
    return _digest({"identity": identity, "kind": kind, "request": request})


class Ledger:
    """The ledger file at ``path`` (default :func:`ledger_path`, read when used).

    Example:
        >>> Ledger()  # doctest: +ELLIPSIS
        Ledger(...paid-calls.json)
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self._path = None if path is None else Path(path)

    @property
    def path(self) -> Path:
        """The file (the environment is read now, so ``RDSKIT_CACHE_DIR`` may change)."""
        return self._path if self._path is not None else ledger_path()

    def __repr__(self) -> str:
        return f"Ledger({self.path})"

    def lookup(self, key: str) -> Ids | None:
        """The ids recorded under ``key``, or None (also when the file cannot be read)."""
        entry = self._entries().get(key)
        return dict(entry["ids"]) if entry is not None else None

    def record(self, keys: Sequence[str], kind: str, ids: Mapping[str, Any]) -> None:
        """Remember ``ids`` under each of ``keys`` (a later entry replaces an earlier one).

        Never raises for a file problem: the paid call it follows has already happened,
        so a failure to write is a :class:`~rdskit.errors.LedgerWarning`.
        """
        entry = {"kind": kind, "ids": dict(ids), "at": int(time.time())}
        try:
            with self._locked():
                entries = self._entries()
                for key in keys:
                    entries.pop(key, None)  # re-inserted last: the newest
                    entries[key] = entry
                kept = dict(list(entries.items())[-MAX_ENTRIES:])
                data = json.dumps({"version": _VERSION, "entries": kept}, separators=(",", ":"))
                write_private(self.path, data.encode())
        except OSError as exc:
            warn(
                f"could not write the ledger of paid calls at {self.path} ({exc}); a re-run "
                "with reuse=True may pay for this call again",
                LedgerWarning,
            )

    def forget(self, key: str) -> None:
        """Drop the entry under ``key`` (nothing happens when there is none). A file that
        cannot be rewritten keeps it (warned): the next call made under ``key`` replaces it."""
        try:
            with self._locked():
                entries = self._entries()
                if entries.pop(key, None) is not None:
                    data = json.dumps({"version": _VERSION, "entries": entries})
                    write_private(self.path, data.encode())
        except OSError as exc:
            warn(
                f"could not drop a stale entry of the ledger at {self.path} ({exc})", LedgerWarning
            )

    def _entries(self) -> dict[str, dict[str, Any]]:
        """Every valid entry, oldest first; an unreadable file counts as empty (warned)."""
        path = self.path
        try:
            raw = read_private(path)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            return _unreadable(path, f"it cannot be opened ({exc.strerror or exc})")
        try:
            data = json.loads(raw)
        except ValueError:
            return _unreadable(path, "it is not valid JSON")
        entries = data.get("entries") if isinstance(data, dict) else None
        if not isinstance(entries, dict):
            return _unreadable(path, "it is not a ledger")
        return {
            key: entry
            for key, entry in entries.items()
            if isinstance(entry, dict) and isinstance(entry.get("ids"), dict)
        }

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the ledger's lock file exclusively (other processes wait for it)."""
        directory = private_dir(self.path.parent)
        lock = directory / f".{self.path.name}.lock"
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | NOFOLLOW, 0o600)
        try:
            if sys.platform != "win32":
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock


def _unreadable(path: Path, why: str) -> dict[str, dict[str, Any]]:
    warn(
        f"the ledger of paid calls at {path} was ignored: {why}. reuse=True starts with an "
        "empty ledger (the next call rewrites it), so calls it remembered may be paid again",
        LedgerWarning,
    )
    return {}


class InFlight:
    """The marker one ``reuse=True`` call holds from its ledger lookup to its record.

    :meth:`acquire` is a flow step (it polls with ``Sleep``, so an async client never
    blocks its loop): an exclusive ``flock`` on ``<cache>/in-flight/<bucket>.lock``, which
    also excludes other threads and coroutines of this process (each try opens its own
    file description); where there is no ``flock`` (Windows), a lock of this process.
    Closing the file (or the process dying) releases it.

    Example:
        >>> import tempfile
        >>> first = InFlight("ab" * 32, Path(tempfile.mkdtemp()))
        >>> list(first.acquire())
        []
        >>> second = InFlight("ab" * 32, first.directory)
        >>> next(second.acquire())
        Sleep(seconds=0.05)
        >>> first.release()
    """

    def __init__(self, key: str, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else cache_dir() / "in-flight"
        self._name = f"{int(key[:8], 16) % _BUCKETS:03d}"
        self._fd: int | None = None
        self._lock: threading.Lock | None = None

    def acquire(self, wait: float = IN_FLIGHT_WAIT) -> Flow[None]:
        """Flow: hold the marker, waiting (polling) while another call holds it.

        Raises:
            RdsError: an identical call was still in flight after ``wait`` seconds
                (nothing was sent).
        """
        deadline = time.monotonic() + wait
        while not self._try():
            if time.monotonic() > deadline:
                raise RdsError(
                    f"an identical reuse=True call has been in flight for over {wait:.0f} s "
                    "(another thread or kernel); nothing was sent: try again when it ends"
                )
            yield Sleep(_POLL)

    def release(self) -> None:
        """Let the next identical call go (it then finds this one's ledger entry)."""
        if self._fd is not None:
            os.close(self._fd)  # closing releases the flock
            self._fd = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _try(self) -> bool:
        if sys.platform == "win32":
            with _LOCAL_GUARD:
                lock = _LOCAL_LOCKS.setdefault(self._name, threading.Lock())
            if lock.acquire(blocking=False):
                self._lock = lock
                return True
            return False
        import fcntl

        try:
            path = private_dir(self.directory) / f"{self._name}.lock"
            fd = os.open(path, os.O_RDWR | os.O_CREAT | NOFOLLOW, 0o600)
        except OSError as exc:
            warn(
                f"no in-flight marker for a reuse=True call ({exc}); identical calls made "
                "at this very moment may each pay",
                LedgerWarning,
            )
            return True
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        return True
