"""Scene files: TOML text -> a validated, frozen :class:`Scene`.

The format is DESIGN.md section 5. Every key has a default except ``groups[*].count``. Validation
collects *every* error it finds before raising :class:`SceneError`; each error is one line of the
form ``FILE: FIELD.PATH: message`` (syntax errors name the line instead of a field). Unknown keys
are errors with a did-you-mean. This module does not import pymunk: scenes are plain data.

Angles in scene files are degrees (``heading``); the dataclasses hold radians.

Decisions beyond DESIGN.md:

- A message about a key written in the file ends with ``(line N)``: the line of that key, or of the
  nearest enclosing table. Syntax errors read ``FILE: line N: message (column M)``.
- ``GroupSpec.thrust`` is always a float after parsing: 10.0, or 15.0 for role ``"intercept"``.
- ``SpawnSpec.center`` stays ``None`` when not given (the world's centre). A spawn disc must lie
  inside the world. An explicit obstacle overlapping a spawn disc is a warning (the simulation
  re-draws spawn points that land inside obstacles); one covering the whole disc is an error.
- Explicit spawn positions and the player position closer to an obstacle's centre than its radius
  plus half the unit's length are errors; a player waypoint inside an obstacle is a warning.
- ``family = "player"`` is rejected: traces use that family name for the player.
- ``obstacle_field`` with ``count > 0`` is an error when ``2 * margin`` >= a world side.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

Vec2 = tuple[float, float]

BOUNDS = ("wrap", "walls", "open")
VIEWS = ("wide", "limited", "narrow")
ROLES = ("chase", "intercept", "none")
CONTROLS = ("keyboard", "waypoints", "script", "none")


class SceneError(Exception):
    """A scene that cannot be used. ``errors`` holds one line per problem."""

    def __init__(self, errors: list[str]):
        self.errors = list(errors)
        super().__init__("\n".join(self.errors))


@dataclass(frozen=True)
class WorldSpec:
    size: Vec2 = (800.0, 600.0)  # world units
    bounds: str = "wrap"  # one of BOUNDS
    dt: float = 0.016666  # seconds per tick
    substeps: int = 1  # pymunk steps per tick


@dataclass(frozen=True)
class PhysicsSpec:
    collisions: bool = True
    drag_coefficient: float = 0.5  # Cd
    air_density: float = 0.1  # rho
    angular_damping: float | None = None  # k_w; None means "auto" (m * v_cruise * L / 2 per group)
    elasticity: float = 0.2
    friction: float = 0.5


@dataclass(frozen=True)
class RadiusFactor:
    wide: float = 200.0
    limited: float = 30.0
    narrow: float = 50.0


@dataclass(frozen=True)
class Weights:
    cohesion: float = 1.0
    alignment: float = 1.0
    separation: float = 1.0
    chase: float = 2.0
    avoidance: float = 1.0


@dataclass(frozen=True)
class RulesSpec:
    flocking: bool = True
    chase: bool = True
    avoidance: bool = True
    view: str = "wide"  # one of VIEWS
    steering_force: float = 20.0  # S, newtons
    radius_factor: RadiusFactor = field(default_factory=RadiusFactor)
    separation_factor: float = 5.0
    back_view_angle_factor: float = 1.0
    front_view_angle_factor: float = 1.0
    feeler_factor: float = 25.0
    weights: Weights = field(default_factory=Weights)


@dataclass(frozen=True)
class SpawnSpec:
    center: Vec2 | None = None  # None: the world's centre
    radius: float = 100.0
    positions: tuple[Vec2, ...] | None = None  # explicit positions (len == count) instead of a disc


@dataclass(frozen=True)
class GroupSpec:
    count: int
    family: str = "regular"
    role: str = "chase"  # one of ROLES
    length: float = 4.0
    width: float = 2.0
    mass: float = 10.0
    thrust: float | None = None  # None: 10, or 15 (1.5 x) for role "intercept"
    max_steering_force: float = 40.0
    spawn: SpawnSpec = field(default_factory=SpawnSpec)
    heading: float | None = None  # radians; None means random


@dataclass(frozen=True)
class ObstacleSpec:
    center: Vec2
    radius: float = 32.0


@dataclass(frozen=True)
class ObstacleFieldSpec:
    count: int = 8
    radius: float = 32.0
    margin: float = 128.0  # minimum distance from the world edge, spawn discs and the player


@dataclass(frozen=True)
class ScriptEntry:
    tick: int
    throttle: float = 1.0  # [-1, 1]
    steer: float = 0.0  # [-1, 1]; +1 turns to port (left)


@dataclass(frozen=True)
class PlayerSpec:
    position: Vec2 = (100.0, 100.0)
    heading: float = 0.0  # radians
    length: float = 4.0
    width: float = 2.0
    mass: float = 10.0
    thrust: float = 12.0
    max_steering_force: float = 40.0
    control: str = "keyboard"  # one of CONTROLS
    waypoints: tuple[Vec2, ...] = ()
    script: tuple[ScriptEntry, ...] = ()


@dataclass(frozen=True)
class WallSpec:
    """A straight wall: a segment from ``start`` to ``end`` with a ``thickness``."""

    start: Vec2
    end: Vec2
    thickness: float = 4.0


@dataclass(frozen=True)
class BuildingSpec:
    """A static convex polygon, vertices counter-clockwise (``rect = [x0, y0, x1, y1]`` in a
    file becomes its four corners)."""

    polygon: tuple[Vec2, ...]


@dataclass(frozen=True)
class NavigationSpec:
    """Route finding and group movement for move orders."""

    cell: float = 4.0  # grid cell size, world units
    clearance: float | None = None  # keep unit centres this far from walls; None: 0.6 x max L
    seek: float = 2.0  # weight of the pull toward the route (times S)
    lookahead: int = 4  # cells ahead on the route that a unit steers at
    slot_spacing: float = 2.5  # distance between formation slots, in unit lengths
    arrive_radius: float = 6.0  # units slow down within this many lengths of their slot
    stuck_seconds: float = 3.0  # no progress for this long: the group re-routes


@dataclass(frozen=True)
class SelectSpec:
    """Which AI units an order takes: one of a family, unit ids, or a rectangle (units whose
    centre is inside [x0, x1] x [y0, y1] when the order is given)."""

    family: str | None = None
    ids: tuple[int, ...] | None = None
    rect: tuple[float, float, float, float] | None = None


@dataclass(frozen=True)
class OrderSpec:
    """Move the selected units to ``goal``; a group forms and arrives in formation."""

    select: SelectSpec
    goal: Vec2
    tick: int = 0  # when the order is given (scene orders); commands give it on their own tick


@dataclass(frozen=True)
class EventSpec:
    """Something the scene does at a tick: for now, a building appears."""

    tick: int
    add_building: BuildingSpec


@dataclass(frozen=True)
class Scene:
    groups: tuple[GroupSpec, ...]
    name: str = ""
    seed: int = 1
    world: WorldSpec = field(default_factory=WorldSpec)
    physics: PhysicsSpec = field(default_factory=PhysicsSpec)
    rules: RulesSpec = field(default_factory=RulesSpec)
    obstacles: tuple[ObstacleSpec, ...] = ()
    obstacle_field: ObstacleFieldSpec | None = None
    player: PlayerSpec | None = None
    walls: tuple[WallSpec, ...] = ()
    buildings: tuple[BuildingSpec, ...] = ()
    navigation: NavigationSpec = field(default_factory=NavigationSpec)
    orders: tuple[OrderSpec, ...] = ()
    events: tuple[EventSpec, ...] = ()
    source: str = "<scene>"  # file name used in messages
    text: str = ""  # the TOML text the scene was read from (replays store it)
    warnings: tuple[str, ...] = ()  # non-fatal remarks, same "FILE: FIELD: message" form

    @property
    def unit_count(self) -> int:
        """AI units (the player not included)."""
        return sum(g.count for g in self.groups)


# --------------------------------------------------------------------------------------------------
# Messages


_MISSING = object()


def _desc(value: Any) -> str:
    """A short, TOML-flavoured description of ``value`` for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _num_text(value)
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return json.dumps(shown, ensure_ascii=False)
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"  # dates and times


