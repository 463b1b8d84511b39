"""All rules for all units: one bow force per unit from one snapshot (*AI for Game Developers*,
chapter 4 (AIDemo4)).

The recipe of "Steering Behaviours: Flocking" (HowToRts): compute every rule's force first,
blend them with weights, then apply. Two implementations return the same :class:`Steering`:

- :func:`~rigidflock.model.steering.reference.steer_reference`: numpy over explicit directed
  pair lists, calling the documented rule functions of ``flocking``, ``pursuit`` and
  ``avoidance``; the definition the compiled passes are checked against (its own module).
- :class:`Steerer`: what the simulation runs. Compiled kernels make one pass over candidate pairs
  from a reused neighbour list (:class:`~.neighbours.VerletPairs`) and over nearby obstacles,
  with preallocated buffers. Same results up to floating-point summation order. Its two halves
  can read two snapshots: :meth:`Steerer.pairs` (the neighbour terms) on one, then
  :meth:`Steerer.decide` (headings, the blend, feelers, the chase) on a later one; the
  simulation finds the neighbours beside the physics step (``world.neighbour_ticks``).

Inputs: a :class:`~rigidflock.state.State` (player last), the run's
:class:`~rigidflock.state.Units`, the current rules, obstacles (M, 3), and the world (``box`` is
its size when it wraps, else None; ``walls`` whether its bounds are walls).
"""

from __future__ import annotations

import contextlib
import time
from collections import defaultdict
from dataclasses import dataclass

import numba as nb
import numpy as np

from rigidflock.model.state import State, Units, read_only
from rigidflock.model.steering import (
    avoidance,
    clearmap,
    pair_pass,
    unit_pass,
)
from rigidflock.model.steering.decision import OutputSets, Steering, copy_mask
from rigidflock.model.steering.neighbours import VerletPairs
from rigidflock.model.steering.obstacle_grid import obstacle_grid
from rigidflock.model.steering.threads import ThreadPolicy
from rigidflock.model.steering.view import VIEW_CODES

# AI units from which the passes are the parallel kernels, run on the thread count the policy
# chooses; below, their one-thread twins (:mod:`.serial`), which compile several times faster
# and give the same bits. Under this size the passes take well under a millisecond on one
# thread, and a second thread's wake-up and a busy core ate what it saved.
PARALLEL_FROM = 2000


def uses_parallel(n_ai: int, max_threads: int | None = None) -> bool:
    """Whether a steerer of ``n_ai`` AI units allowed ``max_threads`` numba threads (None: as
    many as numba is configured for) runs the parallel kernels rather than their twins."""
    threads = nb.config.NUMBA_NUM_THREADS if max_threads is None else max_threads
    return n_ai >= PARALLEL_FROM and threads > 1


@dataclass(frozen=True)
class World:
    """The static facts the rules need about the world."""

    obstacles: np.ndarray  # (M, 3) cx, cy, r
    size: np.ndarray  # (2,) width, height
    box: np.ndarray | None  # size when wrapping, else None
    walls: bool


