"""The frozen dataclasses a scene file becomes, each key declared once with :func:`key`.

Angles in scene files are degrees (``heading``); the dataclasses hold radians. Lengths are world
units, times seconds, forces newtons (the simulator's units).
"""

# key() returns a dataclasses.field (its declaration in the metadata); ruff cannot see that.
# ruff: noqa: RUF009

from __future__ import annotations

from dataclasses import dataclass, field

from rigidflock.scene.declarations import key, not_a_key
from rigidflock.scene.errors import point_text
from rigidflock.scene.limits import (
    MAX_FACTOR,
    MAX_FORCE,
    MAX_MASS,
    MAX_OBSTACLES,
    MAX_POINTS,
    MAX_SEED,
    MAX_SIDE,
    MAX_SIZE,
    MAX_TABLES,
    MAX_TICK,
    MAX_UNITS,
    MIN_DT,
)
from rigidflock.scene.rts_specs import (  # noqa: F401 (the RTS specs, importable from here too)
    BuildingSpec,
    EventSpec,
    NavigationSpec,
    OrderSpec,
    SelectSpec,
)

Vec2 = tuple[float, float]

BOUNDS = ("wrap", "walls", "open")
VIEWS = ("wide", "limited", "narrow")
ROLES = ("chase", "intercept", "none")
CONTROLS = ("keyboard", "waypoints", "script", "none")


def _positive_size(size: Vec2) -> str | None:
    if not (size[0] > 0 and size[1] > 0):
        return f"width and height must be > 0, got {point_text(size)}"
    if max(size) > MAX_SIDE:
        return f"width and height must be <= {MAX_SIDE:g}, got {point_text(size)}"
    return None


def _runnable_dt(dt: float) -> str | None:
    return None if dt >= MIN_DT else f"must be at least {MIN_DT:g} s to run, got {dt!r}"


def _family_name(family: str) -> str | None:
    if not family.strip():
        return "must not be empty"
    if family == "player":
        return '"player" is reserved for the player unit'  # traces name the player so
    return None


@dataclass(frozen=True)
class WorldSpec:
    size: Vec2 = key((800.0, 600.0), check=_positive_size, help="width and height, world units")
    bounds: str = key("wrap", choices=BOUNDS, help="world edges: wrap around, solid walls, or open")
    dt: float = key(0.016666, gt=0, le=1.0, check=_runnable_dt, help="seconds per tick (fixed)")
    substeps: int = key(1, ge=1, most=100, help="pymunk steps per tick")
    reaction_ticks: int = key(
        0,
        ge=0,
        le=1,
        help="ticks from the snapshot the steering rules read to the tick their forces act: 0 "
        "decides before each physics step; 1 decides during it, on a second core, from the "
        "snapshot one tick old (a reaction delay of dt; faster for large crowds)",
    )
    neighbour_ticks: int | None = key(
        None,
        kind="auto_int",
        ge=0,
        le=1,
        help="ticks from the snapshot the flocking rules find each unit's neighbours on to the "
        "tick their forces act, at least reaction_ticks: 1 finds them (and sums cohesion, "
        "alignment, separation, the leader cone and the gap ahead) on the snapshot one tick "
        "old, during the physics step on a second core when there is one, while headings, "
        "obstacles, walls and the chase read the snapshot the rules decide on (only while no "
        "group is under move orders); 0 finds them on the snapshot decided on; "
        '"auto": as reaction_ticks (the same model at any world size; 1 is the faster choice '
        "for large crowds)",
    )


