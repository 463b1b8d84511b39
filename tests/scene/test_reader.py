"""Scene files: parsing, defaults and validation messages (rigidflock.scene.reader and the table
readers it calls)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from rigidflock.scene import (
    GroupSpec,
    ObstacleFieldSpec,
    ObstacleSpec,
    PhysicsSpec,
    PlayerSpec,
    RulesSpec,
    Scene,
    SceneError,
    ScriptEntry,
    SpawnSpec,
    WorldSpec,
    load_scene,
    parse_scene,
)
from tests.scene.messages import errors_of, one_error, with_group

MINIMAL = "[[groups]]\ncount = 3\n"

FULL = """\
name = "AIDemo4"
seed = 7

[world]
size = [1000.0, 700]
bounds = "walls"
dt = 0.02
substeps = 2

[physics]
collisions = false
drag_coefficient = 0.6
air_density = 0.2
angular_damping = 3
elasticity = 0.3
friction = 0.4

[rules]
flocking = false
chase = false
avoidance = false
view = "narrow"
steering_force = 25.0
radius_factor = { wide = 150.0, limited = 20.0, narrow = 40.0 }
separation_factor = 4.0
back_view_angle_factor = 0.5
front_view_angle_factor = 0.75
feeler_factor = 20.0
weights = { cohesion = 0.5, alignment = 0.6, separation = 0.7, chase = 3.0, avoidance = 0.8 }

[[groups]]
family = "blue"
role = "intercept"
count = 10
length = 5.0
width = 2.5
mass = 12.0
thrust = 11
max_steering_force = 30.0
spawn = { center = [500.0, 350.0], radius = 120.0 }
heading = 90

[[groups]]
family = "red"
role = "none"
count = 2
spawn = { positions = [[50, 60], [70.5, 80]] }

[[obstacles]]
center = [200.0, 150.0]
radius = 30.0

[[obstacles]]
center = [800.0, 600.0]

[obstacle_field]
count = 5
radius = 20.0
margin = 100.0

