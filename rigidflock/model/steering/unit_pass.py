"""Compiled kernels (numba) for the per-tick hot path, part two: the unit pass, and the bundles
only it takes (the row gathering and the pair pass are in ``pair_pass``).

Per unit, from the pair pass's sums (:class:`~.pair_pass.PairSums`): heading, the blended
flocking terms, the leader flag, the chase or intercept, and the feelers against obstacles and
walls (their helpers in ``avoidance_kernels``). The numpy functions in ``flocking.py``,
``pursuit.py``, ``avoidance.py`` and ``reference.blend_terms`` are the reference definitions; this
kernel computes the same quantities in one pass over the units (and nearby obstacles) without
numpy temporaries. Tests compare the two. Arguments come in named bundles (``typing.NamedTuple``
s of arrays and scalars, which numba takes apart by attribute): :class:`~.pair_pass.Bodies` and
:class:`~.pair_pass.Box` from ``pair_pass``, and here :class:`UnitRules`, :class:`Weights`,
:class:`ObstacleGrid` and the results :class:`UnitOut`. The small helpers are inlined into the
loop. The kernel is compiled on first use and cached on disk (``cache=True``). Numba's cache
watches this file only, not the helpers inlined from ``pair_pass``, ``torus``, ``cells``,
``clearmap`` or ``avoidance_kernels``: :mod:`rigidflock.kernel_cache` keys the cache directory
by every module of the package, so an edit to any of them compiles the kernel again.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np

from rigidflock.model.state import ROLE_CHASE, ROLE_INTERCEPT, ROLE_NONE, ROLE_PLAYER
from rigidflock.model.steering.avoidance import (
    CONTACT_GAIN,
    GUARD_TURN,
    SPAN_REACH,
)
from rigidflock.model.steering.avoidance_kernels import (
    _cells_around,
    _obstacle_feelers,
    _obstacle_spans,
    _wall_feelers,
    _wall_spans,
)
from rigidflock.model.steering.cells import cell_offsets
from rigidflock.model.steering.clearmap import ClearMap, is_clear
from rigidflock.model.steering.flocking import ATAN_POLY
from rigidflock.model.steering.pair_pass import _side
from rigidflock.model.steering.serial import serial_twin
from rigidflock.model.torus import min_image_2d


class Weights(NamedTuple):
    """The steering force S (newtons) and the rule weights."""

    S: float
    cohesion: float
    alignment: float
    separation: float
    chase: float
    avoidance: float


class UnitRules(NamedTuple):
    """What the unit pass needs besides the pair sums: AI unit count, whether the last row is
    the player, role codes (``state.ROLE_*``), length, width and contact distance (N,; world
    units, ``blend.touch_distance``: computed once, a hypot per unit per tick cost ~10% of the
    pass), the feeler factor, the most each unit's feeler reaches for the world's walls (N,;
    world units, inf: as far as for obstacles), which rules are on (``walls``: the world's
    bounds are walls), and the users' behaviours' bow forces (N,; newtons), added to the other
    rules' before the avoidance priority when ``behaviours`` is on (off, they are not read)."""

    n_ai: int
    has_player: bool
    role: np.ndarray
    length: np.ndarray
    width: np.ndarray
    touch: np.ndarray
    feeler_factor: float
    wall_feeler: np.ndarray
    flocking: bool
    chase: bool
    avoidance: bool
    walls: bool
    behaviours: bool
    behaviour_force: np.ndarray


class ObstacleGrid(NamedTuple):
    """Obstacles (M, 3) cx, cy, r, binned by centre (``start``/``items`` from
    :func:`~.cells.bin_points`) into ``shape`` (2,) cells of size ``cell`` (2,) from ``origin``
    (2,), each at least the largest feeler reach; ``clear``: where no obstacle is within reach
    (:mod:`~.clearmap`: the search is skipped there)."""

    obs: np.ndarray
    start: np.ndarray
    items: np.ndarray
    origin: np.ndarray
    cell: np.ndarray
    shape: np.ndarray
    clear: ClearMap