@dataclass(frozen=True)
class PhysicsSpec:
    collisions: bool = key(True, help="units collide with each other and with obstacles")
    drag_coefficient: float = key(
        0.5, ge=0, most=10, runtime=True, help="drag coefficient Cd (no unit)"
    )
    air_density: float = key(
        0.1,
        ge=0,
        most=10,
        runtime=True,
        help="air density rho, kg per cubic world unit (drag = rho Cd L W v^2 / 2)",
    )
    angular_damping: float | None = key(
        None,
        kind="auto",
        ge=0,
        most=MAX_FORCE,
        runtime=True,
        help='turn damping k_w (torque = -k_w omega), newton world-unit seconds; "auto": '
        "m * v_cruise * L / 2 per group",
    )
    elasticity: float = key(0.2, ge=0, most=1, help="bounce of collisions (no unit; 0: none)")
    friction: float = key(0.5, ge=0, most=10, help="friction of collisions (no unit)")
    corners: float = key(
        0.0,
        ge=0,
        le=0.45,
        help="radius of the rounded corners of a unit's collision box, as a share of its "
        "shorter side (the box keeps its length and width; 0: square corners)",
    )


@dataclass(frozen=True)
class RadiusFactor:
    wide: float = key(
        200.0,
        gt=0,
        most=MAX_FACTOR,
        runtime=True,
        help='neighbour radius of view "wide", in unit lengths',
    )
    limited: float = key(
        30.0,
        gt=0,
        most=MAX_FACTOR,
        runtime=True,
        help='neighbour radius of view "limited", in unit lengths',
    )
    narrow: float = key(
        50.0,
        gt=0,
        most=MAX_FACTOR,
        runtime=True,
        help='neighbour radius of view "narrow", in unit lengths',
    )


@dataclass(frozen=True)
class Weights:
    cohesion: float = key(
        1.0, ge=0, most=MAX_FACTOR, runtime=True, help="weight of cohesion (no unit)"
    )
    alignment: float = key(
        1.0, ge=0, most=MAX_FACTOR, runtime=True, help="weight of alignment (no unit)"
    )
    separation: float = key(
        1.0, ge=0, most=MAX_FACTOR, runtime=True, help="weight of separation (no unit)"
    )
    chase: float = key(
        2.0, ge=0, most=MAX_FACTOR, runtime=True, help="weight of chasing the player (no unit)"
    )
    avoidance: float = key(
        1.0, ge=0, most=MAX_FACTOR, runtime=True, help="weight of obstacle avoidance (no unit)"
    )


@dataclass(frozen=True)
class RulesSpec:
    flocking: bool = key(True, runtime=True, help="flocking rules on (a run-time switch)")
    chase: bool = key(True, runtime=True, help="chasing the player on (a run-time switch)")
    avoidance: bool = key(True, runtime=True, help="obstacle avoidance on (a run-time switch)")
    view: str = key(
        "wide", choices=VIEWS, runtime=True, help="field of view of the units (a run-time switch)"
    )
    steering_force: float = key(
        20.0, ge=0, most=MAX_FORCE, runtime=True, help="steering force S, newtons"
    )
    radius_factor: RadiusFactor = key(
        default_factory=RadiusFactor,
        runtime=True,
        help="neighbour radius per view, in unit lengths",
    )
    separation_factor: float = key(
        5.0, gt=0, most=MAX_FACTOR, runtime=True, help="separation distance, in unit lengths"
    )
    back_view_angle_factor: float = key(
        1.0, gt=0, most=100, runtime=True, help="scale of the back view angle (no unit)"
    )
    front_view_angle_factor: float = key(
        1.0, gt=0, most=100, runtime=True, help="scale of the front view angle (no unit)"
    )
    feeler_factor: float = key(
        25.0, gt=0, most=MAX_FACTOR, runtime=True, help="obstacle feeler length, in unit lengths"
    )
    weights: Weights = key(
        default_factory=Weights, runtime=True, help="weights of the steering rules"
    )


@dataclass(frozen=True)
class SpawnSpec:
    center: Vec2 | None = key(
        None, kind="vec2", help="centre of the spawn disc, world units (default: world centre)"
    )
    radius: float = key(100.0, ge=0, most=MAX_SIDE, help="radius of the spawn disc, world units")
    positions: tuple[Vec2, ...] | None = key(
        None,
        kind="points",
        max_items=MAX_UNITS,
        help="explicit positions (one per unit) instead of a disc, world units",
    )


