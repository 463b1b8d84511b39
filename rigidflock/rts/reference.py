"""Reference definitions of the move orders' compiled code, in plain numpy: what the kernels
reproduce bit for bit, kept for the tests that compare the two (the package never calls them).
"""

from __future__ import annotations

import numpy as np


def sees_reference(grid, a: np.ndarray, b: np.ndarray, samples: int) -> np.ndarray:
    """The numpy definition :func:`~rigidflock.rts.sight.sees_kernel` reproduces: (N,) bool for the
    segments ``a`` (N, 2) -> ``b`` (N, 2) of ``grid`` at ``samples`` points each."""
    t = (np.arange(1, samples + 1) / samples)[None, :, None]
    pts = (a[:, None, :] + t * (b - a)[:, None, :]).reshape(-1, 2)
    free = grid.is_free(pts)
    if grid.fine is not None:
        tight = free & ~grid.is_roomy(pts)
        if tight.any():
            s = grid.fine.shape[0] // grid.ny
            fy, fx = grid.fine.shape
            p = pts[tight]
            jx = np.clip((p[:, 0] * s / grid.cell).astype(np.intp), 0, fx - 1)
            jy = np.clip((p[:, 1] * s / grid.cell).astype(np.intp), 0, fy - 1)
            free[tight] = grid.fine[jy, jx]
    return free.reshape(len(a), samples).all(axis=1)
