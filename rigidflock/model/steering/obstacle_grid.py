"""The unit pass's obstacle grid: the obstacles' centres binned in a static cell grid, with the
clear map of the cells no feeler can reach an obstacle from (:mod:`.clearmap`)."""

from __future__ import annotations

import numpy as np

from rigidflock.model import torus
from rigidflock.model.steering import cells, clearmap
from rigidflock.model.steering.unit_pass import ObstacleGrid


def obstacle_grid(obs: np.ndarray, box, size, reach: float, far: float) -> ObstacleGrid:
    """The grid of obstacles ``obs`` (M, 3: x, y, radius; C-contiguous float64) with cells at
    least ``reach`` wide (world units), and its clear map for a reach of ``far`` (world units:
    feeler, obstacle radius and contact margins, :func:`~.clearmap.reach`). ``box``: the
    world's (w, h) when it wraps around, else None; ``size``: its (w, h). With no obstacle, an
    empty grid of one cell."""
    wrap = box is not None
    if len(obs) == 0:
        clear = clearmap.ClearMap(np.zeros(1, np.bool_), np.zeros(2), np.ones(2),
                                  np.ones(2, np.int64), wrap)  # fmt: skip
        return ObstacleGrid(obs, np.zeros(2, np.int64), np.zeros(0, np.int64), np.zeros(2),
                            np.ones(2), np.ones(2, np.int64), clear)  # fmt: skip
    centres = np.ascontiguousarray(obs[:, :2])
    if wrap:
        centres = torus.fold(centres, box)
        ox, oy, (ex, ey) = 0.0, 0.0, size
    else:
        ox, oy = centres.min(axis=0)
        ex, ey = np.ptp(centres, axis=0) + 1e-9
    ncx, ncy = cells.grid_shape(ex, ey, reach, len(obs))
    sx, sy = ex / ncx, ey / ncy
    _, start, items = cells.bin_points(centres, ox, oy, sx, sy, ncx, ncy)
    clear = clearmap.build(centres, far, size, wrap)
    return ObstacleGrid(obs, start, items, np.array([ox, oy]), np.array([sx, sy]),
                        np.array([ncx, ncy], np.int64), clear)  # fmt: skip