def _num_text(x: float) -> str:
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return repr(x)


def _suggest(word: str, choices) -> str:
    folded = [c for c in choices if c.lower() == word.lower()]
    match = folded or difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f' (did you mean "{match[0]}"?)' if match else ""


_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_KEY_RE = re.compile(rf"^\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*=")
_HEADER_RE = re.compile(rf"^\s*(\[\[?)\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*\]\]?\s*(?:#.*)?$")
_PART_RE = re.compile(_KEY_PART)
_BARE_KEY_RE = re.compile(r"[A-Za-z0-9_-]+")
_STRINGS_RE = re.compile(r""""(?:[^"\\]|\\.)*"|'[^']*'""")
_LAST_PART_RE = re.compile(r"(\[\d+\]|\.[^.\[\]]+|^[^.\[\]]+)$")


def _key_parts(dotted: str) -> list[str]:
    return [p[1:-1] if p[0] in "\"'" else p for p in _PART_RE.findall(dotted)]


def _key_lines(text: str) -> dict[str, int]:
    """Map field paths (``groups[1].spawn``) to the line where they are written.

    A best-effort line scanner, only used to decorate messages; the data itself comes from tomllib.
    """
    lines: dict[str, int] = {}
    arrays: dict[str, int] = {}  # array-of-tables path (parents indexed) -> last index
    current = ""
    depth = 0  # open brackets/braces of a multi-line value
    in_multiline = False

    def resolve(parts: list[str]) -> str:
        path = ""
        for part in parts:
            path = f"{path}.{part}" if path else part
            if path in arrays:
                path = f"{path}[{arrays[path]}]"
        return path

    for number, line in enumerate(text.splitlines(), start=1):
        if in_multiline:
            if (line.count('"""') + line.count("'''")) % 2:
                in_multiline = False
            continue
        if depth == 0:
            header = _HEADER_RE.match(line)
            if header:
                parts = _key_parts(header.group(2))
                if header.group(1) == "[[":
                    name = resolve(parts[:-1])
                    name = f"{name}.{parts[-1]}" if name else parts[-1]
                    arrays[name] = arrays.get(name, -1) + 1
                current = resolve(parts)
                lines.setdefault(current, number)
                continue
            key = _KEY_RE.match(line)
            if key:
                dotted = ".".join(_key_parts(key.group(1)))
                lines.setdefault(f"{current}.{dotted}" if current else dotted, number)
                line = line[key.end() :]  # noqa: PLW2901 (the rest after the key)
        if (line.count('"""') + line.count("'''")) % 2:
            in_multiline = True  # a multi-line string opens here; skip to its closing line
            continue
        bare = _STRINGS_RE.sub("", line).split("#", 1)[0]
        depth = max(
            0, depth + bare.count("[") + bare.count("{") - bare.count("]") - bare.count("}")
        )
    return lines


class _Ctx:
    """Collects errors and warnings for one scene text."""

    def __init__(self, source: str, text: str):
        self.source = source
        self.text = text
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self._lines: dict[str, int] | None = None

    def _line(self, path: str) -> int | None:
        if self._lines is None:
            self._lines = _key_lines(self.text)
        while path:
            if path in self._lines:
                return self._lines[path]
            path = _LAST_PART_RE.sub("", path)
        return None

    def _format(self, path: str, message: str) -> str:
        line = self._line(path)
        where = f" (line {line})" if line is not None else ""
        return f"{self.source}: {path}: {message}{where}"

    def error(self, path: str, message: str) -> None:
        self.errors.append(self._format(path, message))

    def warn(self, path: str, message: str) -> None:
        self.warnings.append(self._format(path, message))

    def mark(self) -> int:
        return len(self.errors)

    def ok_since(self, mark: int) -> bool:
        return len(self.errors) == mark


