"""Readers of the RTS tables: walls, buildings, navigation, orders (with their select) and events.
Plain keys go through :func:`read_fields`; the rest is the checks between keys and tables."""

from __future__ import annotations

import numpy as np

from rigidflock.scene.checks import Geo, blocked_by, check_building_overlaps, check_in_world
from rigidflock.scene.declarations import file_keys, key_of
from rigidflock.scene.errors import Ctx, desc, num_text, point_text, suggest
from rigidflock.scene.geometry import ccw, is_convex, rect_polygon
from rigidflock.scene.spec_reader import (
    MISSING,
    array_of_tables,
    check_keys,
    read_fields,
    read_spec,
    sub_table,
)
from rigidflock.scene.specs import (
    BuildingSpec,
    EventSpec,
    NavigationSpec,
    OrderSpec,
    SelectSpec,
    WallSpec,
)
from rigidflock.scene.values import as_points, as_rect, too_many


def read_walls(ctx: Ctx, data: dict, geo: Geo) -> tuple[WallSpec, ...]:
    out = []
    for path, t in array_of_tables(ctx, data, "walls"):
        check_keys(ctx, t, file_keys(WallSpec), path)
        mark = ctx.mark()
        values, _ = read_fields(ctx, t, WallSpec, path)
        if not ctx.ok_since(mark):
            continue
        start, end = values["start"], values["end"]
        check_in_world(ctx, geo, start, f"{path}.start")
        check_in_world(ctx, geo, end, f"{path}.end")
        if start == end:
            ctx.error(path, "start and end are the same point")
        elif ctx.ok_since(mark):
            wall = WallSpec(**values)
            geo.walls.append((path, wall))
            out.append(wall)
    return tuple(out)


def read_building(ctx: Ctx, t: dict, path: str, geo: Geo) -> BuildingSpec | None:
    """One building table: ``rect = [x0, y0, x1, y1]`` or ``polygon = [[x, y], ...]``."""
    check_keys(ctx, t, file_keys(BuildingSpec), path)
    if ("rect" in t) == ("polygon" in t):
        ctx.error(path, "give exactly one of rect = [x0, y0, x1, y1] or polygon = [[x, y], ...]")
        return None
    mark = ctx.mark()
    if "rect" in t:
        rect = as_rect(ctx, t["rect"], f"{path}.rect")
        if rect is None:
            return None
        poly = rect_polygon(*rect)
    else:
        most = dict(key_of(BuildingSpec, "polygon").alternatives)["polygon"].max_items
        points = as_points(ctx, t["polygon"], f"{path}.polygon", max_items=most)
        if not ctx.ok_since(mark) or points is None:
            return None
        poly = np.asarray(points, dtype=float)
        if len(poly) < 3 or not is_convex(poly):
            ctx.error(f"{path}.polygon", "must be a convex polygon of at least 3 corners")
            return None
        poly = ccw(poly)
    for k, corner in enumerate(poly):
        check_in_world(ctx, geo, (float(corner[0]), float(corner[1])), f"{path} corner {k}")
    if not ctx.ok_since(mark):
        return None
    return BuildingSpec(polygon=tuple((float(x), float(y)) for x, y in poly))


def read_buildings(ctx: Ctx, data: dict, geo: Geo) -> tuple[BuildingSpec, ...]:
    out = []
    for path, t in array_of_tables(ctx, data, "buildings"):
        b = read_building(ctx, t, path, geo)
        if b is not None:
            check_building_overlaps(ctx, geo, path, b)
            geo.buildings.append((path, b))
            out.append(b)
    return tuple(out)


def read_navigation(ctx: Ctx, data: dict) -> NavigationSpec:
    return read_spec(ctx, data, "navigation", "", NavigationSpec, "clearance")


def _select_ids(ctx: Ctx, v, p: str, unit_count: int) -> SelectSpec | None:
    if not isinstance(v, list) or not v:
        ctx.error(f"{p}.ids", f"must be a non-empty array of unit ids, got {desc(v)}")
        return None
    if too_many(ctx, v, f"{p}.ids", key_of(SelectSpec, "ids").max_items, "ids"):
        return None
    bad = [x for x in v if isinstance(x, bool) or not isinstance(x, int)]
    if bad:
        ctx.error(f"{p}.ids", f"unit ids are whole numbers, got {desc(bad[0])}")
        return None
    out_of_range = [x for x in v if not 0 <= x < unit_count]
    if out_of_range:
        ctx.error(
            f"{p}.ids", f"no unit {num_text(out_of_range[0])}: ids run from 0 to {unit_count - 1}"
        )
        return None
    return SelectSpec(ids=tuple(sorted(set(v))))