def radii(units: Units, rules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-unit view, separation and leader-cone radii (N,), world units."""
    L = units.length
    return (
        L * getattr(rules.radius_factor, rules.view),
        L * rules.separation_factor,
        L * rules.radius_factor.narrow,
    )


def touch_distance(units: Units) -> np.ndarray:
    """(N,) how near a surface is to a unit's centre when it touches it: its half-diagonal plus
    ``avoidance.CONTACT_TOLERANCE``, world units."""
    return 0.5 * np.hypot(units.length, units.width) + avoidance.CONTACT_TOLERANCE


class Steerer:
    """The simulation's steering: compiled passes, reused neighbour lists, reused buffers.

    ``skin``: extra radius of the candidate list in world units (0 searches afresh every tick;
    results are identical either way). ``max_threads``: the most numba threads its passes use
    (default all; the thread count changes no result). ``parallel``: the passes' kernels, the
    parallel ones (True) or their one-thread twins (False); None (default): parallel from
    :data:`PARALLEL_FROM` AI units, when more than one thread is allowed (the same bits either
    way). ``keep``: 0 (default), each call returns new arrays; k > 0, the calls take turns
    over k sets of arrays made once, so a returned :class:`Steering` holds until k more calls
    (the simulation keeps 2: a decision a caller holds stays whole through a step that
    decides once; why: :mod:`.decision`).
    """

    def __init__(
        self,
        units: Units,
        world: World,
        skin: float,
        timings: dict | None = None,
        max_threads: int | None = None,
        keep: int = 0,
        parallel: bool | None = None,
    ):
        self.units, self.world = units, world
        self._outputs = OutputSets(keep)
        # seconds accumulated under "neighbours" and "rules"
        self.timings = timings if timings is not None else defaultdict(float)
        self.verlet = VerletPairs(skin)
        n_ai = units.n_ai
        if parallel is None:
            parallel = uses_parallel(n_ai, max_threads)
        self.parallel = bool(parallel)
        # 1 thread or all: whichever runs faster (a small world: one thread, the plain kernels)
        self.threads = ThreadPolicy(max_threads if self.parallel else 1)
        # The pair pass's results per unit, side by side in one record per unit (views of two
        # arrays): the pass visits units in cell order, so its writes scatter; together they
        # touch 2-3 cache lines per unit, not 8 (at 100,000 units those misses were about half
        # the pass).
        rec = np.zeros((units.n, 10))
        counts = np.zeros((units.n, 2), np.int64)
        self._coh = rec[:n_ai, 0:2]
        self._ali = rec[:n_ai, 2:4]
        self._sep = rec[:n_ai, 4]
        self._gap = rec[:, 5]
        self._gap[:] = np.inf
        self._nn = rec[:n_ai, 6]
        self._nn[:] = np.inf
        # (N, 3) each unit's cos, sin and the angle they are of: computed once a tick by the
        # first pass that needs them, reused by the others and by the vehicle forces
        self.trig = rec[:, 7:10]
        self.trig[:] = np.nan
        self._cnt = counts[:n_ai, 0]
        self._nf = counts[:n_ai, 1]
        self._scratch = np.empty((units.n, 9), np.int64)
        self._rows_built = -1  # the neighbour-list build the per-unit rows were made from
        self._family = np.ascontiguousarray(units.family, dtype=np.int64)
        self._role = np.ascontiguousarray(units.role, dtype=np.int64)
        self._wall_feeler = np.full(units.n, np.inf)  # no unit's wall feeler cut short
        self._behaviour_force = np.zeros(units.n)  # the users' behaviours' forces this decision
        self._grid = None  # obstacle cell grid, built on first use
        self._obs = np.ascontiguousarray(world.obstacles, dtype=np.float64).reshape(-1, 3)
        box = world.box
        self._wrap = box is not None
        self._size = (float(world.size[0]), float(world.size[1]))
        self._box = pair_pass.Box(*self._size, self._wrap)
        self._rows = pair_pass.Rows(np.zeros(1, np.int64), np.zeros(0, np.int64),
                                  np.zeros(0, np.int64))  # fmt: skip
        self._row_bodies = pair_pass.Bodies(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0))
        self._row_family = np.zeros(0, np.int64)
        self._row_rules = None  # (rules, build, per-unit rule arrays in row order)
        self._flock = np.zeros(0, dtype=np.bool_)
        self._sums_bundle = None
        # ((rules, roles, wall feelers), (UnitRules, Weights)) last used
        self._unit_cache = None
        self._geometry_cache = None  # (rules, (radii, search radius, obstacle grid)) last used
        self._last = None  # (AI positions, search radius) of the last call, for build_ahead
        self._pair_radius = 0.0  # the search radius of the last pair pass
        self._pair_seconds = 0.0  # its time, when it ran on the thread policy's count
        # True: the unit pass skips the obstacle cells the clear map marks clear of every
        # feeler (:mod:`.clearmap`); False: it searches every unit's cells (the same results,
        # slower: for checking the map)
        self.clear_map = True
        self._unmapped = None  # (grid, that grid with every cell marked) for clear_map False

    @property
    def keep(self) -> int:
        """How many decisions' output arrays are taken in turn (a decision returned holds until
        ``keep`` more calls; 0: new arrays at every call). Settable: the decisions after take
        new sets."""
        return self._outputs.keep

    @keep.setter
    def keep(self, value: int) -> None:
        self._outputs = OutputSets(int(value))

    @property
    def box(self) -> pair_pass.Box:
        """The world the passes see: its size (w, h), world units, and whether it wraps."""
        return self._box

    @property
    def rows(self) -> pair_pass.Rows:
        """The candidate rows of the last :meth:`pairs`: the AI units renumbered in cell order
        (``unit`` (N_ai,): the unit of each row), each row's candidate partners (``ptr``
        (N_ai + 1,), ``nbr``, unit numbers, ascending within a row). Rewritten by the next
        :meth:`pairs` that rebuilds the neighbour list."""
        return self._rows

    @property
    def sums(self) -> pair_pass.PairSums:
        """The pair pass's sums of the last :meth:`pairs`, per unit in the units' own
        numbering (AI units' rows; ``flock`` (len(rows.nbr),) bool: which candidate of each
        row flocked), read-only views of the buffers the next :meth:`pairs` rewrites."""
        return pair_pass.PairSums(*(read_only(a) for a in self._sums()))

    def pair_rules(self, rules, flock_key=None) -> pair_pass.PairRules:
        """The pair pass's per-unit inputs under ``rules`` in the units' own numbering (AI
        units): flock keys (``flock_key`` (N,) or the families), view, separation and leader
        radii, lengths (world units), the search radius and the view cone. The pass itself
        reads them in row order (:attr:`rows`); a pass over rows in unit order with these
        gives the same sums, bit for bit."""
        (view_r, sep_r, lead_r), search, _ = self._geometry(rules)
        family = self._family if flock_key is None else np.ascontiguousarray(flock_key, np.int64)
        return pair_pass.PairRules(
            family, view_r, sep_r, lead_r, self.units.length, search, VIEW_CODES[rules.view],
            rules.back_view_angle_factor, rules.front_view_angle_factor,
        )  # fmt: skip

    def _obstacle_grid_for(self, reach: float, feeler: float):
        """The obstacle grid for cells at least ``reach`` wide and feelers up to ``feeler`` long
        (:func:`~.obstacle_grid.obstacle_grid`; built once, again only if the reach grows)."""
        if self._grid is not None and self._grid[0] >= reach:
            return self._grid[1]
        obs, u = self.world.obstacles, self.units
        far = 0.0
        if len(obs):
            # reach bounds the feeler and span tests; the contact and guard reach a touch further
            clearance = float((u.width / 2 + u.length / 2).max()) if u.n else 0.0
            touch = float(touch_distance(u).max()) if u.n else 0.0
            far = clearmap.reach(feeler, float(obs[:, 2].max()), clearance, touch)
        grid = obstacle_grid(self._obs, self.world.box, self._size, reach, far)
        self._grid = (reach if len(obs) else np.inf, grid)
        return grid

    def _sums(self) -> pair_pass.PairSums:
        """The rule sums' buffers (a new bundle only when the flock mask was reallocated)."""
        if self._sums_bundle is None or self._sums_bundle.flock is not self._flock:
            self._sums_bundle = pair_pass.PairSums(self._coh, self._ali, self._cnt, self._sep,
                                                 self._nf, self._flock, self._gap,
                                                 self._nn)  # fmt: skip
        return self._sums_bundle

    def _update_rows(self, pos_ai: np.ndarray, search: float) -> None:
        """Candidate partners per AI unit, as rows of the units renumbered in cell order, so a
        unit's partners sit close in memory (made again only when the neighbour list is: see
        :meth:`~.neighbours.VerletPairs.ordered_rows`). Each unit keeps its partners'
        sequence (ascending unit number), so the sums are the same bits in any numbering."""
        ptr, nbr, order = self.verlet.ordered_rows(pos_ai, search, self.world.box)
        if self._rows_built != self.verlet.builds:
            n_ai = self.units.n_ai
            self._rows = pair_pass.Rows(ptr, nbr, order)
            self._flock = np.zeros(len(self._rows.nbr), dtype=np.bool_)
            self._row_bodies = pair_pass.Bodies(np.empty((n_ai, 2)), np.empty((n_ai, 2)),
                                              np.empty(n_ai))  # fmt: skip
            self._row_family = np.empty(n_ai, np.int64)
            self._rows_built = self.verlet.builds

    def _pair_pass(self, bodies: pair_pass.Bodies, rules, family, radii_, search: float) -> None:
        """The pair pass over the candidate rows: fills the rule sums."""
        order = self._rows.unit
        cached = self._row_rules
        if cached is None or cached[0] is not rules or cached[1] != self._rows_built:
            # the per-unit radii in row order: again only when the rules or the rows change
            per_unit = tuple(np.ascontiguousarray(a[order]) for a in (*radii_, self.units.length))
            cached = self._row_rules = (rules, self._rows_built, per_unit)
        view_r, sep_r, lead_r, length = cached[2]
        gather, pairs = (
            (pair_pass.gather_rows, pair_pass.pair_pass)
            if self.parallel
            else (pair_pass.gather_rows_serial, pair_pass.pair_pass_serial)
        )  # looked up each call: a profiler may wrap them in their module
        gather(order, bodies, family, self._row_bodies, self._row_family)
        pair_rules = pair_pass.PairRules(
            self._row_family, view_r, sep_r, lead_r, length, search, VIEW_CODES[rules.view],
            rules.back_view_angle_factor, rules.front_view_angle_factor,
        )  # fmt: skip
        pairs(self._rows, self._row_bodies, pair_rules, self._box, self._sums(), self.trig)

    def _unit_bundles(
        self, rules, roles, wall_feeler, behaviours: bool = False
    ) -> tuple[unit_pass.UnitRules, unit_pass.Weights]:
        """The unit pass's rules and weights, made again only when the rules, roles, wall
        feelers or whether behaviours steer change (saves building them every tick)."""
        cached = self._unit_cache
        inputs = (rules, roles, wall_feeler, behaviours)
        if cached is not None and all(a is b for a, b in zip(cached[0], inputs, strict=True)):
            return cached[1]
        u, wt = self.units, rules.weights
        bundles = (
            unit_pass.UnitRules(u.n_ai, u.has_player, roles, u.length, u.width,
                                  touch_distance(u), rules.feeler_factor, wall_feeler,
                                  rules.flocking, rules.chase, rules.avoidance, self.world.walls,
                                  behaviours, self._behaviour_force),
            unit_pass.Weights(rules.steering_force, wt.cohesion, wt.alignment, wt.separation,
                                wt.chase, wt.avoidance),
        )  # fmt: skip
        self._unit_cache = (inputs, bundles)
        return bundles

    def _geometry(self, rules):
        """The rules' radii (view, separation, leader cone; (N,) each), the pair search radius
        and the obstacle grid: made again only when the rules change (saves their reductions
        every tick)."""
        cached = self._geometry_cache
        if cached is not None and cached[0] is rules:
            return cached[1]
        units, obs = self.units, self.world.obstacles
        radii_ = radii(units, rules)
        search = 0.0
        if units.n_ai:
            search = float(max(radii_[0].max(), radii_[1].max(), radii_[2].max()))
        feeler_len = units.length * rules.feeler_factor
        reach = float(feeler_len.max() + (obs[:, 2].max() if len(obs) else 0.0)
                      + (units.width / 2 + units.length / 2).max())  # fmt: skip
        feeler = float(feeler_len.max()) if units.n else 0.0
        geometry = (radii_, search, self._obstacle_grid_for(reach, feeler))
        self._geometry_cache = (rules, geometry)
        return geometry

    def _every_cell(self, grid: unit_pass.ObstacleGrid) -> unit_pass.ObstacleGrid:
        """``grid`` with every cell of its clear map marked (no unit skips its search)."""
        if self._unmapped is None or self._unmapped[0] is not grid:
            marked = np.ones_like(grid.clear.marked)
            self._unmapped = (grid, grid._replace(clear=grid.clear._replace(marked=marked)))
        return self._unmapped[1]

    def obstacle_grid(self, rules):
        """The obstacle grid the unit pass searches under ``rules``
        (:class:`~.unit_pass.ObstacleGrid`, built on first use)."""
        return self._geometry(rules)[2]

    def __call__(
        self, st: State, rules, flock_key=None, role=None, wall_feeler=None, behaviour_force=None
    ) -> Steering:
        """``flock_key`` (N,): who flocks with whom (default: the family); ``role`` (N,): role
        codes to use this tick (default: the units' own; ordered units lead nobody);
        ``wall_feeler`` (N,): the most each unit's feeler reaches for the world's walls, world
        units (default: as far as for obstacles); ``behaviour_force`` (N,): bow forces of the
        users' behaviours, newtons, added to the AI units' other rules before the avoidance
        priority (default: none). The same as :meth:`pairs` then :meth:`decide` on ``st``."""
        self.pairs(st, rules, flock_key)
        return self.decide(st, rules, role, wall_feeler, behaviour_force)

    def pairs(self, st: State, rules, flock_key=None, threads: int | None = None) -> None:
        """The neighbour terms on snapshot ``st``: the candidate rows and the pair pass's sums
        (flocking, separation, the leader cone, the gap ahead, the nearest distance), which
        the next :meth:`decide` reads. ``threads``: numba threads for the passes (default: as
        the thread policy chose; 1 beside the physics step, where the step has the other
        core)."""
        units = self.units
        if threads is None:
            self.threads.begin()
        elif nb.get_num_threads() != threads:
            nb.set_num_threads(threads)
        n_ai = units.n_ai
        family = self._family if flock_key is None else np.ascontiguousarray(flock_key, np.int64)
        radii_, search, _ = self._geometry(rules)
        self._pair_radius = search
        if not n_ai:
            return
        t0 = time.perf_counter()
        pos = np.ascontiguousarray(st.pos[:n_ai])
        self._update_rows(pos, search)
        t1 = time.perf_counter()
        bodies_ai = pair_pass.Bodies(pos, np.ascontiguousarray(st.vel[:n_ai]), st.angle)
        self._pair_pass(bodies_ai, rules, family, radii_, search)
        t2 = time.perf_counter()
        self._last = (pos, search)
        self.timings["neighbours"] += t1 - t0
        self.timings["rules"] += t2 - t1
        if threads is None:
            self._pair_seconds = t2 - t1

    def decide(
        self, st: State, rules, role=None, wall_feeler=None, behaviour_force=None
    ) -> Steering:
        """The decision on snapshot ``st`` from the neighbour terms of the last :meth:`pairs`
        (on ``st`` itself, or on an earlier snapshot: ``world.neighbour_ticks``): each unit's
        heading, blended bow force, leader flag, chase and feelers (``role``, ``wall_feeler``,
        ``behaviour_force``: as for :meth:`__call__`)."""
        units = self.units
        self.threads.begin()
        roles = self._role if role is None else np.ascontiguousarray(role, np.int64)
        if wall_feeler is None:
            wall_feeler = self._wall_feeler
        else:
            wall_feeler = np.ascontiguousarray(wall_feeler, np.float64)
            if wall_feeler.shape != (units.n,):  # the kernel reads one per unit, unchecked
                raise ValueError(f"wall_feeler: shape {wall_feeler.shape}, want ({units.n},)")
        if behaviour_force is not None:
            if np.shape(behaviour_force) != (units.n,):  # the kernel reads one per unit
                raise ValueError(
                    f"behaviour_force: shape {np.shape(behaviour_force)}, want ({units.n},)"
                )
            np.copyto(self._behaviour_force, behaviour_force)
        pos = np.ascontiguousarray(st.pos)
        vel = np.ascontiguousarray(st.vel)
        _, _, grid = self._geometry(rules)
        if not self.clear_map:
            grid = self._every_cell(grid)
        t1 = time.perf_counter()
        out = self._outputs.take(units.n, units.n_ai, self._nn)
        if units.n_ai:
            r = self._rows
            out.pair_source = (r.ptr, r.nbr, r.unit, copy_mask(out.pair_source, self._flock))
            np.copyto(out.nn, self._nn)
            out.nn_radius = self._pair_radius
        np.copyto(out.gap, self._gap)
        unit_rules, weights = self._unit_bundles(
            rules, roles, wall_feeler, behaviour_force is not None
        )
        kernel = unit_pass.unit_pass if self.parallel else unit_pass.unit_pass_serial
        kernel(
            pair_pass.Bodies(pos, vel, st.angle), self._sums(), unit_rules, weights, grid,
            self._box, unit_pass.UnitOut(out.force, out.heading, out.leader,
            out.feeler_end, out.target, out.felt), self._scratch, self.trig,
        )  # fmt: skip
        t2 = time.perf_counter()
        # the policy times the passes this thread ran: the pair pass too when it ran here
        self.threads.end(t2 - t1 + self._pair_seconds)
        self._pair_seconds = 0.0
        self.timings["rules"] += t2 - t1
        return out

    def build_ahead(self) -> None:
        """Build the next neighbour list from the last call's positions in a background
        thread when it will soon be needed (:meth:`~.neighbours.VerletPairs.build_ahead`),
        if the passes run on several threads: the simulation calls this just before the
        physics step, which runs on one core and leaves the other idle. The next call waits
        for the build (usually long done) rather than run its passes beside it. Never
        raises: building ahead only saves time, and a list not built ahead is built in the
        tick (e.g. after a MemoryError copying the positions)."""
        last, self._last = self._last, None
        if last is not None and self.threads.threads > 1:
            with contextlib.suppress(Exception):
                self.verlet.build_ahead(*last, self.world.box)