class UnitOut(NamedTuple):
    """The unit pass's results: force (N,), heading (N, 2), leader (N,), feeler_end (N, 2),
    target (N, 2) (NaN unless steering toward the player), felt (N,) (nearest felt obstacle or
    -1)."""

    force: np.ndarray
    heading: np.ndarray
    leader: np.ndarray
    feeler_end: np.ndarray
    target: np.ndarray
    felt: np.ndarray


@nb.njit(cache=True, inline="always")
def _cos_sin(a, trig, u):
    """cos and sin of unit u's angle ``a``: from the cache ``trig`` (N, 3) (cos, sin, the angle
    they are of) when it holds this angle, else computed and cached. A zero angle is always
    computed (``-0.0 == 0.0`` but their sines differ in sign), a NaN never matches."""
    if a == trig[u, 2] and a != 0.0:
        return trig[u, 0], trig[u, 1]
    c, s = math.cos(a), math.sin(a)
    trig[u, 0] = c
    trig[u, 1] = s
    trig[u, 2] = a
    return c, s


@nb.njit(cache=True, inline="always")
def _angle(cross, dot):
    """``flocking.angle_between`` for one (cross, dot): atan2(|cross|, dot) by the same
    octant reduction and polynomial, in the same order."""
    y, x = abs(cross), abs(dot)
    big = max(x, y)
    t = min(x, y) / big if big > 0 else 0.0
    s = t * t
    p = ATAN_POLY[0]
    for k in range(1, len(ATAN_POLY)):
        p = p * s + ATAN_POLY[k]
    a = t * p
    a = math.pi / 2 - a if y > x else a
    return math.pi - a if dot < 0 else a


@nb.njit(cache=True, inline="always")
def _turn(ux, uy, hx, hy, lx, ly):
    """side(u) * angle(h, u) / pi for a direction (ux, uy) of any length; 0 for |u| <= 1e-9
    (``flocking.turn_toward``)."""
    if ux * ux + uy * uy <= 1e-9 * 1e-9:  # as flocking.EPS * EPS
        return 0.0
    angle = _angle(hx * uy - hy * ux, hx * ux + hy * uy)
    return _side(lx * ux + ly * uy) * angle / math.pi


@nb.njit(cache=True, inline="always")
def _heading(vx, vy, c, s):
    """A unit's bow (c, s) (cos and sin of its angle) and direction of travel (hx, hy), as
    ``state.headings``. (The helpers take numbers, not arrays: an array handed to an inlined
    helper is reference counted once per unit.)"""
    speed = math.hypot(vx, vy)
    if speed > 1e-6:
        return c, s, vx / speed, vy / speed
    return c, s, c, s


@nb.njit(cache=True, inline="always")
def _flocking_force(coh, ali, count, sep, frame, weights):
    """Cohesion toward the summed offset ``coh`` (x, y), alignment with the summed velocity
    ``ali`` (x, y) of ``count`` flockmates, and the separation command ``sep``, blended:
    S * (w_c * coh + w_a * ali + w_s * sep). ``frame``: (hx, hy, lx, ly); ``weights``:
    (S, w_c, w_a, w_s)."""
    hx, hy, lx, ly = frame
    S, w_coh, w_ali, w_sep = weights
    coh_t = ali_t = 0.0
    if count > 0:
        coh_t = _turn(coh[0], coh[1], hx, hy, lx, ly)
        ali_t = _turn(ali[0], ali[1], hx, hy, lx, ly)
    return S * (w_coh * coh_t + w_ali * ali_t + w_sep * sep)


@nb.njit(cache=True, inline="always")
def _leads(nf, flocking, role):
    """Nobody in the narrow cone ahead (everybody, with flocking off), and a leading role."""
    return (nf == 0 or not flocking) and role != ROLE_NONE and role != ROLE_PLAYER


@nb.njit(cache=True, inline="always")
def _aim(offset, vel_u, vel_p, intercept):
    """Where a unit steers toward the player at ``offset`` (x, y) from it: there, or the
    intercept point relative to the unit (``pursuit.intercept_point``); velocities (x, y)."""
    ox, oy = offset
    if not intercept:
        return ox, oy
    vrx = vel_p[0] - vel_u[0]
    vry = vel_p[1] - vel_u[1]
    closing = math.hypot(vrx, vry)
    t = math.hypot(ox, oy) / max(closing, 1e-6) if closing > 1e-6 else 0.0
    return ox + vel_p[0] * t, oy + vel_p[1] * t


