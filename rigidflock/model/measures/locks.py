"""Locked pairs: two units of different move orders pressed together.

Two units of crossing groups can meet so that each, turning toward its own goal, turns into the
other: the pair then runs on together, off both routes, for as long as neither gives way. A
pair is pressed together while both are ordered (``group`` (N,) >= 0, different groups),
neither stands on its slot, and their centres are within ``LOCK_REACH`` of their mean length;
passing units are that close for a fraction of a second, a locked pair for as long as the lock
holds (the run's collector times each pair's unbroken spell: ``longest_lock_seconds``).
Positions are world units.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

# mean unit lengths between centres: the pair touches (boxes in contact lie between a width and
# a length apart, centre to centre)
LOCK_REACH = 1.0


def pressed_pairs(
    pos: np.ndarray, length: np.ndarray, group: np.ndarray, free: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (a, b), two (P,) int arrays with a < b, of units at ``pos`` (N, 2) of ``length``
    (N,) in different order groups ``group`` (N,) (-1: none), both ``free`` (N,) bool (ordered,
    not on their slot), whose centres lie within ``LOCK_REACH`` of their mean length."""
    rows = np.flatnonzero(free & (group >= 0))
    none = np.zeros(0, dtype=np.intp)
    if len(rows) < 2 or len(np.unique(group[rows])) < 2:
        return none, none
    reach = LOCK_REACH * float(length[rows].max())
    pairs = cKDTree(pos[rows]).query_pairs(reach, output_type="ndarray")
    if len(pairs) == 0:
        return none, none
    a, b = rows[pairs.min(axis=1)], rows[pairs.max(axis=1)]
    d = np.hypot(*(pos[a] - pos[b]).T)
    ok = (group[a] != group[b]) & (d < LOCK_REACH * 0.5 * (length[a] + length[b]))
    return a[ok], b[ok]