@dataclass(frozen=True)
class GroupSpec:
    count: int = key(
        kind="int", ge=1, most=MAX_UNITS, required=True, help="number of units in the group"
    )
    family: str = key("regular", check=_family_name, help="family name (groups flock by family)")
    role: str = key("chase", choices=ROLES, help="what the group does about the player")
    length: float = key(4.0, gt=0, most=MAX_SIZE, help="unit length L, world units")
    width: float = key(2.0, gt=0, most=MAX_SIZE, help="unit width, world units")
    mass: float = key(10.0, gt=0, most=MAX_MASS, help="unit mass, kilograms")
    thrust: float | None = key(
        None,
        kind="float",
        gt=0,
        most=MAX_FORCE,
        runtime=True,
        help='bow thrust, newtons (default 10; 15 for role "intercept")',
    )
    max_steering_force: float = key(
        40.0, gt=0, most=MAX_FORCE, runtime=True, help="largest steering force, newtons"
    )
    spawn: SpawnSpec = key(default_factory=SpawnSpec, help="where the units start")
    heading: float | None = key(
        None,
        kind="heading",
        random=True,
        help='start heading, degrees in the file (radians in the dataclass); "random": each unit '
        "its own",
    )


@dataclass(frozen=True)
class ObstacleSpec:
    center: Vec2 = key(kind="vec2", required=True, help="centre of the circle, world units")
    radius: float = key(32.0, gt=0, most=MAX_SIDE, help="radius of the circle, world units")


@dataclass(frozen=True)
class ObstacleFieldSpec:
    count: int = key(
        8, ge=0, most=MAX_OBSTACLES, help="number of random circles placed from the scene seed"
    )
    radius: float = key(32.0, gt=0, most=MAX_SIDE, help="radius of each circle, world units")
    margin: float = key(
        128.0,
        ge=0,
        most=MAX_SIDE,
        help="least distance from the world edge, spawn discs and player, world units",
    )


@dataclass(frozen=True)
class ScriptEntry:
    tick: int = key(kind="int", ge=0, most=MAX_TICK, required=True, help="tick the entry starts at")
    throttle: float = key(1.0, ge=-1.0, le=1.0, help="throttle from this tick (no unit)")
    steer: float = key(
        0.0, ge=-1.0, le=1.0, help="steering from this tick; +1 turns to port (left)"
    )


@dataclass(frozen=True)
class PlayerSpec:
    position: Vec2 = key((100.0, 100.0), help="start position, world units")
    heading: float = key(
        0.0, kind="heading", help="start heading, degrees in the file (radians in the dataclass)"
    )
    length: float = key(4.0, gt=0, most=MAX_SIZE, help="player length, world units")
    width: float = key(2.0, gt=0, most=MAX_SIZE, help="player width, world units")
    mass: float = key(10.0, gt=0, most=MAX_MASS, help="player mass, kilograms")
    thrust: float = key(12.0, gt=0, most=MAX_FORCE, runtime=True, help="bow thrust, newtons")
    max_steering_force: float = key(
        40.0, gt=0, most=MAX_FORCE, runtime=True, help="largest steering force, newtons"
    )
    control: str = key("keyboard", choices=CONTROLS, help="who drives the player")
    waypoints: tuple[Vec2, ...] = key(
        (),
        kind="points",
        max_items=MAX_POINTS,
        help='points the autopilot visits (control "waypoints"), world units',
    )
    script: tuple[ScriptEntry, ...] = key(
        (),
        kind="tables",
        spec=ScriptEntry,
        max_items=MAX_UNITS,
        help='timed inputs (control "script")',
    )


@dataclass(frozen=True)
class WallSpec:
    """A straight wall: a segment from ``start`` to ``end`` with a ``thickness``."""

    start: Vec2 = key(kind="vec2", required=True, help="one end of the wall, world units")
    end: Vec2 = key(kind="vec2", required=True, help="the other end of the wall, world units")
    thickness: float = key(4.0, gt=0, most=MAX_SIDE, help="wall thickness, world units")


