"""Flock measurements taken at sampled ticks (the series of ``run --series``): pure functions of
one state, arrays of AI units only (the caller slices), no Python loop over units.

Positions are world units, velocities world units / s; ``box`` is the world size of a wrap-around
world (offsets are then minimum-image), None otherwise.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from rigidflock.model.steering.neighbours import min_image

PIN_SLOW = 0.1  # a unit slower than this fraction of its cruise speed, touching: pinned


def flock_centre(pos: np.ndarray, box: np.ndarray | None = None) -> np.ndarray:
    """Centre (2,) of ``pos`` (N, 2): the mean, or in a wrap-around world the circular mean of
    each axis (a flock straddling the seam has its centre on the seam, not mid-world)."""
    if box is None:
        return pos.mean(axis=0)
    a = 2 * np.pi * pos / box
    ang = np.arctan2(np.sin(a).mean(axis=0), np.cos(a).mean(axis=0))
    return np.mod(ang, 2 * np.pi) * box / (2 * np.pi)


def milling(pos: np.ndarray, vel: np.ndarray, box: np.ndarray | None = None) -> float:
    """Normalised angular momentum about the flock centre, |sum r x v| / sum |r||v| in [0, 1]:
    1 for a flock circling its centre (a mill), ~0 for a flock moving in parallel or at random.
    NaN with fewer than 2 units or none moving."""
    if len(pos) < 2:
        return float("nan")
    r = min_image(pos - flock_centre(pos, box), box)
    cross = r[:, 0] * vel[:, 1] - r[:, 1] * vel[:, 0]
    norm = float((np.hypot(*r.T) * np.hypot(*vel.T)).sum())
    return abs(float(cross.sum())) / norm if norm > 0 else float("nan")


@nb.njit(cache=True)
def pin_tick(vel, touching, cruise, run, dt):
    """One tick of pinned time, in place: ``run`` (N,) seconds each unit has been pinned so far
    becomes ``run + dt`` for units pinned now (``touching`` (N,) > 0 and slower than PIN_SLOW x
    ``cruise`` (N,); ``vel`` (N, 2) world units / s), 0 for the rest. Returns (units pinned now,
    the longest run). Compiled: the run metrics call it every tick."""
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
    """Units pinned against static geometry: in contact with it (``touching`` (N,) bool, pymunk's
    contact state) while slower than ``slow`` x their cruise speed (world units / s)."""
    return int((touching & (speed < slow * cruise)).sum())


def nearest_distance(
    origin: np.ndarray, pos: np.ndarray, box: np.ndarray | None = None
) -> float | None:
    """Distance from ``origin`` (2,) to the nearest of ``pos`` (K, 2); None when K is 0."""
    if len(pos) == 0:
        return None
    d = min_image(pos - origin, box)
    return float(np.hypot(d[:, 0], d[:, 1]).min())
