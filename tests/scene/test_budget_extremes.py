"""Key values at the ends of the floats against every derived size: the navigation grid's cells
(refused by ``navigation.cell`` when the grid cannot be built, counted so that no value
overflows), the memory estimate's sum, the physics' stiffness, and the building overlap test's
pairs. ``check`` and ``run`` answer such a scene alike: one line, exit 2, nothing written."""

from __future__ import annotations

import math
import time

import pytest

from rigidflock.cli import main
from rigidflock.scene import SceneError, load_scene, parse_scene
from rigidflock.scene.budget import (
    CELL_BYTES,
    CORNER_BYTES,
    FIELD_BYTES,
    check_budget,
    check_grid,
    check_rasters,
    check_runs,
    estimate,
    grid_cells,
    size_text,
)
from rigidflock.scene.overrides import derive
from tests.conftest import ROOT

TINY, TINY_NORMAL, HUGE = 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308
# cells of 10^600 and more (ints past the floats), past int64, and gibibytes to exabytes
SMALL_CELLS = [TINY, TINY_NORMAL, 1e-300, 1e-7, 1e-5, 0.01]
GRID_SCENES = ["rts_maze", "rts_doorway", "rts_crossing", "scenarios/doorway_two_way"]


def _scene(name: str):
    return load_scene(ROOT / "scenes" / f"{name}.toml")


def _refusal(scene) -> str:
    with pytest.raises(SceneError) as e:
        check_runs(scene)
    (line,) = e.value.errors
    assert "\n" not in line and len(line) < 300, line
    return line


def test_the_reported_case_check_and_run_say_one_line_naming_the_cell(tmp_path, capsys):
    """rts_maze with navigation.cell = 1e-300 (a grid of ~10^605 cells): check and run exit 2
    with one line naming navigation.cell, not an OverflowError, and run writes nothing."""
    metrics = tmp_path / "m.json"
    for args in (["check", "rts_maze"], ["run", "rts_maze", "--metrics", str(metrics)]):
        status = main([*args, "--set", "navigation.cell=1e-300"])
        err = capsys.readouterr().err
        assert status == 2, err
        (line,) = err.splitlines()
        assert "navigation.cell: 1e-300" in line and "10^605 cells" in line, line
        assert "internal error" not in line and "Overflow" not in line
        assert "give at least" in line and len(line) < 300
    assert not metrics.exists()


@pytest.mark.parametrize("name", GRID_SCENES)
@pytest.mark.parametrize("cell", SMALL_CELLS)
def test_a_grid_too_fine_to_build_is_refused_by_its_cell(name, cell):
    """Every scene that builds a route grid (walls, buildings, orders): each cell too small is
    one line naming navigation.cell, with the world it covers and the cell that would fit."""
    scene = derive(_scene(name), {"navigation.cell": cell})
    line = _refusal(scene)
    assert "navigation.cell: " in line and "cells over the world" in line, line
    assert "give at least" in line and "--memory-budget" in line


@pytest.mark.parametrize("cell", SMALL_CELLS)
def test_the_same_cell_without_a_grid_runs(cell):
    """A scene without walls, buildings or orders builds no grid: the cell does not matter."""
    scene = derive(_scene("flock500"), {"navigation.cell": cell})
    check_runs(scene)
    assert grid_cells(scene) is None


@pytest.mark.parametrize("cell", SMALL_CELLS)
def test_the_estimate_never_overflows(cell):
    """The estimate's parts are floats however many cells there are (infinity past the floats),
    and its text says so: no integer too large to add to a float, no 'inf TiB'."""
    scene = derive(_scene("rts_maze"), {"navigation.cell": cell})
    parts = estimate(scene, record=True)
    total = math.fsum(float(p.bytes) for p in parts)
    assert total > 4 << 30
    grid = next(p for p in parts if p.what.startswith("a navigation grid"))
    assert "inf" not in grid.what and "inf" not in size_text(total)
    with pytest.raises(SceneError, match=r"navigation\.cell"):
        check_budget(scene, record=True, budget=1 << 60)


def test_the_suggested_cell_is_accepted():
    """The cell the message suggests is one check accepts (it leaves room for the rest of the
    estimate), on a world of 10^6 x 10^6 and on rts_maze at a smaller budget."""
    for scene, budget in [
        (derive(_scene("rts_maze"), {"world.size": [1e6, 1e6]}), None),
        (derive(_scene("rts_maze"), {"navigation.cell": 1e-300}), 1 << 30),
        (derive(_scene("rts_doorway"), {"navigation.cell": TINY}), None),
    ]:
        with pytest.raises(SceneError) as e:
            check_budget(scene, budget=budget)
        (line,) = e.value.errors
        cell = float(line.split("give at least ")[1].split()[0])
        fits = derive(scene, {"navigation.cell": cell})
        check_budget(fits, budget=budget)
        smaller = derive(scene, {"navigation.cell": cell * 0.9})
        with pytest.raises(SceneError):
            check_budget(smaller, budget=budget)


def test_no_cell_fits_a_budget_smaller_than_one_cell():
    scene = derive(_scene("rts_maze"), {"navigation.cell": 1e-300})
    with pytest.raises(SceneError, match="no cell fits"):
        check_grid(scene, budget=CELL_BYTES)


