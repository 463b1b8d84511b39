"""The model: units, the world, the rules (see the modules)."""

import os

# OpenMP (numba's threading layer here) keeps idle worker threads spinning after each parallel
# region by default. When the thread policy (steering/threads.py) runs the kernels on one
# thread, that spinning worker competes with the main thread for the cores: measured at 1,000
# units (bench world, a busy machine), 758-802 ticks/s with it against 971-976 without and
# 941-1,138 with NUMBA_NUM_THREADS=1 (runs interleaved); at 10,000 units on two threads no
# difference beyond noise. So workers sleep at once unless the user says otherwise. Set before
# numba loads OpenMP (at the first parallel kernel, always after this package is imported).
os.environ.setdefault("GOMP_SPINCOUNT", "0")
