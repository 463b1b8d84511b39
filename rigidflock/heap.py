"""The C heap's setting for the ``rigidflock`` command: a tick's large arrays go back at once.

glibc serves a block of 128 KiB or more with its own ``mmap`` and unmaps it when freed, but the
first time it frees one it raises that threshold to the block's size (up to 32 MiB). From then on
a crowd's per-tick arrays (0.8-2.4 MB each at 100,000 units) come from the heap, where they stay
resident between ticks, in two arenas when the steering runs beside the physics step. Fixing the
threshold at its default keeps them out: at 100,000 units beside the step, 230 ticks, peak memory
4,519 bytes a unit instead of 4,977, the tick as fast within the noise. The command sets it
(:func:`rigidflock.cli.main`, the bench's child processes, local sweep workers); a program that
imports rigidflock keeps its own heap, and can do the same with
``MALLOC_MMAP_THRESHOLD_=131072`` in its environment. A threshold the environment sets (that
variable, or ``GLIBC_TUNABLES``) is left alone.
"""

from __future__ import annotations

import ctypes
import os
import sys

M_MMAP_THRESHOLD = -3  # glibc's malloc.h
THRESHOLD = 128 * 1024  # glibc's default, kept fixed


def fix_mmap_threshold() -> bool:
    """Fix glibc's mmap threshold at 128 KiB for this process; True if it was set here (not on
    glibc, or when the environment already sets it, nothing is done: False)."""
    if not sys.platform.startswith("linux") or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    if "mmap_threshold" in os.environ.get("GLIBC_TUNABLES", ""):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return mallopt(M_MMAP_THRESHOLD, THRESHOLD) == 1
