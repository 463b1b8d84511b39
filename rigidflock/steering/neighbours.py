"""Pair search: which units are within a radius of each other.

Two implementations share one signature, ``f(pos, radius, box) -> (i, j)``: :func:`pairs_brute`, the
O(N^2) reference kept for comparison (as OpenSteer keeps its brute-force proximity database), and
:func:`pairs_kdtree`, scipy's cKDTree. Both return each unordered pair once, ``i < j``, sorted, with
``|p_j - p_i| < radius`` (strict) measured as the minimum-image distance when ``box`` is given (a
wrap-around world of size ``box = (width, height)``).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

_EMPTY = (np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp))


def min_image(d: np.ndarray, box: np.ndarray | None) -> np.ndarray:
    """Offsets ``d`` (..., 2) folded to the nearest periodic image in a wrap-around ``box``."""
    if box is None:
        return d
    return d - box * np.round(d / box)


def _sorted(i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.lexsort((j, i))
    return i[order].astype(np.intp), j[order].astype(np.intp)


def pairs_brute(
    pos: np.ndarray, radius: float, box: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """All pairs closer than ``radius`` by checking every pair. pos: (N, 2); returns (P,), (P,)."""
    n = len(pos)
    if n < 2:
        return _EMPTY
    i, j = np.triu_indices(n, k=1)
    d = min_image(pos[j] - pos[i], box)
    keep = np.einsum("ij,ij->i", d, d) < radius * radius
    return _sorted(i[keep], j[keep])


def pairs_kdtree(
    pos: np.ndarray, radius: float, box: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Same result as :func:`pairs_brute`, from a k-d tree (periodic when ``box`` is given)."""
    n = len(pos)
    if n < 2:
        return _EMPTY
    if box is not None:
        # Past half the diagonal every minimum-image distance is in range: all pairs.
        if radius > 0.5 * float(np.hypot(*box)):
            return pairs_brute(pos, radius, box)
        p = np.mod(pos, box)
        p[p >= box] = 0.0  # np.mod can return box itself for tiny negative inputs
        tree = cKDTree(p, boxsize=box)
    else:
        tree = cKDTree(pos)
    # query_pairs uses <= r; the contract is strict, so filter the boundary out.
    ij = tree.query_pairs(radius, output_type="ndarray")
    if len(ij) == 0:
        return _EMPTY
    i, j = ij[:, 0], ij[:, 1]
    d = min_image(pos[j] - pos[i], box)
    keep = np.einsum("ij,ij->i", d, d) < radius * radius
    return _sorted(i[keep], j[keep])


def directed(i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each unordered pair as two directed pairs (i -> j and j -> i)."""
    return np.concatenate([i, j]), np.concatenate([j, i])
