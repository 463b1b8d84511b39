"""The rules for many worlds of one scene at once: their units in the same arrays, one call of
each pass a tick whatever the number of worlds.

World w's units are rows ``w n .. (w + 1) n - 1`` of every array (``n`` units a world, its AI
units first and its player last, as in one world). Neighbours never cross worlds because the
candidate rows (:func:`world_rows`) pair each AI unit only with the AI units of its own world,
all of them: a superset of any neighbour list, which the pair pass filters by distance, each
unit's partners in ascending unit order (the order a neighbour list keeps), so every sum has the
bits of the world run alone. Each world keeps its own obstacles (its own obstacle grid, stacked
in :class:`GridStack`). The passes are the one-world kernels themselves: the row gathering and
the pair pass run once over every world's rows, and the unit pass, the unpin and give-way rules
run world by world inside one compiled call each (serial copies of the one-world kernels on each
world's slice, the worlds in parallel). Trying every pair of a world costs ``n_ai^2`` a world a
tick: meant for small worlds (the environments' 21 units), not for crowds.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from rigidflock.model.state import Units
from rigidflock.model.steering import pair_pass, unit_pass
from rigidflock.model.steering.blend import radii, touch_distance
from rigidflock.model.steering.clearmap import ClearMap
from rigidflock.model.steering.give_way import give_way
from rigidflock.model.steering.unpin import unpin_throttle
from rigidflock.model.steering.view import VIEW_CODES

# the unit pass's one-thread twin, called once per world from a loop already spread over the
# threads
unit_pass_serial = unit_pass.unit_pass_serial


def world_rows(n_worlds: int, n: int, n_ai: int) -> pair_pass.Rows:
    """Candidate rows for ``n_worlds`` worlds of ``n`` units (``n_ai`` AI first in each): row
    ``w n_ai + i`` is unit ``w n + i``; its partners are the other rows of its world, ascending.
    (R + 1,) ptr, (R (n_ai - 1),) nbr, (R,) unit, R = n_worlds n_ai."""
    i = np.arange(n_ai)
    mine = np.repeat(i, n_ai)
    other = np.tile(i, n_ai)
    keep = mine != other
    local = other[keep]  # (n_ai (n_ai - 1),): each row's partners, ascending
    per_row = max(n_ai - 1, 0)
    base = (np.arange(n_worlds) * n_ai)[:, None]
    nbr = (base + local[None, :]).reshape(-1).astype(np.int64)
    rows = n_worlds * n_ai
    ptr = np.arange(rows + 1, dtype=np.int64) * per_row
    unit = ((np.arange(n_worlds) * n)[:, None] + i[None, :]).reshape(-1).astype(np.int64)
    return pair_pass.Rows(ptr, nbr, unit)


class GridStack:
    """The obstacle grids of every world (:class:`~.unit_pass.ObstacleGrid`), their arrays
    end to end with each world's offsets, as :func:`unit_pass_worlds` takes them. ``set(w,
    grid)`` replaces world w's (a reset); :meth:`arrays` stacks them again when one changed."""

    def __init__(self, n_worlds: int):
        self.grids: list[unit_pass.ObstacleGrid | None] = [None] * n_worlds
        self._stacked = None

    def set(self, w: int, grid: unit_pass.ObstacleGrid) -> None:
        self.grids[w] = grid
        self._stacked = None

    def arrays(self) -> tuple:
        """(obs, obs_off, start, start_off, items, items_off, origin, cell, shape, marked,
        marked_off, clear_origin, clear_cell, clear_shape, wrap)."""
        if self._stacked is None:
            g = self.grids

            def cat(parts, dtype, width=None):
                if width is not None:
                    parts = [np.asarray(p, dtype).reshape(-1, width) for p in parts]
                    return np.ascontiguousarray(np.concatenate(parts), dtype)
                return np.ascontiguousarray(np.concatenate([np.ravel(p) for p in parts]), dtype)

            def off(parts):
                return np.concatenate([[0], np.cumsum([len(p) for p in parts])]).astype(np.int64)

            obs = [x.obs for x in g]
            start = [x.start for x in g]
            items = [x.items for x in g]
            marked = [np.ravel(x.clear.marked) for x in g]
            self._stacked = (
                cat(obs, np.float64, 3), off(obs), cat(start, np.int64), off(start),
                cat(items, np.int64), off(items),
                cat([x.origin for x in g], np.float64, 2), cat([x.cell for x in g], np.float64, 2),
                cat([x.shape for x in g], np.int64, 2), cat(marked, np.bool_), off(marked),
                cat([x.clear.origin for x in g], np.float64, 2),
                cat([x.clear.cell for x in g], np.float64, 2),
                cat([x.clear.shape for x in g], np.int64, 2), bool(g[0].clear.wrap),
            )  # fmt: skip
        return self._stacked


