"""Formation slots: where a group's units stand at the goal, and which unit takes which slot.

The slots are a square lattice of ``spacing`` around the goal, aligned with the direction of
travel: the reachable free lattice points nearest the goal, so the formation is a compact block,
less those on the group's way in (a door or gap it comes through: a unit standing on its slot
there would shut it for the rest), and in sight of the goal (not behind the wall of the gap it
comes through, among the crowd still to come; a closer lattice where there is no room).
When the order is given each unit takes the slot nearest to it overall (the assignment of least
total distance, :mod:`.assignment`), so that paths cross little. On the way the slots of
units not yet on theirs are dealt again (:func:`deal_slots`), and a unit standing on its slot
in a late one's way moves up into the late one's slot (:func:`move_up`). Positions are world
units.
"""

from __future__ import annotations

import itertools
import math

import numba as nb
import numpy as np
from scipy.spatial import cKDTree

from rigidflock.model.steering.neighbours import cross_pairs
from rigidflock.rts.assignment import least_cost_columns
from rigidflock.rts.navigation import Field, Grid
from rigidflock.scene.budget import DENSE_SLOT_UNITS

WAY_CLEAR = 1.25  # lattice spacings: no slot this near the group's way in (a door, a gap)
# shares of the spacing tried in turn for a formation in sight of the goal: slots behind a wall
# (the far side of the gap a crowd comes through) stand among the crowd still to come
SQUEEZE = (1.0, 0.9, 0.8)
# units: above this many, slots are dealt within blocks of this many (:func:`assign_nearest`);
# declared with its memory in the scene budget, which counts the dense deal
DENSE_MOST = DENSE_SLOT_UNITS
MOVE_UP_REACH = 1.5  # unit lengths: an arrived unit this near in front of a blocked one moves up
MOVE_UP_CONE = 0.5  # cosine: "in front" is within 60 degrees of the blocked unit's heading
MOVE_UP_SLOW = 0.25  # share of the group's speed: below it a unit on its way is blocked


def off_the_way(pts: np.ndarray, way: np.ndarray, goal: np.ndarray, spacing: float) -> np.ndarray:
    """(P,) bool: lattice points ``pts`` (P, 2) farther than ``WAY_CLEAR`` x ``spacing`` from
    every point of the group's route ``way`` (K, 2) that is itself that far from ``goal`` (2,).
    A unit standing on its slot in the door it came through holds the door shut for the rest;
    the formation's centre, where the route ends, keeps its slots."""
    clear = WAY_CLEAR * spacing
    way = way[np.hypot(*(way - goal).T) > clear]
    if len(way) == 0 or len(pts) == 0:
        return np.ones(len(pts), dtype=bool)
    # the nearest route point by a k-d tree; its distance is the exact one's to a few ulps,
    # so only the points within a hair of ``clear`` are measured as the definition says
    # (every point against every route point was 0.1 s of a 5,000-unit order's tick)
    near, _ = cKDTree(way).query(pts, distance_upper_bound=clear * (1.0 + 1e-6))
    ok = near > clear * (1.0 + 1e-9)
    unsure = np.flatnonzero(~ok & (near >= clear * (1.0 - 1e-9)))
    if len(unsure):
        ok[unsure] = _off_the_way_exact(pts[unsure], way, clear)
    return ok


def _off_the_way_exact(pts: np.ndarray, way: np.ndarray, clear: float) -> np.ndarray:
    """(P,) bool: ``pts`` (P, 2) farther than ``clear`` from every point of ``way`` (K, 2)."""
    ok = np.ones(len(pts), dtype=bool)
    for lo in range(0, len(way), 64):  # (P, 64) distances at a time
        d = np.hypot(*(pts[:, None, :] - way[None, lo : lo + 64, :]).transpose(2, 0, 1))
        ok &= d.min(axis=1) > clear
    return ok