_FUNCTION_HELP = (
    'the behaviour\'s function: "module:name" (any importable module, e.g. '
    '"rigidflock.behaviours.examples:wander"), or the name a package registered in the entry '
    'point group "rigidflock.behaviours"'
)


@dataclass(frozen=True)
class BehaviourSpec:
    """A user's steering behaviour: ``function(units, params)`` returns a world-frame direction
    (n, 2) per unit it applies to (or ``(directions, throttle)``), which becomes a bow force as
    cohesion's direction does, times ``weight``."""

    function: str = key(kind="str", required=True, help=_FUNCTION_HELP)
    weight: float = key(
        1.0, ge=0, most=MAX_FACTOR, help="weight of the behaviour's bow force, times S (no unit)"
    )
    families: tuple[str, ...] | None = key(
        None,
        kind="names",
        max_items=MAX_TABLES,
        help="the families it applies to (default: every AI unit)",
    )
    params: dict = key(
        default_factory=dict,
        kind="params",
        help="passed to the function as a dict (any TOML values)",
    )


@dataclass(frozen=True)
class RunSpec:
    ticks: int = key(1800, ge=1, help="ticks `rigidflock run` runs when --ticks is not given")


@dataclass(frozen=True)
class Scene:
    groups: tuple[GroupSpec, ...] = key(
        kind="tables",
        spec=GroupSpec,
        required=True,
        max_items=MAX_TABLES,
        help="groups of AI units (at least one)",
    )
    name: str = key("", help="scene name shown in summaries")
    seed: int = key(
        1, ge=0, most=MAX_SEED, help="seed of the random generator (spawns, obstacle field)"
    )
    world: WorldSpec = key(default_factory=WorldSpec, help="size, edges and time step")
    physics: PhysicsSpec = key(default_factory=PhysicsSpec, help="collisions, drag and damping")
    rules: RulesSpec = key(default_factory=RulesSpec, help="steering rules and their weights")
    obstacles: tuple[ObstacleSpec, ...] = key(
        (), kind="tables", spec=ObstacleSpec, max_items=MAX_OBSTACLES, help="circular obstacles"
    )
    obstacle_field: ObstacleFieldSpec | None = key(
        None, kind="table", spec=ObstacleFieldSpec, help="random circular obstacles (optional)"
    )
    player: PlayerSpec | None = key(
        None, kind="table", spec=PlayerSpec, help="the player unit (optional)"
    )
    walls: tuple[WallSpec, ...] = key(
        (), kind="tables", spec=WallSpec, max_items=MAX_TABLES, help="straight walls"
    )
    buildings: tuple[BuildingSpec, ...] = key(
        (), kind="tables", spec=BuildingSpec, max_items=MAX_TABLES, help="convex polygon buildings"
    )
    navigation: NavigationSpec = key(
        default_factory=NavigationSpec, help="route finding and formations for move orders"
    )
    orders: tuple[OrderSpec, ...] = key(
        (), kind="tables", spec=OrderSpec, max_items=MAX_TABLES, help="move orders given at a tick"
    )
    events: tuple[EventSpec, ...] = key(
        (), kind="tables", spec=EventSpec, max_items=MAX_TABLES, help="things that happen at a tick"
    )
    behaviours: tuple[BehaviourSpec, ...] = key(
        (),
        kind="tables",
        spec=BehaviourSpec,
        max_items=MAX_TABLES,
        help="your own steering behaviours, blended with the rules (docs: Writing a behaviour)",
    )
    run: RunSpec = key(default_factory=RunSpec, help="how long the scene runs")
    source: str = field(default="<scene>", metadata=not_a_key())  # file name used in messages
    text: str = field(default="", metadata=not_a_key())  # the TOML text (replays store it)
    # Non-fatal remarks, same "FILE: FIELD: message" form.
    warnings: tuple[str, ...] = field(default=(), metadata=not_a_key())

    @property
    def unit_count(self) -> int:
        """AI units (the player not included)."""
        return sum(g.count for g in self.groups)
