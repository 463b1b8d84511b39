"""Pair search: which units are within a radius of each other.

Three implementations share one signature, ``f(pos, radius, box) -> (i, j)``: :func:`pairs_brute`,
the O(N^2) reference kept for comparison (as OpenSteer keeps its brute-force proximity database),
:func:`pairs_kdtree` (scipy's cKDTree) and :func:`pairs_cells` (a compiled uniform cell list, the
one the simulation uses: 3.7 ms at 10,000 units against cKDTree's 8.9 ms and brute force's 7.2 s,
``tools/bench_neighbours.py``). All return each unordered pair once, ``i < j``, sorted, with
``|p_j - p_i| < radius`` (strict) measured as the minimum-image distance when ``box`` is given (a
wrap-around world of size ``box = (w, h)``).
"""

from __future__ import annotations

import time

import numpy as np
from scipy.spatial import cKDTree

from rigidflock.model import background
from rigidflock.model.state import read_only
from rigidflock.model.torus import fold, min_image

__all__ = [
    "VerletPairs",
    "cross_pairs",
    "directed",
    "min_image",  # the torus definition, re-exported for older imports
    "pairs_brute",
    "pairs_cells",
    "pairs_kdtree",
]

_EMPTY = (np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp))


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
        tree = cKDTree(fold(pos, box), boxsize=box)
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


