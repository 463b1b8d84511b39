"""The simulation: :class:`Simulation` with ``reset(seed)`` and ``step(command) -> StepEvents``."""

from rigidflock.sim.commands import TOGGLES, Command, StepEvents, apply_toggles
from rigidflock.sim.simulation import Simulation

__all__ = ["TOGGLES", "Command", "Simulation", "StepEvents", "apply_toggles"]
