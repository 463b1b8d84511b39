"""One tick of a group's movement: arrays over its members, no loop over units.

:func:`control_group` is the order of operations for one group; what each unit does is the
move-order rules' (:mod:`rigidflock.rts.rules`) and which of them decides for it is their one
precedence list (:mod:`rigidflock.rts.rules.precedence`). In order:

1. slots: re-dealt over every ``REASSIGN_TICKS`` ticks, a few blocks of units each tick
   (:func:`~.slots.deal_slots`), and late units' slots moved up at the start of each period;
2. the members' situation (:class:`Situation`): near their slot, at the formation by route,
   meeting another group's unit head on, yielding at a door (:mod:`.right_of_way`);
3. aim: each member's place on the group's path, then the ``AIM`` rules' claims, decided;
4. arrivals, from the snapshot;
5. drive: the ``DRIVE`` rules' claims (throttle, bow force, flock share), decided;
6. progress and stuck detection (:mod:`.progress`): a stuck unit backs off from the next tick.

Units: positions and lengths in world units, speeds in world units per second, forces in
newtons, throttle in [-1, 1] (after clipping), ticks as integers. m: the group's members.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rigidflock.model.state import State, Units
from rigidflock.model.steering.pursuit import seek_steer
from rigidflock.rts.groups import Group
from rigidflock.rts.navigation import Grid
from rigidflock.rts.progress import CROWDED, find_stuck, left_to_go, start_backing, track_progress
from rigidflock.rts.right_of_way import stern_steer, yielding_members
from rigidflock.rts.rules.arrive import (
    aim_at_slot,
    arrive,
    at_formation,
    near_slot,
    update_arrived,
)
from rigidflock.rts.rules.back_off import back_off_stuck
from rigidflock.rts.rules.body import Body, body_of
from rigidflock.rts.rules.claim import decide
from rigidflock.rts.rules.crossing import give_way_at_crossing
from rigidflock.rts.rules.cruise import cruise, turn_limit
from rigidflock.rts.rules.flock_share import cut_off, formation_alone
from rigidflock.rts.rules.follow_path import descend_target, follow_path, path_target
from rigidflock.rts.rules.passing import oncoming_ahead, pass_on_the_right
from rigidflock.rts.rules.precedence import AIM, DRIVE
from rigidflock.rts.rules.yielding import (
    back_out_of_door,
    hold_for_door,
    wait_at_door,
    wait_beside_the_way,
)
from rigidflock.rts.slots import deal_slots, move_up
from rigidflock.rts.turn_speed import order_turn_rate
from rigidflock.scene import NavigationSpec

# the public names of one tick's control (oncoming_ahead: the orders find who meets whom)
__all__ = ["Body", "GroupControl", "Situation", "body_of", "control_group", "oncoming_ahead"]

REASSIGN_TICKS = 30  # slots of units still on the way are re-dealt over this many ticks


@dataclass
class GroupControl:
    """One group's part of :class:`~rigidflock.rts.groups.OrderControl`, rows over members."""

    force: np.ndarray  # (m,) bow force, N
    throttle: np.ndarray  # (m,) in [-1, 1]
    flock_scale: np.ndarray  # (m,) factor on the rules' force
    reroute: bool  # a member is stuck and the group's last re-route is old: search again
    side_on: np.ndarray | None = None  # (m,) bool, as OrderControl's (None: nobody)


@dataclass
class Situation:
    """What the rules read of a group's members this tick; arrays (m,) unless noted."""

    body: Body
    length: np.ndarray  # world units
    cells: np.ndarray  # grid cells the members stand on
    to_go: np.ndarray  # route to the goal, world units
    close: np.ndarray  # bool: at the formation by route (:func:`~.rules.arrive.at_formation`)
    to_slot: np.ndarray  # (m, 2) world units
    d_slot: np.ndarray  # world units
    near: np.ndarray  # bool: near the slot by route (:func:`~.rules.arrive.near_slot`)
    approach: np.ndarray  # bool: near or close
    head_on: np.ndarray  # bool: meeting another group's unit head on
    meeting: np.ndarray  # bool: head on, short of the formation (they keep right)
    held: np.ndarray  # bool: yielding, not through the meeting point
    backing: np.ndarray  # bool: yielding, backing out of the door (among the held)
    wait_throttle: np.ndarray | None  # unclipped throttle of the yielding (None: not yielding)
    wait_place: np.ndarray | None  # (m, 2) places in the yielding queue (None: not yielding)
    wait_aside: np.ndarray | None  # world units right of the route each waits (None: as above)
    cruise: np.ndarray  # cruise speed, world units / s


