"""The wrap-around world: folding positions into it and the minimum-image offset.

A wrap-around world of size ``box = (w, h)`` world units is a torus: positions live in
[0, w) x [0, h), and the offset between two points is the shortest of its periodic images.
These are the only definitions; :func:`min_image_1d` is the compiled scalar twin of
:func:`min_image` for the numba kernels (the same formula, so both paths agree on every pair).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np


def fold(pos: np.ndarray, box: np.ndarray) -> np.ndarray:
    """Positions ``pos`` (..., 2) moved into [0, box) (a new array)."""
    p = np.mod(pos, box)
    p[p >= box] = 0.0  # np.mod(-tiny, w) == w
    return p


def folded(pos: np.ndarray, box: np.ndarray) -> np.ndarray:
    """:func:`fold` of positions (N, 2), or ``pos`` itself when every one already lies in
    [0, box) (then folding changes nothing; the check is one compiled pass, and positions read
    after the world's own wrap always pass)."""
    if len(pos) == 0 or _inside(pos, float(box[0]), float(box[1])):
        return pos
    return fold(pos, box)


@nb.njit(cache=True)
def _inside(pos, w, h):
    """Whether every position (N, 2) lies in [0, w) x [0, h) (NaN does not)."""
    for k in range(pos.shape[0]):
        x, y = pos[k, 0], pos[k, 1]
        if not (x >= 0.0 and x < w and y >= 0.0 and y < h):
            return False
    return True


@nb.njit(cache=True)
def outside(pos, w, h):
    """Indices (K,) of the positions (N, 2) not in [0, w) x [0, h) (NaN counts as outside), in
    order: those :func:`fold` would move."""
    count = 0
    for k in range(pos.shape[0]):
        x, y = pos[k, 0], pos[k, 1]
        if not (x >= 0.0 and x < w and y >= 0.0 and y < h):
            count += 1
    out = np.empty(count, np.int64)
    m = 0
    for k in range(pos.shape[0]):
        x, y = pos[k, 0], pos[k, 1]
        if not (x >= 0.0 and x < w and y >= 0.0 and y < h):
            out[m] = k
            m += 1
    return out


def min_image(d: np.ndarray, box: np.ndarray | None) -> np.ndarray:
    """Offsets ``d`` (..., 2) folded to the nearest periodic image in a wrap-around ``box``
    (unchanged when ``box`` is None: the world does not wrap)."""
    if box is None:
        return d
    return d - box * np.floor(d / box + 0.5)


@nb.njit(cache=True, inline="always")
def min_image_1d(d: float, w: float) -> float:
    """One coordinate of :func:`min_image` across a period ``w`` (compiled, scalar). Offsets
    under a quarter period come back as they are, without the division: there the formula's
    floor is 0 and ``d - w * 0.0`` is ``d``, so the bits are the same (neighbours are that close
    almost always, and the division and floor were most of a wrapped pair test's cost)."""
    if abs(d) < 0.25 * w:
        return d
    return d - w * math.floor(d / w + 0.5)


@nb.njit(cache=True, inline="always")
def min_image_2d(dx: float, dy: float, w: float, h: float, wrap: bool) -> tuple[float, float]:
    """An offset (dx, dy) folded across a ``w`` x ``h`` world when it wraps (compiled, scalar)."""
    if wrap:
        return min_image_1d(dx, w), min_image_1d(dy, h)
    return dx, dy
