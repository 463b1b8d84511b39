"""The model: units, the world, the rules (see the modules)."""

import os

# OpenMP (numba's threading layer here) keeps an idle worker thread spinning after each parallel
# region, by default for long enough (GOMP_SPINCOUNT 300,000: milliseconds) to compete with the
# main thread when the thread policy (steering/threads.py) runs the kernels on one thread:
# measured at 1,000 units (bench world, a busy machine), 758-802 ticks/s with it against 971-976
# with no spinning at all. But a worker that sleeps at once must be woken for every region, and a
# wake costs ~50 us here (a two-thread region of no work: 53 us with no spinning, 1.3 us with
# the worker spinning), four to six times a tick. 10,000 spins (~0.1-0.5 ms here) keep the
# worker awake from one steering pass to the next and let it sleep through the physics step:
# 1,000 units 2,527-2,590 -> 3,078-3,163 ticks/s (bench, runs interleaved). Set before numba
# loads OpenMP (at the first parallel kernel, always after this package is imported); a value
# the user sets wins.
os.environ.setdefault("GOMP_SPINCOUNT", "10000")
