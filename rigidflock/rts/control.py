"""One tick of a group's movement: arrays over its members, no loop over units.

:func:`control_group` puts together, for every member of one group:

- path following (:func:`path_target`): the point on the group's one path a few cells ahead of
  the unit's place on it, or down the distance field for a unit far off it or on a detour;
- speed and queueing (:func:`cruise_throttle`): the group's speed, less behind a close unit
  and before a turn (:func:`turn_limit`);
- arrival (:func:`arrive_control`, :func:`update_arrived`): near its slot a unit closes the
  velocity error in its body frame, and stands on the slot once slow there;
- backing off and stuck detection (:mod:`.progress`): a stuck unit reverses for a second;
- right of way: a group yielding to another at a door waits short of it
  (:mod:`.right_of_way`).

Units: positions and lengths in world units, speeds in world units per second, forces in
newtons, throttle in [-1, 1] (after clipping), ticks as integers. m: the group's members.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rigidflock.model.state import State, Units
from rigidflock.model.steering.neighbours import cross_pairs
from rigidflock.model.steering.pursuit import seek_steer
from rigidflock.rts.groups import Group
from rigidflock.rts.in_line import ahead_in_line, in_line_reach
from rigidflock.rts.navigation import Grid
from rigidflock.rts.progress import (
    CROWDED,
    back_off,
    find_stuck,
    left_to_go,
    start_backing,
    track_progress,
)
from rigidflock.rts.right_of_way import ASIDE, stern_steer, yielding_members
from rigidflock.rts.slots import deal_slots, move_up
from rigidflock.rts.turn_speed import SLOWEST, aim_speed, order_turn_rate
from rigidflock.scene import NavigationSpec

ARRIVED_WITHIN = 0.75  # unit lengths from the slot: arrived (when slow)
ARRIVE_TIME = 2.0  # seconds: near its slot a unit wants to close the distance at e / this
VELOCITY_TIME = 0.5  # seconds in which thrust and bow force close the velocity error
LEAVE_SLOT = 2.0  # an arrived unit pushed this many lengths away drives back
BRAKE_GAIN = 2.0  # throttle per (speed error / cruise speed), on the way
QUEUE_GAP = 1.0  # unit lengths: full stop behind a unit this close ahead, full speed at twice
REASSIGN_TICKS = 30  # slots of units still on the way are re-dealt this often
PATH_WINDOW = 24  # cells of the group's path searched ahead of a unit's place each tick
PATH_LEASH = 20.0  # unit lengths: farther from the path a unit follows the distance field
FLOCK_EN_ROUTE = 0.5  # share of the rules' force (cohesion, alignment, separation) on the way,
# short of the formation
SLOW_ARRIVED = 0.3  # below this share of the group's speed a unit near its slot has arrived
DESCEND_REACH = 2  # off the path a unit looks this many times the lookahead down the field
ONCOMING_AHEAD = 3.0  # unit lengths: another group's unit this close ahead, heading at us
# unit widths: meeting another group's unit head on, a unit steers this far right of its route
# target. Two groups' targets along the same wall lie within a width of its face: at 0.75 the
# lines they kept right of lay 1.7 world units apart, less than a width (2), and the east group
# pushed a west unit back 116 world units in 37 s (the two-way hallway, seed 7). 1.25 (model 9):
# the nine smaller scenarios on seeds 1-24 miss their time limit in 1 run of 216 instead of 4
KEEP_RIGHT = 1.25


@dataclass
class Body:
    """The members' motion from the tick's snapshot, in the world and in their body frame."""

    pos: np.ndarray  # (m, 2) world units
    vel: np.ndarray  # (m, 2) world units / s
    angle: np.ndarray  # (m,) heading, radians
    fwd: np.ndarray  # (m, 2) unit vector along the hull
    left: np.ndarray  # (m, 2) unit vector to port
    v_fwd: np.ndarray  # (m,) forward speed, world units / s (negative when reversing)
    v_lat: np.ndarray  # (m,) sideways speed to port, world units / s
    speed: np.ndarray  # (m,) |vel|, world units / s


def body_of(state: State, idx: np.ndarray) -> Body:
    """The :class:`Body` of unit rows ``idx`` (m,) at ``state``."""
    pos, vel, ang = state.pos[idx], state.vel[idx], state.angle[idx]
    fwd = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    left = np.stack([-fwd[:, 1], fwd[:, 0]], axis=1)
    v_fwd = np.einsum("ij,ij->i", vel, fwd)
    v_lat = np.einsum("ij,ij->i", vel, left)
    return Body(pos, vel, ang, fwd, left, v_fwd, v_lat, np.hypot(*vel.T))


def at_formation(
    slots: np.ndarray, goal: np.ndarray, to_go: np.ndarray, arrive_r: np.ndarray
) -> np.ndarray:
    """(m,) bool: units within two formation radii (the farthest of ``slots`` (m, 2) from
    ``goal`` (2,)) plus their arrival radius ``arrive_r`` (m,) of the goal by route (``to_go``
    (m,)). At the formation's edge a unit heads for its own slot instead of the goal itself."""
    form_r = float(np.hypot(*(slots - goal).T).max())
    return to_go < 2.0 * form_r + arrive_r