# --------------------------------------------------------------------------------------------------
# Typed getters. Each records an error and returns a usable default when a value is bad, so that
# parsing goes on and every error in the file is reported at once.


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _check_keys(ctx: _Ctx, table: dict, allowed, path: str) -> None:
    for key in table:
        if key not in allowed:
            hint = _suggest(key, allowed) or " (expected one of: " + ", ".join(allowed) + ")"
            shown = key if _BARE_KEY_RE.fullmatch(key) else json.dumps(key, ensure_ascii=False)
            ctx.error(_join(path, shown), f"unknown key{hint}")


def _allowed(cls, *exclude: str) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.name not in exclude)


def _table(ctx: _Ctx, parent: dict, key: str, path: str) -> dict | None:
    """The sub-table ``parent[key]``; None if absent or not a table (the latter is an error)."""
    value = parent.get(key, _MISSING)
    if value is _MISSING:
        return None
    if not isinstance(value, dict):
        ctx.error(_join(path, key), f"must be a table, got {_desc(value)}")
        return None
    return value


def _range_text(gt, ge, le) -> str:
    if ge is not None and le is not None:
        return f" in [{ge:g}, {le:g}]"
    parts = []
    if gt is not None:
        parts.append(f"> {gt:g}")
    if ge is not None:
        parts.append(f">= {ge:g}")
    if le is not None:
        parts.append(f"<= {le:g}")
    return " " + " and ".join(parts) if parts else ""


def _as_float(ctx: _Ctx, value: Any, path: str, default, *, gt=None, ge=None, le=None):
    need = "must be a number" + _range_text(gt, ge, le)
    if isinstance(value, bool) or not isinstance(value, int | float):
        ctx.error(path, f"{need}, got {_desc(value)}")
        return default
    x = float(value)
    if not math.isfinite(x):
        ctx.error(path, f"{need.replace('a number', 'a finite number')}, got {_num_text(x)}")
        return default
    if (
        (gt is not None and not x > gt)
        or (ge is not None and not x >= ge)
        or (le is not None and not x <= le)
    ):
        ctx.error(path, f"{need}, got {_num_text(value)}")
        return default
    return x


def _float(ctx: _Ctx, table: dict, key: str, path: str, default, **limits):
    value = table.get(key, _MISSING)
    if value is _MISSING:
        return default
    return _as_float(ctx, value, _join(path, key), default, **limits)


def _as_int(ctx: _Ctx, value: Any, path: str, default, *, ge: int):
    if isinstance(value, bool) or not isinstance(value, int) or value < ge:
        ctx.error(path, f"must be an integer >= {ge}, got {_desc(value)}")
        return default
    return value


def _int(ctx: _Ctx, table: dict, key: str, path: str, default, *, ge: int, required=False):
    value = table.get(key, _MISSING)
    if value is _MISSING:
        if required:
            ctx.error(_join(path, key), "required")
        return default
    return _as_int(ctx, value, _join(path, key), default, ge=ge)


def _bool(ctx: _Ctx, table: dict, key: str, path: str, default: bool) -> bool:
    value = table.get(key, _MISSING)
    if value is _MISSING:
        return default
    if not isinstance(value, bool):
        ctx.error(_join(path, key), f"must be true or false, got {_desc(value)}")
        return default
    return value


def _str(ctx: _Ctx, table: dict, key: str, path: str, default: str) -> str:
    value = table.get(key, _MISSING)
    if value is _MISSING:
        return default
    if not isinstance(value, str):
        ctx.error(_join(path, key), f"must be a string, got {_desc(value)}")
        return default
    return value


def _enum(ctx: _Ctx, table: dict, key: str, path: str, default: str, choices) -> str:
    value = table.get(key, _MISSING)
    if value is _MISSING:
        return default
    if not isinstance(value, str) or value not in choices:
        need = "must be one of " + ", ".join(f'"{c}"' for c in choices)
        hint = _suggest(value, choices) if isinstance(value, str) else ""
        ctx.error(_join(path, key), f"{need}, got {_desc(value)}{hint}")
        return default
    return value


def _as_vec2(ctx: _Ctx, value: Any, path: str) -> Vec2 | None:
    need = "must be an array of 2 finite numbers [x, y]"
    if not isinstance(value, list) or len(value) != 2:
        got = f"an array of {len(value)}" if isinstance(value, list) else _desc(value)
        ctx.error(path, f"{need}, got {got}")
        return None
    out = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int | float) or not math.isfinite(item):
            ctx.error(path, f"{need}, got an element {_desc(item)}")
            return None
        out.append(float(item))
    return (out[0], out[1])


def _vec2(ctx: _Ctx, table: dict, key: str, path: str, default):
    value = table.get(key, _MISSING)
    if value is _MISSING:
        return default
    vec = _as_vec2(ctx, value, _join(path, key))
    return default if vec is None else vec


def _vec2_list(ctx: _Ctx, table: dict, key: str, path: str, check=None) -> tuple[Vec2, ...] | None:
    """An array of [x, y]; None if absent. Bad elements are reported and left out.

    ``check(point, path)`` is called for every well-formed point, with the point's own path.
    """
    value = table.get(key, _MISSING)
    if value is _MISSING:
        return None
    path = _join(path, key)
    if not isinstance(value, list):
        ctx.error(path, f"must be an array of [x, y] points, got {_desc(value)}")
        return None
    points = []
    for i, item in enumerate(value):
        point = _as_vec2(ctx, item, f"{path}[{i}]")
        if point is not None:
            points.append(point)
            if check is not None:
                check(point, f"{path}[{i}]")
    return tuple(points)


