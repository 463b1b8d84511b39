"""The simulation: :class:`Simulation` with ``reset(seed)`` and ``step(command) -> StepEvents``."""

from rigidflock.sim.simulation import TOGGLES, Command, Simulation, StepEvents

__all__ = ["TOGGLES", "Command", "Simulation", "StepEvents"]
