"""Public windows on a :class:`~rigidflock.sim.Simulation`'s machinery, for tests and tools.

:class:`Inspection` is a base class of the simulation: the steerer it decides with, whether the
work beside the physics step goes to the background thread (and a switch to keep it in the
caller's thread, with the same results), whether such work is still pending after a step that
raised, and the unpin rule's per-unit state. Arrays are read-only views of the simulation's own
(valid until the next step writes over them); nothing here changes a run's results.
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.state import read_only
from rigidflock.model.steering.blend import Steerer


class Inspection:
    """Read-only properties of a simulation after :meth:`~rigidflock.sim.Simulation.reset`
    (and the ``threaded`` switch), kept apart from the stepping code."""

    @property
    def steerer(self) -> Steerer:
        """The :class:`~rigidflock.model.steering.blend.Steerer` this run decides with (a new
        one at each reset): its ``world``, ``threads`` (the thread policy), ``verlet`` (the
        neighbour lists, with their ``builds`` count) and its passes. Calling it or its
        ``pairs`` writes its reused buffers, which the run's next decision reuses: for
        inspection, not for use beside a running step."""
        return self._steerer

    @property
    def threaded(self) -> bool:
        """Whether the work beside the physics step (the decision with ``world.reaction_ticks
        = 1``, the pair pass with ``world.neighbour_ticks = 1``) is handed to the background
        thread. False when there is no such work, in a process of one numba thread, with
        ``world.substeps`` above 1, or once set False; then it runs in the caller's thread,
        with the same results."""
        return self._threaded

    @threaded.setter
    def threaded(self, value: bool) -> None:
        """False keeps the work beside the step in the caller's thread (for tracers and
        profilers that follow one thread; the results do not change); True hands it to the
        background thread again, and raises ValueError where this run cannot (see the getter).
        :meth:`~rigidflock.sim.Simulation.reset` sets it anew."""
        if value and not self._may_thread:
            raise ValueError("this run has no work beside the step it may hand to a thread")
        self._threaded = bool(value)

    @property
    def background_pending(self) -> bool:
        """Whether a decision or pair pass handed to the background thread has not been taken
        yet: only after a step that raised while it ran beside the physics step (the next
        step, or reset, waits for it and drops what it found)."""
        return self._pending is not None

    @property
    def background_running(self) -> bool:
        """Whether that pending decision or pair pass (:attr:`background_pending`) is still
        running in the background thread."""
        return self._pending is not None and not self._pending.done.is_set()

    @property
    def pressed(self) -> np.ndarray:
        """(N,) float seconds each unit has been pressed still against static geometry (the
        unpin rule, :mod:`~rigidflock.model.steering.unpin`; 0 once it moves or backs out);
        a read-only view."""
        return read_only(self._pressed)

    @property
    def unpin_until(self) -> np.ndarray:
        """(N,) int64: the tick until which each unit backs out under the unpin rule (backing
        out while it is above ``tick``; -1: never has); a read-only view."""
        return read_only(self._unpin_until)
