"""Flock measurements: pure functions of a state, and an accumulator over a run.

Positions are world units; ``box`` is the world size for wrap-around worlds (distances are then
minimum-image), None otherwise. Functions take arrays of AI units only; the caller slices.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from rigidflock.model.steering.neighbours import pairs_kdtree
from rigidflock.model.torus import fold, min_image


def polarization(heading: np.ndarray) -> float:
    """|mean of the unit headings| (N, 2): 1 when all point the same way, ~1/sqrt(N) at random."""
    if len(heading) == 0:
        return float("nan")
    return float(np.hypot(*heading.mean(axis=0)))


def nn_distances(pos: np.ndarray, box: np.ndarray | None = None) -> np.ndarray:
    """Distance from each unit to its nearest other unit, (N,); empty when N < 2."""
    if len(pos) < 2:
        return np.zeros(0)
    p = pos if box is None else fold(pos, box)
    dist, _ = cKDTree(p, boxsize=box).query(p, k=2)
    return dist[:, 1]


def flock_labels(
    pos: np.ndarray, family: np.ndarray, link: float, box: np.ndarray | None = None
) -> np.ndarray:
    """Flock id per unit (N,): connected components of the graph linking same-family units closer
    than ``link``."""
    n = len(pos)
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    i, j = pairs_kdtree(pos, link, box)
    same = family[i] == family[j]
    graph = coo_matrix((np.ones(same.sum()), (i[same], j[same])), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    return labels


def elongation(
    pos: np.ndarray, labels: np.ndarray, box: np.ndarray | None = None, min_size: int = 3
) -> float:
    """Mean length-to-width ratio of the flocks with at least ``min_size`` units: sqrt of the ratio
    of the principal variances of each flock's positions (1 for a round flock, large for a line).
    NaN when no flock is big enough."""
    ratios = []
    for lab in np.unique(labels):
        members = pos[labels == lab]
        if len(members) < min_size:
            continue
        rel = min_image(members - members[0], box)
        rel = rel - rel.mean(axis=0)
        ev = np.linalg.eigvalsh(np.cov(rel.T))
        ratios.append(np.sqrt(ev[1] / max(ev[0], 1e-9)))
    return float(np.mean(ratios)) if ratios else float("nan")
