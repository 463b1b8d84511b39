"""All rules for all units: one bow force per unit from one snapshot (DESIGN.md section 4).

Seed 000's recipe: compute every rule's force first, blend them with weights, then apply. Two
implementations return the same :class:`Steering`:

- :func:`steer_reference`: numpy over explicit directed pair lists, calling the documented rule
  functions of ``flocking``, ``pursuit`` and ``avoidance``; the definition, kept for tests.
- :class:`Steerer`: what the simulation runs. Compiled kernels make one pass over candidate pairs
  from a reused neighbour list (:class:`~.neighbours.VerletPairs`) and over nearby obstacles,
  with preallocated buffers. Same results up to floating-point summation order.

Inputs: a :class:`~rigidflock.state.State` (player last), the run's
:class:`~rigidflock.state.Units`, the current rules, obstacles (M, 3), and the world (``box`` is
its size when it wraps, else None; ``walls`` whether its bounds are walls).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..state import ROLE_CHASE, ROLE_INTERCEPT, ROLE_NONE, ROLE_PLAYER, State, Units, headings
from . import avoidance, flocking, kernels, pursuit
from .neighbours import VerletPairs, directed, min_image, pairs_cells


@dataclass
class Steering:
    """What the rules decided for one snapshot; kept for drawing and inspection."""

    force: np.ndarray  # (N,) bow force before clamping, newtons, + to port
    heading: np.ndarray  # (N, 2) unit direction of travel
    leader: np.ndarray  # (N,) bool, AI leaders (player row False)
    feeler_end: np.ndarray  # (N, 2) feeler tips, world units
    felt: np.ndarray  # (N,) index of the nearest felt obstacle, -1 if none
    target: np.ndarray  # (N, 2) chase/intercept aim point for steering leaders, NaN otherwise
    # (candidates i, candidates j, mask i->j, mask j->i): the flocking pairs, assembled on demand
    pair_source: tuple = field(default_factory=tuple, repr=False)
    _pairs: tuple | None = field(default=None, repr=False)

    @property
    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Directed flocking pairs (i, j), (P,) each: j is in i's cohesion/alignment set."""
        if self._pairs is None:
            if not self.pair_source:
                return np.zeros(0, np.intp), np.zeros(0, np.intp)
            ci, cj, m_ij, m_ji = self.pair_source
            self._pairs = (
                np.concatenate([ci[m_ij], cj[m_ji]]).astype(np.intp),
                np.concatenate([cj[m_ij], ci[m_ji]]).astype(np.intp),
            )
        return self._pairs


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


def _finish(
    st, units, rules, world, h, left, coh_term, ali_term, sep_term, nf, push, felt, pairs
) -> Steering:
    """Blend the per-unit rule terms with weights; leaders, chase and feelers on top."""
    n, n_ai = units.n, units.n_ai
    S, w = rules.steering_force, rules.weights
    force = np.zeros(n)
    if rules.flocking and n_ai:
        force[:n_ai] = S * (
            w.cohesion * coh_term + w.alignment * ali_term + w.separation * sep_term
        )

    # Leaders: nobody in the narrow cone ahead; with flocking off every unit leads.
    leader = np.zeros(n, dtype=bool)
    leader[:n_ai] = (nf == 0) | (not rules.flocking)
    leader &= (units.role != ROLE_NONE) & (units.role != ROLE_PLAYER)
    target = np.full((n, 2), np.nan)
    if rules.chase and units.has_player:
        offset = min_image(st.pos[-1] - st.pos, world.box)
        intercept = units.role == ROLE_INTERCEPT
        aim = offset.copy()
        if intercept.any():
            aim[intercept] = pursuit.intercept_point(
                st.pos[intercept], st.vel[intercept], st.pos[-1], st.vel[-1], offset[intercept]
            )
        steering_leader = leader & ((units.role == ROLE_CHASE) | intercept)
        force += np.where(steering_leader, w.chase * S * pursuit.steer_toward(aim, left), 0.0)
        target[steering_leader] = st.pos[steering_leader] + aim[steering_leader]

    feeler_len = units.length * rules.feeler_factor
    if rules.avoidance:
        if world.walls:
            push = push + avoidance.wall_feelers(st.pos, h, left, feeler_len, world.size)
        force[:n_ai] += w.avoidance * S * push[:n_ai]
        felt = felt.copy()
        felt[n_ai:] = -1
    else:
        felt = np.full(n, -1, dtype=np.intp)
    return Steering(
        force=force,
        heading=h,
        leader=leader,
        feeler_end=st.pos + h * feeler_len[:, None],
        felt=felt,
        target=target,
        pair_source=pairs,
    )