def cross_pairs(
    a: np.ndarray, b: np.ndarray, radius: float, box: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs of a point of ``a`` (N, 2) and one of ``b`` (M, 2) at most ``radius`` apart (the
    minimum-image distance when ``box`` is given), from two k-d trees: (i (P,) rows of ``a``,
    j (P,) rows of ``b``, their distances (P,)), in the trees' order. The callers look for a
    few neighbours of some units among others (obstacles, other groups, standing units), where
    all (N, M) pairs would cost milliseconds a tick."""
    if box is not None:
        ta, tb = cKDTree(fold(a, box), boxsize=box), cKDTree(fold(b, box), boxsize=box)
    else:
        ta, tb = cKDTree(a), cKDTree(b)
    near = ta.sparse_distance_matrix(tb, radius, output_type="ndarray")
    return near["i"].astype(np.intp), near["j"].astype(np.intp), near["v"]


def directed(i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each unordered pair as two directed pairs (i -> j and j -> i)."""
    return np.concatenate([i, j]), np.concatenate([j, i])


def pairs_cells(
    pos: np.ndarray, radius: float, box: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Same result as :func:`pairs_brute`, from a uniform grid of cells at least ``radius`` wide."""
    from rigidflock.model.steering.cells import cell_pairs

    if len(pos) < 2:
        return _EMPTY
    p = np.ascontiguousarray(pos, dtype=np.float64)
    if box is None:
        i, j = cell_pairs(p, float(radius), 0.0, 0.0, False)
    else:
        i, j = cell_pairs(fold(p, box), float(radius), float(box[0]), float(box[1]), True)
    return i.astype(np.intp), j.astype(np.intp)


class VerletPairs:
    """Neighbour reuse: candidate pairs within ``radius + skin``, rebuilt only when some unit has
    moved more than ``skin / 2`` since the last build (or the radius or unit count changed).

    Every pair now closer than ``radius`` was within ``radius + skin`` at the last build, so
    filtering the candidates by the true radius gives exactly a fresh search's pairs, in the same
    (sorted) order. ``skin = 0`` rebuilds every tick. ``builds`` counts rebuilds.
    """

    def __init__(self, skin: float):
        self.skin = float(skin)
        self.builds = 0
        self.built_ahead = 0  # of the builds, those made ahead in a background thread
        self.build_seconds = 0.0  # how long the last build took (the tick's, or one made ahead)
        self.ahead_from = AHEAD_FROM  # build ahead only lists that took this long to build
        self._ref: np.ndarray | None = None
        self._radius = -1.0
        self._moved2 = np.inf  # the last stale check's largest squared move since the build
        # a list being built ahead (:meth:`build_ahead`): (job, positions, radius) it is for
        self._next: tuple[background.Job, np.ndarray, float] | None = None
        self.i = self.j = _EMPTY[0]
        self.ptr, self.nbr = np.zeros(1, np.int64), np.zeros(0, np.int64)

    @property
    def reference(self) -> np.ndarray | None:
        """(N, 2): the positions the current list was built from (None before the first
        build), a read-only view."""
        return None if self._ref is None else read_only(self._ref)

    @property
    def building(self) -> background.Job | None:
        """The build of the next list under way in the background thread
        (:meth:`build_ahead`), until a call takes it; None when there is none."""
        return None if self._next is None else self._next[0]

    def _stale(self, pos: np.ndarray, radius: float, box: np.ndarray | None) -> bool:
        from rigidflock.model.steering.cells import max_displacement2

        stale = (
            self._ref is None
            or self.skin == 0.0
            or radius != self._radius
            or len(pos) != len(self._ref)
        )
        self._moved2 = np.inf
        if not stale:
            w, h = (0.0, 0.0) if box is None else (float(box[0]), float(box[1]))
            self._moved2 = max_displacement2(pos, self._ref, w, h, box is not None)
            stale = self._moved2 > (0.5 * self.skin) ** 2
        return stale

    def _built(self, pos: np.ndarray, radius: float) -> None:
        self._ref = pos.copy()
        self._radius = radius
        self.builds += 1

    def candidates(self, pos: np.ndarray, radius: float, box: np.ndarray | None):
        """Sorted candidate pairs (i < j) for positions ``pos`` (N, 2) and search ``radius``."""
        if self._stale(pos, radius, box):
            self.i, self.j = pairs_cells(pos, radius + self.skin, box)
            self._built(pos, radius)
        return self.i, self.j

    def rows(self, pos: np.ndarray, radius: float, box: np.ndarray | None, parallel: bool = False):
        """The candidates as per-unit rows (ptr (N + 1,), nbr (2P,)): the arrays
        :func:`~.cells.to_rows` makes of :meth:`candidates`. ``parallel``: build them with
        :func:`~.cells.cell_rows` (both ends of every pair tested, in parallel: faster when the
        threads get cores, ~20-50% slower on one thread), else from the serial pair list."""
        from rigidflock.model.steering.cells import cell_rows, to_rows

        if self._stale(pos, radius, box):
            p = np.ascontiguousarray(pos, dtype=np.float64)
            r = float(radius + self.skin)
            if len(p) < 2:
                self.ptr, self.nbr = np.zeros(len(p) + 1, np.int64), np.zeros(0, np.int64)
            elif not parallel:
                self.ptr, self.nbr = to_rows(*pairs_cells(p, r, box), len(p))
            elif box is None:
                self.ptr, self.nbr = cell_rows(p, r, 0.0, 0.0, False)
            else:
                self.ptr, self.nbr = cell_rows(fold(p, box), r, float(box[0]), float(box[1]), True)
            self._built(pos, radius)
        return self.ptr, self.nbr

    def ordered_rows(self, pos: np.ndarray, radius: float, box: np.ndarray | None):
        """The candidates as rows of units renumbered in cell order
        (:func:`~.cells.ordered_rows`: ptr, nbr, order); rebuilt when stale, else the last
        build's arrays (``builds`` tells them apart). Runs on numba's threads when there are
        several. A list built ahead (:meth:`build_ahead`) is waited for (the passes that follow
        use every core) and taken, then judged stale or not like any other."""
        import numba as nb

        from rigidflock.model.steering import cells

        if self._next is not None:
            self._take_ahead(pos, radius)
        if self._stale(pos, radius, box):
            # one thread (the thread policy's choice, or NUMBA_NUM_THREADS=1): the one-pass
            # build, ~2 x faster there; else the two-pass parallel one (the same arrays)
            many = nb.get_num_threads() > 1
            ordered_rows = cells.ordered_rows if many else cells.ordered_rows_serial
            start = time.perf_counter()
            self.ordered = _build_rows(ordered_rows, pos, radius + self.skin, box)
            self.build_seconds = time.perf_counter() - start
            self._built(pos, radius)
            self._moved2 = 0.0
        return self.ordered

    def build_ahead(self, pos: np.ndarray, radius: float, box: np.ndarray | None) -> None:
        """Start building the next list from ``pos`` in a background thread once the current
        one is ``AHEAD`` of the way to stale (call after :meth:`ordered_rows` with the same
        positions: it reuses that stale check), so that the build overlaps what follows (the
        physics step, which runs on one core) instead of stalling a later steering pass.
        Which valid list the pairs come from changes no result (each unit sums its partners in
        unit order, and partners out of range count for nothing), so this changes timings
        only. Only lists whose last build took ``ahead_from`` seconds or more (the first
        builds, warming up, may go ahead). The build runs on one thread: call it only when the
        tick may use two cores. For :meth:`ordered_rows` only (:meth:`rows` and
        :meth:`candidates` never take it)."""
        if (
            self._next is not None
            or self._ref is None
            or radius != self._radius
            or len(pos) != len(self._ref)
            or len(pos) < 2
            or not self._moved2 > (AHEAD * 0.5 * self.skin) ** 2
            or self.build_seconds < self.ahead_from
        ):
            return
        from rigidflock.model.steering import cells

        ref = np.array(pos, dtype=np.float64)  # a copy: the caller's array changes next tick
        job = background.Job(_build_rows, cells.ordered_rows_serial, ref, radius + self.skin, box)
        self._next = (background.submit(job), ref, radius)  # only once queued

    def _take_ahead(self, pos, radius) -> None:
        """Adopt the list built ahead once it is done, if built for this radius and unit
        count; its reference is the positions it was built from, so the stale check that
        follows judges it like any other list."""
        job, ref, built_for = self._next
        self._next = None
        # not done (a forked child: nothing built it here) or failed (e.g. a MemoryError):
        # the tick builds the list itself
        if not job.wait() or job.error is not None:
            return
        if built_for != radius or len(ref) != len(pos):
            return
        self.ordered = job.result
        self.build_seconds = job.seconds
        self._ref = ref
        self._radius = radius
        self.builds += 1
        self.built_ahead += 1


# seconds: lists quicker to build than this are built in the tick. Handing a build to the
# thread and taking it back costs tens of microseconds of the tick; a build at 1,000 units
# takes ~0.07 ms every ~10 ticks, and building those ahead made the tick ~3-10% slower
AHEAD_FROM = 0.5e-3
# the share of the way to stale (half the skin) at which a list is built ahead: a build takes
# about a tick's work on one thread and is taken at the next tick, so lists are built 1 / AHEAD
# times as often as without (every ~10 ticks instead of ~12.5 for the 10,000-unit benchmark
# flock), and a unit may move 0.2 x half the skin before then (~3 ticks there at cruise speed)
AHEAD = 0.8


def _build_rows(ordered_rows, pos: np.ndarray, r: float, box: np.ndarray | None):
    """``ordered_rows`` (a kernel of :mod:`~.cells`) of ``pos`` for radius ``r``."""
    p = np.ascontiguousarray(pos, dtype=np.float64)
    if len(p) < 2:
        return np.zeros(len(p) + 1, np.int64), np.zeros(0, np.int64), np.arange(len(p))
    if box is None:
        return ordered_rows(p, float(r), 0.0, 0.0, False)
    return ordered_rows(fold(p, box), float(r), float(box[0]), float(box[1]), True)
