"""Slowing for turns: the speed at which a unit can still make the turn ahead of it.

A unit of the AIDemo4 model turns steadily at ``0.5 L Fs / k_w`` radians per second (the bow
force's torque against the angular damping, :attr:`~rigidflock.model.state.Units.turn_rate`),
whatever its speed, so the radius it can turn on grows with its speed; it brakes with its
reverse thrust and drag. A unit that takes a turn in its route at cruise speed runs wide of it:
past a gap in a wall, down the far side of a second one. Like a driver before a bend, a unit
slows to the speed at which its turning circle fits the turn, early enough to brake to it.

Units: positions and radii in world units, speeds in world units per second, turn rates in
radians per second, accelerations in world units per second squared.
"""

from __future__ import annotations

import numpy as np

# share of the turn rate a unit plans with: the rest is for the pushes of others and the path's
# grid steps
TURN_SHARE = 0.7
# slowest speed a turn asks for, as a share of the group's speed (a turn of nearly zero radius
# on the grid path would otherwise stop units dead on the way)
SLOWEST = 0.25
# share of the reverse thrust's deceleration a unit plans to brake with: the throttle closes
# the speed error gradually (``rules.cruise.BRAKE_GAIN``), and at full braking in the plan units
# were still too fast at the gaps of the double squeeze
PLAN_BRAKE = 0.5
# degrees between a unit's heading and its target beyond which it slows to turn onto it
AIM_FROM = 45.0


def order_turn_rate(units, rows: np.ndarray, order_force: float) -> np.ndarray:
    """(k,) the turn rate, rad/s, of ``units``' rows ``rows`` (k,) under an order's bow force
    ``order_force`` (N, its seek weight x the rules' S), clamped to their ``max_steer``: the
    rate (:attr:`~rigidflock.model.state.Units.turn_rate`) scales with the force."""
    return units.turn_rate[rows] * np.minimum(1.0, order_force / units.max_steer[rows])


def path_radius(path: np.ndarray, reach: int) -> np.ndarray:
    """(K,) radius of the turn of ``path`` (K, 2) at each of its points, world units: the circle
    through the points ``reach`` before and after it (clipped at the ends), inf where those
    three lie on a line, and up to the ``reach``-th point (whose circle passes through the
    first). Over ``reach`` cells, the grid's 45-degree steps of a straight line average out."""
    K = len(path)
    i = np.arange(K)
    a = path[np.maximum(i - reach, 0)]
    c = path[np.minimum(i + reach, K - 1)]
    ab = np.hypot(*(path - a).T)
    bc = np.hypot(*(c - path).T)
    ca = np.hypot(*(a - c).T)
    cross = np.abs((path - a)[:, 0] * (c - a)[:, 1] - (path - a)[:, 1] * (c - a)[:, 0])
    with np.errstate(divide="ignore", invalid="ignore"):
        r = ab * bc * ca / (2.0 * cross)
    # the path starts at the cell of the group's centre, a step or two off the line to the
    # goal: a jog the units, spread round that centre, never drive
    return np.where((cross > 1e-9 * np.maximum(ca * ca, 1e-12)) & (i > reach), r, np.inf)


def path_speed(path: np.ndarray, reach: int, top: float, rate: float, brake: float) -> np.ndarray:
    """(K,) the fastest a unit may go at each point of ``path`` (K, 2): at most ``top``, at most
    ``TURN_SHARE`` x ``rate`` (rad/s) x the path's turn radius there (:func:`path_radius` over
    ``reach`` points), and slow enough to brake at ``PLAN_BRAKE`` x ``brake`` (world units/s^2,
    the reverse thrust's deceleration) to every later point's speed: v_i^2 <= v_j^2 + 2 b
    s_ij. Never below ``SLOWEST`` x ``top``."""
    if len(path) == 0:
        return np.zeros(0)
    cap = np.clip(TURN_SHARE * rate * path_radius(path, reach), SLOWEST * top, top)
    brake = PLAN_BRAKE * brake
    s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(path, axis=0).T))])
    # v_i^2 = min over j >= i of (cap_j^2 + 2 brake s_j) - 2 brake s_i
    later = np.minimum.accumulate((cap * cap + 2.0 * brake * s)[::-1])[::-1]
    return np.sqrt(np.maximum(later - 2.0 * brake * s, 0.0))


def aim_speed(
    fwd: np.ndarray, v_fwd: np.ndarray, to_target: np.ndarray, rate: np.ndarray
) -> np.ndarray:
    """(m,) the fastest a unit can go and still turn onto the point ``to_target`` (m, 2) away:
    the circle tangent to its hull's heading ``fwd`` (m, 2, unit vectors) through that point
    has radius d / (2 sin theta) (theta: the angle between heading and target, d: the
    distance; for a target behind, d / 2: a stricter cap than the geometry asks, as for one
    abeam); at ``TURN_SHARE`` x ``rate`` (m,) rad/s a unit turns on a circle that small only
    below ``TURN_SHARE`` x rate x radius. inf for a target less than ``AIM_FROM`` off the heading
    (a small offset from a straight path closes without slowing) and for a unit not moving
    forward (``v_fwd`` (m,) world units / s). The heading, not the motion: pushed about in a
    crowd, a unit's motion points every way while its hull points its way, and braking on
    the motion's angle held the bottleneck's crowd against the wall longer."""
    d = np.hypot(*to_target.T)
    cross = np.abs(fwd[:, 0] * to_target[:, 1] - fwd[:, 1] * to_target[:, 0])
    dot = np.einsum("ij,ij->i", fwd, to_target)
    sin = np.where(dot < 0.0, 1.0, cross / np.maximum(d, 1e-12))
    turning = (v_fwd > 0.0) & (d > 1e-9) & (sin > np.sin(np.radians(AIM_FROM)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(turning, TURN_SHARE * rate * d / (2.0 * sin), np.inf)
