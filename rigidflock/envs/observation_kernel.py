"""The observation as one compiled kernel (numba): what
:class:`~rigidflock.envs.observation.Observer` computes every step.

The numpy functions of :mod:`rigidflock.envs.observation` (``Observer.reference``,
``ray_circles``, ``ray_segments``) are the reference definition; this kernel computes the same
vector in one call, without numpy temporaries or a Python loop over units, following the
reference's arithmetic step by step (same operation order, the same float32 roundings where the
reference stores into its float32 vector first and scales after), so the two agree to float32
precision (tests compare them on several scenes and seeds). Compiled on first use and cached on
disk (``cache=True``). Arguments come in named bundles (``typing.NamedTuple``s of arrays, which
numba takes apart by attribute): :class:`Motion`, :class:`Walls` and :class:`Senses`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np

from rigidflock.model.torus import min_image_1d

OWN = 5  # own-state entries (as observation.OWN)
PER_PURSUER = 6  # entries per pursuer slot (as observation.PER_PURSUER)

# ``scales`` rows: the normalisations, read once per episode by the Observer.
SPEED, INV_SENSE, INV_SPEED, RAY_RANGE, OMEGA = range(5)
N_SCALES = 5


class Motion(NamedTuple):
    """Every unit's motion: pos (N, 2), vel (N, 2), angle (N,), omega (N,)."""

    pos: np.ndarray
    vel: np.ndarray
    angle: np.ndarray
    omega: np.ndarray


class Walls(NamedTuple):
    """What the feelers feel: ``box`` (2,), the world size in a wrap-around world, (0, 0)
    otherwise; ``circles`` (M, 3) x, y, r; ``segments`` (S, 5) x0, y0, x1, y1, half-thickness."""

    box: np.ndarray
    circles: np.ndarray
    segments: np.ndarray


class Senses(NamedTuple):
    """The observer's constants: ``rays`` (R, 2), the feelers' unit directions in the body
    frame; ``scales`` (N_SCALES,): speed scale, 1 / sense range, 1 / speed scale, ray range,
    omega scale (rows SPEED, INV_SENSE, INV_SPEED, RAY_RANGE, OMEGA)."""

    rays: np.ndarray
    scales: np.ndarray


@nb.njit(cache=True)
def _nearest(pos, ai, player, box, k, idx, d2):
    """The ``k`` ``ai`` rows (``player`` itself left out) nearest ``player`` into ``idx[:k]``
    (nearest first, ties by row: a stable sort's order) with their squared distances in
    ``d2``; returns how many were found."""
    px, py = pos[player, 0], pos[player, 1]
    found = 0
    for i in range(pos.shape[0]):
        if not ai[i] or i == player:
            continue
        rx, ry = pos[i, 0] - px, pos[i, 1] - py
        if box[0] > 0.0:  # the one minimum image (model/torus.py), as the reference
            rx, ry = min_image_1d(rx, box[0]), min_image_1d(ry, box[1])
        d = rx * rx + ry * ry
        if found == k and not d < d2[k - 1]:
            continue
        j = found if found < k else k - 1  # the slot to fill, then bubbled up
        while j > 0 and d < d2[j - 1]:
            d2[j], idx[j] = d2[j - 1], idx[j - 1]
            j -= 1
        d2[j], idx[j] = d, i
        if found < k:
            found += 1
    return found


@nb.njit(cache=True)
def _ray_circle(px, py, dx, dy, circles, box, reach):
    """``ray_circles`` for one ray: distance to the first circle, inf when none."""
    best = np.inf
    for m in range(circles.shape[0]):
        ax, ay, r = circles[m, 0] - px, circles[m, 1] - py, circles[m, 2]
        if box[0] > 0.0:
            ax, ay = min_image_1d(ax, box[0]), min_image_1d(ay, box[1])
        aa = ax * ax + ay * ay
        if not aa < (r + reach) ** 2:
            continue
        along = dx * ax + dy * ay
        h2 = r * r - aa + along * along
        root = math.sqrt(max(h2, 0.0))
        if h2 >= 0.0 and along + root >= 0.0:
            best = min(best, max(along - root, 0.0))
    return best


@nb.njit(cache=True)
def _ray_segment(px, py, dx, dy, segs):
    """``ray_segments`` for one ray: distance to the first thick segment, inf when none."""
    best = np.inf
    for m in range(segs.shape[0]):
        ex, ey = segs[m, 2] - segs[m, 0], segs[m, 3] - segs[m, 1]
        wx, wy = segs[m, 0] - px, segs[m, 1] - py
        denom = dx * ey - dy * ex
        if not abs(denom) > 1e-12:
            continue
        t = (wx * ey - wy * ex) / denom
        u = (dy * wx - dx * wy) / denom
        if t >= 0.0 and u >= 0.0 and u <= 1.0:
            sine = abs(denom) / max(math.hypot(ex, ey), 1e-12)
            best = min(best, max(t - segs[m, 4] / max(sine, 1e-6), 0.0))
    return best


