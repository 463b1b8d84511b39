"""The fixed-step clock of the windows: real time in, whole steps of ``dt`` out.

Real seconds (times a speed factor) fill an accumulator; every full ``dt`` in it is one step (a
simulation tick, or one stored tick of a replay). What is left, as a fraction of ``dt``, tells
the frame how far to interpolate between two steps. Two caps keep a slow machine responsive
instead of spiralling: a frame feeds at most ``max_gap`` real seconds, and when stepping has taken
more than ``budget`` real seconds the backlog beyond one step is dropped.
"""

from __future__ import annotations

import time
from collections.abc import Callable

MAX_GAP = 0.25  # real seconds one frame feeds at most (a window dragged, a debugger stop)


class FixedStepClock:
    """``advance(elapsed)`` -> the number of steps of ``dt`` due; ``fraction`` the part of a step
    left over (0..1). ``speed``: simulated seconds per real second. ``budget``: real seconds of
    stepping per call at most (None: no limit)."""

    def __init__(
        self, dt: float, *, speed: float = 1.0, budget: float | None = None, max_gap=MAX_GAP
    ):
        self.dt = dt
        self.speed = speed
        self.budget = budget
        self.max_gap = max_gap
        self.acc = 0.0  # simulated seconds not stepped yet
        self.last: float | None = None  # real time of the last frame

    @property
    def fraction(self) -> float:
        """The accumulated part of the next step, 0..1."""
        return min(self.acc / self.dt, 1.0)

    def reset(self) -> None:
        """Forget the accumulated time (paused, or the playhead jumped)."""
        self.acc = 0.0

    def mark(self, now: float) -> None:
        """Start timing frames at real time ``now``."""
        self.last = now

    def frame_gap(self, now: float) -> float | None:
        """Real seconds since the previous frame, at most ``max_gap``; None on the first."""
        gap = None if self.last is None else min(now - self.last, self.max_gap)
        self.last = now
        return gap

    def advance(
        self, elapsed: float, step: Callable[[], bool] | None = None, *, paused: bool = False
    ) -> int:
        """Feed ``elapsed`` real seconds and take the steps that are due; returns how many.

        ``step`` runs once per step; when it returns True (the run paused, the replay ended) the
        rest is forgotten. ``paused``: no step, and the accumulator empties."""
        if paused:
            self.acc = 0.0
            return 0
        self.acc += elapsed * self.speed
        start = time.perf_counter()
        n = 0
        while self.acc >= self.dt:
            stop = step() if step is not None else False
            self.acc -= self.dt
            n += 1
            if stop:
                self.acc = 0.0
                break
            if self.budget is not None and time.perf_counter() - start > self.budget:
                self.acc = min(self.acc, self.dt)  # behind: drop the backlog, keep one step
                break
        return n
