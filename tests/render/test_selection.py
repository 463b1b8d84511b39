"""RTS selection and placement math (render/selection.py): pure numpy, no window."""

import numpy as np
import pytest

from rigidflock.render import selection as S
from rigidflock.rts import navigation
from rigidflock.scene.geometry import polygon_distance, signed_area
from tests.conftest import ROOT

MAZE = ROOT / "scenes" / "rts_maze.toml"
DOORWAY = ROOT / "scenes" / "rts_doorway.toml"


def test_pick_takes_the_nearest_selectable_unit_within_the_radius():
    pos = np.array([[0.0, 0.0], [10.0, 0.0], [3.0, 0.0], [50.0, 50.0]])
    ok = np.array([True, True, False, True])  # row 2: the player
    assert S.pick(pos, ok, (2.5, 0.0), 5.0) == 0  # row 2 is nearer but not selectable
    assert S.pick(pos, ok, (8.0, 0.0), 5.0) == 1
    assert S.pick(pos, ok, (30.0, 30.0), 5.0) is None
    assert S.pick(pos, ok, (30.0, 30.0), np.array([1, 1, 1, 40.0])) == 3  # per-unit radius
    assert S.pick(np.zeros((0, 2)), np.zeros(0, bool), (0, 0), 5.0) is None


def test_in_rect_takes_centres_inside_whatever_the_drag_direction():
    pos = np.array([[1.0, 1.0], [5.0, 5.0], [9.0, 1.0], [5.0, 10.5], [2.0, 2.0]])
    ok = np.array([True, True, True, True, False])
    assert S.in_rect(pos, ok, (0, 0), (6, 6)).tolist() == [0, 1]
    assert S.in_rect(pos, ok, (6, 6), (0, 0)).tolist() == [0, 1]  # dragged up-left
    assert S.in_rect(pos, ok, (0, 6), (10, 0)).tolist() == [0, 1, 2]
    assert S.in_rect(pos, ok, (20, 20), (30, 30)).tolist() == []


def test_combine_replaces_or_adds_and_is_sorted_unique():
    assert S.combine([4, 2], [7, 1], add=False).tolist() == [1, 7]
    assert S.combine([4, 2], [7, 2], add=True).tolist() == [2, 4, 7]
    assert S.combine([4, 2], [], add=False).tolist() == []
    assert S.combine([4, 2], [], add=True).tolist() == [2, 4]


def test_is_click_allows_a_few_pixels_of_jitter():
    assert S.is_click((100, 100), (102, 103))
    assert not S.is_click((100, 100), (106, 100))


def test_free_goal_moves_a_goal_out_of_a_building_and_into_the_world():
    building = np.array([[40.0, 40.0], [60.0, 40.0], [60.0, 60.0], [40.0, 60.0]])
    grid = navigation.build_grid((100.0, 100.0), 2.0, 1.0, buildings=[building])
    g, moved = S.free_goal(grid, (20.0, 30.0), (100.0, 100.0))
    assert not moved and g.tolist() == [20.0, 30.0]
    g, moved = S.free_goal(grid, (50.0, 58.0), (100.0, 100.0))
    assert moved and grid.is_free(g[None])[0]
    assert polygon_distance(g[None], building)[0] >= 1.0  # outside, clear of the wall
    assert abs(g[1] - 61.0) < 2.5  # to the nearest side (the top), not across the building
    g, moved = S.free_goal(grid, (150.0, -5.0), (100.0, 100.0))
    assert moved and 0 <= g[0] <= 100 and 0 <= g[1] <= 100


def test_placement_problem_names_what_is_in_the_way():
    size = (200.0, 100.0)
    sq = S.square((50.0, 50.0), 20.0)
    assert signed_area(sq) == pytest.approx(400.0)  # counter-clockwise, 20 x 20
    other = S.square((100.0, 50.0), 20.0)
    wall = ((150.0, 0.0), (150.0, 100.0), 4.0)
    units = np.array([[10.0, 10.0]])
    assert S.placement_problem(sq, [other], units, size, 2.0, [wall]) is None
    assert "building" in S.placement_problem(S.square((85, 50), 20), [other], units, size)
    assert "wall" in S.placement_problem(S.square((140, 50), 20), [], units, size, 0, [wall])
    assert "unit" in S.placement_problem(S.square((14, 14), 20), [], units, size, 2.0)
    assert "unit" in S.placement_problem(S.square((21, 21), 20), [], units, size, 2.5)  # near
    assert "world" in S.placement_problem(S.square((195, 50), 20), [], units, size)
