"""Private files: what rdskit writes on disk is the user's alone.

Directories are created 0700 and files 0600, and no path is ever followed through a
symlink (``O_NOFOLLOW``), so another local user can neither read what rdskit stores (the
parquet cache, the gateway's shared sandbox and its key, the discovery file) nor plant a
symlink that makes rdskit write somewhere else. Writes are atomic and durable (a
temporary file in the same directory, flushed and ``fsync``-ed, then ``os.replace``, then
the directory ``fsync``-ed), so a reader never sees half a file, even after a crash or a
power cut.

Example:
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> path = write_private(private_dir(root / "d") / "f.txt", b"secret")
    >>> oct(path.stat().st_mode & 0o777), oct(path.parent.stat().st_mode & 0o777)
    ('0o600', '0o700')
    >>> read_private(path)
    b'secret'
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import platformdirs

__all__ = [
    "CACHE_ENV",
    "NOFOLLOW",
    "cache_dir",
    "private_dir",
    "private_file",
    "read_private",
    "write_private",
    "writing",
]

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
"""``O_NOFOLLOW`` where the platform has it (0 elsewhere)."""

CACHE_ENV = "RDSKIT_CACHE_DIR"
"""Environment variable overriding the directory rdskit keeps its files in."""


def cache_dir() -> Path:
    """Where rdskit keeps its files (the parquet cache, the ledger of paid calls):
    ``$RDSKIT_CACHE_DIR`` or the platform's user cache dir.

    Example:
        >>> cache_dir().is_absolute()
        True
    """
    return Path(os.environ.get(CACHE_ENV) or platformdirs.user_cache_dir("rdskit", "rdskit"))


def private_dir(path: str | os.PathLike[str]) -> Path:
    """``path`` as a directory only its owner can enter (created 0700, or narrowed to it).

    Missing parents are created 0700 too; existing parents are left as they are. A
    directory that is a symlink, or that belongs to another user, is refused.

    Raises:
        PermissionError: the directory is a symlink or is not ours.

    Example:
        >>> oct(private_dir("/tmp/rdskit-example/a").stat().st_mode & 0o777)  # doctest: +SKIP
        '0o700'
    """
    directory = Path(path)
    for missing in reversed([directory, *directory.parents]):
        if not missing.exists():
            missing.mkdir(mode=0o700, exist_ok=True)
    if directory.is_symlink():
        raise PermissionError(f"{directory} is a symlink; rdskit keeps private data in real dirs")
    info = directory.stat()
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise PermissionError(f"{directory} belongs to another user; choose another directory")
    if info.st_mode & 0o077:
        directory.chmod(0o700)
    return directory


def private_file(path: str | os.PathLike[str], *, create: bool = True) -> Path:
    """Make ``path`` a 0600 file (created empty if missing and ``create``), never via a symlink.

    Used before SQLite opens a database: SQLite gives its ``-wal``/``-shm`` files the mode
    of the database file, so they are private too.

    Raises:
        OSError: ``path`` is a symlink (``ELOOP``) or cannot be opened.
    """
    flags = os.O_RDWR | NOFOLLOW | (os.O_CREAT if create else 0)
    fd = os.open(path, flags, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return Path(path)


def read_private(path: str | os.PathLike[str]) -> bytes:
    """The bytes of ``path``, opened without following a symlink."""
    fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


@contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """A binary handle whose content atomically replaces ``path`` (0600) on success.

    The temporary file is created with ``O_EXCL | O_NOFOLLOW``: a planted file or symlink
    makes it fail rather than write through it. Its bytes reach the disk (``fsync``)
    before it replaces ``path``, and the rename reaches it too (the directory is synced),
    so after a crash ``path`` is the old file or the whole new one. On an error it is
    removed.
    """
    target = Path(path)
    partial = target.with_name(f".{target.name}.{secrets.token_hex(6)}.partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, target)  # replaces a symlink itself, never its target
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    _sync_directory(target.parent)


def _sync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (POSIX; Windows has no directory handles)."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_private(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically as a 0600 file (see :func:`writing`)."""
    with writing(path) as handle:
        handle.write(data)
    return Path(path)
