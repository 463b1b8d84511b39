"""A new building's grid patched from the old one (only the cells near it measured again) is
the grid of the whole world built afresh: the same walkable cells, route points, costs, steps
and step lengths, so routes and results do not depend on which way it was made."""

import numpy as np
import pytest

from rigidflock.rts import navigation

FIELDS = ("blocked", "nearest_free", "neighbours", "step_len", "near_wall", "waypoint", "tight")


def _box(rng, size, turn):
    """A random convex building: a rectangle turned by ``turn`` radians inside ``size``."""
    c = rng.uniform(0.2, 0.8, 2) * size
    hw, hh = rng.uniform(2.0, 9.0, 2)
    rot = np.array([[np.cos(turn), np.sin(turn)], [-np.sin(turn), np.cos(turn)]])
    return np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]]) @ rot + c


def _assert_same_grid(a, b):
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(a.fine, b.fine)
    for x, y in zip(navigation.search_steps(a), navigation.search_steps(b), strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_patched_grid_is_the_grid_built_afresh(seed):
    """Walls, buildings (turned and axis-aligned) and obstacles at random, then one building
    and then two more added: each patched grid equals the whole world's grid built with
    them, array for array, and the distance fields over both are the same bits (a route
    search on the patched grid decides as one on a fresh grid would)."""
    rng = np.random.default_rng(seed)
    size = np.array([120.0, 80.0])
    walls = [(tuple(rng.uniform(0, 1, 2) * size), tuple(rng.uniform(0, 1, 2) * size), 1.5)]
    buildings = [_box(rng, size, 0.0), _box(rng, size, rng.uniform(0, np.pi))]
    obstacles = np.array([[*(rng.uniform(0.1, 0.9, 2) * size), 3.0]])
    kw = {"walls": walls, "obstacles": obstacles, "walled": True, "preferred": 2.4}
    cell, clearance = 2.0, 1.25
    grid = navigation.build_grid(size, cell, clearance, buildings=buildings, **kw)
    navigation.search_steps(grid)  # the patch carries the step lengths on when they exist
    goal = size * np.array([0.9, 0.5])
    for added in ([_box(rng, size, rng.uniform(0, np.pi))], [_box(rng, size, 0.0) for _ in "ab"]):
        buildings = buildings + added
        patched = navigation.build_grid(
            size, cell, clearance, buildings=buildings, base=grid, added=added, **kw
        )
        fresh = navigation.build_grid(size, cell, clearance, buildings=buildings, **kw)
        _assert_same_grid(patched, fresh)
        np.testing.assert_array_equal(
            navigation.distance_field(patched, goal).dist,
            navigation.distance_field(fresh, goal).dist,
        )
        grid = patched
