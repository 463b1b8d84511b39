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

from rigidflock.scene import Scene, SceneError, load_scene, parse_scene
from rigidflock.scene.overrides import derive
from rigidflock.scenes import bundled_scene
from rigidflock.sim import Command, Simulation, StepEvents

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