def steer_reference(st: State, units: Units, rules, world: World) -> Steering:
    """The rules by their numpy definitions, on a fresh pair search (slow; for tests)."""
    n_ai = units.n_ai
    _, left = flocking.forward_left(st.angle)
    h = headings(st.vel, st.angle)
    view_r, sep_r, lead_r = radii(units, rules)
    pos_ai = st.pos[:n_ai]
    search = float(max(view_r.max(), sep_r.max(), lead_r.max())) if n_ai else 0.0
    i, j = directed(*pairs_cells(pos_ai, search, world.box))
    d = min_image(pos_ai[j] - pos_ai[i], world.box)
    dist = np.hypot(d[:, 0], d[:, 1])
    f, s = flocking.local_offsets(d, st.angle[i])
    seen = flocking.in_view(
        f, s, rules.view, rules.back_view_angle_factor, rules.front_view_angle_factor
    )
    flock = seen & (dist < view_r[i]) & (units.family[i] == units.family[j])
    sep = seen & (dist < sep_r[i])
    hh, ll = h[:n_ai], left[:n_ai]
    coh = flocking.cohesion(n_ai, i[flock], d[flock], hh, ll)
    ali = flocking.alignment(n_ai, i[flock], st.vel[j[flock]], hh, ll)
    sep_term = flocking.separation(n_ai, i[sep], s[sep], dist[sep], sep_r[i[sep]])
    nf = pursuit.front_counts(n_ai, i, f, s, dist, lead_r[i], rules.front_view_angle_factor)
    push, felt = avoidance.obstacle_feelers(
        st.pos,
        h,
        left,
        units.length * rules.feeler_factor,
        units.width / 2 + 0.5 * units.length,
        world.obstacles,
        world.box,
    )
    fi, fj = i[flock], j[flock]
    return _finish(
        st,
        units,
        rules,
        world,
        h,
        left,
        coh,
        ali,
        sep_term,
        nf,
        push,
        felt,
        (fi, fj, np.ones(len(fi), bool), np.zeros(len(fi), bool)),
    )