def path_target(
    path: np.ndarray,
    path_index: np.ndarray,
    pos: np.ndarray,
    length: np.ndarray,
    detouring: np.ndarray,
    descend: np.ndarray,
    lookahead: int,
    sees=None,
) -> tuple[np.ndarray, np.ndarray]:
    """The point each unit steers at on the way, and its new place along the group's ``path``
    (K, 2) (*Group Movement in RTS*: a group does not split around a wall).

    Each unit's place (``path_index`` (m,)) moves to the nearest of the next ``PATH_WINDOW``
    path cells to ``pos`` (m, 2); it steers at the cell ``lookahead`` past it. A unit farther
    than ``PATH_LEASH`` of its lengths (m,) from the path, or ``detouring`` (m,) bool, steers
    at ``descend`` (m, 2) instead: its point down the distance field (or ``descend(rows)``
    gives those points (k, 2) for just the member rows (k,) that need them). ``sees``: optional
    ``Grid.sees``; then a unit steers at the farthest of those cells in its line of sight (at
    worst its own place on the path), never at one behind a wall; one that sees none of them
    steers at ``descend``. Returns
    (path_index (m,), target (m, 2))."""
    K = len(path)
    window = path_index[:, None] + np.arange(PATH_WINDOW)[None, :]
    window = np.minimum(window, K - 1)
    d_path = np.hypot(*(path[window] - pos[:, None, :]).transpose(2, 0, 1))
    path_index = window[np.arange(len(pos)), np.argmin(d_path, axis=1)]
    on_path = (d_path.min(axis=1) < PATH_LEASH * length) & ~detouring
    follow = path[np.minimum(path_index + lookahead, K - 1)]
    if sees is not None:  # the farthest of the next ``lookahead`` path cells in line of sight
        # asked again only for the rows still hidden, each with the sample count the whole
        # batch would give it (the longest segment of all rows as they stand); when that
        # changes, a row seen before may not be now: then every row is asked again
        seg = np.hypot(*(follow - pos).T)
        rows = everyone = np.arange(len(pos))
        before = None
        for k in range(lookahead - 1, -2, -1):
            longest = float(seg.max()) if len(seg) else 0.0
            if longest != before:
                rows, before = everyone, longest
            rows = rows[~sees(pos[rows], follow[rows], longest=longest)]
            if len(rows) == 0 or k < 0:
                break
            follow[rows] = path[np.minimum(path_index[rows] + k, K - 1)]
            seg[rows] = np.hypot(*(follow[rows] - pos[rows]).T)
        hidden = np.zeros(len(pos), dtype=bool)
        hidden[rows] = True
        # not even its own place on the path in sight (the path runs beyond a wall): down the
        # distance field, which goes round the wall, instead of into it
        on_path &= ~hidden
    if callable(descend):  # only the units off the path need their point down the field
        off = np.flatnonzero(~on_path)
        if len(off):
            follow = follow.copy()
            follow[off] = descend(off)
        return path_index, follow
    return path_index, np.where(on_path[:, None], follow, descend)


