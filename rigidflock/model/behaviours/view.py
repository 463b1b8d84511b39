"""What a behaviour reads: :class:`UnitsView`, read-only arrays of the snapshot the rules
decide on, for the units the behaviour applies to, with every unit beside them
(:class:`Snapshot`) and the pairs within a radius (:class:`Pairs`).

Every array is a numpy array with ``writeable = False``; rows of all the AI units are views of
the simulation's own arrays (no copy), a subset is a copy. Arrays are valid during the call
only: the simulation writes the next snapshot into the same memory. World units, radians,
seconds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rigidflock.model.state import read_only
from rigidflock.model.steering.neighbours import directed, pairs_cells
from rigidflock.model.torus import min_image


def headings(vel: np.ndarray, bow) -> np.ndarray:
    """Unit directions of travel (N, 2), as ``state.headings`` computes them (velocity over
    speed; the bow (cos, sin) when nearly still), in whole-array operations: ``bow`` is called
    only when some unit is nearly still."""
    speed = np.sqrt(vel[:, 0] * vel[:, 0] + vel[:, 1] * vel[:, 1])
    moving = speed > 1e-6
    h = np.divide(vel, speed[:, None], out=np.empty_like(vel), where=moving[:, None])
    if not moving.all():
        h[~moving] = bow()[~moving]
    return h


class Pairs(NamedTuple):
    """Pairs within a radius: ``i`` (P,) rows of the behaviour's units, ``j`` (P,) unit ids in
    :attr:`UnitsView.everyone` (the player included, never a unit with itself), ``offset``
    (P, 2) = pos[j] - pos[i] (the nearest image in a wrap-around world) and ``distance``
    (P,); sorted by ``i``, then ``j``."""

    i: np.ndarray
    j: np.ndarray
    offset: np.ndarray
    distance: np.ndarray


class Snapshot:
    """Every unit of the snapshot (N rows, AI units first, the player last): ``pos`` (N, 2),
    ``vel`` (N, 2), ``angle`` (N,), ``heading`` (N, 2) (unit direction of travel; the bow when
    nearly still), ``bow`` (N, 2) (cos, sin of the angle), ``family`` (N,) codes into
    ``family_names`` (the player: -1), ``is_player``
    (N,) bool."""

    def __init__(self, st, family: np.ndarray, is_player: np.ndarray, trig=None):
        self.pos = read_only(st.pos)
        self.vel = read_only(st.vel)
        self.angle = read_only(st.angle)
        self.family = family
        self.is_player = is_player
        self._trig = trig  # (N, 3) cos, sin and the angle they are of, when the rules have them
        self._heading = None
        self._bow = None

    @property
    def heading(self) -> np.ndarray:
        if self._heading is None:
            self._heading = read_only(headings(self.vel, lambda: self.bow))
        return self._heading

    @property
    def bow(self) -> np.ndarray:
        """(N, 2) the direction each unit's bow points (cos, sin of its angle): from the rules'
        cache of them where it holds this snapshot's angles, else computed."""
        if self._bow is None:
            a = self.angle
            bow = np.empty((len(a), 2))
            fresh = np.ones(len(a), bool)
            t = self._trig
            if t is not None and len(t) == len(a):
                fresh = ~((t[:, 2] == a) & (a != 0.0))  # a zero angle: -0.0 == 0.0
                bow[:, 0], bow[:, 1] = t[:, 0], t[:, 1]
            if fresh.all():
                bow[:, 0], bow[:, 1] = np.cos(a), np.sin(a)
            elif fresh.any():
                bow[fresh, 0], bow[fresh, 1] = np.cos(a[fresh]), np.sin(a[fresh])
            self._bow = read_only(bow)
        return self._bow

    @property
    def n(self) -> int:
        return len(self.pos)


class UnitsView:
    """The units a behaviour applies to, at one snapshot (n rows): ``index`` (n,) their unit
    ids, ``pos``, ``vel`` (n, 2), ``angle`` (n,), ``heading`` (n, 2), ``bow`` (n, 2),
    ``family`` (n,) codes into ``family_names``, ``is_player`` (n,) (False: behaviours steer AI
    units); and ``tick``,
    ``dt`` (seconds), ``size`` (2,) (width, height), ``bounds`` ("wrap", "walls" or "open"),
    ``everyone`` (a :class:`Snapshot` of all N units), ``rng`` (this behaviour's own
    ``numpy.random.Generator``, seeded from the run's seed: the run's own draws are untouched),
    ``memory`` (this behaviour's own dict, kept from tick to tick, emptied on reset: per-unit
    arrays a rule carries on, such as a wander direction).

    ``neighbours(radius)``: :class:`Pairs` within ``radius`` of each of these units, from the
    simulation's cell list (computed once per radius and decision, whichever behaviour asks).
    ``family_code(name)``: the code of a family name (-1 when no group has it)."""

    def __init__(
        self, everyone: Snapshot, rows, context: dict, rng, pair_cache: dict, memory: dict
    ):
        self.everyone = everyone
        self.memory = memory
        self._rows = rows  # a slice (every AI unit) or an index array
        self.index = context["index"]
        self.tick = context["tick"]
        self.dt = context["dt"]
        self.size = context["size"]
        self.bounds = context["bounds"]
        self.family_names = context["family_names"]
        self.rng = rng
        self._box = context["box"]
        self._row_of = context["row_of"]  # (N,) row of each unit id here, -1 when not here
        self._pair_cache = pair_cache
        e = everyone
        self.pos = read_only(e.pos[rows])
        self.vel = read_only(e.vel[rows])
        self.angle = read_only(e.angle[rows])
        self.family = read_only(e.family[rows])
        self.is_player = read_only(e.is_player[rows])
        self._heading = None
        self._bow = None

    @property
    def n(self) -> int:
        return len(self.index)

    def __len__(self) -> int:
        return len(self.index)

    @property
    def heading(self) -> np.ndarray:
        if self._heading is None:
            self._heading = read_only(self.everyone.heading[self._rows])
        return self._heading

    @property
    def bow(self) -> np.ndarray:
        if self._bow is None:
            self._bow = read_only(self.everyone.bow[self._rows])
        return self._bow

    def family_code(self, name: str) -> int:
        return self.family_names.index(name) if name in self.family_names else -1

    def neighbours(self, radius: float) -> Pairs:
        radius = float(radius)
        if not radius > 0 or not np.isfinite(radius):
            raise ValueError(f"neighbours: radius must be a positive number, got {radius!r}")
        found = self._pair_cache.get(radius)
        if found is None:
            a, b = directed(*pairs_cells(self.everyone.pos, radius, self._box))
            order = np.lexsort((b, a))
            found = self._pair_cache[radius] = (a[order], b[order])
        a, b = found
        keep = self._row_of[a] >= 0
        i, j = self._row_of[a[keep]], b[keep]
        pos = self.everyone.pos
        offset = min_image(pos[j] - pos[a[keep]], self._box)
        distance = np.hypot(offset[:, 0], offset[:, 1])
        return Pairs(*(read_only(x) for x in (i, j, offset, distance)))