@nb.njit(cache=True, nogil=True, parallel=True)
def unit_pass_worlds(active, n, bodies, sums, rules, weights, grids, box, out, scratch, trig):
    """:func:`~.unit_pass.unit_pass` for each world w with ``active[w]``, on its rows
    ``w n .. (w + 1) n - 1`` of ``bodies``, ``sums``, ``out``, ``scratch`` and ``trig`` (every
    world's units end to end), with its own obstacle grid from ``grids`` (:meth:`GridStack.arrays`);
    ``rules`` and ``weights`` are one world's (the same for all). Worlds in parallel."""
    (obs, obs_off, start, start_off, items, items_off, origin, cell, shape, marked, marked_off,
     c_origin, c_cell, c_shape, wrap) = grids  # fmt: skip
    pos, vel, angle = bodies.pos, bodies.vel, bodies.angle
    coh, ali, cnt, sep, nf = sums.coh, sums.ali, sums.cnt, sums.sep, sums.nf
    flock, gap, nn = sums.flock, sums.gap, sums.nn
    force = out.force
    heading = out.heading
    leader = out.leader
    feeler_end = out.feeler_end
    target = out.target
    felt = out.felt
    for w in nb.prange(active.shape[0]):
        if not active[w]:
            continue
        a, b = w * n, (w + 1) * n
        grid = unit_pass.ObstacleGrid(
            obs[obs_off[w] : obs_off[w + 1]], start[start_off[w] : start_off[w + 1]],
            items[items_off[w] : items_off[w + 1]], origin[w], cell[w], shape[w],
            ClearMap(marked[marked_off[w] : marked_off[w + 1]], c_origin[w], c_cell[w],
                     c_shape[w], wrap),
        )  # fmt: skip
        unit_pass_serial(
            pair_pass.Bodies(pos[a:b], vel[a:b], angle[a:b]),
            pair_pass.PairSums(coh[a:b], ali[a:b], cnt[a:b], sep[a:b], nf[a:b], flock, gap[a:b],
                             nn[a:b]),
            rules, weights, grid, box,
            unit_pass.UnitOut(force[a:b], heading[a:b], leader[a:b], feeler_end[a:b],
                                target[a:b], felt[a:b]),
            scratch[a:b], trig[a:b],
        )  # fmt: skip


class UnpinRows(NamedTuple):
    """The unpin rule's inputs and memory, every world's rows end to end (W n,): velocities
    (W n, 2), contacts with static geometry (int64), cruise speeds, seconds pressed, the tick
    each backs out until (int64)."""

    vel: np.ndarray
    touching: np.ndarray
    cruise: np.ndarray
    pressed: np.ndarray
    until: np.ndarray


class GiveWayRows(NamedTuple):
    """What the give-way rule reads of every world's units (W n,): positions (W n, 2),
    headings (radians), lengths (world units)."""

    pos: np.ndarray
    angle: np.ndarray
    length: np.ndarray


class ThrottleRows(NamedTuple):
    """The throttles in and out (W n,): ``ones``, the throttle before the rules (1: no
    orders); ``out``, the tick's throttles; ``spared`` and ``backing`` (bool: all False
    without orders); ``back``, bool work space."""

    ones: np.ndarray
    out: np.ndarray
    spared: np.ndarray
    backing: np.ndarray
    back: np.ndarray


@nb.njit(cache=True, nogil=True)
def throttles_worlds(active, n, ticks, player, dt, back_out, unpin, bodies, box, io):
    """The unpin rule (:func:`~.unpin.unpin_throttle`) then the give-way rule
    (:func:`~.give_way.give_way`) for each world w with ``active[w]`` (W,) bool, on its rows
    ``w n .. (w + 1) n - 1`` of ``unpin`` (:class:`UnpinRows`), ``bodies``
    (:class:`GiveWayRows`) and ``io`` (:class:`ThrottleRows`), at its own tick ``ticks[w]``:
    the tick's throttles into ``io.out``. ``player``: whether each world's last unit is its
    player; ``dt`` the tick (s); ``back_out`` the ticks a pressed unit backs out; ``box``
    (:class:`~.pair_pass.Box`) the world."""
    vel, touching, cruise, pressed, until = unpin
    pos, angle, length = bodies
    ones, out, spared, backing, back = io
    for w in range(active.shape[0]):
        if not active[w]:
            continue
        a, b = w * n, (w + 1) * n
        tick = ticks[w]
        unpin_throttle(vel[a:b], touching[a:b], cruise[a:b], pressed[a:b], until[a:b], tick, dt,
                       back_out, player, ones[a:b], out[a:b], spared[a:b])  # fmt: skip
        n_ai = n - 1 if player else n
        for u in range(a, b):
            back[u] = until[u] > tick or backing[u]
        give_way(pos[a : a + n_ai], angle[a : a + n_ai], length[a : a + n_ai],
                 back[a : a + n_ai], box.w, box.h, box.wrap, out[a : a + n_ai])  # fmt: skip


