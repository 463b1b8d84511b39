"""rigidflock: rigid-body, physics-based flocking (pymunk physics, numpy/numba steering, pyglet
drawing).

The simulation is a library first; everything a user needs is importable from here::

    from rigidflock import load_scene, bundled_scene, Simulation
    sim = Simulation(load_scene(bundled_scene("aidemo4")), seed=1)  # or any scene file
    for _ in range(600):
        sim.step()

``derive(scene, {"rules.weights.cohesion": 2})`` makes a changed scene (validated like a file,
recorded as the changed text). Move orders are ``Command(orders=(OrderSpec(...),))`` with
:class:`OrderSpec` and :class:`SelectSpec` from here. Headless runs, sweeps and executors
(:func:`run_scene`, :func:`load_sweep`, :func:`run_sweep`, :func:`local_executor`,
:func:`dask_executor`) load on first use, so ``import rigidflock`` stays light.
"""

from rigidflock import kernel_cache

kernel_cache.configure()  # before any kernel module is imported: numba places caches then

from rigidflock.bundled import bundled_scene, resolve_scene, resolve_sweep  # noqa: E402
from rigidflock.scene import (  # noqa: E402
    OrderSpec,
    Scene,
    SceneError,
    SelectSpec,
    load_scene,
    parse_scene,
)
from rigidflock.scene.overrides import derive  # noqa: E402
from rigidflock.sim import Command, CommandError, Simulation, StepEvents  # noqa: E402

# Names whose modules are imported on first use: runs pull in the executors and the series
# writers, which a plain simulation never needs.
_LAZY = {
    "RunResult": "rigidflock.runs.runner",
    "run_scene": "rigidflock.runs.runner",
    "load_sweep": "rigidflock.runs.sweep_spec",
    "run_sweep": "rigidflock.runs.sweep",
    "local_executor": "rigidflock.runs.executors",
    "dask_executor": "rigidflock.runs.executors",
    "to_dataframe": "rigidflock.runs.series",
}

__version__ = "0.1.0"
__all__ = [  # noqa: RUF022 (grouped: the simulation, scenes, runs)
    "Command",
    "CommandError",
    "Simulation",
    "StepEvents",
    "OrderSpec",
    "SelectSpec",
    "Scene",
    "SceneError",
    "bundled_scene",
    "derive",
    "load_scene",
    "parse_scene",
    "resolve_scene",
    "resolve_sweep",
    "RunResult",
    "run_scene",
    "load_sweep",
    "run_sweep",
    "local_executor",
    "dask_executor",
    "to_dataframe",
    "__version__",
]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