def _select_family(ctx: Ctx, v, p: str, families) -> SelectSpec | None:
    if not isinstance(v, str):
        ctx.error(f"{p}.family", f"must be a string, got {desc(v)}")
        return None
    if v not in families:
        ctx.error(f"{p}.family", f"no group has family {desc(v)}{suggest(v, families)}")
        return None
    return SelectSpec(family=v)


def read_select(ctx: Ctx, t: dict, path: str, families, unit_count: int) -> SelectSpec | None:
    value = t.get("select", MISSING)
    p = f"{path}.select"
    if value is MISSING:
        ctx.error(p, "required: { family = ... }, { ids = [...] } or { rect = [x0, y0, x1, y1] }")
        return None
    if not isinstance(value, dict):
        ctx.error(p, f"must be a table, got {desc(value)}")
        return None
    check_keys(ctx, value, file_keys(SelectSpec), p)
    given = [k for k in ("family", "ids", "rect") if k in value]
    if len(given) != 1:
        ctx.error(p, "give exactly one of family, ids or rect")
        return None
    kind = given[0]
    if kind == "family":
        return _select_family(ctx, value[kind], p, families)
    if kind == "ids":
        return _select_ids(ctx, value[kind], p, unit_count)
    rect = as_rect(ctx, value[kind], f"{p}.rect")
    return None if rect is None else SelectSpec(rect=rect)


def _check_goal(ctx: Ctx, geo: Geo, path: str, order: OrderSpec) -> None:
    goal, select = order.goal, order.select
    check_in_world(ctx, geo, goal, f"{path}.goal")
    blocker = blocked_by(geo, goal)
    if blocker is not None:
        ctx.error(f"{path}.goal", f"{point_text(goal)} is inside {blocker}")
    if select.rect is not None and geo.spawn_points is not None:
        x0, y0, x1, y1 = select.rect
        if order.tick == 0 and not any(
            x0 <= x <= x1 and y0 <= y <= y1 for x, y in geo.spawn_points
        ):
            ctx.error(f"{path}.select.rect", "selects no unit at tick 0 (no spawn position "
                      "lies inside it)")  # fmt: skip


def read_orders(ctx: Ctx, data: dict, geo: Geo, groups) -> tuple[OrderSpec, ...]:
    families = sorted({g.family for g in groups})
    unit_count = sum(g.count for g in groups)
    out = []
    for path, t in array_of_tables(ctx, data, "orders"):
        check_keys(ctx, t, file_keys(OrderSpec), path)
        mark = ctx.mark()
        tick = read_fields(ctx, t, OrderSpec, path, ("tick",))[0]["tick"]
        select = read_select(ctx, t, path, families, unit_count)
        goal = read_fields(ctx, t, OrderSpec, path, ("goal",))[0]["goal"]
        if not ctx.ok_since(mark):
            continue
        order = OrderSpec(select=select, goal=goal, tick=tick)
        _check_goal(ctx, geo, path, order)
        if ctx.ok_since(mark):
            out.append(order)
    return tuple(out)


def read_events(ctx: Ctx, data: dict, geo: Geo) -> tuple[EventSpec, ...]:
    out = []
    for path, t in array_of_tables(ctx, data, "events"):
        check_keys(ctx, t, file_keys(EventSpec), path)
        mark = ctx.mark()
        tick = read_fields(ctx, t, EventSpec, path, ("tick",))[0]["tick"]
        b = sub_table(ctx, t, "add_building", path)
        if b is None:
            if "add_building" not in t:
                ctx.error(f"{path}.add_building", "required")
            continue
        building = read_building(ctx, b, f"{path}.add_building", geo)
        if building is None or not ctx.ok_since(mark):
            continue
        check_building_overlaps(ctx, geo, f"{path}.add_building", building)
        geo.buildings.append((f"{path}.add_building", building))
        out.append(EventSpec(tick=tick, add_building=building))
    return tuple(out)