class BatchSteerer:
    """The rules' decision for ``n_worlds`` worlds of ``units`` (one world's constants) under
    ``rules``, every world's state in the same arrays (see the module's notes): its output
    arrays (``force``, ``leader``, ...; (W n,) rows) are rewritten by each :meth:`decide`.
    ``box``: :class:`~.pair_pass.Box` of the world (the same for all); ``walls``: whether its
    bounds are walls. Call :meth:`set_grid` with each world's obstacle grid before deciding."""

    def __init__(self, units: Units, rules, n_worlds: int, box: pair_pass.Box, walls: bool):
        self.units, self.rules, self.n_worlds, self.box = units, rules, int(n_worlds), box
        n, n_ai, W = units.n, units.n_ai, self.n_worlds
        total = W * n
        self.rows = world_rows(W, n, n_ai)
        self.grids = GridStack(W)
        rec = np.zeros((total, 10))  # as the one-world steerer: sums side by side per unit
        self.coh, self.ali = rec[:, 0:2], rec[:, 2:4]
        self.sep, self.gap, self.nn = rec[:, 4], rec[:, 5], rec[:, 6]
        self.gap[:] = np.inf
        self.nn[:] = np.inf
        self.trig = rec[:, 7:10]
        self.trig[:] = np.nan
        counts = np.zeros((total, 2), np.int64)
        self.cnt, self.nf = counts[:, 0], counts[:, 1]
        self.flock = np.zeros(len(self.rows.nbr), np.bool_)
        self.sums = pair_pass.PairSums(self.coh, self.ali, self.cnt, self.sep, self.nf, self.flock,
                                     self.gap, self.nn)  # fmt: skip
        self.scratch = np.empty((total, 9), np.int64)
        self.force = np.zeros(total)
        self.heading = np.zeros((total, 2))
        self.leader = np.zeros(total, dtype=bool)
        self.feeler_end = np.zeros((total, 2))
        self.target = np.zeros((total, 2))
        self.felt = np.zeros(total, dtype=np.intp)
        self.out = unit_pass.UnitOut(self.force, self.heading, self.leader, self.feeler_end,
                                       self.target, self.felt)  # fmt: skip
        # the pair pass's per-row inputs: each world's AI units' constants, world after world
        ai = slice(0, n_ai)
        view_r, sep_r, lead_r = radii(units, rules)
        tile = lambda a: np.ascontiguousarray(np.tile(np.asarray(a)[ai], W))  # noqa: E731
        search = 0.0
        if n_ai:
            search = float(max(view_r.max(), sep_r.max(), lead_r.max()))
        self.row_family = tile(np.asarray(units.family, np.int64))
        self.pair_rules = pair_pass.PairRules(
            self.row_family, tile(view_r), tile(sep_r), tile(lead_r), tile(units.length), search,
            VIEW_CODES[rules.view], rules.back_view_angle_factor, rules.front_view_angle_factor,
        )  # fmt: skip
        self.family = np.ascontiguousarray(np.tile(np.asarray(units.family, np.int64), W))
        self.row_bodies = pair_pass.Bodies(np.empty((len(self.rows.unit), 2)),
                                         np.empty((len(self.rows.unit), 2)),
                                         np.empty(len(self.rows.unit)))  # fmt: skip
        wt = rules.weights
        self.unit_rules = unit_pass.UnitRules(
            n_ai, units.has_player, np.ascontiguousarray(units.role, np.int64), units.length,
            units.width, touch_distance(units), rules.feeler_factor, np.full(n, np.inf),
            rules.flocking, rules.chase, rules.avoidance, walls, False, np.zeros(n),
        )  # fmt: skip
        self.weights = unit_pass.Weights(rules.steering_force, wt.cohesion, wt.alignment,
                                           wt.separation, wt.chase, wt.avoidance)  # fmt: skip

    def set_grid(self, w: int, grid: unit_pass.ObstacleGrid) -> None:
        """World w's obstacle grid (the one its one-world steerer built:
        ``Steerer.obstacle_grid``)."""
        self.grids.set(w, grid)

    def decide(self, pos, vel, angle, active) -> None:
        """The decision on every world's snapshot (``pos`` (W n, 2), ``vel`` (W n, 2), ``angle``
        (W n,)) into the output arrays, for the worlds with ``active`` (W,) bool (the others'
        outputs are kept)."""
        bodies = pair_pass.Bodies(pos, vel, angle)
        if self.units.n_ai:
            pair_pass.gather_rows(self.rows.unit, bodies, self.family, self.row_bodies,
                                self.row_family)  # fmt: skip
            pair_pass.pair_pass(self.rows, self.row_bodies, self.pair_rules, self.box, self.sums,
                              self.trig)  # fmt: skip
        unit_pass_worlds(active, self.units.n, bodies, self.sums, self.unit_rules, self.weights,
                         self.grids.arrays(), self.box, self.out, self.scratch,
                         self.trig)  # fmt: skip
