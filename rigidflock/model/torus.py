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


@nb.njit(cache=True, inline="always")
def _in_box(x, y, w, h):
    """Whether (x, y) lies in [0, w) x [0, h) (NaN does not): where :func:`fold` leaves it."""
    return x >= 0.0 and x < w and y >= 0.0 and y < h


@nb.njit(cache=True)
def inside(pos, w, h):
    """Whether every position (N, 2) lies in [0, w) x [0, h) (stops at the first that does
    not)."""
    for k in range(pos.shape[0]):  # noqa: SIM110 (numba compiles the loop, not all() of a generator)
        if not _in_box(pos[k, 0], pos[k, 1], w, h):
            return False
    return True


@nb.njit(cache=True)
def outside(pos, w, h):
    """Indices (K,) of the positions (N, 2) not in [0, w) x [0, h) (NaN counts as outside), in
    order: those :func:`fold` would move."""
    count = 0
    for k in range(pos.shape[0]):
        count += not _in_box(pos[k, 0], pos[k, 1], w, h)
    out = np.empty(count, np.int64)
    m = 0
    for k in range(pos.shape[0]):
        if not _in_box(pos[k, 0], pos[k, 1], w, h):
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
