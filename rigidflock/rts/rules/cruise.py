"""Cruising: the default rule, on the way at the group's speed, queueing and slowing for turns.

:func:`cruise` claims every unit and decides for those no earlier rule of the precedence list
claims: its throttle holds the group's speed less behind a close unit and before a turn
(:func:`cruise_throttle`, :func:`turn_limit`), its bow force seeks the unit's aim, and the
flocking rules act at ``FLOCK_EN_ROUTE`` of their force.

Units: world units, world units per second, radians per second, newtons; throttle unclipped.
m: the group's members.
"""

from __future__ import annotations

import numpy as np

from rigidflock.rts.groups import Group
from rigidflock.rts.rules.body import Body
from rigidflock.rts.rules.claim import Claim
from rigidflock.rts.turn_speed import SLOWEST, aim_speed

BRAKE_GAIN = 2.0  # throttle per (speed error / cruise speed), on the way
QUEUE_GAP = 1.0  # unit lengths: full stop behind a unit this close ahead, full speed at twice
FLOCK_EN_ROUTE = 0.5  # share of the rules' force (cohesion, alignment, separation) on the way,
# short of the formation


def cruise_throttle(
    steer: np.ndarray,
    gap: np.ndarray,
    length: np.ndarray,
    approach: np.ndarray,
    group_speed: float,
    cruise: np.ndarray,
    v_fwd: np.ndarray,
    limit: np.ndarray | None = None,
) -> np.ndarray:
    """Throttle (m,), unclipped, on the way: hold the group's speed, queueing behind slower
    units. The wanted speed falls from ``group_speed`` to 0 as ``gap`` (m,), the distance to
    the nearest unit ahead, shrinks from 2 to 1 ``QUEUE_GAP`` lengths (m,); only units already
    pointing their way (``|steer|`` (m,) < 1) queue, one still turning is not held by the
    queue, and those ``approach``-ing (m,) their slot do not; never above ``limit`` (m,), the
    speed of the turn ahead (:mod:`~rigidflock.rts.turn_speed`). Feed-forward (wanted /
    ``cruise`` (m,))^2 plus ``BRAKE_GAIN`` on the error from the forward speed ``v_fwd``
    (m,)."""
    queue = np.clip((gap - QUEUE_GAP * length) / (QUEUE_GAP * length), 0.0, 1.0)
    queue = np.where(np.abs(steer) < 1.0, queue, 1.0)
    desired = group_speed * np.where(approach, 1.0, queue)
    if limit is not None:
        desired = np.minimum(desired, limit)
    return (desired / cruise) ** 2 + BRAKE_GAIN * (desired - v_fwd) / cruise


def turn_limit(
    g: Group, body: Body, target: np.ndarray, reach: float, rate: np.ndarray, free: np.ndarray
) -> np.ndarray:
    """(m,) the fastest each of ``g``'s members may go for the turns ahead, world units / s:
    the group's path speed at its place on the path (within ``reach`` world units of it: the
    limit is for the units that take the path's turns as it does, not those steering at it
    from afar) and, unless ``free`` (m,) bool, the speed at which it still turns onto its
    ``target`` (m, 2) at ``rate`` (m,) rad/s (:mod:`~rigidflock.rts.turn_speed`); never below
    ``SLOWEST`` x the group's speed. Free: units with another close ahead, pushed about in a
    crowd, and units at their formation, turning to their slots. Held back to turn there, the
    1,000-unit bottleneck's crowd (every unit of which is at its formation) stayed pressed
    against the wall longer: its longest pin on seed 15 9.3 s instead of 6.2, and with only
    the crowd free a pin over 5 s on 4 of 17 seeds instead of 2."""
    place = g.path_index
    on_path = np.hypot(*(g.path[place] - body.pos).T) < reach
    limit = np.where(on_path, g.path_speed[place], np.inf)
    aim = aim_speed(body.fwd, body.v_fwd, target - body.pos, rate)
    limit = np.minimum(limit, np.where(free, np.inf, aim))
    return np.maximum(limit, SLOWEST * g.speed)


def cruise(
    steer: np.ndarray,
    gap: np.ndarray,
    meeting: np.ndarray,
    approach: np.ndarray,
    length: np.ndarray,
    group_speed: float,
    cruise_speed: np.ndarray,
    v_fwd: np.ndarray,
    limit: np.ndarray,
    seek_force: np.ndarray,
) -> Claim:
    """Every unit (the default): the :func:`cruise_throttle` of its ``steer`` (m,), ``gap``
    (m,), ``length`` (m,), ``approach`` (m,) bool, ``group_speed``, ``cruise_speed`` (m,),
    ``v_fwd`` (m,) and ``limit`` (m,), except that a unit ``meeting`` (m,) bool another
    group's unit head on does not queue (it passes it on the right); its bow force
    ``seek_force`` (m,), N, toward its aim; the flocking rules at ``FLOCK_EN_ROUTE``. At the
    formation (``approach``) units stand close and do not queue either: a unit there threads
    between units on their slots, and a crowd at a gap is carried through by its push."""
    queue_gap = np.where(meeting, np.inf, gap)
    throttle = cruise_throttle(
        steer, queue_gap, length, approach, group_speed, cruise_speed, v_fwd, limit
    )
    everyone = np.ones(len(steer), dtype=bool)
    return Claim(everyone, throttle=throttle, force=seek_force, flock=FLOCK_EN_ROUTE)
