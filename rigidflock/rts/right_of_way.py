"""Right of way between groups that meet head on where there is no room to pass (a door).

Two groups crossing a door from either side meet nose to nose in it. Keeping right
(:func:`~.rules.passing.keep_right`) passes them where there is room; where there is none,
each side's units push against the other's, back off for a second and come again, and the door
stays jammed. A real RTS gives one group the right of way and makes the other wait clear of the
door:

- standoff (:func:`find_standoffs`): a unit with another group's unit ahead heading against it
  (as :func:`~.rules.passing.oncoming_ahead`), neither having made progress for
  ``STANDOFF_SECONDS`` nor moving faster than ``STANDOFF_SLOW`` of its group's speed; the
  meeting point is halfway between the closest such pair of the two groups; only in a narrow
  way (:func:`narrow`: in the open keeping right passes them, and a whole group waiting there
  only costs time);
- right of way (:func:`has_right_of_way`): the group with more members in the narrow way, then
  the one with more through the meeting point, then the one with more still to come (fewer
  units wait), then the older order;
- yielding (:func:`start_yield`, :func:`end_yields`, :func:`yielding_members`): the other
  group's members not yet through the point wait in a queue beside the way, not on it
  (:func:`queue`, :func:`wait_places`): each at its own place from ``WAIT_BACK`` lengths back
  from the point along the route and ``ASIDE`` lengths to the side it comes up on, steering at
  it and braking to stop there (:func:`yield_throttle`), backing out to it from nearer the
  door, stern first back along their path and to that side (:func:`back_target`); the group
  with the right of way waits short of the point while a yielding unit is still in the door
  (:func:`door_taken`) and does not keep right of them near it (which pressed its units into
  the door's jamb); the yield ends once no unit of the group with the right of way is still to
  come through the point from within ``YIELD_NEAR`` lengths of it nor less than ``CLEAR_OF``
  lengths through it (or after ``YIELD_SECONDS``).

Distances "by route" are a group's distance field without congestion costs (world units); a
member is through the point once on its far side by route and ``PAST`` of its lengths off it in
a straight line. Arrays over members (and over the stalled units of all groups); loops only
over groups.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.spatial import cKDTree

from rigidflock.model.steering.pursuit import seek_steer
from rigidflock.rts.groups import Group
from rigidflock.rts.in_line import ahead_in_line, in_line_reach
from rigidflock.rts.navigation import Grid

STANDOFF_SECONDS = 1.0  # nose to nose without progress this long: a standoff (backing: 3 s)
STANDOFF_SLOW = 0.25  # and slower than this share of its group's speed
STANDOFF_AHEAD = 3.0  # unit lengths: the other unit this close ahead (the oncoming range)
NARROW = 1.0  # unit lengths: less free way than this to both sides of a standoff: no passing
PAST = 1.0  # unit lengths: on the far side by route and this far off the point: through it
# unit lengths: a yield ends once the other group's units are this far through the point. At
# PAST, a unit of the group with the right of way still crawling out of the door past the
# waiting units counted as through; they came on and pushed it back through the door, and a
# second standoff followed (doorway_two_way seed 22: late)
CLEAR_OF = 2.5
# a yield begun before the groups met (:mod:`.doors`) ends sooner: its units wait outside the
# door from the start, not pressed at its mouth, and a unit 1.5 lengths past the point is clear
# of the door (on seeds 1-48 of doorway_two_way, 1.5 against 2.5: the slowest run 0.85 of its
# limit instead of 0.92, the median 0.70 instead of 0.72; 1.0 and 0.5 were no better)
CLEAR_AHEAD = 1.5
# the yielding group's queue: the nearest waits WAIT_BACK lengths back from the meeting point
# along the route (the door is half a length thick; the other group's unit is clear of it a
# length and a half past the point), each next one WAIT_SPACING farther; farther back and the
# yielding group takes too long to come through once the door is free (2.5 and 1.5 lengths left
# doorway_two_way a second or two over its limit on some seeds of 1-16)
WAIT_BACK = 2.0
WAIT_SPACING = 1.25
# lengths beside the route the queue waits, off the way the other group comes out of the door
# (on the route, or a length off it, the other group's last units threaded through the queue:
# doorway_two_way with the 10 kg unit, seeds 1-24, the slowest 0.81 of its limit; at 1.5 L,
# 0.71; at 2 L, 0.78: from farther aside the units come back onto the door's jamb)
ASIDE = 1.5
# lengths left of the route a unit comes up from to wait on the left: crossing the way to a place
# on the right stood in it (to the right only, 1.5 L: slowest 0.76; 2 L: 0.92)
LEFT_OF = 1.0
DIRECTION_CELLS = 4  # path points back from the meeting point the queue's direction is taken over
BRAKE_SHARE = 0.75  # of full thrust / mass: the deceleration a yielding unit plans to stop at
BRAKE_GAIN = 2.0  # throttle per (speed error / cruise speed) of a yielding unit
BACK_THROTTLE = -1.0  # throttle of a yielding unit backing out to its place (out of the door)
BACK_STEER = 0.3  # share of the seeking bow force a backing unit turns its stern with: pressed
# on a jamb, the full force's friction (40 N x 0.25) would outdo the reverse thrust (10 N)
BACK_WINDOW = 24  # path cells behind its place searched for a backing unit's nearest
DOOR_REACH = 2.0  # unit lengths off the point: the group with the right of way waits for it
CLEAR = 1.5  # unit lengths: a yielding unit nearer the point than this still takes the door
YIELD_NEAR = 8.0  # unit lengths: the other group's units this close to the point come first
YIELD_SECONDS = 20.0  # a yield ends after this long whatever happens (the other group stuck)


class Yielding(NamedTuple):
    """The queue of a yielding group's members this tick, arrays over its members (m,)."""

    held: np.ndarray  # bool: not through the meeting point, waiting
    backing: np.ndarray  # bool: among the held, backing out toward the door's far side
    throttle: np.ndarray  # unclipped
    places: np.ndarray  # (m, 2) where each waits, world units
    aside: np.ndarray  # world units right of the route each waits (negative: left)