def oncoming_ahead(
    pos: np.ndarray,
    angle: np.ndarray,
    group_of: np.ndarray,
    members: np.ndarray,
    length: np.ndarray,
    ignore=(),
) -> np.ndarray:
    """(m,) bool: each of ``members`` (m,) (unit rows of one group) has a unit of another group
    within ``ONCOMING_AHEAD`` of its lengths (m,) ahead, within one length to either side of
    its bow line, heading against it (headings more than 90 degrees apart). ``pos`` (N, 2),
    ``angle`` (N,) radians and ``group_of`` (N,) over all units (-1: not ordered); the units
    of the groups ``ignore`` (ids) do not count (they yield to this one). Two such units, one
    each way in a door, would each queue behind the other forever."""
    me = int(group_of[members[0]])
    others = np.flatnonzero((group_of >= 0) & (group_of != me) & ~np.isin(group_of, ignore))
    out = np.zeros(len(members), dtype=bool)
    if len(others) == 0:
        return out
    # candidates from a k-d tree (all pairs was (m, others) a tick, ~6 ms a group at 1,000)
    reach = in_line_reach(length, ONCOMING_AHEAD)
    i, j, _ = cross_pairs(pos[members], pos[others], reach)
    if len(i) == 0:
        return out
    j = others[j]
    fwd = np.stack([np.cos(angle[members[i]]), np.sin(angle[members[i]])], axis=1)
    a = angle[j]
    facing = fwd[:, 0] * np.cos(a) + fwd[:, 1] * np.sin(a) < 0.0
    hit = ahead_in_line(pos[j] - pos[members[i]], fwd, length[i], ONCOMING_AHEAD) & facing
    out[i[hit]] = True
    return out


def keep_right(
    target: np.ndarray, pos: np.ndarray, offset: np.ndarray, meeting: np.ndarray, sees
) -> np.ndarray:
    """(m, 2): the units ``meeting`` (m,) another group's unit head on steer ``offset`` (m,)
    (``KEEP_RIGHT`` of their widths) to the right of their ``target`` (m, 2) as seen from
    ``pos`` (m, 2), or half that where the full offset is not in line of sight (``sees``:
    ``Grid.sees``), or at the target itself: both keep right and pass instead of meeting nose
    to nose."""
    rows = np.flatnonzero(meeting)
    if len(rows) == 0:
        return target
    d = target[rows] - pos[rows]
    d = d / np.maximum(np.hypot(*d.T), 1e-9)[:, None]
    right = np.stack([d[:, 1], -d[:, 0]], axis=1)
    out = target.copy()
    for share in (0.5, 1.0):  # the larger offset wins where it is visible
        moved = target[rows] + share * offset[rows, None] * right
        ok = sees(pos[rows], moved)
        out[rows[ok]] = moved[ok]
    return out