def _heading(ctx: _Ctx, table: dict, key: str, path: str, default, *, allow_random: bool):
    """Degrees in the file -> radians; "random" -> None when allowed."""
    value = table.get(key, _MISSING)
    if value is _MISSING:
        return default
    if allow_random and value == "random":
        return None
    if isinstance(value, str) and allow_random:
        hint = _suggest(value, ["random"])
        ctx.error(
            _join(path, key), f'must be "random" or a number of degrees, got {_desc(value)}{hint}'
        )
        return default
    degrees = _as_float(ctx, value, _join(path, key), None)
    return default if degrees is None else math.radians(degrees)


def _array_of_tables(ctx: _Ctx, data: dict, key: str) -> list[tuple[str, dict]]:
    value = data.get(key, _MISSING)
    if value is _MISSING:
        return []
    if not isinstance(value, list):
        ctx.error(key, f"must be an array of tables ([[{key}]]), got {_desc(value)}")
        return []
    out = []
    for i, item in enumerate(value):
        if isinstance(item, dict):
            out.append((f"{key}[{i}]", item))
        else:
            ctx.error(f"{key}[{i}]", f"must be a table, got {_desc(item)}")
    return out


# --------------------------------------------------------------------------------------------------
# Geometry: points and discs against the world and the explicit obstacles


@dataclass
class _Geo:
    size: Vec2 | None = None  # None when world.size is invalid (size checks are skipped)
    obstacles: list[tuple[str, ObstacleSpec]] = field(default_factory=list)  # (path, spec)
    walls: list[tuple[str, WallSpec]] = field(default_factory=list)
    buildings: list[tuple[str, BuildingSpec]] = field(default_factory=list)
    spawn_points: list[Vec2] | None = None  # explicit spawn positions, when every group has them


def _world_text(size: Vec2) -> str:
    return f"[0,{size[0]:g}]x[0,{size[1]:g}]"


def _point_text(point: Vec2) -> str:
    return f"[{point[0]:g}, {point[1]:g}]"


def _check_in_world(ctx: _Ctx, geo: _Geo, point: Vec2, path: str) -> None:
    size = geo.size
    if size is not None and not (0.0 <= point[0] <= size[0] and 0.0 <= point[1] <= size[1]):
        ctx.error(path, f"{_point_text(point)} is outside the world {_world_text(size)}")


def _check_unit_place(ctx: _Ctx, geo: _Geo, point: Vec2, path: str, length: float) -> None:
    """A unit placed at ``point``: inside the world and clear of every obstacle, wall and
    building."""
    _check_in_world(ctx, geo, point, path)
    if geo.walls or geo.buildings:
        blocker = _blocked_by(geo, point, margin=length / 2)
        if blocker is not None and not blocker.startswith("obstacles"):
            ctx.error(path, f"{_point_text(point)} is inside {blocker} (or within length/2)")
    for ob_path, ob in geo.obstacles:
        clearance = ob.radius + length / 2
        if math.dist(point, ob.center) < clearance:
            ctx.error(
                path,
                f"{_point_text(point)} is inside {ob_path} (closer than radius + length/2 = "
                f"{clearance:g} to its centre {_point_text(ob.center)})",
            )


# --------------------------------------------------------------------------------------------------
# Sections


def _parse_world(ctx: _Ctx, data: dict) -> tuple[WorldSpec, bool]:
    """The world and whether its size is valid (size-dependent checks are skipped otherwise)."""
    d = WorldSpec()
    t = _table(ctx, data, "world", "")
    if t is None:
        return d, "world" not in data
    _check_keys(ctx, t, _allowed(WorldSpec), "world")
    mark = ctx.mark()
    size = _vec2(ctx, t, "size", "world", d.size)
    if ctx.ok_since(mark) and not (size[0] > 0 and size[1] > 0):
        ctx.error("world.size", f"width and height must be > 0, got {_point_text(size)}")
    size_ok = ctx.ok_since(mark)
    world = WorldSpec(
        size=size if size_ok else d.size,
        bounds=_enum(ctx, t, "bounds", "world", d.bounds, BOUNDS),
        dt=_float(ctx, t, "dt", "world", d.dt, gt=0, le=1.0),
        substeps=_int(ctx, t, "substeps", "world", d.substeps, ge=1),
    )
    return world, size_ok


def _auto_or_float(ctx: _Ctx, table: dict, key: str, path: str) -> float | None:
    """``"auto"`` (the default) -> None, or a number >= 0."""
    value = table.get(key, "auto")
    if value == "auto":
        return None
    if isinstance(value, str):
        ctx.error(
            _join(path, key),
            f'must be "auto" or a number >= 0, got {_desc(value)}{_suggest(value, ["auto"])}',
        )
        return None
    return _as_float(ctx, value, _join(path, key), None, ge=0)


def _parse_physics(ctx: _Ctx, data: dict) -> PhysicsSpec:
    d = PhysicsSpec()
    t = _table(ctx, data, "physics", "")
    if t is None:
        return d
    p = "physics"
    _check_keys(ctx, t, _allowed(PhysicsSpec), p)
    damping = _auto_or_float(ctx, t, "angular_damping", p)
    return PhysicsSpec(
        collisions=_bool(ctx, t, "collisions", p, d.collisions),
        drag_coefficient=_float(ctx, t, "drag_coefficient", p, d.drag_coefficient, ge=0),
        air_density=_float(ctx, t, "air_density", p, d.air_density, ge=0),
        angular_damping=damping,
        elasticity=_float(ctx, t, "elasticity", p, d.elasticity, ge=0),
        friction=_float(ctx, t, "friction", p, d.friction, ge=0),
    )


def _parse_factors(ctx: _Ctx, parent: dict, key: str, path: str, cls, **limits):
    d = cls()
    t = _table(ctx, parent, key, path)
    if t is None:
        return d
    path = _join(path, key)
    _check_keys(ctx, t, _allowed(cls), path)
    values = {
        name: _float(ctx, t, name, path, getattr(d, name), **limits) for name in _allowed(cls)
    }
    return cls(**values)