[player]
position = [900.0, 100.0]
heading = 180
length = 3.0
width = 1.5
mass = 8.0
thrust = 14.0
max_steering_force = 35.0
control = "script"
waypoints = [[700.0, 500.0], [100.0, 500.0]]
script = [{ tick = 0, throttle = 1.0, steer = 0.0 }, { tick = 120, throttle = -0.5, steer = -1 }]
"""


# --------------------------------------------------------------------------------------------------
# Good scenes


def test_minimal_scene_has_every_default():
    scene = parse_scene(MINIMAL, "min.toml")
    assert scene.groups == (GroupSpec(count=3, thrust=10.0),)
    assert scene.name == ""
    assert scene.seed == 1
    assert scene.world == WorldSpec()
    assert scene.physics == PhysicsSpec()
    assert scene.physics.angular_damping is None
    assert scene.rules == RulesSpec()
    assert scene.obstacles == ()
    assert scene.obstacle_field is None
    assert scene.player is None
    assert scene.source == "min.toml"
    assert scene.text == MINIMAL
    assert scene.warnings == ()
    assert scene.unit_count == 3
    group = scene.groups[0]
    assert group.spawn == SpawnSpec()
    assert group.heading is None
    assert isinstance(group.thrust, float)


def test_full_scene_every_key():
    scene = parse_scene(FULL, "full.toml")
    assert scene.name == "AIDemo4"
    assert scene.seed == 7
    assert scene.world == WorldSpec(size=(1000.0, 700.0), bounds="walls", dt=0.02, substeps=2)
    assert scene.physics == PhysicsSpec(
        collisions=False,
        drag_coefficient=0.6,
        air_density=0.2,
        angular_damping=3.0,
        elasticity=0.3,
        friction=0.4,
    )
    rules = scene.rules
    assert (rules.flocking, rules.chase, rules.avoidance, rules.view) == (
        False,
        False,
        False,
        "narrow",
    )
    assert rules.steering_force == 25.0
    assert (rules.radius_factor.wide, rules.radius_factor.limited, rules.radius_factor.narrow) == (
        150.0,
        20.0,
        40.0,
    )
    assert rules.separation_factor == 4.0
    assert rules.back_view_angle_factor == 0.5
    assert rules.front_view_angle_factor == 0.75
    assert rules.feeler_factor == 20.0
    w = rules.weights
    assert (w.cohesion, w.alignment, w.separation, w.chase, w.avoidance) == (
        0.5,
        0.6,
        0.7,
        3.0,
        0.8,
    )

    blue, red = scene.groups
    assert blue.family == "blue" and blue.role == "intercept" and blue.count == 10
    assert (blue.length, blue.width, blue.mass, blue.max_steering_force) == (5.0, 2.5, 12.0, 30.0)
    assert blue.thrust == 11.0 and isinstance(blue.thrust, float)  # explicit beats the 1.5x default
    assert blue.spawn == SpawnSpec(center=(500.0, 350.0), radius=120.0, positions=None)
    assert blue.heading == pytest.approx(math.pi / 2)
    assert red.role == "none" and red.thrust == 10.0
    assert red.spawn.positions == ((50.0, 60.0), (70.5, 80.0))
    assert all(isinstance(c, float) for p in red.spawn.positions for c in p)
    assert scene.unit_count == 12

    assert scene.obstacles == (
        ObstacleSpec(center=(200.0, 150.0), radius=30.0),
        ObstacleSpec(center=(800.0, 600.0), radius=32.0),
    )
    assert scene.obstacle_field == ObstacleFieldSpec(count=5, radius=20.0, margin=100.0)

    player = scene.player
    assert player == PlayerSpec(
        position=(900.0, 100.0),
        heading=pytest.approx(math.pi),
        length=3.0,
        width=1.5,
        mass=8.0,
        thrust=14.0,
        max_steering_force=35.0,
        control="script",
        waypoints=((700.0, 500.0), (100.0, 500.0)),
        script=(ScriptEntry(0, 1.0, 0.0), ScriptEntry(120, -0.5, -1.0)),
    )
    assert scene.warnings == ()


def test_scene_is_frozen_and_uses_tuples():
    scene = parse_scene(FULL)
    with pytest.raises(dataclasses.FrozenInstanceError):
        scene.seed = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        scene.groups[0].count = 3  # type: ignore[misc]
    assert isinstance(scene.groups, tuple)
    assert isinstance(scene.player.script, tuple)
    assert isinstance(scene.player.waypoints, tuple)
    assert isinstance(scene.world.size, tuple)


def test_intercept_thrust_default_is_one_and_a_half_times():
    scene = parse_scene('[[groups]]\ncount = 1\nrole = "intercept"\n')
    assert scene.groups[0].thrust == 15.0


def test_player_defaults_and_heading_in_degrees():
    scene = parse_scene(with_group("[player]\nheading = -90\n"))
    assert scene.player.heading == pytest.approx(-math.pi / 2)
    assert scene.player.position == (100.0, 100.0)
    assert scene.player.control == "keyboard"
    assert parse_scene(with_group("[player]\n")).player == PlayerSpec()


def test_angular_damping_auto_or_number():
    text = with_group('[physics]\nangular_damping = "auto"\n')
    assert parse_scene(text).physics.angular_damping is None
    assert parse_scene(with_group("[physics]\nangular_damping = 0\n")).physics.angular_damping == 0
    err = one_error(with_group('[physics]\nangular_damping = "Auto"\n'))
    assert "physics.angular_damping" in err and 'did you mean "auto"?' in err


def test_load_scene_reads_file(tmp_path):
    path = tmp_path / "scene.toml"
    path.write_text(FULL, encoding="utf-8")
    scene = load_scene(path)
    assert scene.source == str(path)
    assert scene.text == FULL
    assert load_scene(str(path)).source == str(path)


# --------------------------------------------------------------------------------------------------
# Errors, one class at a time


def test_syntax_error_names_the_line():
    text = "[world]\nsize = [800, 600]\nbounds = wrap\n\n[[groups]]\ncount = 3\n"
    err = one_error(text, "scenes/syn.toml")
    assert err.startswith("scenes/syn.toml: line 3: ")
    assert "Invalid value" in err
    err = one_error("[[groups]]\ncount = 3\n\n[world]\nsize = [1, 2\n")
    assert err.startswith("x.toml: line 5: ")  # unterminated at the end of the file


def test_unknown_keys_with_did_you_mean_at_every_level():
    text = """\