def formation_slots(
    grid: Grid,
    field: Field,
    goal: np.ndarray,
    facing: np.ndarray,
    count: int,
    spacing: float,
    way: np.ndarray | None = None,
    reach: float = 0.0,
) -> np.ndarray:
    """``count`` distinct slots (count, 2) around ``goal`` on a lattice of ``spacing`` aligned
        with ``facing`` (the direction of travel): the reachable free lattice points nearest the
        goal, so the formation is a compact block whose radius grows like sqrt(count). ``way``:
        optional route (K, 2) the group comes by; lattice points on it are left free
        (:func:`off_the_way`). Only points in sight of the goal (:func:`in_sight`), on a lattice
        ``SQUEEZE``-d closer if there are not ``count`` of them; failing that, any, and with fewer
    free points than units, the points shared (the goal when none is free). ``reach``
        (world units, half the longest unit's length): the points that far from a slot along and
        across the lattice have room too, so a unit standing on it does not touch a wall or the
        world's edge (a slot in a cell beside the edge otherwise stood its unit pinned against it
        for the rest of the run)."""
    goal = np.asarray(goal, dtype=float)
    f, _ = _frame(np.asarray(facing, dtype=float))
    # in sight of the goal, closer where there is no room at ``spacing``; failing that, anywhere
    for step, sight in [(s, True) for s in SQUEEZE] + [(1.0, False)]:
        pts = _lattice(grid, field, goal, f, count, spacing * step, way, sight, reach)
        if len(pts) >= count:
            return pts[:count]
    # No room for every unit (units as long as the world is wide, a field of obstacles over the
    # goal): the units past the free points share them, nearest first, and the goal itself
    # serves when no point is free; they then crowd there, as units with no room would.
    if len(pts) == 0:
        pts = goal[None, :]
    return pts[np.arange(count) % len(pts)]


def in_sight(grid: Grid, goal: np.ndarray, pts: np.ndarray, spacing: float) -> np.ndarray:
    """(P,) bool: ``pts`` (P, 2) in line of sight of ``goal`` (2,) and of the points ``spacing``
    to either side of it (across the line): not only through a gap the group comes by."""
    d = pts - goal
    n = np.stack([-d[:, 1], d[:, 0]], axis=1) / np.maximum(np.hypot(*d.T), 1e-9)[:, None]
    ok = grid.sees(np.broadcast_to(goal, pts.shape), pts)
    for o in (-spacing, spacing):
        ok[ok] &= grid.sees(goal + o * n[ok], pts[ok])
    return ok


def has_room(grid: Grid, pts: np.ndarray, facing: np.ndarray, reach: float) -> np.ndarray:
    """(P,) bool: slots ``pts`` (P, 2) whose cell has the route clearance, and the points
    ``reach`` (world units) from them along and across ``facing`` (2,), a unit vector, too: the
    ends of the footprint of the unit standing there."""
    ok = grid.is_roomy(pts)
    if reach > 0:
        side = np.array([-facing[1], facing[0]])
        for off in (facing, -facing, side, -side):
            ok[ok] &= grid.is_roomy(pts[ok] + reach * off)
    return ok


def _lattice(grid, field, goal, f, count, spacing, way, sight, reach) -> np.ndarray:
    """The free lattice points of :func:`formation_slots` nearest ``goal`` first (at least
    ``count`` of them when there are), only those in line of sight of it when ``sight``, each
    with room ``reach`` along and across the lattice."""
    side = np.array([-f[1], f[0]])
    radius = 3
    while True:
        k = np.arange(-radius, radius + 1)
        a, b = np.meshgrid(k, k)
        pts = goal + spacing * (a.ravel()[:, None] * f + b.ravel()[:, None] * side)
        ok = has_room(grid, pts, f, reach)
        ok[ok] &= np.isfinite(field.dist[grid.cell_of(pts[ok])])
        if way is not None and len(way):
            ok[ok] &= off_the_way(pts[ok], way, goal, spacing)
        last = radius > 4 * np.sqrt(count) + 8
        # too few before the sight test: too few after it, so the lattice grows unseen
        if not last and ok.sum() < count:
            radius *= 2
            continue
        if sight and ok.any():
            ok[ok] &= in_sight(grid, goal, pts[ok], spacing)
        if ok.sum() >= count or last:
            break
        radius *= 2
    pts = pts[ok]
    d = np.hypot(*(pts - goal).T)
    order = np.lexsort((a.ravel()[ok], b.ravel()[ok], d))  # ties broken by lattice position
    return pts[order]


