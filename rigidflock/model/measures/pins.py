"""Units pinned against static geometry: touching an obstacle, wall or building while slow.

``touching`` (N,) is pymunk's contact state, the number of static shapes each unit touches;
velocities are world units / s, ``cruise`` (N,) each unit's cruise speed in the same units.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

PIN_SLOW = 0.1  # a unit slower than this fraction of its cruise speed, touching: pinned


@nb.njit(cache=True)
def pin_tick(vel, touching, cruise, run, dt):
    """One tick of pinned time, in place: ``run`` (N,) seconds each unit has been pinned so far
    (an array the caller owns) becomes ``run + dt`` for units pinned now (``touching`` (N,) > 0
    and slower than PIN_SLOW x ``cruise`` (N,); ``vel`` (N, 2) world units / s), 0 for the rest;
    ``dt`` seconds. Returns (units pinned now, the longest run). Compiled: the run's collector
    calls it every tick."""
    count = 0
    longest = 0.0
    for i in range(run.shape[0]):
        if touching[i] > 0 and math.hypot(vel[i, 0], vel[i, 1]) < PIN_SLOW * cruise[i]:
            run[i] += dt
            count += 1
            longest = max(longest, run[i])
        else:
            run[i] = 0.0
    return count, longest


def pinned(touching: np.ndarray, speed: np.ndarray, cruise: np.ndarray, slow=PIN_SLOW) -> int:
    """Units pinned against static geometry: in contact with it (``touching`` (N,) bool) while
    slower than ``slow`` x their cruise speed (``speed``, ``cruise`` (N,), world units / s)."""
    return int((touching & (speed < slow * cruise)).sum())
