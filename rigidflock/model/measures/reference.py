"""The definitions the compiled measures are checked against: plain k-d tree and scipy versions
of the measures that run compiled (the tests compare them value for value). The runs do not use
them: :func:`nn_distances` for :func:`~rigidflock.model.measures.spacing.nn_completed`,
:func:`flock_labels_reference` for :func:`~rigidflock.model.measures.flocks.flock_labels`.

Positions are world units; ``box`` is the world size of a wrap-around world (distances are then
minimum-image), None otherwise.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from rigidflock.model.torus import fold, min_image


def nn_distances(pos: np.ndarray, box: np.ndarray | None = None) -> np.ndarray:
    """Distance from each unit of ``pos`` (N, 2) to its nearest other unit, (N,), from a k-d
    tree (periodic in a wrap-around world); empty when N < 2."""
    if len(pos) < 2:
        return np.zeros(0)
    p = pos if box is None else fold(pos, box)
    dist, _ = cKDTree(p, boxsize=box).query(p, k=2)
    return dist[:, 1]


def link_pairs(pos: np.ndarray, link: float, box: np.ndarray | None = None):
    """Pairs (i, j), (P,) each with i < j, of units of ``pos`` (N, 2) strictly closer than
    ``link``, from a k-d tree (its pair query counts distances equal to ``link``: filtered)."""
    n = len(pos)
    if n < 2:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    if box is not None and link > 0.5 * float(np.hypot(*box)):
        i, j = np.triu_indices(n, k=1)  # past half the diagonal every pair is in range
    else:
        tree = cKDTree(pos if box is None else fold(pos, box), boxsize=box)
        ij = tree.query_pairs(link, output_type="ndarray").reshape(-1, 2)
        i, j = ij[:, 0], ij[:, 1]
    d = min_image(pos[j] - pos[i], box)
    keep = np.einsum("ij,ij->i", d, d) < link * link
    return i[keep].astype(np.intp), j[keep].astype(np.intp)


def flock_labels_reference(
    pos: np.ndarray, family: np.ndarray, link: float, box: np.ndarray | None = None
) -> np.ndarray:
    """Flock id per unit (N,) of ``pos`` (N, 2), ``family`` (N,): scipy's connected components
    of the graph of :func:`link_pairs` between units of one family."""
    n = len(pos)
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    i, j = link_pairs(pos, link, box)
    same = family[i] == family[j]
    graph = coo_matrix((np.ones(same.sum()), (i[same], j[same])), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    return labels