@nb.njit(cache=True, nogil=True, parallel=True)
def unit_pass(bodies, sums, rules, weights, grid, box, out, scratch, trig):
    """Per unit: heading, blended flocking terms (``sums`` from
    :func:`~.pair_pass.pair_pass`), leader flag, chase/intercept, feelers against obstacles
    (through ``grid``) and walls; results into ``out`` (:class:`UnitOut`). ``scratch``: (N, 9)
    int64 work space; ``trig``: the cos/sin cache of :func:`~.pair_pass.pair_pass` (filled here
    for units it has not seen).

    Mirrors ``reference.blend_terms`` and ``avoidance`` (the numpy definitions)."""
    pos, vel, angle = bodies.pos, bodies.vel, bodies.angle
    coh, ali, cnt, sep, nf = sums.coh, sums.ali, sums.cnt, sums.sep, sums.nf
    n_ai, has_player, role, length, width, touch_d = (
        rules.n_ai, rules.has_player, rules.role, rules.length, rules.width, rules.touch
    )  # fmt: skip
    feeler_factor, flocking, chase, avoidance, walls = (
        rules.feeler_factor, rules.flocking, rules.chase, rules.avoidance, rules.walls
    )  # fmt: skip
    wall_feeler = rules.wall_feeler
    behaviours, behaviour_force = rules.behaviours, rules.behaviour_force
    S, w_coh, w_ali, w_sep, w_chase, w_avoid = weights
    obs, o_start, o_items = grid.obs, grid.start, grid.items
    ox, oy, sx, sy = grid.origin[0], grid.origin[1], grid.cell[0], grid.cell[1]
    ncx, ncy = grid.shape[0], grid.shape[1]
    marked, clear_wrap = grid.clear.marked, grid.clear.wrap
    clear_layout = (grid.clear.origin[0], grid.clear.origin[1], grid.clear.cell[0],
                    grid.clear.cell[1], grid.clear.shape[0], grid.clear.shape[1])  # fmt: skip
    w, h, wrap = box.w, box.h, box.wrap
    offx, offy = cell_offsets(ncx, wrap), cell_offsets(ncy, wrap)
    force = out.force  # outputs: one plain assignment each (see ``pair_pass``)
    heading = out.heading
    leader = out.leader
    feeler_end = out.feeler_end
    target = out.target
    felt = out.felt
    n = pos.shape[0]
    p = n - 1  # the player's row, when there is one
    avoid_finite = math.isfinite(w_avoid * S)  # then w_avoid * S * turn * 0.0 is +-0.0
    has_obstacles = o_items.shape[0] > 0
    for u in nb.prange(n):
        c, s = _cos_sin(angle[u], trig, u)
        c, s, hx, hy = _heading(vel[u, 0], vel[u, 1], c, s)
        heading[u, 0] = hx
        heading[u, 1] = hy
        lx, ly = -s, c  # the body's port axis
        frame = (hx, hy, lx, ly)
        fs = 0.0
        is_leader = False
        if u < n_ai:
            if flocking:
                fs = _flocking_force((coh[u, 0], coh[u, 1]), (ali[u, 0], ali[u, 1]), cnt[u],
                                     sep[u], frame, (S, w_coh, w_ali, w_sep))  # fmt: skip
            is_leader = _leads(nf[u], flocking, role[u])
        leader[u] = is_leader
        target[u, 0] = np.nan
        target[u, 1] = np.nan
        steers = role[u] == ROLE_CHASE or role[u] == ROLE_INTERCEPT
        if chase and has_player and is_leader and steers:
            offset = min_image_2d(pos[p, 0] - pos[u, 0], pos[p, 1] - pos[u, 1], w, h, wrap)
            ax, ay = _aim(offset, (vel[u, 0], vel[u, 1]), (vel[p, 0], vel[p, 1]),
                          role[u] == ROLE_INTERCEPT)  # fmt: skip
            fs += w_chase * S * _side(ax * lx + ay * ly)
            target[u, 0] = pos[u, 0] + ax
            target[u, 1] = pos[u, 1] + ay
        if behaviours and u < n_ai:
            fs += behaviour_force[u]
        feeler = length[u] * feeler_factor
        feeler_end[u, 0] = pos[u, 0] + hx * feeler
        feeler_end[u, 1] = pos[u, 1] + hy * feeler
        felt[u] = -1
        if avoidance and u < n_ai:
            clearance = 0.5 * width[u] + 0.5 * length[u]
            touch = touch_d[u]
            at = (pos[u, 0], pos[u, 1])
            # the world's walls all farther than the feeler, the spans' reach and the touch:
            # nothing to feel, touch or block (most units), the same bits as testing them (a
            # wall's distance along a heading of length <= 1 is at least its distance). A NaN
            # or outside position is not far: it takes the full test
            wall_len = min(feeler, wall_feeler[u])
            far = max(wall_len, SPAN_REACH * wall_len, touch)
            wall_near = walls and not (
                at[0] >= far and w - at[0] >= far and at[1] >= far and h - at[1] >= far
            )
            # scratch[u]: preallocated, no allocation per unit in the loop
            cells = scratch[u]
            nc = 0  # no obstacle within reach: no cells to search
            if has_obstacles and not is_clear(at[0], at[1], marked, clear_layout, clear_wrap):
                nc = _cells_around(at, (ox, oy, sx, sy, ncx, ncy), offx, offy, wrap, cells)
            total, nearest, urg, cgap, on_port, on_stbd, near = _obstacle_feelers(
                at, (hx, hy, c, s), feeler, (clearance, touch, length[u]), obs, o_start, o_items,
                nc, cells, (w, h, wrap),
            )  # fmt: skip
            felt[u] = nearest
            if wall_near:
                total, urg, cgap, on_port, on_stbd, near = _wall_feelers(
                    (total, urg, cgap, on_port, on_stbd, near), at, (hx, hy, c, s), wall_len,
                    (touch, length[u]), w, h,
                )  # fmt: skip
            # the blocked interval (``avoidance.blocked``): grown until no interval adds to it;
            # with no surface within the spans' reach it stays (0, 0) (most units, most ticks)
            lo = hi = 0.0
            while near:
                nlo, nhi = _obstacle_spans(
                    (lo, hi), at, (hx, hy), feeler, clearance, obs, o_start, o_items, nc,
                    cells, (w, h, wrap),
                )  # fmt: skip
                if wall_near:
                    nlo, nhi = _wall_spans((nlo, nhi), at, (hx, hy), wall_len, w, h)
                if nlo == lo and nhi == hi:
                    break
                lo, hi = nlo, nhi
            # priority (``reference.blend_terms``): the other rules turn a unit away from a
            # surface it touches beside it and give way as a felt surface nears; touching one
            # ahead, only the escape steers
            # ``avoidance.guard_range``
            least = w_avoid * S * GUARD_TURN
            g_lo = (0.0 if on_port else least) if on_stbd else -np.inf
            g_hi = (0.0 if on_stbd else -least) if on_port else np.inf
            kept = (1.0 - urg) * min(max(fs, g_lo), g_hi)
            if total == 0.0 and not cgap < np.inf and kept != 0.0 and avoid_finite:
                # the escape adds +-0.0 to a nonzero force: the same bits without its direction
                fs = kept
            else:
                # ``avoidance.escape``: toward the end nearer the bow (``avoidance.bow_angle``)
                bow = math.atan2(s * hx - c * hy, c * hx + s * hy)
                port = hi - bow < bow - lo
                turn = 1.0 if port else -1.0
                end = hi if port else lo
                fs = kept + w_avoid * S * turn * total
                if cgap < np.inf:
                    cmd = CONTACT_GAIN * min(max((end - bow) / math.pi, -1.0), 1.0)
                    fs = w_avoid * S * cmd
        force[u] = fs


# the one-thread twin, for worlds too small to use a second thread (see ``serial``)
unit_pass_serial = serial_twin(unit_pass)
