"""How a flock is aligned: polarization (headings) and milling (angular momentum).

Arrays of AI units only; positions world units, velocities world units / s; ``box`` the world
size of a wrap-around world, None otherwise.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rigidflock.model.torus import min_image


def polarization(heading: np.ndarray) -> float:
    """|mean of the unit headings| (N, 2): 1 when all point the same way, ~1/sqrt(N) at random.
    NaN for no units."""
    if len(heading) == 0:
        return float("nan")
    return float(np.hypot(*heading.mean(axis=0)))


@nb.njit(cache=True)
def _column_means(a):
    """``a.mean(axis=0)`` of an (N, 2) array, summed row by row as numpy sums along axis 0 of a
    C-ordered array (so the same bits), without numpy's per-row iterator overhead."""
    sx = sy = 0.0
    for k in range(a.shape[0]):
        sx += a[k, 0]
        sy += a[k, 1]
    return sx / a.shape[0], sy / a.shape[0]


def polarization_fast(heading: np.ndarray) -> float:
    """:func:`polarization` of ``heading`` (N, 2), compiled: the same value (tests compare),
    ~15x faster at 10,000 units (the run's collector takes it every tick)."""
    if len(heading) == 0:
        return float("nan")
    mx, my = _column_means(np.ascontiguousarray(heading, dtype=np.float64))
    return float(np.hypot(mx, my))


def flock_centre(pos: np.ndarray, box: np.ndarray | None = None) -> np.ndarray:
    """Centre (2,) of ``pos`` (N, 2): the mean, or in a wrap-around world the circular mean of
    each axis (a flock straddling the seam has its centre on the seam, not mid-world)."""
    if box is None:
        return pos.mean(axis=0)
    a = 2 * np.pi * pos / box
    ang = np.arctan2(np.sin(a).mean(axis=0), np.cos(a).mean(axis=0))
    return np.mod(ang, 2 * np.pi) * box / (2 * np.pi)


def milling(pos: np.ndarray, vel: np.ndarray, box: np.ndarray | None = None) -> float:
    """Normalised angular momentum of ``pos``, ``vel`` (N, 2) about the flock centre,
    |sum r x v| / sum |r||v| in [0, 1]: 1 for a flock circling its centre (a mill), ~0 for a
    flock moving in parallel or at random. NaN with fewer than 2 units or none moving."""
    if len(pos) < 2:
        return float("nan")
    r = min_image(pos - flock_centre(pos, box), box)
    cross = r[:, 0] * vel[:, 1] - r[:, 1] * vel[:, 0]
    norm = float((np.hypot(*r.T) * np.hypot(*vel.T)).sum())
    return abs(float(cross.sum())) / norm if norm > 0 else float("nan")