def _parse_rules(ctx: _Ctx, data: dict) -> RulesSpec:
    d = RulesSpec()
    t = _table(ctx, data, "rules", "")
    if t is None:
        return d
    p = "rules"
    _check_keys(ctx, t, _allowed(RulesSpec), p)
    return RulesSpec(
        flocking=_bool(ctx, t, "flocking", p, d.flocking),
        chase=_bool(ctx, t, "chase", p, d.chase),
        avoidance=_bool(ctx, t, "avoidance", p, d.avoidance),
        view=_enum(ctx, t, "view", p, d.view, VIEWS),
        steering_force=_float(ctx, t, "steering_force", p, d.steering_force, ge=0),
        radius_factor=_parse_factors(ctx, t, "radius_factor", p, RadiusFactor, gt=0),
        separation_factor=_float(ctx, t, "separation_factor", p, d.separation_factor, gt=0),
        back_view_angle_factor=_float(
            ctx, t, "back_view_angle_factor", p, d.back_view_angle_factor, gt=0
        ),
        front_view_angle_factor=_float(
            ctx, t, "front_view_angle_factor", p, d.front_view_angle_factor, gt=0
        ),
        feeler_factor=_float(ctx, t, "feeler_factor", p, d.feeler_factor, gt=0),
        weights=_parse_factors(ctx, t, "weights", p, Weights, ge=0),
    )


def _parse_obstacles(ctx: _Ctx, data: dict, geo: _Geo) -> tuple[ObstacleSpec, ...]:
    """Explicit obstacles; the well-formed ones are also added to ``geo`` under their own path."""
    d = ObstacleSpec(center=(0.0, 0.0))
    for path, t in _array_of_tables(ctx, data, "obstacles"):
        _check_keys(ctx, t, _allowed(ObstacleSpec), path)
        mark = ctx.mark()
        if "center" not in t:
            ctx.error(f"{path}.center", "required")
        center = _vec2(ctx, t, "center", path, None)
        radius = _float(ctx, t, "radius", path, d.radius, gt=0)
        if ctx.ok_since(mark):
            _check_in_world(ctx, geo, center, f"{path}.center")
            geo.obstacles.append((path, ObstacleSpec(center=center, radius=radius)))
    return tuple(ob for _, ob in geo.obstacles)


def _parse_obstacle_field(ctx: _Ctx, data: dict, geo: _Geo) -> ObstacleFieldSpec | None:
    t = _table(ctx, data, "obstacle_field", "")
    if t is None:
        return None
    d = ObstacleFieldSpec()
    p = "obstacle_field"
    _check_keys(ctx, t, _allowed(ObstacleFieldSpec), p)
    spec = ObstacleFieldSpec(
        count=_int(ctx, t, "count", p, d.count, ge=0),
        radius=_float(ctx, t, "radius", p, d.radius, gt=0),
        margin=_float(ctx, t, "margin", p, d.margin, ge=0),
    )
    size = geo.size
    if size is not None and spec.count > 0 and 2 * spec.margin >= min(size):
        ctx.error(
            "obstacle_field.margin",
            f"2 x margin = {2 * spec.margin:g} leaves no room for obstacles in the world "
            f"{_world_text(size)}",
        )
    return spec


def _check_spawn_disc(ctx: _Ctx, geo: _Geo, path: str, center: Vec2 | None, r: float) -> None:
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
            f"disc (centre {_point_text(center)}, radius {r:g}) extends outside the world "
            f"{_world_text(size)}",
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


def _parse_spawn(
    ctx: _Ctx, group: dict, path: str, count: int | None, length: float, geo: _Geo
) -> SpawnSpec:
    d = SpawnSpec()
    t = _table(ctx, group, "spawn", path)
    if t is None:
        if "spawn" not in group:
            _check_spawn_disc(ctx, geo, f"{path}.spawn", d.center, d.radius)
        return d
    path = f"{path}.spawn"
    _check_keys(ctx, t, _allowed(SpawnSpec), path)
    mark = ctx.mark()
    center = _vec2(ctx, t, "center", path, None)
    radius = _float(ctx, t, "radius", path, d.radius, ge=0)
    disc_ok = ctx.ok_since(mark)

    def check(point: Vec2, point_path: str) -> None:
        _check_unit_place(ctx, geo, point, point_path, length)

    positions = _vec2_list(ctx, t, "positions", path, check)
    if "positions" in t:
        if "center" in t or "radius" in t:
            ctx.error(path, "give either center/radius (a disc) or positions, not both")
        value = t["positions"]
        if isinstance(value, list) and count is not None and len(value) != count:
            ctx.error(f"{path}.positions", f"has {len(value)} positions but count is {count}")
    elif disc_ok:
        _check_spawn_disc(ctx, geo, path, center, radius)
    return SpawnSpec(center=center, radius=radius, positions=positions)


def _parse_group(ctx: _Ctx, t: dict, path: str, geo: _Geo) -> GroupSpec:
    d = GroupSpec(count=1)
    _check_keys(ctx, t, _allowed(GroupSpec), path)
    mark = ctx.mark()
    count = _int(ctx, t, "count", path, None, ge=1, required=True)
    count_ok = ctx.ok_since(mark)
    family = _str(ctx, t, "family", path, d.family)
    if "family" in t and isinstance(t["family"], str):
        if not family.strip():
            ctx.error(f"{path}.family", "must not be empty")
        elif family == "player":
            ctx.error(f"{path}.family", '"player" is reserved for the player unit')
    role = _enum(ctx, t, "role", path, d.role, ROLES)
    length = _float(ctx, t, "length", path, d.length, gt=0)
    return GroupSpec(
        count=count if count is not None else 1,
        family=family,
        role=role,
        length=length,
        width=_float(ctx, t, "width", path, d.width, gt=0),
        mass=_float(ctx, t, "mass", path, d.mass, gt=0),
        thrust=_float(ctx, t, "thrust", path, 15.0 if role == "intercept" else 10.0, gt=0),
        max_steering_force=_float(ctx, t, "max_steering_force", path, d.max_steering_force, gt=0),
        spawn=_parse_spawn(ctx, t, path, count if count_ok else None, length, geo),
        heading=_heading(ctx, t, "heading", path, d.heading, allow_random=True),
    )


