"""rigidflock: rigid-body, physics-based flocking (pymunk physics, numpy/numba steering, pyglet
drawing).

The simulation is a library first::

    from rigidflock import load_scene, Simulation
    sim = Simulation(load_scene("scenes/aidemo4.toml"), seed=1)
    for _ in range(600):
        sim.step()

``derive(scene, {"rules.weights.cohesion": 2})`` makes a changed scene (validated like a file,
recorded as the changed text).
"""

from rigidflock.scene import Scene, SceneError, load_scene, parse_scene
from rigidflock.scene.overrides import derive
from rigidflock.sim import Command, Simulation, StepEvents

__version__ = "0.1.0"
__all__ = [
    "Command",
    "Scene",
    "SceneError",
    "Simulation",
    "StepEvents",
    "__version__",
    "derive",
    "load_scene",
    "parse_scene",
]
