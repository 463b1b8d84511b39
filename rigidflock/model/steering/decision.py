"""What the rules decided for one snapshot (:class:`Steering`), and the sets of arrays a steerer
fills in turn instead of new ones each call (:class:`OutputSets`).

With the mmap threshold the ``rigidflock`` command fixes (:mod:`rigidflock.heap`) every new array
of 128 KiB or more is a fresh ``mmap`` whose pages fault in as the kernels first write them: at
100,000 units a decision's 8.9 MB of new arrays cost about 2 ms a tick.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rigidflock.model.steering import cells


@dataclass
class Steering:
    """What the rules decided for one snapshot, for the forces, drawing and inspection. The
    simulation's steerer reuses the arrays of its decisions (``Steerer(keep=2)``): keep a
    :meth:`copy` of one you need after the next step."""

    force: np.ndarray  # (N,) bow force before clamping, newtons, + to port
    heading: np.ndarray  # (N, 2) unit direction of travel
    leader: np.ndarray  # (N,) bool, AI leaders (player row False)
    feeler_end: np.ndarray  # (N, 2) feeler tips, world units
    felt: np.ndarray  # (N,) index of the nearest felt obstacle, -1 if none
    target: np.ndarray  # (N, 2) chase/intercept aim point for steering leaders, NaN otherwise
    gap: (
        np.ndarray
    )  # (N,) distance to the nearest AI unit ahead (within L to the side), inf if none
    # (N_ai,) distance to the nearest other AI unit when closer than the search radius, else inf
    # (Steerer only; see ``model.measures.spacing.nn_completed``)
    nn: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    nn_radius: float = 0.0  # the search radius of ``nn``
    # the flocking pairs, assembled on demand: (looking units (P,), partners (P,), mask (P,)),
    # or the Steerer's candidate rows and their mask (ptr, nbr, order, mask; cells.row_pairs)
    pair_source: tuple = field(default_factory=tuple, repr=False)
    _pairs: tuple | None = field(default=None, repr=False)
    # (N,) the users' behaviours' throttle caps, in [0, 1] (None: no behaviour gave one)
    throttle: np.ndarray | None = field(default=None, repr=False)

    def copy(self) -> Steering:
        """A copy with arrays of its own (the candidate rows, new at each neighbour rebuild and
        never written, are shared)."""
        source = self.pair_source
        if source:
            source = (*source[:-1], source[-1].copy())
        return Steering(
            self.force.copy(), self.heading.copy(), self.leader.copy(), self.feeler_end.copy(),
            self.felt.copy(), self.target.copy(), self.gap.copy(), self.nn.copy(),
            self.nn_radius, source, self._pairs,
            None if self.throttle is None else self.throttle.copy(),
        )  # fmt: skip

    @property
    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Directed flocking pairs (i, j), (P,) each: j is in i's cohesion/alignment set."""
        if self._pairs is None:
            if not self.pair_source:
                return np.zeros(0, np.intp), np.zeros(0, np.intp)
            if len(self.pair_source) == 4:
                ptr, nbr, order, mask = self.pair_source
                i, j = cells.row_pairs(ptr, nbr, order)
                # by unit, not by row: the rows' order depends on when the list was built,
                # which (lists built ahead) may vary from run to run; partners stay ascending
                by_unit = np.argsort(i, kind="stable")
                i, j, mask = i[by_unit], j[by_unit], mask[by_unit]
            else:
                i, j, mask = self.pair_source
            self._pairs = (i[mask].astype(np.intp), j[mask].astype(np.intp))
        return self._pairs


class OutputSets:
    """``keep`` sets of a decision's arrays, taken in turn: a :class:`Steering` taken holds
    until ``keep`` more are taken. ``keep`` 0: new arrays at every take."""

    def __init__(self, keep: int):
        self._sets: list[Steering | None] = [None] * keep
        self._turn = 0

    @property
    def keep(self) -> int:
        """How many sets are taken in turn (0: new arrays at every take)."""
        return len(self._sets)

    def take(self, n: int, n_ai: int, empty_nn: np.ndarray) -> Steering:
        """The arrays the next decision fills for ``n`` units (``n_ai`` of them AI; with none,
        ``empty_nn`` is its ``nn``): new ones, or the next set in turn."""
        sets = self._sets
        out = sets[self._turn] if sets else None
        if out is None:
            out = Steering(
                force=np.empty(n),
                heading=np.empty((n, 2)),
                leader=np.empty(n, dtype=bool),
                feeler_end=np.empty((n, 2)),
                felt=np.empty(n, dtype=np.intp),
                target=np.empty((n, 2)),
                gap=np.empty(n),
                nn=np.empty(n_ai) if n_ai else empty_nn,
            )
            if sets:
                sets[self._turn] = out
        if sets:
            self._turn = (self._turn + 1) % len(sets)
            out._pairs = None  # made again from this decision's pair source on demand
            out.throttle = None
        return out


def copy_mask(source: tuple, mask: np.ndarray) -> np.ndarray:
    """``mask`` copied into the mask array of ``source`` (a reused set's last pair source) when
    it has room (a view of its first ``len(mask)`` items), else into a new one, with a quarter
    to spare when replacing one: the candidate count changes at each neighbour rebuild."""
    if len(source) != 4:
        return mask.copy()
    old = source[3]
    base = old.base if old.base is not None else old
    if len(base) < len(mask):
        base = np.empty(len(mask) + len(mask) // 4, dtype=mask.dtype)
    view = base[: len(mask)]
    view[:] = mask
    return view
