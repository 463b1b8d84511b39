"""The first run on a machine: numba compiles the per-tick kernels (several seconds) and caches
them beside their modules (``__pycache__``); later runs load them. :func:`kernels_cold` says
whether that cache is empty, and :func:`warm_up` compiles them with a throwaway simulation of a
few ticks, so a front end can say so and start its progress bar (and clock) afterwards.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

# the modules with cached numba kernels
KERNEL_MODULES = (
    "rigidflock.model.steering.kernels",
    "rigidflock.model.steering.cells",
    "rigidflock.model.steering.clearmap",
    "rigidflock.model.vehicle",
    "rigidflock.model.world",
    "rigidflock.model.torus",
    "rigidflock.model.metrics",
    "rigidflock.model.flock_metrics",
    "rigidflock.sim.unpin",
)


def _cache_dirs(module_file: Path) -> list[Path]:
    dirs = [module_file.parent / "__pycache__"]
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env:
        dirs.append(Path(env))
    return dirs


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
    return time.perf_counter() - t0
