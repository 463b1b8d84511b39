"""The first run on a machine (or of edited sources): numba compiles the per-tick kernels
(several seconds) and caches them (:mod:`rigidflock.kernel_cache` says where); later runs load
them. :func:`kernels_cold` says
whether that cache is empty, and :func:`warm_up` compiles them with a throwaway simulation of a
few ticks, so a front end can say so and start its progress bar (and clock) afterwards.
"""

from __future__ import annotations

import time
from pathlib import Path

# the modules with cached numba kernels
KERNEL_MODULES = (
    "rigidflock.model.steering.kernels",
    "rigidflock.model.steering.unit_kernel",
    "rigidflock.model.steering.cells",
    "rigidflock.model.steering.clearmap",
    "rigidflock.model.vehicle",
    "rigidflock.model.world",
    "rigidflock.model.torus",
    "rigidflock.model.measures.alignment",
    "rigidflock.model.measures.spacing",
    "rigidflock.model.measures.flocks",
    "rigidflock.model.measures.pins",
    "rigidflock.model.steering.unpin",
    "rigidflock.model.steering.give_way",
    "rigidflock.rts.assignment",
    "rigidflock.rts.sight",
    "rigidflock.rts.slots",
)


def _cache_dirs(module_file: Path) -> list[Path]:
    """Where numba looks for a module's cached kernels: this process's directory of them
    (:func:`rigidflock.kernel_cache.directory`), else numba's own place beside the module."""
    from rigidflock import kernel_cache

    where = kernel_cache.directory()
    return [where] if where is not None else [module_file.parent / "__pycache__"]


def kernels_cold() -> bool:
    """True when some kernel module has no cached index file (``<module>.*.nbi``) in any place
    numba looks first: the next simulation will compile."""
    import importlib.util

    for name in KERNEL_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        path = Path(spec.origin)
        pattern = f"{path.stem}.*.nbi"
        if not any(
            next(d.rglob(pattern), None) is not None for d in _cache_dirs(path) if d.is_dir()
        ):
            return True
    return False


def warm_up(scene, ticks: int = 2) -> float:
    """Compile the kernels ``scene`` needs, the tick's and the run metrics', with a throwaway
    run of a few ticks (no output files); returns the seconds it took. The one warm-up: the CLI
    calls it before its progress bar, sweeps before their fan-out, workers when they start."""
    from rigidflock.runs.runner import run_scene

    t0 = time.perf_counter()
    run_scene(scene, ticks)
    _rare_kernels()
    return time.perf_counter() - t0


def _rare_kernels() -> None:
    """Compile the kernels a short run may not reach (a unit with nobody within the search
    radius, the other thread count's neighbour rebuild, move orders' sight, slot costs and slot
    auction): else the first long run pays for them mid-run (~3 ms of a 10,000-unit tick, once;
    ~1 s for the auction)."""
    import numpy as np

    from rigidflock.model.measures.spacing import nn_completed
    from rigidflock.model.steering import cells
    from rigidflock.rts import navigation
    from rigidflock.rts.assignment import SCALING, auction
    from rigidflock.rts.slots import slot_cost

    pos = np.array([[0.0, 0.0], [1.0, 0.0], [50.0, 50.0]])
    # read-only, as the collector passes the simulation's arrays (numba compiles those apart)
    within, seen = np.array([1.0, 1.0, np.inf]), pos.copy()
    within.flags.writeable = seen.flags.writeable = False
    nn_completed(within, seen, None, 5.0)
    for wrap, (w, h) in ((False, (0.0, 0.0)), (True, (60.0, 60.0))):
        cells.ordered_rows(pos, 5.0, w, h, wrap)
        cells.ordered_rows_serial(pos, 5.0, w, h, wrap)
    # move orders: line of sight (a scene without orders never asks), the slots' costs (a
    # group at its formation) and auction (groups of AUCTION_FROM units or more)
    navigation.build_grid((8.0, 8.0), 2.0, 0.5).sees(pos[:2], pos[1:])
    slot_cost(pos, np.ones(3), np.zeros(3), np.ones(3), pos, np.empty((3, 3)))
    auction(np.eye(2), 1e-3, SCALING)