def descend_target(field, grid: Grid, cells: np.ndarray, pos: np.ndarray, lookahead: int):
    """(m, 2) the point a unit off the group's path steers at: the farthest of the next
    ``DESCEND_REACH`` x ``lookahead`` cells down the distance ``field`` from its ``cells`` (m,)
    in line of sight from ``pos`` (m, 2), at worst the next cell. Never one round a corner or
    behind the end of a wall (a unit steering there drives into it); looking farther than the
    path's lookahead where it can see keeps its way round corners smooth."""
    steps = [cells]
    for _ in range(DESCEND_REACH * lookahead):
        steps.append(field.next_cell[steps[-1]])
    target = grid.centre(steps[1])
    for k in range(2, len(steps)):
        far = grid.centre(steps[k])
        target = np.where(grid.sees(pos, far)[:, None], far, target)
    return target


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
    speed of the turn ahead (:mod:`.turn_speed`). Feed-forward (wanted / ``cruise`` (m,))^2
    plus ``BRAKE_GAIN`` on the error from the forward speed ``v_fwd`` (m,)."""
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
    ``target`` (m, 2) at ``rate`` (m,) rad/s (:mod:`.turn_speed`); never below ``SLOWEST`` x
    the group's speed. Free: units with another close ahead, pushed about in a crowd, and
    units at their formation, turning to their slots. Held back to turn there, the 1,000-unit
    bottleneck's crowd (every unit of which is at its formation) stayed pressed against the
    wall longer: its longest pin on seed 15 9.3 s instead of 6.2, and with only the crowd free
    a pin over 5 s on 4 of 17 seeds instead of 2."""
    place = g.path_index
    on_path = np.hypot(*(g.path[place] - body.pos).T) < reach
    limit = np.where(on_path, g.path_speed[place], np.inf)
    aim = aim_speed(body.fwd, body.v_fwd, target - body.pos, rate)
    limit = np.minimum(limit, np.where(free, np.inf, aim))
    return np.maximum(limit, SLOWEST * g.speed)


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