@nb.njit(cache=True)
def observe(out, motion, leader, ai, player, walls, senses):
    """Write the observation of one state into ``out`` (float32, ``5 + 6 k + R`` long; ``k`` is
    read from its length): the player's own state, slots of the ``k`` nearest ``ai`` rows and
    the feelers (the parts :func:`observe_unit` puts together for any unit).

    ``motion``: every unit's (:class:`Motion`); ``leader`` (N,) or empty; ``ai`` (N,) bool: the
    pursuers; ``player``: the player's row; ``walls``: :class:`Walls`; ``senses``:
    :class:`Senses`."""
    pos, vel, angle, omega = motion.pos, motion.vel, motion.angle, motion.omega
    box, rays, scales = walls.box, senses.rays, senses.scales
    k = (out.shape[0] - OWN - rays.shape[0]) // PER_PURSUER
    c, s = _own(out, pos, vel, angle, omega, player, scales)
    if k > 0:
        _slots(out, OWN, k, pos, vel, leader, ai, player, box, c, s, scales)
    _feelers(out, OWN + PER_PURSUER * k, pos[player, 0], pos[player, 1], c, s, box,
             walls.circles, walls.segments, rays, scales)  # fmt: skip


@nb.njit(cache=True)
def observe_unit(out, motion, flag, me, group, ks, walls, senses):
    """The observation of unit ``me`` into ``out`` (float32, ``5 + 6 sum(ks) + R`` long): its
    own state, then for each g in 0..G-1 ``ks[g]`` slots of the nearest units whose ``group``
    (N,) int is g (``me`` left out; -1: in no group), then the feelers. ``flag`` (N,) fills
    each slot's entry 4 (or empty: 0); the other arguments as :func:`observe`. Every offset,
    velocity and ray is in ``me``'s body frame."""
    pos, vel, angle, omega = motion.pos, motion.vel, motion.angle, motion.omega
    box, rays, scales = walls.box, senses.rays, senses.scales
    c, s = _own(out, pos, vel, angle, omega, me, scales)
    base = OWN
    mask = np.empty(pos.shape[0], np.bool_)
    for g in range(ks.shape[0]):
        if ks[g] > 0:
            for i in range(pos.shape[0]):
                mask[i] = group[i] == g
            _slots(out, base, ks[g], pos, vel, flag, mask, me, box, c, s, scales)
        base += PER_PURSUER * ks[g]
    _feelers(out, base, pos[me, 0], pos[me, 1], c, s, box, walls.circles, walls.segments, rays,
             scales)  # fmt: skip


@nb.njit(cache=True)
def _own(out, pos, vel, angle, omega, me, scales):
    """Zero ``out``, write unit ``me``'s own entries (0..4); returns cos, sin of its heading."""
    out[:] = 0.0
    vx, vy = vel[me, 0], vel[me, 1]
    c, s = np.cos(angle[me]), np.sin(angle[me])
    speed = scales[SPEED]
    out[0] = (vx * c + vy * s) / speed  # v @ [[c, -s], [s, c]]
    out[1] = (vx * -s + vy * c) / speed
    out[2] = omega[me] / scales[OMEGA]
    out[3], out[4] = c, s
    return c, s


@nb.njit(cache=True)
def _feelers(out, base, px, py, c, s, box, circles, segments, rays, scales):
    """The feelers from ``out[base]`` (ray r: free distance / ray range), then every entry of
    ``out`` clipped to [-1, 1]."""
    reach = scales[RAY_RANGE]
    for r in range(rays.shape[0]):
        lx, ly = rays[r, 0], rays[r, 1]
        dx, dy = lx * c + ly * -s, lx * s + ly * c  # rays @ to_body.T
        t = _ray_circle(px, py, dx, dy, circles, box, reach)
        if segments.shape[0]:
            t = min(t, _ray_segment(px, py, dx, dy, segments))
        out[base + r] = min(t, reach) / reach
    for i in range(out.shape[0]):
        out[i] = min(max(out[i], np.float32(-1.0)), np.float32(1.0))


@nb.njit(cache=True)
def _slots(out, base, k, pos, vel, leader, mask, me, box, c, s, scales):
    """``k`` slots from ``out[base]``: the ``mask`` rows nearest ``me``, nearest first (the
    reference stores the rotated offsets in float32, then scales them in float32)."""
    idx = np.empty(k, np.int64)
    d2 = np.empty(k, np.float64)
    found = _nearest(pos, mask, me, box, k, idx, d2)
    px, py, vx, vy = pos[me, 0], pos[me, 1], vel[me, 0], vel[me, 1]
    inv_sense, inv_speed = np.float32(scales[INV_SENSE]), np.float32(scales[INV_SPEED])
    has_leader = leader.shape[0] == pos.shape[0]
    for j in range(found):
        i, o = idx[j], base + PER_PURSUER * j
        rx, ry = pos[i, 0] - px, pos[i, 1] - py
        if box[0] > 0.0:
            rx, ry = min_image_1d(rx, box[0]), min_image_1d(ry, box[1])
        out[o] = np.float32(rx * c + ry * s) * inv_sense
        out[o + 1] = np.float32(rx * -s + ry * c) * inv_sense
        ux, uy = vel[i, 0] - vx, vel[i, 1] - vy
        out[o + 2] = np.float32(ux * c + uy * s) * inv_speed
        out[o + 3] = np.float32(ux * -s + uy * c) * inv_speed
        out[o + 4] = 1.0 if has_leader and leader[i] else 0.0
        out[o + 5] = 1.0
