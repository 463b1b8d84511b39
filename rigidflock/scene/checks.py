"""Geometry cross-checks of a scene: points and discs against the world, the explicit obstacles,
walls and buildings (world units throughout).

- A spawn disc must lie inside the world. An explicit obstacle overlapping a spawn disc is a
  warning (the simulation re-draws spawn points that land inside obstacles); one covering the
  whole disc is an error.
- Explicit spawn positions and the player position closer to an obstacle's centre than its radius
  plus half the unit's length are errors; a player waypoint inside an obstacle is a warning.
- ``obstacle_field`` with ``count > 0`` is an error when ``2 * margin`` >= a world side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from rigidflock.scene.errors import Ctx, point_text, world_text
from rigidflock.scene.geometry import polygon_distance, polygons_overlap, segment_distance
from rigidflock.scene.specs import BuildingSpec, ObstacleFieldSpec, ObstacleSpec, Vec2, WallSpec


@dataclass
class Geo:
    """The shapes read so far, each with its field path, for the checks of later tables."""

    size: Vec2 | None = None  # None when world.size is invalid (size checks are skipped)
    obstacles: list[tuple[str, ObstacleSpec]] = field(default_factory=list)  # (path, spec)
    walls: list[tuple[str, WallSpec]] = field(default_factory=list)
    buildings: list[tuple[str, BuildingSpec]] = field(default_factory=list)
    spawn_points: list[Vec2] | None = None  # explicit spawn positions, when every group has them
    # the bounding box (x0, y0, x1, y1) of each of ``buildings``, made as they are checked
    building_boxes: list[tuple[float, float, float, float]] = field(default_factory=list)


def check_in_world(ctx: Ctx, geo: Geo, point: Vec2, path: str) -> None:
    size = geo.size
    if size is not None and not (0.0 <= point[0] <= size[0] and 0.0 <= point[1] <= size[1]):
        ctx.error(path, f"{point_text(point)} is outside the world {world_text(size)}")


def blocked_by(geo: Geo, point: Vec2, margin: float = 0.0) -> str | None:
    """The path of the wall, building or obstacle that covers ``point`` (or comes within
    ``margin`` of it), if any."""
    p = np.asarray([point], dtype=float)
    for path, w in geo.walls:
        if segment_distance(p, w.start, w.end)[0] < w.thickness / 2 + margin:
            return path
    for path, b in geo.buildings:
        if polygon_distance(p, np.asarray(b.polygon))[0] < margin:
            return path
    for path, ob in geo.obstacles:
        if math.dist(point, ob.center) < ob.radius + margin:
            return path
    return None


def check_unit_place(ctx: Ctx, geo: Geo, point: Vec2, path: str, length: float) -> None:
    """A unit placed at ``point``: inside the world and clear of every obstacle, wall and
    building."""
    check_in_world(ctx, geo, point, path)
    if geo.walls or geo.buildings:
        blocker = blocked_by(geo, point, margin=length / 2)
        if blocker is not None and not blocker.startswith("obstacles"):
            ctx.error(path, f"{point_text(point)} is inside {blocker} (or within length/2)")
    for ob_path, ob in geo.obstacles:
        clearance = ob.radius + length / 2
        if math.dist(point, ob.center) < clearance:
            ctx.error(
                path,
                f"{point_text(point)} is inside {ob_path} (closer than radius + length/2 = "
                f"{clearance:g} to its centre {point_text(ob.center)})",
            )


def check_waypoint(ctx: Ctx, geo: Geo, point: Vec2, path: str) -> None:
    """A player waypoint: inside the world; inside an obstacle is only a warning."""
    check_in_world(ctx, geo, point, path)
    for ob_path, ob in geo.obstacles:
        if math.dist(point, ob.center) < ob.radius:
            ctx.warn(path, f"{point_text(point)} is inside {ob_path}; the player cannot reach it")


def check_spawn_disc(ctx: Ctx, geo: Geo, path: str, center: Vec2 | None, r: float) -> None:
    if center is None:
        if geo.size is None:
            return
        center = (geo.size[0] / 2, geo.size[1] / 2)
    size = geo.size
    if size is not None and not (
        center[0] - r >= 0
        and center[1] - r >= 0
        and center[0] + r <= size[0]
        and center[1] + r <= size[1]
    ):
        ctx.error(
            path,
            f"disc (centre {point_text(center)}, radius {r:g}) extends outside the world "
            f"{world_text(size)}",
        )
    for ob_path, ob in geo.obstacles:
        d = math.dist(center, ob.center)
        if d + r <= ob.radius:
            ctx.error(path, f"disc lies entirely inside {ob_path}")
        elif d < r + ob.radius:
            group = path.removesuffix(".spawn")
            ctx.warn(
                ob_path, f"overlaps the spawn disc of {group}; spawn points inside it are re-drawn"
            )


def check_field_margin(ctx: Ctx, geo: Geo, spec: ObstacleFieldSpec) -> None:
    size = geo.size
    if size is not None and spec.count > 0 and 2 * spec.margin >= min(size):
        ctx.error(
            "obstacle_field.margin",
            f"2 x margin = {2 * spec.margin:g} leaves no room for obstacles in the world "
            f"{world_text(size)}",
        )


def _box(polygon) -> tuple[float, float, float, float]:
    p = np.asarray(polygon, dtype=float)
    (x0, y0), (x1, y1) = p.min(axis=0), p.max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)


def check_building_overlaps(ctx: Ctx, geo: Geo, path: str, b: BuildingSpec) -> None:
    """An error naming the first building read so far that ``b`` overlaps (one a building:
    1,000 copies of one building are 999 lines, not half a million). Only the buildings whose
    bounding box meets ``b``'s are tested corner by corner: 1,000 buildings (the most) are half
    a million pairs, which the separating-axis test alone would take half a minute over."""
    boxes = geo.building_boxes
    boxes.extend(_box(other.polygon) for _, other in geo.buildings[len(boxes) :])
    if not boxes:
        return
    x0, y0, x1, y1 = _box(b.polygon)
    lo_x, lo_y, hi_x, hi_y = np.asarray(boxes[: len(geo.buildings)]).T
    near = np.flatnonzero((lo_x < x1) & (x0 < hi_x) & (lo_y < y1) & (y0 < hi_y))
    poly = np.asarray(b.polygon)
    for k in near:
        other_path, other = geo.buildings[k]
        if polygons_overlap(poly, np.asarray(other.polygon)):
            ctx.error(path, f"overlaps {other_path}")
            return
