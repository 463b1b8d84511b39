"""The process settings the ``rigidflock`` command makes for itself (it owns its process; a
program that imports rigidflock keeps its own settings, and can make the same ones): the C heap
gives a tick's large arrays back at once, and OpenMP's idle workers spin a little.

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

OpenMP (numba's threading layer here) keeps an idle worker thread spinning after each parallel
region, by default for long enough (GOMP_SPINCOUNT 300,000: milliseconds) to compete with the
main thread when the thread policy (``model/steering/threads.py``) runs the kernels on one
thread: measured at 1,000 units (bench world, a busy machine), 758-802 ticks/s with it against
971-976 with no spinning at all. But a worker that sleeps at once must be woken for every
region, and a wake costs ~50 us here (a two-thread region of no work: 53 us with no spinning,
1.3 us with the worker spinning), four to six times a tick. 10,000 spins (~0.1-0.5 ms here)
keep the worker awake from one steering pass to the next and let it sleep through the physics
step: 1,000 units 2,527-2,590 -> 3,078-3,163 ticks/s (bench, runs interleaved).
:func:`spin_openmp_workers` sets it for the command, before numba loads OpenMP (at the first
parallel kernel); its child processes inherit it. A program can set ``GOMP_SPINCOUNT=10000``
itself; a value the environment sets is left alone.
"""

from __future__ import annotations

import ctypes
import os
import sys

M_MMAP_THRESHOLD = -3  # glibc's malloc.h
THRESHOLD = 128 * 1024  # glibc's default, kept fixed
SPINCOUNT = "10000"  # OpenMP's idle workers: ~0.1-0.5 ms of spinning here


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


def spin_openmp_workers() -> bool:
    """Have OpenMP's idle workers spin ``SPINCOUNT`` times before they sleep, in this process
    and the ones it starts; True if it was set here (False: the environment sets it already).
    Takes effect only before numba first loads OpenMP (its first parallel kernel)."""
    if "GOMP_SPINCOUNT" in os.environ:
        return False
    os.environ["GOMP_SPINCOUNT"] = SPINCOUNT
    return True
