"""How far apart units are: each unit's nearest-neighbour distance, the nearest of a set.

Positions are world units; ``box`` is the world size of a wrap-around world (distances are then
minimum-image), None otherwise. Arrays of AI units only (the caller slices). The minimum
separation of a snapshot is the smallest nearest-neighbour distance.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rigidflock.model.steering.cells import nearest_of
from rigidflock.model.torus import fold, inside, min_image


def nn_completed(
    nn_within: np.ndarray, pos: np.ndarray, box: np.ndarray | None = None, radius: float = 0.0
) -> np.ndarray:
    """Distance (N,) from each unit of ``pos`` (N, 2) to its nearest other unit, from the
    distances already found within a search ``radius``: ``nn_within`` (N,) is each unit's
    nearest distance when some unit is closer than the radius, inf otherwise (what the
    steering's pair pass writes). Only the units left at inf are searched again (rings of cells
    of about ``radius`` around them, compiled), so a dense flock costs no search at all. Empty
    when N < 2. The values of :func:`~rigidflock.model.measures.reference.nn_distances` (the
    minimum-image offset is the same subtraction either way; tests compare). One compiled call
    when the positions already lie in the world (as they do after its wrap): the run's
    collector calls this every tick. ``nn_within`` itself is returned when no entry is inf."""
    if len(pos) < 2:
        return np.zeros(0)
    w, h = (0.0, 0.0) if box is None else (float(box[0]), float(box[1]))
    if radius <= 0.0:  # no hint: cells of about the mean spacing
        ext = np.ptp(pos, axis=0) if box is None else np.asarray(box, float)
        radius = float(max(np.sqrt(ext[0] * ext[1] / len(pos)), 1e-9))
    p = np.ascontiguousarray(pos, dtype=np.float64)
    wrap = box is not None
    nn, ok = _complete_far(nn_within, p, radius, w, h, wrap, wrap)
    if not ok:  # some position outside the wrapped world (or NaN): fold first, search as is
        folded = np.ascontiguousarray(fold(p, box))
        nn, _ = _complete_far(nn_within, folded, radius, w, h, True, False)
    return nn


@nb.njit(cache=True)
def _complete_far(nn_within, pos, radius, box_w, box_h, wrap, check):
    """(:func:`nn_completed`'s array, True): ``nn_within`` itself when no entry is inf, else a
    copy with the inf entries searched; with ``check``, (``nn_within``, False) without searching
    when a position lies outside the wrapped world (the caller folds, then calls without it)."""
    n_far = 0
    for k in range(nn_within.shape[0]):
        if np.isinf(nn_within[k]):
            n_far += 1
    if n_far == 0:
        return nn_within, True
    if check and not inside(pos, box_w, box_h):
        return nn_within, False
    far = np.empty(n_far, np.int64)
    m = 0
    for k in range(nn_within.shape[0]):
        if np.isinf(nn_within[k]):
            far[m] = k
            m += 1
    out = np.empty(n_far)
    nearest_of(pos, far, radius, box_w, box_h, wrap, out)
    nn = nn_within.copy()
    for m in range(n_far):
        nn[far[m]] = out[m]
    return nn, True


def nearest_distance(
    origin: np.ndarray, pos: np.ndarray, box: np.ndarray | None = None
) -> float | None:
    """Distance (world units) from ``origin`` (2,) to the nearest of ``pos`` (K, 2); None when K
    is 0."""
    if len(pos) == 0:
        return None
    d = min_image(pos - origin, box)
    return float(np.hypot(d[:, 0], d[:, 1]).min())