def _frame(facing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The unit vector along ``facing`` (2,) (+x when it has no direction) and its left."""
    norm = float(np.hypot(*facing))
    f = facing / norm if norm > 1e-9 else np.array([1.0, 0.0])
    return f, np.array([-f[1], f[0]])


def _distances(pos: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """(m, m) straight-line distances from the units at ``pos`` (m, 2) to ``slots`` (m, 2)."""
    return np.hypot(*(pos[:, None, :] - slots[None, :, :]).transpose(2, 0, 1))


def assign_nearest(
    pos: np.ndarray, slots: np.ndarray, goal: np.ndarray, facing: np.ndarray
) -> np.ndarray:
    """``slots`` (m, 2) reordered so that row i is unit i's: the assignment of units at ``pos``
    (m, 2) to slots with the least total straight-line distance (:mod:`.assignment`). Above
    ``DENSE_MOST`` units, units and slots are each ranked by depth along ``facing`` (2,) from
    ``goal`` (2,) and cut into blocks of at most ``DENSE_MOST`` (between rows of the slots'
    lattice: :func:`block_edges`); the k-th block of units takes the k-th block of slots by least
    total distance (the rearmost units the rearmost slots), then blocks straddling those
    seams trade (:func:`mend_in_blocks`)."""
    if len(pos) <= DENSE_MOST:
        return slots[least_cost_columns(_distances(pos, slots))]
    units, places = _by_depth(pos, goal, facing), _by_depth(slots, goal, facing)
    edges = block_edges((slots[places] - goal) @ _frame(facing)[0])
    dealt = np.empty_like(slots)
    for a, b in itertools.pairwise(edges):
        who, mine = units[a:b], slots[places[a:b]]
        dealt[who] = mine[least_cost_columns(_distances(pos[who], mine))]

    def cost(rows: np.ndarray, mine: np.ndarray) -> np.ndarray:
        return _distances(pos[rows], mine)

    return mend_in_blocks(dealt, pos, goal, facing, cost, edges)


def mend_in_blocks(dealt, pos, goal, facing, cost, edges=None) -> np.ndarray:
    """``dealt`` (m, 2), the units' slots, re-dealt within blocks of units consecutive by depth
    (:func:`_by_depth`), each block sharing its own slots by least total ``cost(rows, slots)``
    (an (r, r) matrix for those rows of ``pos`` (m, 2)): blocks of at most ``DENSE_MOST`` cut
    at multiples of it, then blocks straddling those seams (from the middle of one block to the
    middle of the next), so a unit whose slot lies across a seam can still trade.
    Given ``edges`` (the seams a first deal cut at, 0 first and m last), only the straddling
    blocks, over those. The dense matrices stay within ``DENSE_MOST`` squared. Returns
    ``dealt``, changed in place."""
    order = _by_depth(pos, goal, facing)
    m = len(order)
    blocks = []
    if edges is None:
        edges = [*range(0, m, DENSE_MOST), m]
        blocks = list(itertools.pairwise(edges))
    mids = [(a + b) // 2 for a, b in itertools.pairwise(edges)]  # each block's middle
    for a, b in [*blocks, *itertools.pairwise(mids)]:
        who = order[a:b]
        mine = dealt[who]
        dealt[who] = mine[least_cost_columns(cost(who, mine))]
    return dealt


def block_edges(depth: np.ndarray) -> list[int]:
    """Block edges over ``depth`` (m,), sorted: 0 first, m last, each block of
    ceil(``DENSE_MOST`` / 2) to ``DENSE_MOST`` rows but the last (which may be smaller), cut at
    the widest step between neighbours in each window (between two rows of the slots' lattice,
    so no row is split between blocks when one fits)."""
    m, most = len(depth), DENSE_MOST
    edges = [0]
    while edges[-1] + most < m:
        lo = edges[-1] + (most + 1) // 2
        edges.append(lo + int(np.argmax(np.diff(depth[lo - 1 : edges[-1] + most + 1]))))
    return [*edges, m]


def _by_depth(p: np.ndarray, goal: np.ndarray, facing: np.ndarray) -> np.ndarray:
    """Rows of ``p`` (m, 2) from the rearmost along ``facing`` (2,) from ``goal`` (2,), ties by
    the offset across it."""
    f, side = _frame(facing)
    rel = p - goal
    return np.lexsort((rel @ side, rel @ f))


@nb.njit(cache=True)
def slot_cost(pos, cos_a, sin_a, behind, slots, out):
    """``out`` (m, k): the cost of each unit at ``pos`` (m, 2) taking each of ``slots`` (k, 2),
    world units: the straight distance, plus ``behind`` (m,) when the slot lies behind the unit
    (its heading's ``cos_a``, ``sin_a`` (m,)). Compiled: a 1,000-unit deal built it in numpy
    from (m, k, 2) temporaries, ~70 ms every half second; the same floating-point operations,
    so the same deal."""
    for r in range(pos.shape[0]):
        for c in range(slots.shape[0]):
            ox = slots[c, 0] - pos[r, 0]
            oy = slots[c, 1] - pos[r, 1]
            d = math.hypot(ox, oy)
            out[r, c] = d + behind[r] if ox * cos_a[r] + oy * sin_a[r] < 0 else d
    return out


DEAL_BLOCK = 255  # units: the slots of units at the formation are dealt within blocks this big (the
# exact method's largest, :mod:`.assignment`: ~10 ms for a crowd of 255; the auction took 60-100 ms
# for 1,000 at once)


def deal_blocks(k: int, cycle: int) -> list[tuple[int, int]]:
    """The blocks (start, stop) of ``k`` units ranked by depth that a deal shares slots within:
    ``DEAL_BLOCK`` units each, cut half a block later on odd ``cycle`` s (so a unit whose best
    slot lies across one deal's cut can trade at the next)."""
    if k <= DEAL_BLOCK:
        return [(0, k)] if k else []
    off = (cycle % 2) * (DEAL_BLOCK // 2)
    edges = sorted({0, *range(off, k, DEAL_BLOCK), k})
    return list(itertools.pairwise(edges))


def blocks_due(count: int, phase: int | None, period: int) -> range:
    """Which of ``count`` blocks a deal spread over ``period`` ticks shares at ``phase`` (its
    tick within the period): block j at phase j x period // count, so each tick deals at most
    ceil(count / period) blocks; None: all of them now."""
    if phase is None:
        return range(count)
    lo = -(-phase * count // period)  # the first j with j * period // count >= phase
    hi = -(-(phase + 1) * count // period)
    return range(lo, min(hi, count))


def deal_slots(
    slots: np.ndarray,
    goal: np.ndarray,
    facing: np.ndarray,
    arrived: np.ndarray,
    close: np.ndarray,
    pos: np.ndarray,
    angle: np.ndarray,
    to_go: np.ndarray,
    length: np.ndarray,
    phase: int | None = None,
    period: int = 1,
    cycle: int = 0,
) -> None:
    """Re-deal, in place, the ``slots`` (m, 2) of the members not yet on theirs (``arrived``
    (m,) False). Those still far from the formation get the deepest slots (farthest along the
    unit vector ``facing`` (2,) from ``goal`` (2,)) in order of ``to_go`` (m,), world units of
    route left, so the first to arrive do not block the way of the rest. Those ``close`` (m,)
    (at the formation) share theirs by least total distance from ``pos`` (m, 2)
    (:mod:`.assignment`), a slot behind a unit (by its heading ``angle`` (m,), radians) costing
    two of its lengths (m,) more, within blocks of ``DEAL_BLOCK`` ranked by depth
    (:func:`deal_blocks` of the ``cycle``).

    Spread over ticks: with ``phase`` (0 to ``period`` - 1, the tick within the deal's period)
    only the far units' deal at phase 0 and the blocks due at this phase
    (:func:`blocks_due`), so no tick deals more than ceil(blocks / period) blocks (a
    1,000-unit crowd dealt at once by the auction took 60-100 ms of one tick, twice a second);
    None: the whole deal now."""
    far = ~arrived & ~close
    if (phase is None or phase == 0) and far.sum() >= 2:
        who = np.flatnonzero(far)
        mine = slots[who]
        depth = (mine - goal) @ facing
        by_depth = np.lexsort((mine[:, 1], mine[:, 0], -depth))
        by_route = who[np.lexsort((who, to_go[who]))]
        slots[by_route] = mine[by_depth]
    near = ~arrived & close
    if near.sum() < 2:
        return
    who = np.flatnonzero(near)
    blocks = deal_blocks(len(who), cycle)
    due = blocks_due(len(blocks), phase, period)
    if len(due) == 0:
        return
    who = who[_by_depth(pos[who], goal, facing)]
    for j in due:
        a, b = blocks[j]
        rows = who[a:b]
        if len(rows) < 2:
            continue
        mine = slots[rows]
        ang = angle[rows]
        out = np.empty((len(rows), len(rows)))
        cost = slot_cost(pos[rows], np.cos(ang), np.sin(ang), 2.0 * length[rows], mine, out)
        slots[rows] = mine[least_cost_columns(cost)]


def deal_by_route(
    slots: np.ndarray, goal: np.ndarray, facing: np.ndarray, to_go: np.ndarray
) -> np.ndarray:
    """``slots`` (m, 2) reordered so that the units with least route ``to_go`` (m,) to go take
    the deepest (farthest along ``facing`` (2,) from ``goal`` (2,)): the far units' deal of
    :func:`deal_slots` for every unit, an order's first deal (sorting, not an assignment: the
    units at the formation share theirs by distance at the deals that follow)."""
    depth = (slots - goal) @ facing
    by_depth = np.lexsort((slots[:, 1], slots[:, 0], -depth))
    by_route = np.lexsort((np.arange(len(to_go)), to_go))
    out = np.empty_like(slots)
    out[by_route] = slots[by_depth]
    return out


def move_up(
    slots: np.ndarray,
    arrived: np.ndarray,
    pos: np.ndarray,
    fwd: np.ndarray,
    speed: np.ndarray,
    length: np.ndarray,
    group_speed: float,
) -> np.ndarray:
    """Swap, in place, the slot of a blocked late unit with that of the standing unit in front
    of it, which moves up into the late one's slot, no longer ``arrived``.

    Blocked: not ``arrived`` (m,) bool, slower than ``MOVE_UP_SLOW`` x ``group_speed`` (world
    units/s), with an arrived unit within ``MOVE_UP_REACH`` of its lengths (m,) in front of its
    bow (``fwd`` (m, 2), within ``MOVE_UP_CONE``) that stands nearer its slot than it does.
    Why: a late unit's slot can lie among units already standing; driving through them it
    pushed against one standing on its own slot (the 1,000-unit bottleneck: 8 s at full
    throttle, 3 world units behind it); a queue moves up instead. ``slots`` (m, 2) and ``pos``
    (m, 2) world units, ``speed`` (m,) world units/s. Returns the rows (int) no longer
    arrived."""
    late = np.flatnonzero(~arrived & (speed < MOVE_UP_SLOW * group_speed))
    standing = np.flatnonzero(arrived)
    if len(late) == 0 or len(standing) == 0:
        return standing[:0]
    r = MOVE_UP_REACH * float(length.max())
    i, j, d = cross_pairs(pos[late], pos[standing], r)
    a, b = late[i], standing[j]
    off = pos[b] - pos[a]
    ok = (
        (d > 0.0)
        & (d < MOVE_UP_REACH * length[a])
        & (np.einsum("ij,ij->i", off, fwd[a]) > MOVE_UP_CONE * d)
        & (np.hypot(*(slots[a] - pos[b]).T) < np.hypot(*(slots[a] - pos[a]).T))
    )
    a, b, d = a[ok], b[ok], d[ok]
    order = np.argsort(d, kind="stable")
    a, b = a[order], b[order]
    # nearest first, each unit in one swap: each late unit keeps its nearest pair, then each
    # standing unit its nearest late one (not a full matching: a late unit whose nearest
    # partner went to a nearer one waits for the next deal, even with another partner free)
    _, first_a = np.unique(a, return_index=True)
    keep = np.zeros(len(a), dtype=bool)
    keep[first_a] = True
    a, b = a[keep], b[keep]
    _, first_b = np.unique(b, return_index=True)
    a, b = a[first_b], b[first_b]
    slots[a], slots[b] = slots[b], slots[a]  # fancy indexing reads copies first
    arrived[b] = False
    return b
