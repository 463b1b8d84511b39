"""Arriving: near its slot a unit steers at it and closes its velocity error in the body frame.

- :func:`at_formation`: the units within reach of the formation by route (they no longer queue,
  and at the formation only the order steers them: :func:`~.flock_share.formation_alone`);
- :func:`near_slot`: the units within their arrival radius of their slot and in sight of it;
- :func:`aim_at_slot` (aim): those, and the units at the formation that see their slot, steer
  at it;
- :func:`arrive` (throttle, bow force, flock share): the units near their slot brake, back and
  side-step onto it (:func:`arrive_control`), without the flocking rules;
- :func:`update_arrived`: the bookkeeping of who stands on its slot.

Units: world units, seconds, kilograms, newtons; throttle unclipped. m: the group's members.
"""

from __future__ import annotations

import numpy as np

from rigidflock.rts.rules.body import Body
from rigidflock.rts.rules.claim import Claim

ARRIVED_WITHIN = 0.75  # unit lengths from the slot: arrived (when slow)
ARRIVE_TIME = 2.0  # seconds: near its slot a unit wants to close the distance at e / this
VELOCITY_TIME = 0.5  # seconds in which thrust and bow force close the velocity error
LEAVE_SLOT = 2.0  # an arrived unit pushed this many lengths away drives back
SLOW_ARRIVED = 0.3  # below this share of the group's speed a unit near its slot has arrived


def at_formation(
    slots: np.ndarray, goal: np.ndarray, to_go: np.ndarray, arrive_r: np.ndarray
) -> np.ndarray:
    """(m,) bool: units within two formation radii (the farthest of ``slots`` (m, 2) from
    ``goal`` (2,)) plus their arrival radius ``arrive_r`` (m,) of the goal by route (``to_go``
    (m,)). At the formation's edge a unit heads for its own slot instead of the goal itself."""
    form_r = float(np.hypot(*(slots - goal).T).max())
    return to_go < 2.0 * form_r + arrive_r


def near_slot(
    d_slot: np.ndarray, arrive_r: np.ndarray, pos: np.ndarray, slots: np.ndarray, sees
) -> np.ndarray:
    """(m,) bool: units nearer their slot (``d_slot`` (m,) world units) than their arrival
    radius ``arrive_r`` (m,) that see it from ``pos`` (m, 2) (``sees``: ``Grid.sees``, asked
    for those rows only): near it by route, not through a wall."""
    near = d_slot < arrive_r
    if near.any():
        near[near] = sees(pos[near], slots[near])
    return near


def aim_at_slot(
    near: np.ndarray, close: np.ndarray, pos: np.ndarray, slots: np.ndarray, sees
) -> Claim:
    """Aim: the units ``near`` (m,) bool their slot, and those ``close`` (m,) bool to the
    formation by route that see their slot from ``pos`` (m, 2) (``sees``: ``Grid.sees``, asked
    for those rows only), steer at their ``slots`` (m, 2). One at the formation that does not
    see its slot yet (a wall between) keeps to the group's path round the wall."""
    claimed = near.copy()
    late = close & ~near
    if late.any():
        claimed[late] = sees(pos[late], slots[late])
    return Claim(claimed, aim=slots)


def arrive_control(
    to_slot: np.ndarray,
    d_slot: np.ndarray,
    body: Body,
    group_speed: float,
    mass: np.ndarray,
    drag_k: np.ndarray,
    thrust: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Near the slot (and on it): "arrive". The wanted velocity points at the slot (``to_slot``
    (m, 2), ``d_slot`` (m,) its length) and shrinks with the distance (e / ARRIVE_TIME, at most
    ``group_speed``); thrust and the bow force close the velocity error in the body frame
    within VELOCITY_TIME, so a unit brakes, backs and side-steps onto its slot instead of
    circling it. ``mass`` (m,) kg, ``drag_k`` (m,) quadratic drag (N s^2 / world unit^2),
    ``thrust`` (m,) N. Returns (throttle (m,), unclipped; sideways force (m,), N)."""
    e_f = np.einsum("ij,ij->i", to_slot, body.fwd)
    e_l = np.einsum("ij,ij->i", to_slot, body.left)
    scale = np.minimum(1.0, group_speed * ARRIVE_TIME / np.maximum(d_slot, 1e-9))
    want_f, want_l = e_f * scale / ARRIVE_TIME, e_l * scale / ARRIVE_TIME
    v_fwd = body.v_fwd
    f_fwd = mass * (want_f - v_fwd) / VELOCITY_TIME + drag_k * v_fwd * np.abs(v_fwd)
    f_lat = mass * (want_l - body.v_lat) / VELOCITY_TIME
    return f_fwd / thrust, f_lat


def arrive(
    near: np.ndarray,
    to_slot: np.ndarray,
    d_slot: np.ndarray,
    body: Body,
    group_speed: float,
    mass: np.ndarray,
    drag_k: np.ndarray,
    thrust: np.ndarray,
) -> Claim:
    """Throttle, bow force and flock share of the units ``near`` (m,) bool their slot: the
    throttle and sideways force of :func:`arrive_control` (same arguments), and no flocking
    (the flock's pull and push fight the unit's own way onto its slot)."""
    throttle, force = arrive_control(to_slot, d_slot, body, group_speed, mass, drag_k, thrust)
    return Claim(near, throttle=throttle, force=force, flock=0.0)


def update_arrived(
    arrived: np.ndarray,
    d_slot: np.ndarray,
    speed: np.ndarray,
    length: np.ndarray,
    group_speed: float,
) -> np.ndarray:
    """(m,) bool: a unit within ``ARRIVED_WITHIN`` of its lengths (m,) of its slot (``d_slot``
    (m,)) and slower than ``SLOW_ARRIVED`` x ``group_speed`` has arrived; one ``arrived`` (m,)
    stays so until pushed ``LEAVE_SLOT`` lengths away (then it drives back)."""
    arrived = arrived | ((d_slot < ARRIVED_WITHIN * length) & (speed < SLOW_ARRIVED * group_speed))
    return arrived & (d_slot < LEAVE_SLOT * length)