def situation(
    g: Group,
    units: Units,
    grid: Grid,
    body: Body,
    cells: np.ndarray,
    to_go: np.ndarray,
    close: np.ndarray,
    arrive_r: np.ndarray,
    oncoming: np.ndarray | None,
) -> Situation:
    """The :class:`Situation` of ``g``'s members moving as ``body``, standing on ``cells`` (m,)
    with ``to_go`` (m,) world units of route left, ``close`` (m,) bool to the formation, with
    arrival radii ``arrive_r`` (m,); ``oncoming`` (m,) bool or None: members meeting another
    group's unit head on. Reads the group's slots and arrivals; changes nothing."""
    idx = g.members
    L = units.length[idx]
    to_slot = g.slots - body.pos
    d_slot = np.hypot(*to_slot.T)
    near = near_slot(d_slot, arrive_r, body.pos, g.slots, grid.sees)
    approach = near | close
    head_on = np.zeros(len(idx), dtype=bool) if oncoming is None else oncoming
    held = backing = np.zeros(len(idx), dtype=bool)
    wait_throttle = wait_place = wait_aside = None
    cruise_speed = units.cruise_speed[idx]
    if g.yield_to >= 0:  # waiting for another group to come through (:mod:`.right_of_way`)
        accel = units.thrust[idx] / units.mass[idx]
        q = yielding_members(g, grid, cells, body.pos, body.v_fwd, L, cruise_speed, accel)
        held, backing, wait_throttle, wait_place, wait_aside = q
    return Situation(
        body, L, cells, to_go, close, to_slot, d_slot, near, approach, head_on,
        head_on & ~approach, held, backing, wait_throttle, wait_place, wait_aside,
        cruise_speed,
    )  # fmt: skip


def drive_claims(
    g: Group,
    s: Situation,
    units: Units,
    nav: NavigationSpec,
    steering_force: float,
    grid: Grid,
    gap: np.ndarray,
    tick: int,
    target: np.ndarray,
    aiming_at_slot: np.ndarray,
    wait: np.ndarray | None,
    crossing: np.ndarray | None = None,
) -> dict:
    """The claim of every rule of ``DRIVE`` for ``g``'s members in situation ``s``, steering at
    ``target`` (m, 2) (``aiming_at_slot`` (m,) bool: the slot's aim rule decided it); ``gap``
    (m,): distance to the nearest unit ahead; ``wait`` (m,) bool or None: members short of a
    door another group's unit backs out of; ``crossing`` (m,) bool or None: members giving way
    at a crossing (:func:`~.rules.crossing.crossing_yields`); ``steering_force``: the rules' S,
    newtons."""
    idx, b, L = g.members, s.body, s.length
    force_scale = nav.seek * steering_force
    steer = seek_steer(target - b.pos, b.fwd, b.left)
    seek_force = nav.seek * steering_force * steer
    limit = turn_limit(
        g, b, target, nav.lookahead * grid.cell, order_turn_rate(units, idx, force_scale),
        # raw gaps: units passing another group's head on move in a crowd too
        (gap < CROWDED * L) | s.approach,
    )  # fmt: skip
    stern = None
    if s.backing.any():
        stern = force_scale * stern_steer(
            g, b.pos, b.fwd, b.left, s.wait_aside, nav.lookahead, grid
        )
    mass, drag_k, thrust = units.mass[idx], units.drag_k[idx], units.thrust[idx]
    crossing_now = np.zeros(len(idx), dtype=bool) if crossing is None else crossing & ~s.approach
    return {
        wait_at_door: wait_at_door(wait, b.v_fwd, s.cruise),
        back_out_of_door: back_out_of_door(s.backing, s.wait_throttle, stern),
        hold_for_door: hold_for_door(s.held, s.wait_throttle, seek_force),
        back_off_stuck: back_off_stuck(g.backing_until > tick, seek_force),
        give_way_at_crossing: give_way_at_crossing(crossing_now, b.v_fwd, s.cruise),
        arrive: arrive(s.near, s.to_slot, s.d_slot, b, g.speed, mass, drag_k, thrust),
        cut_off: cut_off(aiming_at_slot, b.pos, g.path[g.path_index], grid.sees),
        formation_alone: formation_alone(s.close, s.head_on),
        cruise: cruise(
            steer, gap, s.meeting, s.approach, L, g.speed, s.cruise, b.v_fwd, limit, seek_force
        ),
    }


