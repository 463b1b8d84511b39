"""Leaders, chase and intercept (the leader rules of *AI for Game Developers*, chapter 4
(AIDemo4)), plus seek.

A leader is an AI unit with no other AI unit in its narrow forward cone within the narrow view
radius. Leaders of role "chase" steer toward the player, leaders of role "intercept" toward where
the player will be when they meet. Arrays: positions (N, 2) world units, velocities (N, 2) world
units/s, per-unit values (N,). Returns are per unit, shape (N,).
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.steering.flocking import side


def front_counts(
    n: int,
    i: np.ndarray,
    f: np.ndarray,
    s: np.ndarray,
    dist: np.ndarray,
    radius_i: np.ndarray,
    front_factor: float,
) -> np.ndarray:
    """Nf per unit: pairs (i looks at j) with f > 0, |s| < f * front_factor, |d| <= radius_i.

    ``i``, ``f``, ``s``, ``dist``, ``radius_i``: (P,) over directed pairs among AI units.
    """
    ahead = (f > 0) & (np.abs(s) < f * front_factor) & (dist <= radius_i)
    return np.bincount(i[ahead], minlength=n)


def intercept_point(
    vel: np.ndarray,
    target_vel: np.ndarray,
    offset: np.ndarray,
    min_closing: float = 1e-6,
) -> np.ndarray:
    """Where each pursuer aims: p_target + v_target * t, t = |Sr| / |Vr| (AIDemo4).

    ``vel``: (N, 2) the pursuers' velocities, ``target_vel`` (2,) the target's, world units/s;
    ``offset``: (N, 2) Sr = p_target - p_i (already folded across wrap edges). With no closing
    speed (|Vr| <= ``min_closing``) t = 0: aim at the target itself. Returns (N, 2) aim points
    relative to the pursuer (the vector to steer along).
    """
    vr = target_vel[None, :] - vel
    speed = np.hypot(vr[:, 0], vr[:, 1])
    dist = np.hypot(offset[:, 0], offset[:, 1])
    t = np.where(speed > min_closing, dist / np.maximum(speed, min_closing), 0.0)
    return offset + target_vel[None, :] * t[:, None]


def steer_toward(direction: np.ndarray, left: np.ndarray) -> np.ndarray:
    """+1 / -1 per unit: which side (port / starboard) ``direction`` (N, 2) lies on."""
    return side(np.einsum("ij,ij->i", direction, left))


def seek_steer(
    direction: np.ndarray, forward: np.ndarray, left: np.ndarray, full_turn: float = np.pi / 8
) -> np.ndarray:
    """Proportional seek in [-1, 1]: the signed angle from the bow to ``direction`` divided by
    ``full_turn`` (radians at which the command saturates), for autopilots."""
    lat = np.einsum("ij,ij->i", direction, left)
    err = np.arctan2(lat, np.einsum("ij,ij->i", direction, forward))
    return np.clip(err / full_turn, -1.0, 1.0)
