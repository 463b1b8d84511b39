"""Where numba keeps the compiled kernels: a directory keyed by the package's sources.

numba checks a cached kernel against its own source file only, but the kernels inline helpers
from other modules (``torus.min_image_2d`` in every pair kernel, ``avoidance_kernels`` in the
unit pass): after an edit to a helper, the cache went on serving the old machine code until it
was deleted by hand. So the cache directory is named after the size and modification time of
every module of the package: any edit starts a fresh cache. Caches of earlier sources are
removed once unused for a day (a sweep started before an edit may still be using its own). A
``NUMBA_CACHE_DIR`` set by the user is left as it is.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
# the NUMBA_CACHE_DIR rigidflock chose, so that one inherited by a worker process (or by a
# process of another checkout) is not taken for the user's own
MARK = "RIGIDFLOCK_NUMBA_CACHE_DIR"
KEEP_SECONDS = 24 * 3600  # a cache of earlier sources unused this long is removed


def sources_key(package: Path = PACKAGE) -> str:
    """16 hex digits that change when any ``.py`` file under ``package`` is added, removed or
    modified (by name, size and modification time: ~1 ms for the package, no file read).
    Hidden files (an editor's lock or backup) and files that vanish meanwhile do not count."""
    h = hashlib.sha1()
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(".py") or name.startswith("."):
                continue
            path = os.path.join(root, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            h.update(f"{os.path.relpath(path, package)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def _writable(folder: Path) -> bool:
    """Whether a file can be made in ``folder`` (made if missing), tried as numba tries it:
    ``os.access`` says yes to a read-only install on some systems."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
        return True
    except OSError:
        return False


def cache_root(package: Path = PACKAGE) -> Path:
    """Beside the package when it is writable (a checkout), else the user's cache directory (an
    installed package in a read-only site-packages), in a folder of its own per installed copy:
    two environments used in turn must not remove each other's caches."""
    here = package / "__pycache__" / "numba"
    if _writable(here):
        return here
    base = os.environ.get("LOCALAPPDATA") if os.name == "nt" else os.environ.get("XDG_CACHE_HOME")
    base = base or os.path.join(Path.home(), ".cache")
    where = hashlib.sha1(str(package).encode()).hexdigest()[:12]
    return Path(base).resolve() / "rigidflock" / "numba" / where


def _last_used(folder: Path) -> float:
    """The newest modification time of ``folder`` and its immediate entries (numba writes its
    files one level down)."""
    times = [folder.stat().st_mtime]
    times += [p.stat().st_mtime for p in folder.iterdir()]
    return max(times)


def prune(root: Path, keep: str, now: float | None = None) -> None:
    """Remove the caches under ``root`` other than ``keep`` unused for ``KEEP_SECONDS``."""
    now = time.time() if now is None else now
    if not root.is_dir():
        return
    for old in root.iterdir():
        try:
            if old.name != keep and old.is_dir() and now - _last_used(old) > KEEP_SECONDS:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            continue


def configure() -> str | None:
    """Point numba's cache at this version's directory (before any kernel module is imported:
    numba picks the place when a kernel is decorated). Returns the directory, or None when the
    user set ``NUMBA_CACHE_DIR`` (or no place could be made: numba's own default then)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env and env != os.environ.get(MARK):
        return None
    try:
        root = cache_root()
        key = sources_key()
        target = str(root / key)
        # through the environment, so numba's config reload keeps it and workers share it
        os.environ["NUMBA_CACHE_DIR"] = os.environ[MARK] = target
        if "numba" in sys.modules:  # imported before rigidflock: its config is read already
            sys.modules["numba"].config.CACHE_DIR = target
        prune(root, key)
        return target
    except (OSError, RuntimeError, ValueError):
        return None  # finding a place for a cache must never stop an import
