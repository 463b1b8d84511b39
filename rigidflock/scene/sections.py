"""Readers of the flocking tables: world, physics, rules, obstacles, obstacle_field, groups (with
their spawn) and player (with its script). Plain keys go through :func:`read_fields`; what stays
here is the order of messages and the checks that need more than one key."""

from __future__ import annotations

from rigidflock.scene.checks import (
    Geo,
    check_field_margin,
    check_in_world,
    check_spawn_disc,
    check_unit_place,
    check_waypoint,
)
from rigidflock.scene.declarations import file_keys, key_of
from rigidflock.scene.errors import Ctx, desc
from rigidflock.scene.spec_reader import (
    MISSING,
    array_of_tables,
    check_keys,
    read_fields,
    read_spec,
    sub_table,
)
from rigidflock.scene.specs import (
    GroupSpec,
    ObstacleFieldSpec,
    ObstacleSpec,
    PhysicsSpec,
    PlayerSpec,
    RulesSpec,
    ScriptEntry,
    SpawnSpec,
    WorldSpec,
)
from rigidflock.scene.values import as_points, too_many


def read_world(ctx: Ctx, data: dict) -> tuple[WorldSpec, bool]:
    """The world and whether its size is valid (size-dependent checks are skipped otherwise)."""
    t = sub_table(ctx, data, "world", "")
    if t is None:
        return WorldSpec(), "world" not in data
    check_keys(ctx, t, file_keys(WorldSpec), "world")
    values, failed = read_fields(ctx, t, WorldSpec, "world")
    world = WorldSpec(**values)
    late = world.neighbour_ticks
    if late is not None and late < world.reaction_ticks:  # neighbours newer than the decision
        ctx.error(
            "world.neighbour_ticks",
            f"must be at least world.reaction_ticks ({world.reaction_ticks}), "
            f"got {world.neighbour_ticks}",
        )
    return world, "size" not in failed


def read_physics(ctx: Ctx, data: dict) -> PhysicsSpec:
    return read_spec(ctx, data, "physics", "", PhysicsSpec, "angular_damping")


def read_rules(ctx: Ctx, data: dict) -> RulesSpec:
    return read_spec(ctx, data, "rules", "", RulesSpec)


def read_obstacles(ctx: Ctx, data: dict, geo: Geo) -> tuple[ObstacleSpec, ...]:
    """Explicit obstacles; the well-formed ones are also added to ``geo`` under their own path."""
    for path, t in array_of_tables(ctx, data, "obstacles"):
        check_keys(ctx, t, file_keys(ObstacleSpec), path)
        mark = ctx.mark()
        values, _ = read_fields(ctx, t, ObstacleSpec, path)
        if ctx.ok_since(mark):
            check_in_world(ctx, geo, values["center"], f"{path}.center")
            geo.obstacles.append((path, ObstacleSpec(**values)))
    return tuple(ob for _, ob in geo.obstacles)


def read_obstacle_field(ctx: Ctx, data: dict, geo: Geo) -> ObstacleFieldSpec | None:
    t = sub_table(ctx, data, "obstacle_field", "")
    if t is None:
        return None
    check_keys(ctx, t, file_keys(ObstacleFieldSpec), "obstacle_field")
    spec = ObstacleFieldSpec(**read_fields(ctx, t, ObstacleFieldSpec, "obstacle_field")[0])
    check_field_margin(ctx, geo, spec)
    return spec


def read_spawn(
    ctx: Ctx, group: dict, path: str, count: int | None, length: float, geo: Geo
) -> SpawnSpec:
    t = sub_table(ctx, group, "spawn", path)
    if t is None:
        if "spawn" not in group:
            d = SpawnSpec()
            check_spawn_disc(ctx, geo, f"{path}.spawn", d.center, d.radius)
        return SpawnSpec()
    path = f"{path}.spawn"
    check_keys(ctx, t, file_keys(SpawnSpec), path)
    disc, failed = read_fields(ctx, t, SpawnSpec, path, ("center", "radius"))

    def check(point, point_path: str) -> None:
        check_unit_place(ctx, geo, point, point_path, length)

    positions = None
    if "positions" in t:
        most = key_of(SpawnSpec, "positions").max_items
        positions = as_points(ctx, t["positions"], f"{path}.positions", check, most)
        if "center" in t or "radius" in t:
            ctx.error(path, "give either center/radius (a disc) or positions, not both")
        value = t["positions"]
        if isinstance(value, list) and count is not None and len(value) != count:
            ctx.error(f"{path}.positions", f"has {len(value)} positions but count is {count}")
    elif not failed:
        check_spawn_disc(ctx, geo, path, disc["center"], disc["radius"])
    return SpawnSpec(**disc, positions=positions)


