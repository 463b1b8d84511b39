"""Key declarations and the key reference (rigidflock.scene.declarations, rigidflock.scene.keys)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from rigidflock import scene as scene_pkg
from rigidflock.scene import Scene, SceneError, parse_scene, reference
from rigidflock.scene.budget import check_runs
from rigidflock.scene.declarations import declared, file_keys
from rigidflock.scene.keys import REQUIRED, iter_keys, runtime_keys

SPEC_CLASSES = [
    getattr(scene_pkg, name)
    for name in scene_pkg.__all__
    if isinstance(getattr(scene_pkg, name), type)
    and dataclasses.is_dataclass(getattr(scene_pkg, name))
]


def test_every_spec_class_is_reached_from_scene():
    reached, todo = set(), [Scene]
    while todo:
        cls = todo.pop()
        reached.add(cls)
        todo += [k.spec for _, k in declared(cls) if k.spec and k.spec not in reached]
    assert reached == set(SPEC_CLASSES)


@pytest.mark.parametrize("cls", SPEC_CLASSES, ids=lambda c: c.__name__)
def test_every_field_is_declared_with_help(cls):
    keys = {f.name: k for f, k in declared(cls)}
    for f in dataclasses.fields(cls):
        if cls is Scene and f.name in ("source", "text", "warnings"):
            assert f.name not in keys  # filled in by the reader, not a file key
            continue
        k = keys[f.name]
        assert k.help and "\n" not in k.help, f"{cls.__name__}.{f.name}"
        assert k.type_text
        if k.kind == "enum":
            assert f.default in k.choices


def test_reference_covers_every_table():
    paths = [row.path for row in reference()]
    assert len(paths) == len(set(paths))
    tops = [p for p in paths if "." not in p]
    assert tops == list(file_keys(Scene))
    tables = ("world", "physics", "rules", "groups[]", "obstacles[]", "obstacle_field", "player",
              "walls[]", "buildings[]", "navigation", "orders[]", "events[]", "run")  # fmt: skip
    for table in tables:
        assert any(p.startswith(table + ".") for p in paths), table
    for path in ("world.dt", "rules.weights.chase", "groups[].spawn.positions",
                 "player.script[].steer", "orders[].select.rect", "buildings[].rect",
                 "events[].add_building.polygon", "navigation.clearance"):  # fmt: skip
        assert path in paths, path


def _rows():
    return {row.path: row for row in reference()}


def test_reference_defaults_are_the_dataclass_defaults():
    def walk(cls, prefix):
        for f, k in declared(cls):
            names = [n for n, _ in k.alternatives] or [f.name]
            for name in names:
                path = f"{prefix}.{name}" if prefix else name
                expected = f.default_factory() if callable(f.default_factory) else f.default
                yield path, expected
            if k.kind in ("table", "tables"):
                yield from walk(k.spec, path + ("[]" if k.kind == "tables" else ""))

    rows = _rows()
    pairs = list(walk(Scene, ""))
    assert len(pairs) == len(rows)
    for path, expected in pairs:
        assert rows[path].default == expected, path


def test_reference_rows_read_like_the_docs():
    rows = _rows()
    assert tuple(rows["world.dt"]) == (
        "world.dt", "number", 0.016666, "> 0 and <= 1", "seconds per tick (fixed)", False,
    )  # fmt: skip
    assert rows["world.bounds"].type == 'one of "wrap", "walls", "open"'
    assert rows["groups[].count"].default is REQUIRED
    assert rows["groups[].heading"].type == 'number (degrees) or "random"'
    assert rows["player.script[].throttle"].limits == "in [-1, 1]"
    assert rows["physics.angular_damping"].type == '"auto" or number'
    assert rows["rules.radius_factor"].type == "table"
    assert rows["rules.radius_factor.wide"].limits == "> 0, at most 1000 to run"
    assert rows["obstacle_field"].default is None
    for path in ("world.size", "world.dt", "groups[].length", "navigation.cell"):
        assert any(u in rows[path].help for u in ("world units", "seconds")), path
    assert "degrees" in rows["player.heading"].help


def test_runtime_keys_are_the_rules_and_the_units_forces():
    # What Command.changes may change while a scene runs: every steering rule (the switches
    # rigidflock.sim.commands.TOGGLES among them), the units' thrust and steering force, drag
    keys = runtime_keys()
    assert tuple(
        k for k in keys if k in ("rules.flocking", "rules.chase", "rules.avoidance", "rules.view")
    ) == ("rules.flocking", "rules.chase", "rules.avoidance", "rules.view")
    assert {"rules.chase", "rules.avoidance", "rules.view", "rules.weights.cohesion",
            "groups[].thrust", "player.thrust"} <= set(keys)  # fmt: skip
    assert all(k.startswith(("rules.", "physics.", "groups[].", "player.")) for k in keys)


def _scene_with(path: str, value: str) -> str:
    """A scene text writing ``value`` at the reference ``path`` (``groups[].x`` -> [[groups]])."""
    head, _, rest = path.partition("[].")
    if rest:
        table, _, leaf = rest.rpartition(".")
        lines = [f"[[{head}]]"] + ([f"[{head}.{table}]"] if table else []) + [f"{leaf} = {value}"]
    else:
        table, _, leaf = path.rpartition(".")
        lines = ([f"[{table}]"] if table else []) + [f"{leaf} = {value}"]
    groups = "" if head == "groups" and rest else "[[groups]]\ncount = 1\n"
    if "." not in path:  # a top-level key comes before any table
        return "\n".join(lines) + "\n" + groups
    return groups + "\n".join(lines) + "\n"


PLAIN = [
    row
    for row in iter_keys()
    if row.type not in ("table", "array of tables") and row.path.count("[]") <= 1
    and not row.path.startswith(("buildings", "events", "orders[].select"))
]  # fmt: skip


@pytest.mark.parametrize("row", PLAIN, ids=lambda r: r.path)
def test_every_plain_key_is_read_and_checked(row):
    """A value of the wrong type at any declared key is an error at that key's path."""
    bad = "5" if row.type == "string" else '"zzz-not-valid"'
    text = _scene_with(row.path, bad)
    with pytest.raises(SceneError) as info:
        parse_scene(text, "k.toml")
    where = row.path.replace("[]", "[0]")
    assert any(e.startswith(f"k.toml: {where}: must be ") for e in info.value.errors), (
        text,
        info.value.errors,
    )


