"""RTS selection and placement math for the viewer: pure numpy, no window (testable alone).

The viewer keeps a *selection* (sorted AI unit rows) as its own state; it is not simulation
input. Only what the selection leads to is: a right-click becomes an
:class:`~rigidflock.scene.OrderSpec` (``select = ids``), the ``B`` key a
:class:`~rigidflock.scene.BuildingSpec`, both passed in the next tick's command.

- :func:`pick`: the selectable unit nearest a point, within a radius (a click);
- :func:`in_rect`: the selectable units whose centre is inside a rectangle (a drag);
- :func:`combine`: the new selection (replace, or add with shift);
- :func:`is_click`: press and release close enough to count as a click, not a drag;
- :func:`free_goal`: an order's goal moved out of walls / buildings to the nearest free cell;
- :func:`square`, :func:`placement_problem`: the ``B`` key's building and why it may not go.
"""

from __future__ import annotations

import numpy as np

from rigidflock.scene.geometry import polygon_distance, polygons_overlap

CLICK_PIXELS = 4.0  # a press and release closer than this (screen pixels) is a click


def pick(pos, selectable, point, radius) -> int | None:
    """Row of the selectable unit nearest ``point`` whose distance is within ``radius`` (scalar
    or per unit, world units); None when there is none."""
    pos = np.asarray(pos, float).reshape(-1, 2)
    ok = np.asarray(selectable, bool)
    if not ok.any():
        return None
    d = np.hypot(pos[:, 0] - point[0], pos[:, 1] - point[1])
    r = np.broadcast_to(np.asarray(radius, float), d.shape)
    d = np.where(ok & (d <= r), d, np.inf)
    i = int(np.argmin(d))
    return i if np.isfinite(d[i]) else None


def in_rect(pos, selectable, a, b) -> np.ndarray:
    """Rows of the selectable units whose centre lies in the rectangle with corners ``a`` and
    ``b`` (any two opposite corners, edges included), ascending."""
    pos = np.asarray(pos, float).reshape(-1, 2)
    lo = np.minimum(a, b)
    hi = np.maximum(a, b)
    inside = (pos >= lo).all(axis=1) & (pos <= hi).all(axis=1)
    return np.flatnonzero(inside & np.asarray(selectable, bool))


def combine(current, picked, add: bool) -> np.ndarray:
    """The selection after picking ``picked``: it alone, or (``add``, shift held) joined to
    ``current``. Sorted unique int rows."""
    picked = np.asarray(picked, np.intp).reshape(-1)
    if add:
        picked = np.concatenate([np.asarray(current, np.intp).reshape(-1), picked])
    return np.unique(picked)


def is_click(press, release, tolerance: float = CLICK_PIXELS) -> bool:
    """True when the pointer moved at most ``tolerance`` pixels between press and release."""
    return float(np.hypot(release[0] - press[0], release[1] - press[1])) <= tolerance


def free_goal(grid, goal, size) -> tuple[np.ndarray, bool]:
    """``goal`` clamped into the world and, when it falls on a blocked cell of ``grid`` (a
    :class:`~rigidflock.steering.navigation.Grid`: inside or too close to a wall, building or
    obstacle), moved to the centre of the nearest free cell. Returns (goal, moved)."""
    g = np.clip(np.asarray(goal, float).reshape(2), 0.0, np.asarray(size, float))
    moved = not np.allclose(g, goal)
    if not bool(grid.is_free(g[None, :])[0]):
        cell = grid.cell_of(g[None, :])
        g = np.asarray(grid.centre(cell)[0], float)
        moved = True
    return g, moved


def square(center, side: float) -> np.ndarray:
    """An axis-aligned square of ``side`` centred on ``center``: (4, 2), counter-clockwise."""
    x, y = float(center[0]), float(center[1])
    h = side / 2.0
    return np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]])


def placement_problem(poly, buildings, pos, size, margin: float = 0.0, walls=()) -> str | None:
    """Why the convex polygon ``poly`` cannot be placed, or None when it can: it must lie inside
    the world ``size``, overlap no other building (a list of (K, 2) arrays), no wall
    ((start, end, thickness) triples) and come no closer than ``margin`` to a unit centre."""
    poly = np.asarray(poly, float)
    w, h = float(size[0]), float(size[1])
    if poly[:, 0].min() < 0 or poly[:, 1].min() < 0 or poly[:, 0].max() > w or poly[:, 1].max() > h:
        return "it would stick out of the world"
    for other in buildings:
        if polygons_overlap(poly, np.asarray(other, float)):
            return "it would overlap another building"
    for start, end, thickness in walls:
        if _segment_hits_polygon(poly, np.asarray(start, float), np.asarray(end, float), thickness):
            return "it would overlap a wall"
    pos = np.asarray(pos, float).reshape(-1, 2)
    if len(pos) and (polygon_distance(pos, poly) < margin).any():
        return "it would cover a unit"
    return None


def _segment_hits_polygon(poly, a, b, thickness: float) -> bool:
    """A thick segment a-b overlaps the convex polygon (sampled along the segment)."""
    n = max(2, int(np.ceil(np.hypot(*(b - a)) / max(thickness, 1.0))) + 1)
    t = np.linspace(0.0, 1.0, n)[:, None]
    return bool((polygon_distance(a + t * (b - a), poly) < thickness / 2).any())