def _parse_groups(ctx: _Ctx, data: dict, geo: _Geo) -> tuple[GroupSpec, ...]:
    tables = _array_of_tables(ctx, data, "groups")
    value = data.get("groups")
    if value is None or value == []:
        ctx.error("groups", "at least one [[groups]] table is required")
    return tuple(_parse_group(ctx, t, path, geo) for path, t in tables)


def _parse_script(ctx: _Ctx, player: dict, path: str) -> tuple[ScriptEntry, ...]:
    value = player.get("script", _MISSING)
    if value is _MISSING:
        return ()
    path = f"{path}.script"
    if not isinstance(value, list):
        ctx.error(path, f"must be an array of tables {{tick, throttle, steer}}, got {_desc(value)}")
        return ()
    entries: list[ScriptEntry] = []
    d = ScriptEntry(tick=0)
    last_tick = None
    for i, item in enumerate(value):
        p = f"{path}[{i}]"
        if not isinstance(item, dict):
            ctx.error(p, f"must be a table {{tick, throttle, steer}}, got {_desc(item)}")
            continue
        _check_keys(ctx, item, _allowed(ScriptEntry), p)
        tick = _int(ctx, item, "tick", p, None, ge=0, required=True)
        if tick is not None:
            if last_tick is not None and tick <= last_tick:
                ctx.error(
                    f"{p}.tick", f"ticks must be strictly increasing, got {tick} after {last_tick}"
                )
            last_tick = tick
        entries.append(
            ScriptEntry(
                tick=tick if tick is not None else 0,
                throttle=_float(ctx, item, "throttle", p, d.throttle, ge=-1.0, le=1.0),
                steer=_float(ctx, item, "steer", p, d.steer, ge=-1.0, le=1.0),
            )
        )
    return tuple(entries)


def _parse_player(ctx: _Ctx, data: dict, geo: _Geo) -> PlayerSpec | None:
    t = _table(ctx, data, "player", "")
    if t is None:
        return None
    d = PlayerSpec()
    p = "player"
    _check_keys(ctx, t, _allowed(PlayerSpec), p)
    mark = ctx.mark()
    position = _vec2(ctx, t, "position", p, d.position)
    position_ok = ctx.ok_since(mark)
    length = _float(ctx, t, "length", p, d.length, gt=0)
    if position_ok:
        _check_unit_place(ctx, geo, position, "player.position", length)
    control = _enum(ctx, t, "control", p, d.control, CONTROLS)

    def check_waypoint(point: Vec2, point_path: str) -> None:
        _check_in_world(ctx, geo, point, point_path)
        for ob_path, ob in geo.obstacles:
            if math.dist(point, ob.center) < ob.radius:
                ctx.warn(
                    point_path,
                    f"{_point_text(point)} is inside {ob_path}; the player cannot reach it",
                )

    waypoints = _vec2_list(ctx, t, "waypoints", p, check_waypoint) or ()
    script = _parse_script(ctx, t, p)
    if control == "waypoints" and not t.get("waypoints"):
        ctx.error("player.waypoints", 'control = "waypoints" needs at least one waypoint')
    if control == "script" and not t.get("script"):
        ctx.error("player.script", 'control = "script" needs a non-empty script')
    return PlayerSpec(
        position=position,
        heading=_heading(ctx, t, "heading", p, d.heading, allow_random=False),
        length=length,
        width=_float(ctx, t, "width", p, d.width, gt=0),
        mass=_float(ctx, t, "mass", p, d.mass, gt=0),
        thrust=_float(ctx, t, "thrust", p, d.thrust, gt=0),
        max_steering_force=_float(ctx, t, "max_steering_force", p, d.max_steering_force, gt=0),
        control=control,
        waypoints=waypoints,
        script=script,
    )


# --------------------------------------------------------------------------------------------------
# Entry points


_SYNTAX_POS_RE = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_SYNTAX_END_RE = re.compile(r"\s*\(at end of document\)\s*$")


# --------------------------------------------------------------------------------------------------
# RTS: walls, buildings, navigation, orders, events


def _parse_walls(ctx: _Ctx, data: dict, geo: _Geo) -> tuple[WallSpec, ...]:
    out = []
    for path, t in _array_of_tables(ctx, data, "walls"):
        _check_keys(ctx, t, _allowed(WallSpec), path)
        mark = ctx.mark()
        for key in ("start", "end"):
            if key not in t:
                ctx.error(f"{path}.{key}", "required")
        start = _vec2(ctx, t, "start", path, None)
        end = _vec2(ctx, t, "end", path, None)
        thickness = _float(ctx, t, "thickness", path, WallSpec.thickness, gt=0)
        if not ctx.ok_since(mark):
            continue
        _check_in_world(ctx, geo, start, f"{path}.start")
        _check_in_world(ctx, geo, end, f"{path}.end")
        if start == end:
            ctx.error(path, "start and end are the same point")
        elif ctx.ok_since(mark):
            wall = WallSpec(start=start, end=end, thickness=thickness)
            geo.walls.append((path, wall))
            out.append(wall)
    return tuple(out)