def read_group(ctx: Ctx, t: dict, path: str, geo: Geo) -> GroupSpec:
    check_keys(ctx, t, file_keys(GroupSpec), path)
    head, failed = read_fields(ctx, t, GroupSpec, path, ("count", "family", "role"))
    count = head.pop("count")
    thrust = 15.0 if head["role"] == "intercept" else 10.0
    body_keys = ("length", "width", "mass", "thrust", "max_steering_force")
    body, _ = read_fields(ctx, t, GroupSpec, path, body_keys, defaults={"thrust": thrust})
    count_ok = "count" not in failed
    spawn = read_spawn(ctx, t, path, count if count_ok else None, body["length"], geo)
    tail, _ = read_fields(ctx, t, GroupSpec, path, ("heading",))
    return GroupSpec(count=count if count is not None else 1, **head, **body, spawn=spawn, **tail)


def read_groups(ctx: Ctx, data: dict, geo: Geo) -> tuple[GroupSpec, ...]:
    tables = array_of_tables(ctx, data, "groups")
    value = data.get("groups")
    if value is None or value == []:
        ctx.error("groups", "at least one [[groups]] table is required")
    return tuple(read_group(ctx, t, path, geo) for path, t in tables)


def read_script(ctx: Ctx, player: dict, path: str) -> tuple[ScriptEntry, ...]:
    value = player.get("script", MISSING)
    if value is MISSING:
        return ()
    path = f"{path}.script"
    if not isinstance(value, list):
        ctx.error(path, f"must be an array of tables {{tick, throttle, steer}}, got {desc(value)}")
        return ()
    if too_many(ctx, value, path, key_of(PlayerSpec, "script").max_items, "entries"):
        return ()
    entries: list[ScriptEntry] = []
    last_tick = None
    for i, item in enumerate(value):
        p = f"{path}[{i}]"
        if not isinstance(item, dict):
            ctx.error(p, f"must be a table {{tick, throttle, steer}}, got {desc(item)}")
            continue
        check_keys(ctx, item, file_keys(ScriptEntry), p)
        tick = read_fields(ctx, item, ScriptEntry, p, ("tick",))[0]["tick"]
        if tick is not None:
            if last_tick is not None and tick <= last_tick:
                ctx.error(
                    f"{p}.tick", f"ticks must be strictly increasing, got {tick} after {last_tick}"
                )
            last_tick = tick
        rest, _ = read_fields(ctx, item, ScriptEntry, p, ("throttle", "steer"))
        entries.append(ScriptEntry(tick=tick if tick is not None else 0, **rest))
    return tuple(entries)


def read_player(ctx: Ctx, data: dict, geo: Geo) -> PlayerSpec | None:
    t = sub_table(ctx, data, "player", "")
    if t is None:
        return None
    p = "player"
    check_keys(ctx, t, file_keys(PlayerSpec), p)
    place, failed = read_fields(ctx, t, PlayerSpec, p, ("position", "length"))
    if "position" not in failed:
        check_unit_place(ctx, geo, place["position"], "player.position", place["length"])
    control = read_fields(ctx, t, PlayerSpec, p, ("control",))[0]["control"]
    waypoints = ()
    if "waypoints" in t:

        def check(point, point_path: str) -> None:
            check_waypoint(ctx, geo, point, point_path)

        most = key_of(PlayerSpec, "waypoints").max_items
        waypoints = as_points(ctx, t["waypoints"], "player.waypoints", check, most) or ()
    script = read_script(ctx, t, p)
    if control == "waypoints" and not t.get("waypoints"):
        ctx.error("player.waypoints", 'control = "waypoints" needs at least one waypoint')
    if control == "script" and not t.get("script"):
        ctx.error("player.script", 'control = "script" needs a non-empty script')
    rest_keys = ("heading", "width", "mass", "thrust", "max_steering_force")
    rest, _ = read_fields(ctx, t, PlayerSpec, p, rest_keys)
    return PlayerSpec(**place, **rest, control=control, waypoints=waypoints, script=script)