nmae = "x"
[wrld]
[rules]
weights = { cohesoin = 1.0 }
[[groups]]
cont = 3
count = 3
spawn = { centre = [400, 300] }
[player]
scirpt = []
"""
    errors = errors_of(text)
    expect = [
        'x.toml: nmae: unknown key (did you mean "name"?)',
        'x.toml: wrld: unknown key (did you mean "world"?)',
        'x.toml: rules.weights.cohesoin: unknown key (did you mean "cohesion"?)',
        'x.toml: groups[0].cont: unknown key (did you mean "count"?)',
        'x.toml: groups[0].spawn.centre: unknown key (did you mean "center"?)',
        'x.toml: player.scirpt: unknown key (did you mean "script"?)',
    ]
    for prefix in expect:
        assert any(e.startswith(prefix) for e in errors), (prefix, errors)
    assert len(errors) == len(expect)


def test_unknown_key_without_close_match_lists_the_keys():
    err = one_error(with_group("[world]\nzzz = 1\n"))
    keys = "size, bounds, dt, substeps, reaction_ticks, neighbour_ticks"
    assert f"world.zzz: unknown key (expected one of: {keys})" in err


def test_non_syntax_errors_name_the_line():
    text = "[[groups]]\ncount = 3\n\n[[groups]]\ncount = 2\nmass = -1\n"
    assert one_error(text) == "x.toml: groups[1].mass: must be a number > 0, got -1 (line 6)"
    # a key that is missing points at its table
    assert one_error("[[groups]]\nfamily = 'a'\n") == "x.toml: groups[0].count: required (line 1)"


@pytest.mark.parametrize(
    ("extra", "path", "got"),
    [
        ('[world]\ndt = "fast"', "world.dt", '"fast"'),
        ("[world]\ndt = true", "world.dt", "true"),
        ('[world]\nsize = [800, "600"]', "world.size", 'an element "600"'),
        ("[world]\nsize = [800, 600, 1]", "world.size", "an array of 3"),
        ("[world]\nsubsteps = 1.0", "world.substeps", "1.0"),
        ("[physics]\ncollisions = 1", "physics.collisions", "1"),
        ("[rules]\nweights = 2", "rules.weights", "2"),
        ("name = 3", "name", "3"),
        ('seed = "1"', "seed", '"1"'),
        ('[player]\nheading = "random"', "player.heading", '"random"'),
        ("world = 3", "world", "3"),
    ],
)
def test_wrong_types(extra, path, got):
    err = one_error(with_group(extra))
    assert err.startswith(f"x.toml: {path}: must be ")
    assert f"got {got}" in err


def test_bool_is_not_a_count():
    err = one_error("[[groups]]\ncount = true\n")
    assert err.startswith("x.toml: groups[0].count: must be an integer >= 1, got true")


@pytest.mark.parametrize(
    ("extra", "path", "fragment"),
    [
        ("[world]\ndt = 0", "world.dt", "must be a number > 0 and <= 1, got 0"),
        ("[world]\ndt = 2.5", "world.dt", "got 2.5"),
        ("[world]\ndt = nan", "world.dt", "must be a finite number > 0 and <= 1, got nan"),
        ("[world]\nsize = [800, 0]", "world.size", "must be > 0"),
        ("[world]\nsize = [inf, 600]", "world.size", "finite"),
        ("[world]\nsubsteps = 0", "world.substeps", "must be an integer >= 1, got 0"),
        ("[physics]\nfriction = -0.1", "physics.friction", ">= 0, got -0.1"),
        ("[physics]\nair_density = -inf", "physics.air_density", "got -inf"),
        ("[rules]\nsteering_force = -1", "rules.steering_force", ">= 0"),
        ("[rules]\nradius_factor = { narrow = 0 }", "rules.radius_factor.narrow", "> 0"),
        ("[rules]\nseparation_factor = 0", "rules.separation_factor", "> 0"),
        ("[rules]\nfront_view_angle_factor = 0", "rules.front_view_angle_factor", "> 0"),
        ("[rules]\nweights.chase = -2", "rules.weights.chase", ">= 0, got -2"),
        ("seed = -1", "seed", "must be an integer >= 0, got -1"),
        ("[[obstacles]]\ncenter = [10, 10]\nradius = 0", "obstacles[0].radius", "> 0"),
        ("[obstacle_field]\ncount = -1", "obstacle_field.count", ">= 0"),
        ("[player]\nthrust = 0", "player.thrust", "> 0"),
        ("[player]\nscript = [{ tick = 0, steer = 1.5 }]", "player.script[0].steer", "[-1, 1]"),
        ("[player]\nscript = [{ tick = -1 }]", "player.script[0].tick", ">= 0, got -1"),
    ],
)
def test_out_of_range(extra, path, fragment):
    err = one_error(with_group(extra))
    assert err.startswith(f"x.toml: {path}: ")
    assert fragment in err


def test_group_count_message():
    text = "[[groups]]\ncount = 1\n[[groups]]\ncount = -3\n"
    err = one_error(text, "scenes/x.toml")
    assert err.startswith("scenes/x.toml: groups[1].count: must be an integer >= 1, got -3")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[[groups]]\nmass = 3\n", "groups[0].count: required"),
        ('name = "no groups"\n', "groups: at least one [[groups]] table is required"),
        ("groups = []\n", "groups: at least one [[groups]] table is required"),
        ("[groups]\ncount = 3\n", "groups: must be an array of tables ([[groups]])"),
        (with_group("[[obstacles]]\nradius = 3"), "obstacles[0].center: required"),
        (with_group("[player]\nscript = [{ throttle = 1 }]"), "player.script[0].tick: required"),
        (with_group('[player]\ncontrol = "script"'), "player.script: "),
        (with_group('[player]\ncontrol = "waypoints"\nwaypoints = []'), "player.waypoints: "),
    ],
)
def test_missing_required(text, fragment):
    assert fragment in one_error(text)


@pytest.mark.parametrize(
    ("extra", "path", "choice"),
    [
        ('[world]\nbounds = "wall"', "world.bounds", "walls"),
        ('[rules]\nview = "wid"', "rules.view", "wide"),
        ('[player]\ncontrol = "keybord"', "player.control", "keyboard"),
    ],
)
def test_bad_enum_with_did_you_mean(extra, path, choice):
    err = one_error(with_group(extra))
    assert err.startswith(f"x.toml: {path}: must be one of ")
    assert f'did you mean "{choice}"?' in err


def test_bad_role_and_heading():
    errors = errors_of('[[groups]]\ncount = 2\nrole = "intercep"\nheading = "randm"\n')
    assert any(
        e.startswith('x.toml: groups[0].role: must be one of "chase", "intercept", "none"')
        and 'did you mean "intercept"?' in e
        for e in errors
    )
    assert any(
        e.startswith("x.toml: groups[0].heading: ") and 'did you mean "random"?' in e
        for e in errors
    )


# --------------------------------------------------------------------------------------------------
# Everything at once, and files


def test_every_error_is_reported():
    text = """\