def find_standoffs(
    pos: np.ndarray,
    angle: np.ndarray,
    length: np.ndarray,
    group_of: np.ndarray,
    stalled: np.ndarray,
) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
    """Pairs of groups in a standoff: ``(a, b, point, axis)`` with group ids a < b, the meeting
    point (2,) halfway between the closest pair of their ``stalled`` (N,) bool units where one
    has the other within ``STANDOFF_AHEAD`` of its lengths (N,) ahead, within one length of its
    bow line, heading against it (more than 90 degrees apart), and the unit vector (2,) from
    a's unit of the pair to b's. ``pos`` (N, 2), ``angle`` (N,) radians, ``group_of`` (N,)
    (-1: not ordered)."""
    rows = np.flatnonzero(stalled & (group_of >= 0))
    if len(rows) < 2:
        return []
    p, g, L = pos[rows], group_of[rows], length[rows]
    fwd = np.stack([np.cos(angle[rows]), np.sin(angle[rows])], axis=1)
    # candidates from a k-d tree (all pairs was (k, k): 25 ms a tick with 1,000 stalled)
    pairs = cKDTree(p).query_pairs(in_line_reach(L, STANDOFF_AHEAD), output_type="ndarray")
    i, j = pairs[:, 0], pairs[:, 1]  # i < j
    hit = (g[i] != g[j]) & (fwd[i, 0] * fwd[j, 0] + fwd[i, 1] * fwd[j, 1] < 0.0)
    hit &= ahead_in_line(p[j] - p[i], fwd[i], L[i], STANDOFF_AHEAD) | ahead_in_line(
        p[i] - p[j], fwd[j], L[j], STANDOFF_AHEAD
    )
    i, j = i[hit], j[hit]
    if len(i) == 0:
        return []
    by_row = np.lexsort((j, i))  # row by row, as the pair matrix was read (ties below)
    i, j = i[by_row], j[by_row]
    dist = np.hypot(*(p[j] - p[i]).T)
    a, b = np.minimum(g[i], g[j]), np.maximum(g[i], g[j])
    order = np.lexsort((dist, b, a))  # per group pair, the closest units first
    a, b = a[order], b[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    out = []
    for k, ga, gb in zip(order[first], a[first], b[first], strict=True):  # pairs of groups
        axis = (p[j[k]] - p[i[k]]) / max(float(dist[k]), 1e-9)
        out.append((int(ga), int(gb), 0.5 * (p[i[k]] + p[j[k]]), axis))
    return out


def squeezed(grid: Grid, pos: np.ndarray, axis: np.ndarray, length: np.ndarray) -> np.ndarray:
    """(k,) bool: neither side across ``axis`` (2,) or (k, 2) (unit vectors; one for all or one
    per point) from ``pos`` (k, 2) is in line of sight ``NARROW`` of the ``length`` (k,) off
    (``Grid.sees``: free cells, with the clearance): in a door or a squeeze, no room for two
    abreast."""
    axis = np.atleast_2d(axis)
    across = np.stack([-axis[:, 1], axis[:, 0]], axis=1) * (NARROW * np.asarray(length))[:, None]
    a = np.repeat(pos, 2, axis=0)
    b = a + np.stack([across, -across], axis=1).reshape(-1, 2)
    blocked = ~grid.sees(a, b)
    return blocked[0::2] & blocked[1::2]


def narrow(grid: Grid, point: np.ndarray, axis: np.ndarray, length: float) -> bool:
    """Whether two units meeting at ``point`` (2,) along ``axis`` (2,) (unit vector) are in a
    narrow way: :func:`squeezed` at some point within one ``length`` of ``point`` along the
    axis. A door or a squeeze; in the open, or along one wall, they can pass."""
    along = point + np.outer(np.linspace(-1.0, 1.0, 5) * length, axis)  # (5, 2)
    return bool(squeezed(grid, along, axis, np.full(5, length)).any())


def through(
    to_go: np.ndarray, at_point: float, off: np.ndarray, length: np.ndarray, past: float = PAST
) -> np.ndarray:
    """(m,) bool: members through the meeting point: on its far side by route (``to_go`` (m,)
    less than the point's ``at_point``) and ``off`` (m,) it, the straight distance, by more
    than ``past`` of their lengths (m,) (route distances in a door count its walls' extra cost
    and would call a unit still in it through)."""
    return (to_go < at_point) & (off > past * length)


def has_right_of_way(a: tuple, b: tuple) -> bool:
    """Whether group a goes first at a standoff with group b, each given as (members in the
    narrow way, members through the meeting point, members still to come, group id): more in
    the narrow way (backing out of a door is slow: the group already in it keeps it), then more
    through (the group already flowing through), then more to come (the fewer units wait),
    then the older order (the lower id)."""
    return (a[0], a[1], a[2], -a[3]) > (b[0], b[1], b[2], -b[3])


def to_go_at(g: Group, grid: Grid, pts: np.ndarray) -> np.ndarray:
    """(k,) ``g``'s distance to go from the points ``pts`` (k, 2) along its route, without the
    congestion costs of re-routes (:attr:`Group.plain`: those would move the meeting point
    away from or toward units that stand still)."""
    return g.plain.dist[grid.cell_of(np.asarray(pts, dtype=float).reshape(-1, 2))]


def start_yield(
    a: Group, b: Group, point: np.ndarray, axis: np.ndarray, pos: np.ndarray, length, grid: Grid,
    tick: int,
) -> None:  # fmt: skip
    """Settle a standoff of groups ``a`` and ``b`` at ``point`` (2,) along ``axis`` (2,) (see
    :func:`find_standoffs`): the one without the right of way yields to the other. ``pos``
    (N, 2) and ``length`` (N,) over all units."""
    counts = []
    for g in (a, b):
        p, L = pos[g.members], length[g.members]
        at = float(to_go_at(g, grid, point)[0])
        done = through(to_go_at(g, grid, p), at, np.hypot(*(p - point).T), L)
        coming = ~done & ~g.arrived
        inside = coming & squeezed(grid, p, axis, L)
        counts.append((int(inside.sum()), int(done.sum()), int(coming.sum()), g.id))
    loser, winner = (b, a) if has_right_of_way(*counts) else (a, b)
    loser.yield_to, loser.yield_point, loser.yield_tick = winner.id, np.asarray(point), tick
    loser.yield_ahead = False


def still_to_come(
    w: Group, point: np.ndarray, pos: np.ndarray, length, grid: Grid, clear: float = CLEAR_OF
) -> bool:
    """Whether a member of ``w`` not on its slot is still to come through ``point`` (2,) from
    within ``YIELD_NEAR`` of its lengths of it, or is not yet ``clear`` of them through it."""
    p, L = pos[w.members], length[w.members]
    off = np.hypot(*(p - point).T)
    at = float(to_go_at(w, grid, point)[0])
    done = through(to_go_at(w, grid, p), at, off, L, clear)
    coming = ~w.arrived & ~done & (off < YIELD_NEAR * L)
    return bool(coming.any())


def end_yields(groups: dict, pos: np.ndarray, length, grid: Grid, tick: int, dt: float) -> None:
    """Groups yielding go again once the group they yield to has come through the meeting
    point (or is gone), or after ``YIELD_SECONDS``."""
    for g in groups.values():
        if g.yield_to < 0:
            continue
        w = groups.get(g.yield_to)
        if (
            w is None
            or (tick - g.yield_tick) * dt > YIELD_SECONDS
            or not still_to_come(
                w, g.yield_point, pos, length, grid, CLEAR_AHEAD if g.yield_ahead else CLEAR_OF
            )
        ):
            g.yield_to = -1


def settle_standoffs(
    groups: dict, state, length: np.ndarray, group_of: np.ndarray, grid: Grid, tick: int, dt: float
) -> None:
    """One tick of right of way over all ``groups`` (id -> :class:`Group`): end the yields that
    are over, then settle new standoffs (a group already yielding to the other is left be)."""
    end_yields(groups, state.pos, length, grid, tick, dt)
    limit = int(round(STANDOFF_SECONDS / dt))
    stalled = np.zeros(len(group_of), dtype=bool)
    speed = np.hypot(*state.vel.T)
    for g in groups.values():
        slow = speed[g.members] < STANDOFF_SLOW * g.speed  # a unit moving on is no standoff
        stalled[g.members] = ~g.arrived & (tick - g.progress_tick > limit) & slow
    for a, b, point, axis in find_standoffs(state.pos, state.angle, length, group_of, stalled):
        ga, gb = groups[a], groups[b]
        if ga.yield_to == b or gb.yield_to == a:
            continue
        if narrow(grid, point, axis, float(length[ga.members].max())):
            start_yield(ga, gb, point, axis, state.pos, length, grid, tick)


def door_taken(
    w: Group, yielding: list, pos: np.ndarray, length: np.ndarray, grid: Grid
) -> np.ndarray:
    """(m,) bool: members of ``w`` (the group with the right of way) that wait: not through and
    within ``DOOR_REACH`` of their lengths of the meeting point of a group of ``yielding`` while
    one of its units, not through either, is still within ``CLEAR`` of its lengths of it. The
    door is one unit wide: pushing in beside a unit backing out wedges both against the jambs,
    and friction holds them there. ``pos`` (N, 2), ``length`` (N,) over all units."""
    p, L = pos[w.members], length[w.members]
    wait = np.zeros(len(p), dtype=bool)
    for y in yielding:
        q, Ly = pos[y.members], length[y.members]
        off_y = np.hypot(*(q - y.yield_point).T)
        at_y = float(to_go_at(y, grid, y.yield_point)[0])
        inside = ~y.arrived & ~through(to_go_at(y, grid, q), at_y, off_y, Ly) & (off_y < CLEAR * Ly)
        if inside.any():
            off = np.hypot(*(p - y.yield_point).T)
            at = float(to_go_at(w, grid, y.yield_point)[0])
            wait |= ~through(to_go_at(w, grid, p), at, off, L) & (off < DOOR_REACH * L)
    return wait


def queue(
    to_go: np.ndarray, at_point: float, off: np.ndarray, length: np.ndarray, arrived: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The queue of a yielding group (arrays (m,)): the members not ``arrived`` nor
    :func:`through` the meeting point (``to_go`` against ``at_point``, world units, and ``off``
    it, the straight distance) are held, each at its own place; the k-th nearest's lies
    ``WAIT_BACK`` + k x ``WAIT_SPACING`` of its ``length`` back from the point along the route
    (one place for all would have the units behind it hold the first one in the door).
    Returns (held (m,) bool, back (m,) world units)."""
    held = ~arrived & ~through(to_go, at_point, off, length)
    rank = np.empty(len(off), dtype=np.intp)
    rank[np.argsort(np.where(held, off, np.inf), kind="stable")] = np.arange(len(off))
    return held, (WAIT_BACK + WAIT_SPACING * rank) * length


def route_direction(
    path: np.ndarray, point: np.ndarray, cells: int = DIRECTION_CELLS
) -> np.ndarray:
    """(2,) unit vector: the way ``path`` (K, 2) comes to its point nearest ``point`` (2,), from
    ``cells`` points before it (from it to as many after, at the path's start): the direction
    the yielding group's queue lines up along (a route's cells jog in a door; one cell's step
    can be askew)."""
    k = int(np.argmin(np.hypot(*(path - point).T)))
    d = path[k] - path[max(k - cells, 0)] if k > 0 else path[min(cells, len(path) - 1)] - path[0]
    n = float(np.hypot(*d))
    return d / n if n > 1e-9 else np.array([1.0, 0.0])


def wait_places(
    point: np.ndarray, direction: np.ndarray, back: np.ndarray, aside: np.ndarray, free
) -> np.ndarray:
    """(m, 2) the places a yielding group's members wait at: ``back`` (m,) world units back from
    the meeting ``point`` (2,) along the route's ``direction`` (2,) (unit vector, toward the
    point) and ``aside`` (m,) world units to its right (negative: to its left), beside the way
    the other group comes out of the door, or half that aside, or on the route, whichever first
    is in line of sight from the point (``free``: ``Grid.sees``): a unit waiting on the route
    stands in the way of the units it waits for."""
    right = np.array([direction[1], -direction[0]])
    on_route = point[None, :] - back[:, None] * direction[None, :]
    out = on_route.copy()
    todo = np.ones(len(back), dtype=bool)
    for share in (1.0, 0.5):  # the farther aside that is in sight wins
        rows = np.flatnonzero(todo)
        if len(rows) == 0:
            break
        cand = on_route[rows] + (share * aside[rows])[:, None] * right[None, :]
        ok = free(np.repeat(point[None, :], len(rows), axis=0), cand)
        out[rows[ok]] = cand[ok]
        todo[rows[ok]] = False
    return out


def short_of(place: np.ndarray, pos: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """(m,) world units each unit at ``pos`` (m, 2) is short of its ``place`` (m, 2): the
    straight distance while the place is still ahead along the route's ``direction`` (2,),
    else minus how far past it the unit is along the route (nearer the door)."""
    to = place - pos
    along = to @ direction
    return np.where(along >= 0.0, np.hypot(*to.T), along)


def yield_throttle(
    short: np.ndarray,
    held: np.ndarray,
    length: np.ndarray,
    group_speed: float,
    cruise: np.ndarray,
    v_fwd: np.ndarray,
    accel: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The throttle of the ``held`` members of a yielding group (arrays (m,)), each ``short``
    world units short of its place (:func:`short_of`). More than half a ``length`` past it
    (nearer the door) a unit backs out at ``BACK_THROTTLE``; short of it its wanted speed is
    the one it can still stop from at ``BRAKE_SHARE`` of its full ``accel`` (thrust / mass,
    world units / s^2) before its place, at most ``group_speed`` (braking like
    :func:`~.rules.cruise.cruise_throttle` on the forward speed ``v_fwd`` against ``cruise``,
    and at full reverse while its forward speed is above that curve); up to half a length
    past its place it stands (no dithering on it). Returns (backing (m,) bool, throttle (m,),
    unclipped)."""
    stop = np.sqrt(2.0 * BRAKE_SHARE * accel * np.maximum(short, 0.0))
    desired = np.minimum(group_speed, stop)
    brake = (desired / cruise) ** 2 + BRAKE_GAIN * (desired - v_fwd) / cruise
    # above the stopping curve, full reverse: the curve plans on BRAKE_SHARE of it, and the
    # gain alone asked far less (-0.21 at the group's speed 15 world units short) and ran the
    # unit on into the door it yields
    brake = np.where(v_fwd > stop, -1.0, brake)
    backing = held & (short < -0.5 * length)
    return backing, np.where(backing, BACK_THROTTLE, brake)


def back_target(
    path: np.ndarray,
    path_index: np.ndarray,
    pos: np.ndarray,
    lookahead: int,
    aside: np.ndarray,
    sees,
) -> np.ndarray:
    """(m, 2) the point a unit backing out of a door steers its stern at: ``lookahead`` cells
    back along its group's ``path`` (K, 2) from the nearest of the ``BACK_WINDOW`` cells behind
    its place there (``path_index`` (m,)) to ``pos`` (m, 2), and ``aside`` (m,) world units to
    the right of the path there where that is in line of sight from ``pos`` (``sees``:
    ``Grid.sees``): the way it came, back through the door (straight back from a unit that came
    in askew runs into the wall beside it), and off the other group's way out."""
    window = np.maximum(path_index[:, None] - np.arange(BACK_WINDOW)[None, :], 0)
    d = np.hypot(*(path[window] - pos[:, None, :]).transpose(2, 0, 1))
    near = window[np.arange(len(pos)), np.argmin(d, axis=1)]
    back = np.maximum(near - lookahead, 0)
    along = path[np.minimum(back + 1, len(path) - 1)] - path[back]  # the path's way there
    along = along / np.maximum(np.hypot(*along.T), 1e-9)[:, None]
    right = np.stack([along[:, 1], -along[:, 0]], axis=1)
    target = path[back] + aside[:, None] * right
    return np.where(sees(pos, target)[:, None], target, path[back])


def yielding_members(
    g: Group,
    grid: Grid,
    cells: np.ndarray,
    pos: np.ndarray,
    v_fwd: np.ndarray,
    length: np.ndarray,
    cruise: np.ndarray,
    accel: np.ndarray,
) -> Yielding:
    """The :class:`Yielding` queue of ``g`` for its members standing on ``cells`` (m,) at
    ``pos`` (m, 2) with forward speed ``v_fwd`` (m,), ``length`` (m,), ``cruise`` (m,) and
    ``accel`` (m,) (thrust / mass) (:func:`queue`, :func:`wait_places`,
    :func:`yield_throttle`): each waits ``ASIDE`` of its length to the right of the route, or
    to its left if it comes up more than ``LEFT_OF`` lengths left of it (crossing the way to
    the other side would stand in it)."""
    point = g.yield_point
    at = float(to_go_at(g, grid, point)[0])
    off = np.hypot(*(pos - point).T)
    held, back = queue(g.plain.dist[cells], at, off, length, g.arrived)
    direction = route_direction(g.path, point)
    lateral = (pos - point) @ np.array([direction[1], -direction[0]])  # to the route's right
    aside = np.where(lateral < -LEFT_OF * length, -1.0, 1.0) * ASIDE * length
    places = wait_places(point, direction, back, aside, grid.sees)
    backing, throttle = yield_throttle(
        short_of(places, pos, direction), held, length, g.speed, cruise, v_fwd, accel
    )
    return Yielding(held, backing, throttle, places, aside)


def stern_steer(
    g: Group,
    pos: np.ndarray,
    fwd: np.ndarray,
    left: np.ndarray,
    aside: np.ndarray,
    lookahead: int,
    grid: Grid,
) -> np.ndarray:
    """(m,) the steer in [-``BACK_STEER``, ``BACK_STEER``] that turns the bow of each member of
    ``g`` (at ``pos`` (m, 2), bow along ``fwd`` (m, 2), port ``left`` (m, 2)) away from its
    :func:`back_target` (``aside`` (m,) world units right of the path, negative: left; the side
    it waits on), so that backing it goes there stern first."""
    back_to = back_target(g.path, g.path_index, pos, lookahead, aside, grid.sees)
    return BACK_STEER * seek_steer(pos - back_to, fwd, left)
