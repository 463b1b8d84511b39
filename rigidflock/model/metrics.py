"""Flock measurements: pure functions of a state, and an accumulator over a run.

Positions are world units; ``box`` is the world size for wrap-around worlds (distances are then
minimum-image), None otherwise. Functions take arrays of AI units only; the caller slices.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from rigidflock.model.steering.neighbours import min_image, pairs_kdtree


def polarization(heading: np.ndarray) -> float:
    """|mean of the unit headings| (N, 2): 1 when all point the same way, ~1/sqrt(N) at random."""
    if len(heading) == 0:
        return float("nan")
    return float(np.hypot(*heading.mean(axis=0)))


def _tree(pos: np.ndarray, box: np.ndarray | None) -> cKDTree:
    if box is None:
        return cKDTree(pos)
    p = np.mod(pos, box)
    p[p >= box] = 0.0
    return cKDTree(p, boxsize=box)


def nn_distances(pos: np.ndarray, box: np.ndarray | None = None) -> np.ndarray:
    """Distance from each unit to its nearest other unit, (N,); empty when N < 2."""
    if len(pos) < 2:
        return np.zeros(0)
    dist, _ = _tree(pos, box).query(pos if box is None else np.mod(pos, box), k=2)
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


@dataclass
class RunMetrics:
    """Accumulates the run summary of DESIGN.md section 6, one :meth:`add` per tick."""

    box: np.ndarray | None
    link: float  # flock link distance, world units
    ticks: int = 0
    polarization_sum: float = 0.0
    polarization_final: float = float("nan")
    nn_sum: float = 0.0
    nn_count: int = 0
    min_separation: float = float("inf")
    leader_sum: float = 0.0
    unit_contacts: int = 0
    obstacle_contacts: int = 0
    wall_contacts: int = 0
    player_contacts: int = 0
    first_player_contact_tick: int | None = None
    flocks_final: int = 0
    elongation_final: float = float("nan")
    _last: dict = field(default_factory=dict)

    def add(self, sim, events=None) -> None:
        """Fold in the simulation's current state (and the contacts of the tick that made it)."""
        u = sim.units
        n_ai = u.n_ai
        st = sim.state
        h = sim.steering.heading[:n_ai]
        pos = st.pos[:n_ai]
        self.ticks += 1
        pol = polarization(h)
        self.polarization_sum += pol
        self.polarization_final = pol
        nn = nn_distances(pos, self.box)
        if len(nn):
            self.nn_sum += float(nn.mean())
            self.nn_count += 1
            self.min_separation = min(self.min_separation, float(nn.min()))
        if n_ai:
            self.leader_sum += float(st.leader[:n_ai].mean())
        if events is not None:
            self.unit_contacts += events.unit_contacts
            self.obstacle_contacts += events.obstacle_contacts
            self.wall_contacts += events.wall_contacts
            self.player_contacts += events.player_contacts
            if events.player_contacts and self.first_player_contact_tick is None:
                self.first_player_contact_tick = events.tick
        self._last = {"pos": pos, "family": u.family[:n_ai]}

    def finish(self) -> None:
        """Compute the end-of-run figures (flocks) from the last state added."""
        if self._last:
            labels = flock_labels(self._last["pos"], self._last["family"], self.link, self.box)
            self.flocks_final = len(np.unique(labels))
            self.elongation_final = elongation(self._last["pos"], labels, self.box)

    def summary(self, has_player: bool) -> dict:
        def num(x):
            return None if x is None or not np.isfinite(x) else float(x)

        return {
            "polarization_mean": num(self.polarization_sum / self.ticks) if self.ticks else None,
            "polarization_final": num(self.polarization_final),
            "nn_distance_mean": num(self.nn_sum / self.nn_count) if self.nn_count else None,
            "min_separation": num(self.min_separation),
            "unit_contacts": self.unit_contacts,
            "obstacle_contacts": self.obstacle_contacts,
            "wall_contacts": self.wall_contacts,
            "player_contacts": self.player_contacts if has_player else None,
            "first_player_contact_tick": self.first_player_contact_tick,
            "leader_fraction_mean": num(self.leader_sum / self.ticks) if self.ticks else None,
            "flocks_final": self.flocks_final,
            "elongation_final": num(self.elongation_final),
        }