seed = 1.5
[world]
dt = 0
bounds = "wall"
[physics]
friction = nan
[rules]
weights = { cohesoin = 1.0 }
[[groups]]
cont = 3
spawn = { center = [100, 100], radius = 150 }
[[groups]]
count = -3
role = "intercep"
[player]
waypoints = [[1, 1], [900, 1]]
"""
    errors = errors_of(text, "scenes/many.toml")
    paths = [e.split(": ")[1] for e in errors]
    assert paths == [
        "seed",
        "world.bounds",
        "world.dt",
        "physics.friction",
        "rules.weights.cohesoin",
        "groups[0].cont",
        "groups[0].count",
        "groups[0].spawn",
        "groups[1].count",
        "groups[1].role",
        "player.waypoints[1]",
    ]


def test_missing_file(tmp_path):
    path = tmp_path / "nope.toml"
    with pytest.raises(SceneError) as info:
        load_scene(path)
    assert info.value.errors == [f"{path}: cannot read: No such file or directory"]


def test_non_utf8_file(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'name = "caf\xe9"\n[[groups]]\ncount = 1\n')
    with pytest.raises(SceneError) as info:
        load_scene(path)
    assert info.value.errors[0].startswith(f"{path}: cannot read: not valid UTF-8")


def test_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + MINIMAL.encode())
    assert load_scene(path).unit_count == 3


def test_scene_type_is_exported():
    assert isinstance(parse_scene(MINIMAL), Scene)


def test_message_order_is_kept():
    # The order the reader before the split gave (some keys were always read before others).
    text = (
        '[physics]\nfriction = -1\nangular_damping = "atuo"\n[navigation]\ncell = 0\n'
        'clearance = -2\n[[groups]]\ncount = 1\n[player]\nheading = "x"\ncontrol = "script"\n'
        "position = [1, 1]\n[[orders]]\ngoal = [1, 1]\ntick = -1\n"
    )
    assert errors_of(text, "o.toml") == [
        'o.toml: physics.angular_damping: must be "auto" or a number >= 0, got "atuo" '
        '(did you mean "auto"?) (line 3)',
        "o.toml: physics.friction: must be a number >= 0, got -1 (line 2)",
        'o.toml: player.script: control = "script" needs a non-empty script (line 9)',
        'o.toml: player.heading: must be a number, got "x" (line 10)',
        "o.toml: navigation.clearance: must be a number >= 0, got -2 (line 6)",
        "o.toml: navigation.cell: must be a number > 0, got 0 (line 5)",
        "o.toml: orders[0].tick: must be an integer >= 0, got -1 (line 15)",
        "o.toml: orders[0].select: required: { family = ... }, { ids = [...] } or "
        "{ rect = [x0, y0, x1, y1] } (line 13)",
    ]


@pytest.mark.parametrize("value", ["2", "-1", "1.0", "true", '"1"'])
def test_an_integer_key_with_an_upper_limit_says_its_range(value):
    """world.reaction_ticks is 0 or 1: 2 is refused like -1 (an upper limit on an integer key
    was once declared and not checked), with the range in the message."""
    err = one_error(with_group(f"[world]\nreaction_ticks = {value}\n"))
    assert "world.reaction_ticks: must be an integer from 0 to 1" in err and "line 2" in err
