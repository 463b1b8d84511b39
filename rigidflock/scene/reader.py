"""Scene files: TOML text -> a validated, frozen :class:`Scene`.

The format is docs/reference/scene-keys.md. Every key has a default except ``groups[*].count``.
Validation collects *every* error it finds before raising :class:`SceneError`; each error is one
line of the form ``FILE: FIELD.PATH: message`` (syntax errors name the line instead of a field).
Unknown keys are errors with a did-you-mean. This package does not import pymunk: scenes are
plain data.

Decisions beyond the format's reference:

- A message about a key written in the file ends with ``(line N)``: the line of that key, or of the
  nearest enclosing table. Syntax errors read ``FILE: line N: message (column M)``.
- ``GroupSpec.thrust`` is always a float after parsing: 10.0, or 15.0 for role ``"intercept"``.
- ``SpawnSpec.center`` stays ``None`` when not given (the world's centre).
- ``family = "player"`` is rejected: traces use that family name for the player.
- The geometry checks are listed in :mod:`rigidflock.scene.checks`.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from rigidflock.scene.behaviour_section import read_behaviours
from rigidflock.scene.checks import Geo
from rigidflock.scene.declarations import file_keys
from rigidflock.scene.errors import Ctx, SceneError, short
from rigidflock.scene.rts_sections import (
    read_buildings,
    read_events,
    read_navigation,
    read_orders,
    read_walls,
)
from rigidflock.scene.sections import (
    read_groups,
    read_obstacle_field,
    read_obstacles,
    read_physics,
    read_player,
    read_rules,
    read_world,
)
from rigidflock.scene.spec_reader import check_keys, read_fields, read_spec
from rigidflock.scene.specs import RunSpec, Scene

MAX_TEXT = 16 << 20  # characters of a scene file: the largest scene that can run is far smaller
_SYNTAX_POS_RE = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_SYNTAX_END_RE = re.compile(r"\s*\(at end of document\)\s*$")


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


def _load_toml(text: str | bytes, source: str) -> tuple[str, dict]:
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SceneError([f"{source}: cannot read: not valid UTF-8 ({exc.reason})"]) from None
    if len(text) > MAX_TEXT:
        raise SceneError([f"{source}: cannot read: {len(text):,} characters (a scene is at most "
                          f"{MAX_TEXT:,})"])  # fmt: skip
    try:
        return text, tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        raise _syntax_error(source, text, exc) from None
    except RecursionError:  # tomllib recurses once per level of [ or {
        raise SceneError(
            [f"{source}: arrays or inline tables nested too deeply (a scene needs a few levels)"]
        ) from None
    except ValueError as exc:  # an integer of more than 4,300 digits (int() refuses it)
        raise SceneError([f"{source}: cannot read: {short(str(exc), 80)}"]) from None


def _read_tables(ctx: Ctx, data: dict) -> dict:
    """Every table of the file, in the order its checks need: obstacles first (spawn positions
    and the player are checked against them), orders after every unit is known."""
    check_keys(ctx, data, file_keys(Scene), "")
    parts = read_fields(ctx, data, Scene, "", ("name", "seed"))[0]
    parts["world"], size_ok = read_world(ctx, data)
    geo = Geo(size=parts["world"].size if size_ok else None)
    parts["physics"] = read_physics(ctx, data)
    parts["rules"] = read_rules(ctx, data)
    parts["obstacles"] = read_obstacles(ctx, data, geo)
    parts["obstacle_field"] = read_obstacle_field(ctx, data, geo)
    parts["walls"] = read_walls(ctx, data, geo)
    parts["buildings"] = read_buildings(ctx, data, geo)
    groups = parts["groups"] = read_groups(ctx, data, geo)
    parts["player"] = read_player(ctx, data, geo)
    parts["navigation"] = read_navigation(ctx, data)
    if groups and all(g.spawn.positions is not None for g in groups):
        geo.spawn_points = [p for g in groups for p in g.spawn.positions]
    parts["orders"] = read_orders(ctx, data, geo, groups)
    parts["events"] = read_events(ctx, data, geo)
    parts["behaviours"] = read_behaviours(ctx, data, groups)
    parts["run"] = read_spec(ctx, data, "run", "", RunSpec)
    return parts


def parse_scene(text: str, source: str = "<scene>") -> Scene:
    """Parse and validate TOML ``text``; ``source`` names it in error messages.

    Raises :class:`SceneError` listing every problem found. Non-fatal remarks (an obstacle over a
    spawn disc, ...) are returned in ``Scene.warnings``.

    >>> scene = parse_scene("[[groups]]\\ncount = 3", "demo.toml")
    >>> scene.unit_count, scene.groups[0].thrust, scene.world.size
    (3, 10.0, (800.0, 600.0))
    """
    text, data = _load_toml(text, source)
    ctx = Ctx(source, text)
    parts = _read_tables(ctx, data)
    if ctx.errors:
        raise SceneError(ctx.errors)
    return Scene(**parts, source=source, text=text, warnings=tuple(ctx.warnings))


def load_scene(path) -> Scene:
    """Read and validate the scene file at ``path`` (str or Path).

    A missing, unreadable or non-UTF-8 file raises :class:`SceneError` like any other bad scene.
    """
    source = str(path)
    try:
        if Path(path).stat().st_size > 4 * MAX_TEXT:  # UTF-8: at most 4 bytes a character
            raise SceneError([f"{source}: cannot read: larger than {4 * MAX_TEXT:,} bytes"])
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise SceneError([f"{source}: cannot read: {exc.strerror or exc}"]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = f"byte 0x{raw[exc.start]:02x} at offset {exc.start}"
        raise SceneError([f"{source}: cannot read: not valid UTF-8 ({where})"]) from None
    return parse_scene(text, source)