@dataclass
class GroupControl:
    """One group's part of :class:`~rigidflock.rts.groups.OrderControl`, rows over members."""

    force: np.ndarray  # (m,) bow force, N
    throttle: np.ndarray  # (m,) in [-1, 1]
    flock_scale: np.ndarray  # (m,) factor on the rules' force
    reroute: bool  # a member is stuck and the group's last re-route is old: search again
    side_on: np.ndarray | None = None  # (m,) bool, as OrderControl's (None: nobody)


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
) -> GroupControl:
    """Steering and throttle of ``g``'s members from the snapshot ``state``; ``gap`` (N,):
    distance to the nearest unit ahead; ``oncoming`` (m,) bool: members meeting another group's
    unit head on (:func:`oncoming_ahead`; they keep right and do not queue); ``wait`` (m,) bool:
    members that stop short of a door another group's unit backs out of
    (:func:`~.right_of_way.door_taken`). Updates the group's slots, path places, arrivals and
    progress; ``steering_force`` is the rules' S, newtons."""
    idx = g.members
    L = units.length[idx]
    b = body_of(state, idx)
    cells = grid.cell_of(b.pos)
    to_go = g.field.dist[cells]
    arrive_r = nav.arrive_radius * L
    close = at_formation(g.slots, g.goal, to_go, arrive_r)  # at the formation, by route
    if (tick - g.tick) % REASSIGN_TICKS == 0:
        deal_slots(g.slots, g.goal, g.facing, g.arrived, close, b.pos, b.angle, to_go, L)
        moved = move_up(g.slots, g.arrived, b.pos, b.fwd, b.speed, L, g.speed)
        g.best[moved] = np.inf  # its progress counts from its new slot
    to_slot = g.slots - b.pos
    d_slot = np.hypot(*to_slot.T)
    # near the slot by route: in line of sight of it, not through a wall
    near = d_slot < arrive_r
    if near.any():
        near[near] = grid.sees(b.pos[near], g.slots[near])
    approach = near | close

    def descend(rows):
        return descend_target(g.field, grid, cells[rows], b.pos[rows], nav.lookahead)

    g.path_index, ahead = path_target(
        g.path, g.path_index, b.pos, L, g.detour_until > tick, descend, nav.lookahead, grid.sees
    )
    # at the formation by route, a unit steers at its slot only once it sees it (not through
    # the wall between); one that sees neither slot nor its place on the path is cut off from
    # the group by a wall: the flock's pull toward the others would hold it against that wall
    aim_slot = near.copy()
    late = approach & ~near
    if late.any():
        aim_slot[late] = grid.sees(b.pos[late], g.slots[late])
    cut_off = ~aim_slot & ~grid.sees(b.pos, g.path[g.path_index])
    head_on = np.zeros(len(idx), dtype=bool) if oncoming is None else oncoming
    meeting = head_on & ~approach
    held = backing = np.zeros(len(idx), dtype=bool)
    cruise = units.cruise_speed[idx]
    if g.yield_to >= 0:  # waiting for another group to come through (:mod:`.right_of_way`)
        accel = units.thrust[idx] / units.mass[idx]
        held, backing, wait_throttle = yielding_members(
            g, grid, cells, b.pos, b.v_fwd, L, cruise, accel
        )
    # those waiting keep farther right, off the other group's way out of the door
    offset = np.where(held, ASIDE * L, KEEP_RIGHT * units.width[idx])
    ahead = keep_right(ahead, b.pos, offset, meeting | held, grid.sees)
    target = np.where(aim_slot[:, None], g.slots, ahead)
    steer = seek_steer(target - b.pos, b.fwd, b.left)
    g.arrived[:] = update_arrived(g.arrived, d_slot, b.speed, L, g.speed)

    seek_force = nav.seek * steering_force * steer
    # no queueing behind a unit of another group coming the other way: pass it on the right
    queue_gap = np.where(meeting, np.inf, gap[idx])
    limit = turn_limit(
        g,
        b,
        target,
        nav.lookahead * grid.cell,
        order_turn_rate(units, idx, nav.seek * steering_force),
        # raw gaps: units passing another group's head on move in a crowd too
        (gap[idx] < CROWDED * L) | approach,
    )
    # at the formation units stand close and do not queue: a unit there threads between units
    # on their slots, and a crowd at a gap is carried through by its push (models 6 and 7)
    throttle = cruise_throttle(steer, queue_gap, L, approach, g.speed, cruise, b.v_fwd, limit)
    arrive_throttle, arrive_force = arrive_control(
        to_slot, d_slot, b, g.speed, units.mass[idx], units.drag_k[idx], units.thrust[idx]
    )
    throttle = np.where(near, arrive_throttle, throttle)
    force = np.where(near, arrive_force, seek_force)
    throttle, force = back_off(g.backing_until > tick, throttle, force, seek_force)
    if held.any():
        throttle = np.where(held, wait_throttle, throttle)
        stern = (
            nav.seek * steering_force * stern_steer(g, b.pos, b.fwd, b.left, L, nav.lookahead, grid)
        )
        force = np.where(backing, stern, np.where(held, seek_force, force))
    if wait is not None:
        throttle = np.where(wait, BRAKE_GAIN * -b.v_fwd / cruise, throttle)
        held = held | wait
    # waiting is not being stuck: progress counts from where it waits
    g.best = np.where(held, np.inf, g.best)

    g.best, g.progress_tick = track_progress(
        g.best, g.progress_tick, g.arrived, left_to_go(to_go, d_slot, close), grid.cell, tick
    )
    if g.arrived.all() and g.arrival_tick is None:
        g.arrival_tick = tick
    stuck_ticks = int(round(nav.stuck_seconds / dt))
    stuck = find_stuck(g.arrived, g.progress_tick, b.speed, g.speed, tick, stuck_ticks, gap[idx], L)
    if stuck.any():
        start_backing(g, stuck, tick, dt, stuck_ticks)
    return GroupControl(
        force=force,
        throttle=np.clip(throttle, -1.0, 1.0),
        # at the formation (by route, or near the slot) only the order steers: the flock's pull
        # and push fight the unit's own way to its slot, and in a crowd they press units into
        # the walls (model 17: the 1,000-unit bottleneck's wall contacts more than halved,
        # pinned time a third less); but not one meeting another group's unit head on, which
        # separation turns to starboard (keeping right is for units short of the formation);
        # cut off from the group, neither (the rules' force knows no scene walls); nor waiting
        # for another group (the push of its units passing close wedges one in the door)
        flock_scale=np.where(near | (close & ~head_on) | cut_off | held, 0.0, FLOCK_EN_ROUTE),
        reroute=bool(stuck.any()) and tick - g.last_reroute > stuck_ticks,
    )