def test_a_world_of_a_million_units_a_side_is_refused_by_its_cell():
    line = _refusal(derive(_scene("rts_doorway"), {"world.size": [1e6, 1e6]}))
    assert "navigation.cell: 4 makes a grid of 62,500,000,000 cells" in line, line


def test_a_building_of_many_corners_counts_in_the_grid():
    """Rasterising takes (points, corners) arrays: a building of 10,000 corners makes each cell
    of rts_maze's grid 3.8 MB, refused by the cell before the run is out of memory."""
    ring = [
        [300 + 5 * math.cos(2 * math.pi * k / 10_000), 300 + 5 * math.sin(2 * math.pi * k / 10_000)]
        for k in range(10_000)
    ]
    scene = derive(_scene("rts_maze"), {"events[0].add_building": {"polygon": ring}})
    line = _refusal(scene)
    assert f"{CELL_BYTES + CORNER_BYTES * 10_000 + FIELD_BYTES:,} bytes a cell" in line, line


@pytest.mark.parametrize(
    "group",
    [
        {"mass": TINY, "length": 1.0, "width": 1.0},  # a moment of 0 in floats
        {"mass": 1e-300, "length": 1e-160, "width": 1e-160},
        {"mass": TINY, "length": TINY, "width": TINY},  # no drag in floats
        {"width": TINY, "length": 1000.0},  # a cruise speed past the floats
        {"length": TINY_NORMAL},
        {"mass": TINY},
    ],
)
def test_physics_at_the_ends_of_the_floats_is_refused_in_one_line(group):
    """The stiffness of a body of 5e-324 kg, or of one whose drag or moment is 0 in floats, is
    infinite: refused naming the keys, never a ZeroDivisionError."""
    text = "[[groups]]\ncount = 3\n" + "".join(f"{k} = {v!r}\n" for k, v in group.items())
    line = _refusal(parse_scene(text, "t.toml"))
    assert "groups[0]" in line, line


def test_a_thousand_buildings_are_checked_in_a_second():
    """Half a million pairs of buildings: only those whose boxes meet are tested corner by
    corner; a thousand copies of one building are 999 lines, one per building."""
    rects = "".join(
        f"[[buildings]]\nrect = [{1 + (k % 40) * 19.5}, {1 + (k // 40) * 23}, "
        f"{1.5 + (k % 40) * 19.5}, {1.5 + (k // 40) * 23}]\n"
        for k in range(1000)
    )
    start = time.perf_counter()
    parse_scene("[[groups]]\ncount = 3\nspawn = { center = [10, 12], radius = 1 }\n" + rects)
    assert time.perf_counter() - start < 10
    same = "[[buildings]]\nrect = [1, 1, 2, 2]\n" * 1000
    with pytest.raises(SceneError) as e:
        parse_scene("[[groups]]\ncount = 3\n" + same, "b.toml")
    overlaps = [line for line in e.value.errors if "overlaps" in line]
    assert len(overlaps) == 999 and overlaps[-1].endswith("overlaps buildings[0] (line 2001)")


def test_a_cell_larger_than_the_world_is_refused():
    """One cell over the whole world: its centre lies outside a walled world and an order found
    no free formation slot (a ValueError at the first tick); the world's side is the most."""
    line = _refusal(derive(_scene("rts_maze"), {"navigation.cell": 1e6}))
    assert "navigation.cell: 1e+06 is more than the world's shorter side (360)" in line, line
    check_runs(derive(_scene("rts_maze"), {"navigation.cell": 360.0}))


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"groups[0].length": 1e-9}, "groups[0].length"),
        ({"groups[0].length": 1e-12, "groups[0].width": 1e-12}, "groups[0].length"),
        ({"rules.radius_factor.narrow": TINY}, "rules.radius_factor.narrow"),
        ({"rules.separation_factor": 1e-12}, "rules.separation_factor"),
    ],
)
def test_a_unit_length_near_zero_against_the_world_is_refused_by_name(changes, key):
    """The steering bins units into cells of about the view radius (the longest unit's length
    times a factor) and counts them in int64: a length of 1e-9 in a world of 400 made more than
    2^63 cells, a negative count and a ValueError at the first tick. Refused naming the key,
    with the least value that fits, which check accepts."""
    scene = derive(_scene("rts_doorway"), changes)
    with pytest.raises(SceneError) as e:
        check_rasters(scene)
    (line,) = e.value.errors
    assert f": {key}: " in line and "finest cells" in line and len(line) < 300, line
    least = float(line.split("give at least ")[1])
    check_rasters(derive(scene, {key: least}))


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("navigation.seek", 0.0),
        ("navigation.seek", TINY),
        ("rules.steering_force", 0.0),
        ("groups[0].max_steering_force", TINY),
    ],
)
def test_an_ordered_group_without_a_turn_rate_is_refused(key, value):
    """Ordered units plan their route's speed with their turn rate under the order's bow force
    times the turn's radius, infinite on straight stretches: a force of 0 or 5e-324 made that
    0 x infinity and the run failed at its first tick (non-finite state). Refused by check, in
    one line naming the group; a tiny force that still turns (1e-310) runs."""
    line = _refusal(derive(_scene("rts_maze"), {key: value}))
    assert "groups[0]: cannot follow an order's route" in line and key.split(".")[-1] in line
    check_runs(derive(_scene("rts_maze"), {key: 1e-310}))
    check_runs(derive(_scene("flock500"), {key: value}))  # no orders: nothing to turn for
