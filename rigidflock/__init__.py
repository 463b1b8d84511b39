"""rigidflock: rigid-body, physics-based flocking (pymunk physics, numpy/numba steering, pyglet
drawing).

The simulation is a library first::

    from rigidflock import load_scene, bundled_scene, Simulation
    sim = Simulation(load_scene(bundled_scene("aidemo4")), seed=1)  # or any scene file
    for _ in range(600):
        sim.step()

``derive(scene, {"rules.weights.cohesion": 2})`` makes a changed scene (validated like a file,
recorded as the changed text).
"""

from rigidflock import kernel_cache

kernel_cache.configure()  # before any kernel module is imported: numba places caches then

from rigidflock.scene import Scene, SceneError, load_scene, parse_scene  # noqa: E402
from rigidflock.scene.overrides import derive  # noqa: E402
from rigidflock.scenes import bundled_scene  # noqa: E402
from rigidflock.sim import Command, Simulation, StepEvents  # noqa: E402

__version__ = "0.1.0"
__all__ = [
    "Command",
    "Scene",
    "SceneError",
    "Simulation",
    "StepEvents",
    "__version__",
    "bundled_scene",
    "derive",
    "load_scene",
    "parse_scene",
]