def _as_rect(ctx: _Ctx, value: Any, path: str) -> tuple[float, float, float, float] | None:
    """``[x0, y0, x1, y1]`` with x1 > x0 and y1 > y0, or None after an error."""
    if (
        not isinstance(value, list)
        or len(value) != 4
        or any(isinstance(v, bool) or not isinstance(v, int | float) for v in value)
        or not all(math.isfinite(v) for v in value)
    ):
        ctx.error(path, f"must be 4 finite numbers [x0, y0, x1, y1], got {_desc(value)}")
        return None
    x0, y0, x1, y1 = map(float, value)
    if not (x1 > x0 and y1 > y0):
        ctx.error(path, f"needs x1 > x0 and y1 > y0, got {_desc(value)}")
        return None
    return x0, y0, x1, y1


def _parse_building(ctx: _Ctx, t: dict, path: str, geo: _Geo) -> BuildingSpec | None:
    """One building table: ``rect = [x0, y0, x1, y1]`` or ``polygon = [[x, y], ...]``."""
    from rigidflock.scene.geometry import ccw, is_convex, rect_polygon

    _check_keys(ctx, t, ("rect", "polygon"), path)
    if ("rect" in t) == ("polygon" in t):
        ctx.error(path, "give exactly one of rect = [x0, y0, x1, y1] or polygon = [[x, y], ...]")
        return None
    mark = ctx.mark()
    if "rect" in t:
        rect = _as_rect(ctx, t["rect"], f"{path}.rect")
        if rect is None:
            return None
        poly = rect_polygon(*rect)
    else:
        points = _vec2_list(ctx, t, "polygon", path)
        if not ctx.ok_since(mark) or points is None:
            return None
        import numpy as np

        poly = np.asarray(points, dtype=float)
        if len(poly) < 3 or not is_convex(poly):
            ctx.error(f"{path}.polygon", "must be a convex polygon of at least 3 corners")
            return None
        poly = ccw(poly)
    for k, corner in enumerate(poly):
        _check_in_world(ctx, geo, (float(corner[0]), float(corner[1])), f"{path} corner {k}")
    if not ctx.ok_since(mark):
        return None
    return BuildingSpec(polygon=tuple((float(x), float(y)) for x, y in poly))


def _check_building_overlaps(ctx: _Ctx, geo: _Geo, path: str, b: BuildingSpec) -> None:
    import numpy as np

    from rigidflock.scene.geometry import polygons_overlap

    poly = np.asarray(b.polygon)
    for other_path, other in geo.buildings:
        if polygons_overlap(poly, np.asarray(other.polygon)):
            ctx.error(path, f"overlaps {other_path}")


def _parse_buildings(ctx: _Ctx, data: dict, geo: _Geo) -> tuple[BuildingSpec, ...]:
    out = []
    for path, t in _array_of_tables(ctx, data, "buildings"):
        b = _parse_building(ctx, t, path, geo)
        if b is not None:
            _check_building_overlaps(ctx, geo, path, b)
            geo.buildings.append((path, b))
            out.append(b)
    return tuple(out)


def _parse_navigation(ctx: _Ctx, data: dict) -> NavigationSpec:
    d = NavigationSpec()
    t = _table(ctx, data, "navigation", "")
    if t is None:
        return d
    p = "navigation"
    _check_keys(ctx, t, _allowed(NavigationSpec), p)
    clearance = _auto_or_float(ctx, t, "clearance", p)
    return NavigationSpec(
        cell=_float(ctx, t, "cell", p, d.cell, gt=0),
        clearance=clearance,
        seek=_float(ctx, t, "seek", p, d.seek, ge=0),
        lookahead=_int(ctx, t, "lookahead", p, d.lookahead, ge=1),
        slot_spacing=_float(ctx, t, "slot_spacing", p, d.slot_spacing, gt=0),
        arrive_radius=_float(ctx, t, "arrive_radius", p, d.arrive_radius, gt=0),
        stuck_seconds=_float(ctx, t, "stuck_seconds", p, d.stuck_seconds, gt=0),
    )


def _blocked_by(geo: _Geo, point: Vec2, margin: float = 0.0) -> str | None:
    """The path of the wall, building or obstacle that covers ``point`` (or comes within
    ``margin`` of it), if any."""
    import numpy as np

    from rigidflock.scene.geometry import polygon_distance, segment_distance

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


def _parse_select(ctx: _Ctx, t: dict, path: str, families, unit_count: int) -> SelectSpec | None:
    value = t.get("select", _MISSING)
    p = f"{path}.select"
    if value is _MISSING:
        ctx.error(p, "required: { family = ... }, { ids = [...] } or { rect = [x0, y0, x1, y1] }")
        return None
    if not isinstance(value, dict):
        ctx.error(p, f"must be a table, got {_desc(value)}")
        return None
    _check_keys(ctx, value, _allowed(SelectSpec), p)
    given = [k for k in ("family", "ids", "rect") if k in value]
    if len(given) != 1:
        ctx.error(p, "give exactly one of family, ids or rect")
        return None
    kind = given[0]
    v = value[kind]
    if kind == "family":
        if not isinstance(v, str):
            ctx.error(f"{p}.family", f"must be a string, got {_desc(v)}")
            return None
        if v not in families:
            ctx.error(f"{p}.family", f"no group has family {_desc(v)}{_suggest(v, families)}")
            return None
        return SelectSpec(family=v)
    if kind == "ids":
        if not isinstance(v, list) or not v:
            ctx.error(f"{p}.ids", f"must be a non-empty array of unit ids, got {_desc(v)}")
            return None
        bad = [x for x in v if isinstance(x, bool) or not isinstance(x, int)]
        if bad:
            ctx.error(f"{p}.ids", f"unit ids are whole numbers, got {_desc(bad[0])}")
            return None
        out_of_range = [x for x in v if not 0 <= x < unit_count]
        if out_of_range:
            ctx.error(f"{p}.ids", f"no unit {out_of_range[0]}: ids run from 0 to {unit_count - 1}")
            return None
        return SelectSpec(ids=tuple(sorted(set(v))))
    rect = _as_rect(ctx, v, f"{p}.rect")
    return None if rect is None else SelectSpec(rect=rect)


