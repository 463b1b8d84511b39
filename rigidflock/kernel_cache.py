"""Where numba keeps the compiled kernels: a directory keyed by the package's sources.

numba checks a cached kernel against its own source file only, but the kernels inline helpers
from other modules (``torus.min_image_2d`` in every pair kernel, ``avoidance_kernels`` in the
unit pass): after an edit to a helper, the cache went on serving the old machine code until it
was deleted by hand. So the cache directory is named after the size and modification time of
every module of the package: any edit starts a fresh cache, and caches of earlier sources are
removed. A ``NUMBA_CACHE_DIR`` set by the user is left as it is.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def sources_key(package: Path = PACKAGE) -> str:
    """16 hex digits that change when any ``.py`` file under ``package`` is added, removed or
    modified (by name, size and modification time: ~1 ms for the package, no file read)."""
    h = hashlib.sha1()
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(root, name))
                rel = os.path.relpath(os.path.join(root, name), package)
                h.update(f"{rel}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def cache_root(package: Path = PACKAGE) -> Path:
    """Beside the package when it is writable (a checkout), else the user's cache directory (an
    installed package in a read-only site-packages), in a folder of its own per installed copy:
    two environments used in turn must not remove each other's caches."""
    here = package / "__pycache__"
    if os.access(package, os.W_OK) and (not here.exists() or os.access(here, os.W_OK)):
        return here / "numba"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    where = hashlib.sha1(str(package).encode()).hexdigest()[:12]
    return Path(base) / "rigidflock" / "numba" / where


def configure() -> str | None:
    """Point numba's cache at this version's directory (before any kernel module is imported:
    numba picks the place when a kernel is decorated). Returns the directory, or None when
    ``NUMBA_CACHE_DIR`` was set already."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    root = cache_root()
    key = sources_key()
    target = root / key
    # through the environment, so numba's config reload keeps it and worker processes share it
    os.environ["NUMBA_CACHE_DIR"] = str(target)
    try:
        import sys

        if "numba" in sys.modules:  # imported before rigidflock: its config is read already
            sys.modules["numba"].config.CACHE_DIR = str(target)
        if root.is_dir():
            for old in root.iterdir():
                if old.name != key and old.is_dir():
                    shutil.rmtree(old, ignore_errors=True)
    except OSError:
        pass  # a stale cache left behind costs disk, never a wrong kernel
    return str(target)
