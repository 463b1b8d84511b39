"""Line of sight over the route grid, compiled: the points of each segment tested one by one.

:meth:`~rigidflock.rts.navigation.Grid.sees` asks it for every unit under orders several times a
tick (the steer point, the slot, the keep-right offset, the point down the field), so as numpy
arrays of (units x samples) points it was most of an RTS tick (~13 of ~30 ms at 1,000 units).
Compiled, a segment stops at its first blocked point and nothing is allocated per point. The
arithmetic is the numpy formula's, operation for operation (``a + t * (b - a)`` with ``t = k /
samples``; cells by truncating ``x / cell``, sample points by ``x * s / cell``), so the answers are
the same bits (``tests/rts/test_sight.py`` compares it with
:func:`~rigidflock.rts.reference.sees_reference`).
"""

from __future__ import annotations

import numba as nb


@nb.njit(cache=True, inline="always")
def _clip(i, hi):
    return 0 if i < 0 else (hi if i > hi else i)


@nb.njit(cache=True)
def sees_kernel(a, b, samples, cell, blocked, roomless, fine, subsamples, out):
    """``out`` (N,) bool: the segments ``a`` (N, 2) -> ``b`` (N, 2), world units, tested at
    ``samples`` points ``a + k / samples (b - a)``, k = 1..samples: each point lies inside the
    grid in a free cell (``blocked`` (ny, nx) False) and, in a cell without a roomy centre
    (``roomless`` (ny, nx) True), on a sample point with the clearance (``fine`` (ny * s,
    nx * s), s = ``subsamples``; an empty ``fine`` skips that test). ``cell``: side, world
    units."""
    ny, nx = blocked.shape
    fy, fx = fine.shape
    w, h = nx * cell, ny * cell
    for i in range(a.shape[0]):
        ax, ay = a[i, 0], a[i, 1]
        dx, dy = b[i, 0] - ax, b[i, 1] - ay
        ok = True
        for k in range(1, samples + 1):
            t = k / samples
            x, y = ax + t * dx, ay + t * dy
            if not (x >= 0.0 and y >= 0.0 and x < w and y < h):
                ok = False
                break
            ix, iy = _clip(int(x / cell), nx - 1), _clip(int(y / cell), ny - 1)
            if blocked[iy, ix]:
                ok = False
                break
            if fx and roomless[iy, ix]:
                jx = _clip(int(x * subsamples / cell), fx - 1)
                jy = _clip(int(y * subsamples / cell), fy - 1)
                if not fine[jy, jx]:
                    ok = False
                    break
        out[i] = ok
    return out