def track(
    g: Group,
    s: Situation,
    waiting: np.ndarray,
    gap: np.ndarray,
    tick: int,
    dt: float,
    stuck_seconds: float,
    cell: float,
) -> bool:
    """Progress along the route of ``g``'s members in situation ``s`` (``waiting`` (m,) bool:
    held or waiting at a door, whose progress counts from where they wait: waiting is not
    being stuck); the group's arrival tick; stuck members (``gap`` (m,): distance to the
    nearest unit ahead) start backing off: without progress by half a ``cell`` (world units)
    for ``stuck_seconds``. Returns whether to route the group again: a member is stuck and the
    last re-route is older than that."""
    g.best = np.where(waiting, np.inf, g.best)
    progress = left_to_go(s.to_go, s.d_slot, s.close)
    g.best, g.progress_tick = track_progress(
        g.best, g.progress_tick, g.arrived, progress, cell, tick
    )
    if g.arrived.all() and g.arrival_tick is None:
        g.arrival_tick = tick
    stuck_ticks = int(round(stuck_seconds / dt))
    speed = s.body.speed
    stuck = find_stuck(g.arrived, g.progress_tick, speed, g.speed, tick, stuck_ticks, gap, s.length)
    if stuck.any():
        start_backing(g, stuck, tick, dt, stuck_ticks)
    return bool(stuck.any()) and tick - g.last_reroute > stuck_ticks


def control_group(
    g: Group,
    state: State,
    units: Units,
    nav: NavigationSpec,
    steering_force: float,
    grid: Grid,
    gap: np.ndarray,
    tick: int,
    dt: float,
    oncoming: np.ndarray | None = None,
    wait: np.ndarray | None = None,
    crossing: np.ndarray | None = None,
) -> GroupControl:
    """Steering and throttle of ``g``'s members from the snapshot ``state``; ``gap`` (N,):
    distance to the nearest unit ahead; ``oncoming`` (m,) bool: members meeting another group's
    unit head on (:func:`~.rules.passing.oncoming_ahead`; they keep right and do not queue);
    ``wait`` (m,) bool: members that stop short of a door another group's unit backs out of
    (:func:`~.right_of_way.door_taken`); ``crossing`` (m,) bool: members giving way at a
    crossing (:func:`~.rules.crossing.crossing_yields`). Updates the group's slots, path
    places, arrivals and progress; ``steering_force`` is the rules' S, newtons."""
    idx = g.members
    L = units.length[idx]
    b = body_of(state, idx)
    cells = grid.cell_of(b.pos)
    to_go = g.field.dist[cells]
    arrive_r = nav.arrive_radius * L
    close = at_formation(g.slots, g.goal, to_go, arrive_r)  # at the formation, by route
    cycle, phase = divmod(tick - g.tick, REASSIGN_TICKS)
    deal_slots(
        g.slots, g.goal, g.facing, g.arrived, close, b.pos, b.angle, to_go, L, phase,
        REASSIGN_TICKS, cycle,
    )  # fmt: skip
    if phase == 0:
        moved = move_up(g.slots, g.arrived, b.pos, b.fwd, b.speed, L, g.speed)
        g.best[moved] = np.inf  # its progress counts from its new slot
    s = situation(g, units, grid, b, cells, to_go, close, arrive_r, oncoming)

    def descend(rows):
        return descend_target(g.field, grid, cells[rows], b.pos[rows], nav.lookahead)

    g.path_index, ahead = path_target(
        g.path, g.path_index, b.pos, L, g.detour_until > tick, descend, nav.lookahead, grid.sees
    )
    aims = {
        aim_at_slot: aim_at_slot(s.near, close, b.pos, g.slots, grid.sees),
        wait_beside_the_way: wait_beside_the_way(s.held, s.wait_place, b.pos, grid.sees),
        pass_on_the_right: pass_on_the_right(ahead, b.pos, units.width[idx], s.meeting, grid.sees),
        follow_path: follow_path(ahead),
    }
    target = decide(aims, AIM, "aim")
    g.arrived[:] = update_arrived(g.arrived, s.d_slot, b.speed, L, g.speed)
    claims = drive_claims(
        g, s, units, nav, steering_force, grid, gap[idx], tick, target, aims[aim_at_slot].mask,
        wait, crossing,
    )  # fmt: skip
    out = GroupControl(
        force=decide(claims, DRIVE, "force"),
        throttle=np.clip(decide(claims, DRIVE, "throttle"), -1.0, 1.0),
        flock_scale=decide(claims, DRIVE, "flock"),
        reroute=False,
    )
    waiting = claims[hold_for_door].mask | claims[wait_at_door].mask
    out.reroute = track(g, s, waiting, gap[idx], tick, dt, nav.stuck_seconds, grid.cell)
    return out
