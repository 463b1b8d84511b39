"""The RTS part of a scene: buildings, route finding and formations, move orders and events,
each key declared once with :func:`~rigidflock.scene.declarations.key`.

Lengths are world units, times seconds, ticks of ``world.dt``.
"""

# key() returns a dataclasses.field (its declaration in the metadata); ruff cannot see that.
# ruff: noqa: RUF009

from __future__ import annotations

from dataclasses import dataclass

from rigidflock.scene.declarations import Key, key
from rigidflock.scene.limits import MAX_FACTOR, MAX_POINTS, MAX_SIDE, MAX_TICK, MAX_UNITS

Vec2 = tuple[float, float]

_RECT = Key(kind="rect", help="a rectangle [x0, y0, x1, y1], world units (x1 > x0, y1 > y0)")
_POLYGON = Key(
    kind="points",
    max_items=MAX_POINTS,
    help="corners [[x, y], ...] of a convex polygon, world units",
)


@dataclass(frozen=True)
class BuildingSpec:
    """A static convex polygon, vertices counter-clockwise (``rect = [x0, y0, x1, y1]`` in a
    file becomes its four corners)."""

    polygon: tuple[Vec2, ...] = key(
        kind="points",
        required=True,
        help="corners, counter-clockwise, world units: from rect or polygon (give one)",
        alternatives=(("rect", _RECT), ("polygon", _POLYGON)),
    )


@dataclass(frozen=True)
class NavigationSpec:
    """Route finding and group movement for move orders."""

    cell: float = key(4.0, gt=0, most=MAX_SIDE, help="grid cell size, world units")
    clearance: float | None = key(
        None,
        kind="auto",
        ge=0,
        most=MAX_SIDE,
        help='keep unit centres this far from walls, world units; "auto": 1.25 x half the '
        "widest unit's width (every gap it fits through is routable; routes keep 0.6 x the "
        "longest unit from walls where there is room)",
    )
    seek: float = key(
        2.0, ge=0, most=MAX_FACTOR, help="weight of the pull toward the route, times S"
    )
    lookahead: int = key(
        4, ge=1, most=10_000, help="cells ahead on the route that a unit steers at"
    )
    slot_spacing: float = key(
        2.5, gt=0, most=MAX_FACTOR, help="distance between formation slots, unit lengths"
    )
    arrive_radius: float = key(
        6.0, gt=0, most=MAX_FACTOR, help="units slow down within this many lengths of a slot"
    )
    stuck_seconds: float = key(
        3.0, gt=0, most=1e6, help="seconds without progress before a group re-routes"
    )
    wall_feeler: float = key(
        2.0,
        gt=0,
        most=MAX_FACTOR,
        help="ordered units' feelers reach at most this many unit lengths for the world's "
        "walls (their route keeps off them)",
    )


@dataclass(frozen=True)
class SelectSpec:
    """Which AI units an order takes: one of a family, unit ids, or a rectangle (units whose
    centre is inside [x0, x1] x [y0, y1] when the order is given)."""

    family: str | None = key(None, kind="str", help="the units of this family (give one of three)")
    ids: tuple[int, ...] | None = key(
        None, kind="ids", max_items=MAX_UNITS, help="these unit ids, from 0"
    )
    rect: tuple[float, float, float, float] | None = key(
        None, kind="rect", help="units inside [x0, y0, x1, y1] when the order is given, world units"
    )


@dataclass(frozen=True)
class OrderSpec:
    """Move the selected units to ``goal``; a group forms and arrives in formation."""

    select: SelectSpec = key(
        kind="table", spec=SelectSpec, required=True, help="which units: family, ids or rect"
    )
    goal: Vec2 = key(kind="vec2", required=True, help="where the group goes, world units")
    tick: int = key(
        0, ge=0, most=MAX_TICK, help="tick the order is given (commands give it on their own tick)"
    )


@dataclass(frozen=True)
class EventSpec:
    """Something the scene does at a tick: for now, a building appears."""

    tick: int = key(kind="int", ge=0, most=MAX_TICK, required=True, help="tick the event happens")
    add_building: BuildingSpec = key(
        kind="table", spec=BuildingSpec, required=True, help="a building that appears"
    )