class Steerer:
    """The simulation's steering: compiled passes, reused neighbour lists, reused buffers.

    ``skin``: extra radius of the candidate list in world units (0 searches afresh every tick;
    results are identical either way).
    """

    def __init__(self, units: Units, world: World, skin: float):
        self.units, self.world = units, world
        self.verlet = VerletPairs(skin)
        n_ai = units.n_ai
        self._coh = np.zeros((n_ai, 2))
        self._ali = np.zeros((n_ai, 2))
        self._cnt = np.zeros(n_ai, np.int64)
        self._sep = np.zeros(n_ai)
        self._nf = np.zeros(n_ai, np.int64)
        self._push = np.zeros(units.n)
        self._felt = np.zeros(units.n, np.int64)
        self._flock_ij = np.zeros(0, dtype=np.bool_)
        self._flock_ji = np.zeros(0, dtype=np.bool_)
        self._family = np.ascontiguousarray(units.family, dtype=np.int64)
        self._obstacle_grid = None  # built on first use; rebuilt if the feeler reach grows

    def _obstacles(self, pos, h, left, feeler_len, clearance):
        obs = self.world.obstacles
        n = len(pos)
        if len(obs) == 0:
            self._push[:] = 0.0
            self._felt[:] = -1
            return self._push, self._felt
        reach = float(feeler_len.max() + obs[:, 2].max() + clearance.max())
        grid = self._obstacle_grid
        if grid is None or grid[0] < reach:
            grid = self._obstacle_grid = (reach, *self._build_grid(obs, reach))
        _, start, items, ox, oy, sx, sy, ncx, ncy = grid
        box = self.world.box
        w, hgt = (0.0, 0.0) if box is None else (float(box[0]), float(box[1]))
        kernels.obstacle_pass(
            pos,
            h[:, 0].copy(),
            h[:, 1].copy(),
            left[:, 0].copy(),
            left[:, 1].copy(),
            feeler_len,
            clearance,
            obs,
            start,
            items,
            ox,
            oy,
            sx,
            sy,
            ncx,
            ncy,
            w,
            hgt,
            box is not None,
            self._push[:n],
            self._felt[:n],
        )
        return self._push, self._felt

    def _build_grid(self, obs: np.ndarray, reach: float):
        """A static cell grid of obstacle centres, cells at least ``reach`` wide."""
        box = self.world.box
        centres = np.ascontiguousarray(obs[:, :2])
        if box is not None:
            centres = np.mod(centres, box)
            ox, oy, ex, ey = 0.0, 0.0, float(box[0]), float(box[1])
        else:
            ox, oy = centres.min(axis=0)
            ex, ey = np.ptp(centres, axis=0) + 1e-9
        ncx, ncy = kernels._grid_shape(ex, ey, reach, len(obs))
        sx, sy = ex / ncx, ey / ncy
        _, start, items = kernels._bin(centres, ox, oy, sx, sy, ncx, ncy)
        return start, items, float(ox), float(oy), float(sx), float(sy), ncx, ncy

    def __call__(self, st: State, rules) -> Steering:
        units, world = self.units, self.world
        n_ai = units.n_ai
        fwd, left = flocking.forward_left(st.angle)
        h = headings(st.vel, st.angle)
        view_r, sep_r, lead_r = radii(units, rules)
        pos_ai = np.ascontiguousarray(st.pos[:n_ai])
        box = world.box
        w, hgt = (0.0, 0.0) if box is None else (float(box[0]), float(box[1]))
        if n_ai:
            search = float(max(view_r.max(), sep_r.max(), lead_r.max()))
            ci, cj = self.verlet.candidates(pos_ai, search, box)
            if len(self._flock_ij) != len(ci):
                self._flock_ij = np.zeros(len(ci), dtype=np.bool_)
                self._flock_ji = np.zeros(len(ci), dtype=np.bool_)
            kernels.pair_pass(
                ci,
                cj,
                pos_ai,
                np.ascontiguousarray(st.vel[:n_ai]),
                fwd[:n_ai, 0].copy(),
                fwd[:n_ai, 1].copy(),
                self._family[:n_ai],
                view_r,
                sep_r,
                lead_r,
                search,
                w,
                hgt,
                box is not None,
                kernels.VIEW_CODES[rules.view],
                rules.back_view_angle_factor,
                rules.front_view_angle_factor,
                self._coh,
                self._ali,
                self._cnt,
                self._sep,
                self._nf,
                self._flock_ij,
                self._flock_ji,
            )
            hh, ll = h[:n_ai], left[:n_ai]
            has = self._cnt > 0
            coh = np.where(has, flocking.turn_toward(self._coh, hh, ll), 0.0)
            ali = np.where(has, flocking.turn_toward(self._ali, hh, ll), 0.0)
            pairs = (ci, cj, self._flock_ij.copy(), self._flock_ji.copy())
        else:
            coh = ali = np.zeros(0)
            pairs = ()
        push, felt = (np.zeros(units.n), np.full(units.n, -1, np.int64))
        if rules.avoidance:
            push, felt = self._obstacles(
                np.ascontiguousarray(st.pos),
                h,
                left,
                units.length * rules.feeler_factor,
                units.width / 2 + 0.5 * units.length,
            )
        return _finish(
            st,
            units,
            rules,
            world,
            h,
            left,
            coh,
            ali,
            self._sep.copy(),
            self._nf.copy(),
            push.copy(),
            felt.astype(np.intp),
            pairs,
        )