def _parse_orders(ctx: _Ctx, data: dict, geo: _Geo, groups) -> tuple[OrderSpec, ...]:
    families = sorted({g.family for g in groups})
    unit_count = sum(g.count for g in groups)
    out = []
    for path, t in _array_of_tables(ctx, data, "orders"):
        _check_keys(ctx, t, _allowed(OrderSpec), path)
        mark = ctx.mark()
        tick = _int(ctx, t, "tick", path, 0, ge=0)
        select = _parse_select(ctx, t, path, families, unit_count)
        if "goal" not in t:
            ctx.error(f"{path}.goal", "required")
        goal = _vec2(ctx, t, "goal", path, None)
        if not ctx.ok_since(mark):
            continue
        _check_in_world(ctx, geo, goal, f"{path}.goal")
        blocker = _blocked_by(geo, goal)
        if blocker is not None:
            ctx.error(f"{path}.goal", f"{_point_text(goal)} is inside {blocker}")
        if select.rect is not None and geo.spawn_points is not None:
            x0, y0, x1, y1 = select.rect
            if tick == 0 and not any(x0 <= x <= x1 and y0 <= y <= y1 for x, y in geo.spawn_points):
                ctx.error(f"{path}.select.rect", "selects no unit at tick 0 (no spawn position "
                          "lies inside it)")  # fmt: skip
        if ctx.ok_since(mark):
            out.append(OrderSpec(select=select, goal=goal, tick=tick))
    return tuple(out)


def _parse_events(ctx: _Ctx, data: dict, geo: _Geo) -> tuple[EventSpec, ...]:
    out = []
    for path, t in _array_of_tables(ctx, data, "events"):
        _check_keys(ctx, t, _allowed(EventSpec), path)
        mark = ctx.mark()
        tick = _int(ctx, t, "tick", path, 0, ge=0, required=True)
        b = _table(ctx, t, "add_building", path)
        if b is None:
            if "add_building" not in t:
                ctx.error(f"{path}.add_building", "required")
            continue
        building = _parse_building(ctx, b, f"{path}.add_building", geo)
        if building is None or not ctx.ok_since(mark):
            continue
        _check_building_overlaps(ctx, geo, f"{path}.add_building", building)
        geo.buildings.append((f"{path}.add_building", building))
        out.append(EventSpec(tick=tick, add_building=building))
    return tuple(out)


def _syntax_error(source: str, text: str, exc: tomllib.TOMLDecodeError) -> SceneError:
    message = str(exc)
    pos = _SYNTAX_POS_RE.search(message)
    if pos:
        body = message[: pos.start()]
        return SceneError([f"{source}: line {pos.group(1)}: {body} (column {pos.group(2)})"])
    end = _SYNTAX_END_RE.search(message)
    if end:
        last = max(1, len(text.splitlines()))
        return SceneError([f"{source}: line {last}: {message[: end.start()]} (at end of file)"])
    return SceneError([f"{source}: {message}"])


def parse_scene(text: str, source: str = "<scene>") -> Scene:
    """Parse and validate TOML ``text``; ``source`` names it in error messages.

    Raises :class:`SceneError` listing every problem found. Non-fatal remarks (an obstacle over a
    spawn disc, ...) are returned in ``Scene.warnings``.

    >>> scene = parse_scene("[[groups]]\\ncount = 3", "demo.toml")
    >>> scene.unit_count, scene.groups[0].thrust, scene.world.size
    (3, 10.0, (800.0, 600.0))
    """
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SceneError([f"{source}: cannot read: not valid UTF-8 ({exc.reason})"]) from None
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        raise _syntax_error(source, text, exc) from None

    ctx = _Ctx(source, text)
    _check_keys(ctx, data, _allowed(Scene, "source", "text", "warnings"), "")
    name = _str(ctx, data, "name", "", "")
    seed = _int(ctx, data, "seed", "", 1, ge=0)
    world, size_ok = _parse_world(ctx, data)
    geo = _Geo(size=world.size if size_ok else None)
    physics = _parse_physics(ctx, data)
    rules = _parse_rules(ctx, data)
    # Obstacles first: spawn positions and the player are checked against them.
    obstacles = _parse_obstacles(ctx, data, geo)
    obstacle_field = _parse_obstacle_field(ctx, data, geo)
    walls = _parse_walls(ctx, data, geo)
    buildings = _parse_buildings(ctx, data, geo)
    groups = _parse_groups(ctx, data, geo)
    player = _parse_player(ctx, data, geo)
    navigation = _parse_navigation(ctx, data)
    if groups and all(g.spawn.positions is not None for g in groups):
        geo.spawn_points = [p for g in groups for p in g.spawn.positions]
    orders = _parse_orders(ctx, data, geo, groups)
    events = _parse_events(ctx, data, geo)
    if ctx.errors:
        raise SceneError(ctx.errors)
    return Scene(
        groups=groups,
        name=name,
        seed=seed,
        world=world,
        physics=physics,
        rules=rules,
        obstacles=obstacles,
        obstacle_field=obstacle_field,
        player=player,
        walls=walls,
        buildings=buildings,
        navigation=navigation,
        orders=orders,
        events=events,
        source=source,
        text=text,
        warnings=tuple(ctx.warnings),
    )


def load_scene(path) -> Scene:
    """Read and validate the scene file at ``path`` (str or Path).

    A missing, unreadable or non-UTF-8 file raises :class:`SceneError` like any other bad scene.
    """
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise SceneError([f"{source}: cannot read: {exc.strerror or exc}"]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = f"byte 0x{raw[exc.start]:02x} at offset {exc.start}"
        raise SceneError([f"{source}: cannot read: not valid UTF-8 ({where})"]) from None
    return parse_scene(text, source)
