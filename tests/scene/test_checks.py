"""Geometry cross-checks of scene files (rigidflock.scene.checks)."""

from __future__ import annotations

from rigidflock.scene import parse_scene
from tests.scene.messages import errors_of, one_error, with_group


def test_spawn_disc_outside_world():
    err = one_error("[[groups]]\ncount = 3\nspawn = { center = [100, 100], radius = 150 }\n")
    assert err.startswith("x.toml: groups[0].spawn: disc ")
    assert "extends outside the world [0,800]x[0,600]" in err


def test_default_spawn_disc_must_fit_a_small_world():
    err = one_error("[world]\nsize = [150, 150]\n[[groups]]\ncount = 3\n")
    assert err.startswith("x.toml: groups[0].spawn: disc ")
    assert "[0,150]x[0,150]" in err
    assert parse_scene("[world]\nsize = [200, 200]\n[[groups]]\ncount = 3\n").world.size == (
        200.0,
        200.0,
    )


def test_spawn_positions_errors():
    text = "[[groups]]\ncount = 3\nspawn = { positions = [[10, 10], [900, 10]] }\n"
    errors = errors_of(text)
    assert any(
        e.startswith("x.toml: groups[0].spawn.positions[1]: [900, 10] is outside the world")
        for e in errors
    )
    assert any(
        e.startswith("x.toml: groups[0].spawn.positions: has 2 positions but count is 3")
        for e in errors
    )
    assert len(errors) == 2
    err = one_error(
        "[[groups]]\ncount = 1\nspawn = { center = [10, 10], positions = [[10, 10]] }\n"
    )
    assert err.startswith("x.toml: groups[0].spawn: ") and "not both" in err


def test_obstacle_over_spawn_disc_is_a_warning():
    scene = parse_scene(with_group("[[obstacles]]\ncenter = [400, 330]\n"), "w.toml")
    assert len(scene.warnings) == 1
    assert scene.warnings[0].startswith(
        "w.toml: obstacles[0]: overlaps the spawn disc of groups[0]"
    )


def test_obstacle_covering_the_whole_spawn_disc_is_an_error():
    text = "[[groups]]\ncount = 1\nspawn = { radius = 10 }\n[[obstacles]]\ncenter = [400, 300]\n"
    assert one_error(text).startswith(
        "x.toml: groups[0].spawn: disc lies entirely inside obstacles[0]"
    )


def test_units_placed_inside_obstacles_are_errors():
    text = """\
[[groups]]
count = 2
spawn = { positions = [[100, 100], [233, 100]] }
[[obstacles]]
center = [200, 100]
radius = 32
[player]
position = [600, 500]
waypoints = [[620, 500]]
[[obstacles]]
center = [600, 480]
radius = 20
"""
    errors = errors_of(text)
    # 233 - 200 = 33 < 32 + length/2 = 34
    assert errors[0].startswith(
        "x.toml: groups[0].spawn.positions[1]: [233, 100] is inside obstacles[0]"
    )
    assert errors[1].startswith("x.toml: player.position: [600, 500] is inside obstacles[1]")
    assert len(errors) == 2


def test_points_outside_world():
    text = with_group(
        "[[obstacles]]\ncenter = [-5, 10]\n"
        "[player]\nposition = [10, 700]\nwaypoints = [[1, 1], [2, 2], [801, 5]]\n"
    )
    errors = errors_of(text)
    assert [e.split(": ")[1] for e in errors] == [
        "obstacles[0].center",
        "player.position",
        "player.waypoints[2]",
    ]
    assert all("outside the world [0,800]x[0,600]" in e for e in errors)


def test_obstacle_field_that_cannot_fit():
    err = one_error(with_group("[obstacle_field]\ncount = 3\nmargin = 300\n"))
    assert err.startswith("x.toml: obstacle_field.margin: ")
    assert parse_scene(with_group("[obstacle_field]\ncount = 0\nmargin = 300\n")).obstacle_field


def test_script_ticks_strictly_increasing():
    text = with_group(
        '[player]\ncontrol = "script"\n'
        "script = [{ tick = 0 }, { tick = 10 }, { tick = 10 }, { tick = 5 }]\n"
    )
    errors = errors_of(text)
    assert [e.split(": ")[1] for e in errors] == ["player.script[2].tick", "player.script[3].tick"]
    assert "strictly increasing" in errors[0]


def test_building_corner_outside_the_world_names_the_building_line():
    # The line finder used to loop forever on "buildings[0] corner 2" (no line of its own).
    text = "[[groups]]\ncount = 1\n\n[[buildings]]\nrect = [700, 500, 900, 700]\n"
    errors = errors_of(text)
    assert errors == [
        "x.toml: buildings[0] corner 1: [900, 500] is outside the world [0,800]x[0,600] (line 4)",
        "x.toml: buildings[0] corner 2: [900, 700] is outside the world [0,800]x[0,600] (line 4)",
        "x.toml: buildings[0] corner 3: [700, 700] is outside the world [0,800]x[0,600] (line 4)",
    ]
    inline = "buildings = [{ rect = [700, 100, 900, 200] }]\n[[groups]]\ncount = 1\n"
    assert all(e.endswith("(line 1)") for e in errors_of(inline))


def test_event_building_overlapping_a_building():
    text = with_group(
        "[[buildings]]\nrect = [100, 100, 200, 200]\n"
        "[[events]]\ntick = 5\nadd_building = { rect = [150, 150, 250, 250] }\n"
    )
    assert one_error(text) == "x.toml: events[0].add_building: overlaps buildings[0] (line 5)"
