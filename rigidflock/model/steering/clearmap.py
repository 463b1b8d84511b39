"""Where no obstacle can be felt: a raster over the world whose cells are marked when an obstacle
is within reach of some point in them, so the unit pass skips the obstacle search for the units
in unmarked ("clear") cells, most units on most ticks.

``reach`` (:func:`reach`) bounds every distance at which the feelers, priority, contact, guard
or blocked interval (``avoidance_kernels``) can take an obstacle into account, centre to centre;
a unit in a clear cell has no obstacle centre within ``reach``, so its search would find nothing
and the skip gives the same bits. A cell is marked when it meets the disc of ``reach`` around an
obstacle grown by a hair (a unit's computed cell can differ from its true one only that near a
cell edge).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np

from rigidflock.model.steering.avoidance import SPAN_REACH

MAX_CELLS = 1 << 22  # cells of the raster at most (4 MB): coarser cells beyond that


class ClearMap(NamedTuple):
    """``marked`` (ny * nx,) bool, row-major from ``origin`` (2,) in cells of ``cell`` (2,)
    world units, ``shape`` (2,) (nx, ny); ``wrap``: the raster tiles a wrap-around world (cell
    indices wrap), else points outside it are clear."""

    marked: np.ndarray
    origin: np.ndarray
    cell: np.ndarray
    shape: np.ndarray
    wrap: bool


def reach(feeler: float, radius: float, clearance: float, touch: float) -> float:
    """The farthest an obstacle centre can be from a unit it affects (world units), from the
    largest feeler length, obstacle radius, clearance (W/2 + L/2) and contact distance: felt
    (ahead within the feeler and abeam within radius + clearance: sqrt(feeler^2 + (radius +
    clearance)^2)), touched (radius + touch), or blocking headings (radius + SPAN_REACH x
    feeler); grown by a millionth for rounding."""
    far = max(math.hypot(feeler, radius + clearance), radius + touch, radius + SPAN_REACH * feeler)
    return far * (1 + 1e-6) + 1e-6


def build(centres: np.ndarray, reach: float, size, wrap: bool) -> ClearMap:
    """The raster for obstacle ``centres`` (M, 2) (folded into the world when it wraps) and
    ``reach`` (world units); ``size``: the world (w, h), tiled exactly when ``wrap``."""
    side = max(reach / 2.0, 1e-9)  # cells half the reach: ~1.8 x the discs' area marked
    if wrap:
        w, h = float(size[0]), float(size[1])
        side = max(side, math.sqrt(w * h / MAX_CELLS))
        nx, ny = max(1, int(w / side)), max(1, int(h / side))
        ox, oy, sx, sy = 0.0, 0.0, w / nx, h / ny
    else:
        pad = reach + side
        ox, oy = centres.min(axis=0) - pad
        ex, ey = np.ptp(centres, axis=0) + 2 * pad
        side = max(side, math.sqrt(ex * ey / MAX_CELLS))
        nx, ny = max(1, int(math.ceil(ex / side))), max(1, int(math.ceil(ey / side)))
        sx = sy = side
    marked = np.zeros(nx * ny, dtype=np.bool_)
    extent = nx * sx + ny * sy + abs(ox) + abs(oy)
    grow = 1e-9 * (extent + reach)  # far beyond the rounding of a cell index
    _mark(np.ascontiguousarray(centres, dtype=np.float64), float(reach) + grow, ox, oy, sx, sy,
          nx, ny, wrap, marked)  # fmt: skip
    return ClearMap(marked, np.array([ox, oy]), np.array([sx, sy]), np.array([nx, ny], np.int64),
                    bool(wrap))  # fmt: skip


@nb.njit(cache=True)
def _mark(centres, reach, ox, oy, sx, sy, nx, ny, wrap, marked):
    """Mark the cells that meet the disc of ``reach`` around each centre (cells wrap around
    when ``wrap``: the cell of index i is the one of i mod nx)."""
    r2 = reach * reach
    for o in range(centres.shape[0]):
        cx, cy = centres[o, 0], centres[o, 1]
        i0 = int(math.floor((cx - reach - ox) / sx)) - 1
        i1 = int(math.floor((cx + reach - ox) / sx)) + 1
        j0 = int(math.floor((cy - reach - oy) / sy)) - 1
        j1 = int(math.floor((cy + reach - oy) / sy)) + 1
        for j in range(j0, j1 + 1):
            if not wrap and (j < 0 or j >= ny):
                continue
            y0 = oy + j * sy  # the cell's edges, in the centre's unwrapped frame
            dy = max(y0 - cy, 0.0, cy - (y0 + sy))
            for i in range(i0, i1 + 1):
                if not wrap and (i < 0 or i >= nx):
                    continue
                x0 = ox + i * sx
                dx = max(x0 - cx, 0.0, cx - (x0 + sx))
                if dx * dx + dy * dy <= r2:
                    marked[(j % ny) * nx + i % nx] = True


@nb.njit(cache=True, inline="always")
def is_clear(px, py, marked, layout, wrap):
    """Whether a unit at (px, py) is in a clear cell; ``layout``: (ox, oy, sx, sy, nx, ny).
    Not for a NaN position (its search runs as before)."""
    ox, oy, sx, sy, nx, ny = layout
    if not (px == px and py == py):
        return False
    fx = math.floor((px - ox) / sx)
    fy = math.floor((py - oy) / sy)
    if wrap:
        if not (abs(fx) < 1e15 and abs(fy) < 1e15):
            return False
        i = int(fx) % nx
        j = int(fy) % ny
    else:
        if not (fx >= 0 and fx < nx and fy >= 0 and fy < ny):
            return True  # outside the raster: farther than reach from every obstacle
        i = int(fx)
        j = int(fy)
    return not marked[j * nx + i]
