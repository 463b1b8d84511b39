"""Cohesion, alignment and separation (*AI for Game Developers*, chapter 4 (AIDemo4)) on directed
pair lists.

Every rule takes the directed pairs ``(i, j)`` (unit i looks at neighbour j), each of shape
(P,), the offsets ``d = p_j - p_i`` (P, 2) in world units, and per-unit arrays of shape (N,) or
(N, 2). A rule returns a dimensionless steering command per unit, shape (N,): positive turns the
bow to port. The caller multiplies by ``weight * S`` (newtons). No rule produces NaN, for
coincident units or units at rest included.
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.steering.view import in_view as in_view  # moved; the old name still works

EPS = 1e-9

# atan(t) ~ t * P(t^2) on [0, 1], P fitted by least squares on Chebyshev nodes (degree 12 in
# t^2), highest power first: at most 7.1e-12 rad from atan (measured on 2,000,001 points). The
# kernels evaluate the same polynomial in the same order (``unit_pass._angle``): change both
# together, and touch unit_pass.py (numba's cache does not watch this file).
ATAN_POLY = (
    0.00043016497045755386, -0.00326148709282279, 0.011602326005231589, -0.026271578455607597,
    0.04390287226974124, -0.0603854866703432, 0.07502231452892374, -0.09051137272845908,
    0.11105656192776202, -0.14285262492710862, 0.19999980353692373, -0.33333332995051057,
    0.999999999990292,
)  # fmt: skip


def forward_left(angle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The body axes in world coordinates: forward (+x, the bow) and left (+y, port), (N, 2)."""
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([c, s], axis=1), np.stack([-s, c], axis=1)


def local_offsets(d: np.ndarray, angle_i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Offsets d (P, 2) in the frame of the looking unit (angle_i (P,)): forward f, lateral s."""
    c, s = np.cos(angle_i), np.sin(angle_i)
    f = d[:, 0] * c + d[:, 1] * s
    lat = -d[:, 0] * s + d[:, 1] * c
    return f, lat


def side(lateral: np.ndarray) -> np.ndarray:
    """side(v): +1 when v lies to port (local y >= 0), -1 to starboard. Dead ahead/astern counts as
    port, so a unit always turns one way instead of not at all."""
    return np.where(lateral >= 0.0, 1.0, -1.0)


def _mean_per_unit(n: int, i: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum of ``values`` (P, 2) grouped by i, and the neighbour count per unit (N,)."""
    count = np.bincount(i, minlength=n)
    total = np.stack(
        [np.bincount(i, values[:, 0], minlength=n), np.bincount(i, values[:, 1], minlength=n)],
        axis=1,
    )
    return total, count


def angle_between(cross: np.ndarray, dot: np.ndarray) -> np.ndarray:
    """atan2(|cross|, dot) in [0, pi] for (N,) arrays: the angle between two directions from
    their cross and dot products, by octant reduction and :data:`ATAN_POLY` (within 1e-11 rad
    of the library's atan2, ~3 x cheaper in the kernel); 0 for (0, 0)."""
    y, x = np.abs(cross), np.abs(dot)
    big = np.maximum(x, y)
    t = np.divide(np.minimum(x, y), big, out=np.zeros_like(big), where=big > 0)
    s = t * t
    p = np.full_like(s, ATAN_POLY[0])
    for c in ATAN_POLY[1:]:
        p = p * s + c
    a = t * p
    a = np.where(y > x, np.pi / 2 - a, a)
    return np.where(dot < 0, np.pi - a, a)


def turn_toward(u: np.ndarray, heading: np.ndarray, left: np.ndarray) -> np.ndarray:
    """side(u) * angle(h, u) / pi for direction vectors u (N, 2) (any length; |u| <= 1e-9
    gives 0). The angle between the heading h and u is acos(h . u / |u|), computed as
    atan2(|h x u|, h . u) (:func:`angle_between`): no hypot, no normalising, accurate near 0
    and pi where acos is not."""
    hx, hy, ux, uy = heading[:, 0], heading[:, 1], u[:, 0], u[:, 1]
    ok = ux * ux + uy * uy > EPS * EPS
    angle = angle_between(hx * uy - hy * ux, hx * ux + hy * uy)
    lat = left[:, 0] * ux + left[:, 1] * uy
    return np.where(ok, side(lat) * angle / np.pi, 0.0)


def cohesion(
    n: int, i: np.ndarray, d: np.ndarray, heading: np.ndarray, left: np.ndarray
) -> np.ndarray:
    """Turn toward the neighbours' mean position: side(u) * angle(h, u) / pi, u toward the mean.

    Uses the mean *offset* so it is right across a wrap-around edge. ``i``, ``d``: the pairs that
    count (already masked); ``heading``, ``left``: (N, 2) unit vectors. Returns (N,) in [-1, 1].
    """
    total, count = _mean_per_unit(n, i, d)
    return np.where(count > 0, turn_toward(total, heading, left), 0.0)


def alignment(
    n: int, i: np.ndarray, vel_j: np.ndarray, heading: np.ndarray, left: np.ndarray
) -> np.ndarray:
    """Turn toward the neighbours' mean velocity: side(u) * angle(h, u) / pi.

    ``vel_j``: (P, 2) velocity of each pair's neighbour (world units / s). Returns (N,) in [-1, 1];
    0 when the neighbours' mean velocity is zero.
    """
    total, count = _mean_per_unit(n, i, vel_j)
    return np.where(count > 0, turn_toward(total, heading, left), 0.0)


def separation(
    n: int,
    i: np.ndarray,
    lateral: np.ndarray,
    dist: np.ndarray,
    sep_radius_i: np.ndarray,
    min_dist: float = 1e-3,
) -> np.ndarray:
    """Turn away from each too-close neighbour: sum of -side(d) * R / max(|d|, min_dist).

    ``lateral``: (P,) local y of d seen from i; ``dist``: (P,) |d|; ``sep_radius_i``: (P,) R = L_i *
    separation_factor (pairs are already masked to |d| < R). Returns (N,), unbounded above (the bow
    force clamp limits it); coincident units give a finite push to starboard.
    """
    push = -side(lateral) * sep_radius_i / np.maximum(dist, min_dist)
    return np.bincount(i, push, minlength=n)


def gap_ahead(
    n: int,
    i: np.ndarray,
    f: np.ndarray,
    s: np.ndarray,
    dist: np.ndarray,
    half_width_i: np.ndarray,
    forward_speed_j: np.ndarray,
) -> np.ndarray:
    """Distance from each unit to the nearest neighbour ahead of it (f > 0) inside a corridor
    of ``half_width_i`` (P,) to either side and not coming toward it (its velocity along the
    looking unit's bow, ``forward_speed_j`` (P,), >= 0); inf when the way is clear. (N,).

    Move orders use it to queue: a unit slows down behind a slower one instead of ramming it;
    oncoming units are left to separation, which turns both to starboard.
    """
    gap = np.full(n, np.inf)
    ahead = (f > 0) & (np.abs(s) < half_width_i) & (forward_speed_j >= 0)
    np.minimum.at(gap, i[ahead], dist[ahead])
    return gap
