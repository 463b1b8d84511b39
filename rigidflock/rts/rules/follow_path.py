"""Following the group's path: the default aim, the point a few cells ahead on the one path.

:func:`follow_path` claims every unit and aims those no earlier aim rule claims at its point on
the group's path (:func:`path_target`; *Group Movement in RTS*: a group does not split around a
wall), or down the distance field for a unit far off the path, on a detour or out of sight of
it (:func:`descend_target`).

Units: world units; path places and lookaheads in grid cells. m: the group's members.
"""

from __future__ import annotations

import numpy as np

from rigidflock.rts.navigation import Grid
from rigidflock.rts.rules.claim import Claim

PATH_WINDOW = 24  # cells of the group's path searched ahead of a unit's place each tick
PATH_LEASH = 20.0  # unit lengths: farther from the path a unit follows the distance field
DESCEND_REACH = 2  # off the path a unit looks this many times the lookahead down the field


def path_target(
    path: np.ndarray,
    path_index: np.ndarray,
    pos: np.ndarray,
    length: np.ndarray,
    detouring: np.ndarray,
    descend: np.ndarray,
    lookahead: int,
    sees=None,
) -> tuple[np.ndarray, np.ndarray]:
    """The point each unit steers at on the way, and its new place along the group's ``path``
    (K, 2) (*Group Movement in RTS*: a group does not split around a wall).

    Each unit's place (``path_index`` (m,)) moves to the nearest of the next ``PATH_WINDOW``
    path cells to ``pos`` (m, 2); it steers at the cell ``lookahead`` past it. A unit farther
    than ``PATH_LEASH`` of its lengths (m,) from the path, or ``detouring`` (m,) bool, steers
    at ``descend`` (m, 2) instead: its point down the distance field (or ``descend(rows)``
    gives those points (k, 2) for just the member rows (k,) that need them). ``sees``: optional
    ``Grid.sees``; then a unit steers at the farthest of those cells in its line of sight (at
    worst its own place on the path), never at one behind a wall; one that sees none of them
    steers at ``descend``. Returns
    (path_index (m,), target (m, 2))."""
    K = len(path)
    window = path_index[:, None] + np.arange(PATH_WINDOW)[None, :]
    window = np.minimum(window, K - 1)
    d_path = np.hypot(*(path[window] - pos[:, None, :]).transpose(2, 0, 1))
    path_index = window[np.arange(len(pos)), np.argmin(d_path, axis=1)]
    on_path = (d_path.min(axis=1) < PATH_LEASH * length) & ~detouring
    follow = path[np.minimum(path_index + lookahead, K - 1)]
    if sees is not None:  # the farthest of the next ``lookahead`` path cells in line of sight
        # asked again only for the rows still hidden, each with the sample count the whole
        # batch would give it (the longest segment of all rows as they stand); when that
        # changes, a row seen before may not be now: then every row is asked again
        seg = np.hypot(*(follow - pos).T)
        rows = everyone = np.arange(len(pos))
        before = None
        for k in range(lookahead - 1, -2, -1):
            longest = float(seg.max()) if len(seg) else 0.0
            if longest != before:
                rows, before = everyone, longest
            rows = rows[~sees(pos[rows], follow[rows], longest=longest)]
            if len(rows) == 0 or k < 0:
                break
            follow[rows] = path[np.minimum(path_index[rows] + k, K - 1)]
            seg[rows] = np.hypot(*(follow[rows] - pos[rows]).T)
        hidden = np.zeros(len(pos), dtype=bool)
        hidden[rows] = True
        # not even its own place on the path in sight (the path runs beyond a wall): down the
        # distance field, which goes round the wall, instead of into it
        on_path &= ~hidden
    if callable(descend):  # only the units off the path need their point down the field
        off = np.flatnonzero(~on_path)
        if len(off):
            follow = follow.copy()
            follow[off] = descend(off)
        return path_index, follow
    return path_index, np.where(on_path[:, None], follow, descend)


def descend_target(field, grid: Grid, cells: np.ndarray, pos: np.ndarray, lookahead: int):
    """(m, 2) the point a unit off the group's path steers at: the farthest of the next
    ``DESCEND_REACH`` x ``lookahead`` cells down the distance ``field`` from its ``cells`` (m,)
    in line of sight from ``pos`` (m, 2), at worst the next cell. Never one round a corner or
    behind the end of a wall (a unit steering there drives into it); looking farther than the
    path's lookahead where it can see keeps its way round corners smooth."""
    steps = [cells]
    for _ in range(DESCEND_REACH * lookahead):
        steps.append(field.next_cell[steps[-1]])
    target = grid.centre(steps[1])
    for k in range(2, len(steps)):
        far = grid.centre(steps[k])
        target = np.where(grid.sees(pos, far)[:, None], far, target)
    return target


def follow_path(ahead: np.ndarray) -> Claim:
    """Aim of every unit (the default): its point ``ahead`` (m, 2) from :func:`path_target`."""
    return Claim(np.ones(len(ahead), dtype=bool), aim=ahead)
