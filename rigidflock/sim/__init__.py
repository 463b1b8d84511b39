"""The simulation: :class:`Simulation` with ``reset(seed)`` and ``step(command) -> StepEvents``."""

from rigidflock.sim.batch import SimulationBatch
from rigidflock.sim.changes import save_scene
from rigidflock.sim.commands import TOGGLES, Command, CommandError, StepEvents, apply_toggles
from rigidflock.sim.measurables import Measurables
from rigidflock.sim.simulation import MODEL_VERSION, Simulation

__all__ = [
    "MODEL_VERSION",
    "TOGGLES",
    "Command",
    "CommandError",
    "Measurables",
    "Simulation",
    "SimulationBatch",
    "StepEvents",
    "apply_toggles",
    "save_scene",
]