def _outside(limits: str, integer: bool) -> list[tuple[str, str]]:
    """(TOML value, the bound's text) just outside each bound the reference states for a key:
    below ``> a``, ``>= a`` and ``in [a, b]``; above ``< b``, ``<= b``, ``in [a, b]`` and ``at
    most b to run``."""
    step = 1 if integer else 0.5
    num = r"(-?[\d.,]+(?:e[+-]?\d+)?)"
    value = lambda text: float(text.replace(",", ""))  # noqa: E731
    out = []
    for lo, hi in re.findall(rf"in \[{num}, {num}\]", limits):
        text = f"from {lo} to {hi}" if integer else f"in [{lo}, {hi}]"  # as messages put them
        out += [(value(lo) - step, text), (value(hi) + step, text)]
    for op, a in re.findall(rf"(?:^|, | and )([<>]=?) {num}", limits):
        past = {">": 0, ">=": -step, "<": 0, "<=": step}[op]
        out.append((value(a) + past, f"{op} {a}"))
    for b in re.findall(rf"at most {num} to run", limits):
        out.append((value(b) + step, "at most"))
    return [(str(int(v)) if integer else repr(v), bound) for v, bound in out]


BOUNDED = [
    (row, value, bound)
    for row in PLAIN
    if row.limits and ("integer" in row.type or "number" in row.type)
    for value, bound in _outside(row.limits, "integer" in row.type)
]


@pytest.mark.parametrize(("row", "value", "bound"), BOUNDED, ids=lambda x: getattr(x, "path", x))
def test_every_stated_limit_is_enforced_at_its_key(row, value, bound):
    """A value just past any limit the reference states for a key (its docs' "limits" column)
    is an error at that key's path, quoting that bound: no stated limit goes unchecked (the
    keys of ``events`` are left to their own tests, as above)."""
    text = _scene_with(row.path, value)
    with pytest.raises(SceneError) as info:
        check_runs(parse_scene(text, "k.toml"))
    where = row.path.replace("[]", "[0]")
    assert any(e.startswith(f"k.toml: {where}: ") and bound in e for e in info.value.errors), (
        text,
        info.value.errors,
    )


def test_every_stated_limit_is_understood():
    """Each bound of the limits column gives the test above a value to try (a bound written
    some new way would otherwise go untested without a word): one per ``<``/``>`` bound and
    ``at most``, two per interval."""
    for row in PLAIN:
        if row.limits and ("integer" in row.type or "number" in row.type):
            bounds = len(re.findall(r"[<>]|at most", row.limits)) + 2 * row.limits.count("in [")
            assert len(_outside(row.limits, "integer" in row.type)) == bounds, row
