"""Output files that are either whole or absent: written to a temporary file beside the target
and renamed into place only when complete (a failed or interrupted run leaves nothing behind)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path


class OutputError(Exception):
    """An output path that cannot be written (names the file)."""


def check_writable(path: str | os.PathLike, what: str) -> Path:
    """Fail early, before a long run, when ``path`` cannot be created."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise OutputError(f"{p}: {what}: is a directory")
    if not parent.is_dir():
        raise OutputError(f"{p}: {what}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"{p}: {what}: directory {parent} is not writable")
    return p


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a temporary path beside ``path`` (same extension, for writers that go by it); on
    success rename it to ``path``, else delete it. The file gets the user's umask like any file
    the user creates (mkstemp alone would make it private)."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=f".part{p.suffix}", dir=p.parent)
    os.close(fd)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        yield tmp
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", **kwargs):
    """Open a temporary file next to ``path``; on success rename it to ``path``, else delete it."""
    with atomic_path(path) as tmp, open(tmp, mode, **kwargs) as fh:
        yield fh


def write_json(path: str | os.PathLike, data) -> None:
    with atomic_open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2, allow_nan=False)
        fh.write("\n")
