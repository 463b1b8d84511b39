"""Doors seen ahead: two groups whose routes cross one narrow way in opposite directions take
turns before they meet in it.

Right of way (:mod:`.right_of_way`) settles a standoff once two groups have met nose to nose in a
door: a second without progress, then the group that gives way backs out of the door while the
other waits for it, and the two tangle again past the door where the yielding group's units come
back too early. A real RTS sees the door coming: when both groups have a unit within
``YIELD_NEAR`` lengths (by route) of the far end of a narrow stretch both their routes run
through the opposite way, the group nearer it goes first and the other waits short of its
entrance (the same yield, begun before anyone is in the door, so nobody backs out), once per
pair of groups.

- :func:`narrow_stretch`: the points of a route with no room for two abreast
  (as :func:`~.right_of_way.squeezed`, across the route at each point), cached per route and
  unit length;
- :func:`shared_door`: where two routes run through the same narrow points the opposite way;
- :func:`foresee_doors`: one tick over all pairs of groups (loops only over groups).
"""

from __future__ import annotations

import numpy as np

from rigidflock.rts.groups import Group
from rigidflock.rts.navigation import Grid
from rigidflock.rts.right_of_way import (
    CLEAR_AHEAD,
    YIELD_NEAR,
    squeezed,
    still_to_come,
    through,
    to_go_at,
)

OPPOSITE = -0.5  # cosine between the two routes' directions: at least 120 degrees apart


def narrow_stretch(g: Group, grid: Grid, length: float) -> tuple[np.ndarray, np.ndarray]:
    """The points of ``g``'s route (indices (k,) into ``g.path``, in route order) squeezed
    across its direction there (no room for two of ``length`` abreast), and the unit directions
    (k, 2). Cached on the group per route and length (a re-route makes a new path array)."""
    cached = g.narrow
    if cached is not None and cached[0] is g.path and cached[1] == length:
        return cached[2], cached[3]
    path = g.path
    if len(path) < 2:  # no direction to be narrow across
        rows, along = np.zeros(0, dtype=np.intp), np.zeros((0, 2))
    else:
        along = np.gradient(path, axis=0)
        along = along / np.maximum(np.hypot(*along.T), 1e-9)[:, None]
        rows = np.flatnonzero(squeezed(grid, path, along, np.full(len(path), length)))
        along = along[rows]
    g.narrow = (path, length, rows, along)
    return rows, along


def shared_door(
    a: Group, b: Group, grid: Grid, la: float, lb: float
) -> tuple[np.ndarray, np.ndarray]:
    """Points of ``a``'s route (indices into ``a.path``) and of ``b``'s (into ``b.path``), both
    narrow for the group's own longest unit (``la``, ``lb``), within one cell of each other and
    run through the opposite way: a door both go through against each other. Empty when there
    is none. Cached on ``a`` per pair of routes."""
    cached = a.doors.get(b.id)
    # paths by identity (a re-route makes a new array; by value, a tuple of arrays will not do)
    if (
        cached is not None
        and cached[0] is a.path
        and cached[1] is b.path
        and cached[2:4] == (la, lb)
    ):
        return cached[4], cached[5]
    ra, da = narrow_stretch(a, grid, la)
    rb, db = narrow_stretch(b, grid, lb)
    if len(ra) and len(rb):
        d = np.hypot(*(a.path[ra][:, None, :] - b.path[rb][None, :, :]).transpose(2, 0, 1))
        hit = (d <= grid.cell) & (da @ db.T < OPPOSITE)
        ra, rb = ra[hit.any(axis=1)], rb[hit.any(axis=0)]
    else:
        ra, rb = ra[:0], rb[:0]
    a.doors[b.id] = (a.path, b.path, la, lb, ra, rb)
    return ra, rb


def _coming(g: Group, grid: Grid, point: np.ndarray, pos: np.ndarray, length) -> np.ndarray:
    """(m,) route distance of each member of ``g`` still to come through ``point`` (2,) to it,
    world units (inf for those through or arrived, and for all when its route does not reach
    the point). ``pos`` (N, 2), ``length`` (N,)."""
    p, L = pos[g.members], length[g.members]
    at = float(to_go_at(g, grid, point)[0])
    if not np.isfinite(at):
        return np.full(len(p), np.inf)
    to_go = to_go_at(g, grid, p)
    done = through(to_go, at, np.hypot(*(p - point).T), L) | g.arrived
    return np.where(done, np.inf, to_go - at)


def foresee_doors(groups: dict, pos: np.ndarray, length: np.ndarray, grid: Grid, tick: int):
    """One tick over all pairs of ``groups`` (id -> :class:`Group`) neither yielding nor seen to
    share a door before: where their routes share one (:func:`shared_door`) and each has a
    member still to come out of its far end within ``YIELD_NEAR`` of its own lengths of it by
    route, the group whose nearest such member is nearer goes first and the other yields (as
    :func:`~.right_of_way.start_yield`) short of the door's entrance on its own side (its
    first point of the stretch), so that its queue forms outside. Only while the yield would
    hold (:func:`~.right_of_way.still_to_come`: the group going first has a unit within reach
    of that entrance), so that it does not end the next tick. ``pos`` (N, 2), ``length`` (N,)
    over all units."""
    live = [g for g in groups.values() if g.path is not None and not g.arrived.all()]
    longest = {g.id: float(length[g.members].max()) for g in live}
    coming = {}
    for i, a in enumerate(live):
        for b in live[i + 1 :]:
            if a.yield_to >= 0 or b.yield_to >= 0 or b.id in a.foreseen:
                continue
            ra, rb = shared_door(a, b, grid, longest[a.id], longest[b.id])
            if len(ra) == 0:
                continue
            entrance = {a.id: a.path[ra[0]], b.id: b.path[rb[0]]}
            # each group's members still to come out of the door's far end, by route (once a
            # tick per group and point: many groups through one door share its few points)
            near = {}
            for g, h in ((a, b), (b, a)):
                key = (g.id, *entrance[h.id])
                if key not in coming:
                    d = _coming(g, grid, entrance[h.id], pos, length)
                    coming[key] = (bool((d < YIELD_NEAR * length[g.members]).any()), float(d.min()))
                near[g.id] = coming[key]
            if not (near[a.id][0] and near[b.id][0]):
                continue
            first, second = (a, b) if (near[a.id][1], a.id) <= (near[b.id][1], b.id) else (b, a)
            point = np.array(entrance[second.id], dtype=float)
            if not still_to_come(first, point, pos, length, grid, CLEAR_AHEAD):
                continue
            second.yield_to, second.yield_point, second.yield_tick = first.id, point, tick
            second.yield_ahead = True
            a.foreseen.add(b.id)
            b.foreseen.add(a.id)
