"""Doors seen ahead (:mod:`rigidflock.rts.doors`): the narrow stretch of a route, the
door two routes share the opposite way, the yield begun before the groups meet in it; and end to
end, the two-way doorway taking turns without a standoff."""

import numpy as np
import pytest

from rigidflock.bundled import scenario_path
from rigidflock.rts import doors as D
from rigidflock.runs.scenarios import time_limit
from rigidflock.scene import load_scene
from rigidflock.sim import Simulation
from tests.rts.test_right_of_way import door_grid, group

L4 = 4.0  # unit length, world units (the scenarios' units: 4 long, 2 wide)


def test_a_route_is_narrow_in_the_door_only():
    """The wall is at x = 30, its faces at 29 and 31, the door 6 wide: the route's points with
    no room for two units of 4 abreast are at the door (within a length of the wall), and a
    route through it has some."""
    grid = door_grid()
    g = group(0, [0], (55.0, 10.0), grid)
    rows, along = D.narrow_stretch(g, grid, L4)
    assert len(rows) > 0
    assert (np.abs(g.path[rows, 0] - 30.0) <= L4).all()
    np.testing.assert_allclose(np.hypot(*along.T), 1.0)
    assert (along[:, 0] > 0.9).all()  # eastward through the door
    assert D.narrow_stretch(g, grid, L4)[0] is rows  # cached for the same path and length
    # two units of 2 pass abreast in a door 6 wide; the cache is per length, too
    assert len(D.narrow_stretch(g, grid, 2.0)[0]) == 0
    assert len(D.narrow_stretch(g, grid, 8.0)[0]) > len(rows)


def test_routes_share_a_door_only_the_opposite_way():
    grid = door_grid()
    east_bound = group(0, [0], (55.0, 10.0), grid)
    west_bound = group(1, [1], (5.0, 10.0), grid)
    also_east = group(2, [2], (57.0, 12.0), grid)
    ra, rb = D.shared_door(east_bound, west_bound, grid, L4, L4)
    assert len(ra) > 0 and len(rb) > 0
    assert len(D.shared_door(east_bound, also_east, grid, L4, L4)[0]) == 0


def two_groups(west_x, east_x):
    """Group 0 (units 0, 1) at ``west_x`` going east, group 1 (units 2, 3) at ``east_x`` going
    west, through door_grid's door."""
    grid = door_grid()
    west = group(0, [0, 1], (55.0, 10.0), grid)
    east = group(1, [2, 3], (5.0, 10.0), grid)
    pos = np.array([[west_x, 10.0], [west_x - 5.0, 10.0], [east_x, 10.0], [east_x + 5.0, 9.0]])
    return grid, {0: west, 1: east}, pos


def test_the_group_nearer_the_door_goes_first_and_the_other_waits_at_its_entrance(monkeypatch):
    """With reach cut to 4 lengths (16 world units; door_grid is small) and the east group 24
    from the door by route, nothing happens yet; once both are within reach, the west group,
    nearer, goes first, and the east group yields short of the door's entrance on its side."""
    monkeypatch.setattr(D, "YIELD_NEAR", 4.0)
    length = np.full(4, L4)
    grid, groups, pos = two_groups(west_x=20.0, east_x=54.0)
    D.foresee_doors(groups, pos, length, grid, tick=5)
    assert groups[0].yield_to == groups[1].yield_to == -1
    pos[2:, 0] -= 14.0  # the east group 10 from the wall, the west one 10 from it too
    pos[:2, 0] += 1.0  # the west group a little nearer
    D.foresee_doors(groups, pos, length, grid, tick=6)
    assert groups[0].yield_to == -1 and groups[1].yield_to == 0 and groups[1].yield_tick == 6
    assert 29.0 <= groups[1].yield_point[0] <= 30.0 + L4  # at the door, not beyond its east side


def test_a_pair_takes_turns_once():
    """After the yield ends (the other group through, or after its time), the two groups are not
    made to take turns at that door again: a second wait would only hold the group that waited."""
    length = np.full(4, L4)
    grid, groups, pos = two_groups(west_x=22.0, east_x=40.0)
    D.foresee_doors(groups, pos, length, grid, tick=1)
    assert groups[1].yield_to == 0  # the west group is nearer (8 against 10): it goes first
    groups[1].yield_to = -1
    D.foresee_doors(groups, pos, length, grid, tick=2)
    assert groups[0].yield_to == groups[1].yield_to == -1


def test_units_through_the_door_or_arrived_do_not_count():
    """A group whose units are all through the door (or on their slots) has nothing left to
    take turns for."""
    length = np.full(4, L4)
    grid, groups, pos = two_groups(west_x=22.0, east_x=40.0)
    pos[2:, 0] = [20.0, 15.0]  # the east group already through, west of the wall
    D.foresee_doors(groups, pos, length, grid, tick=1)
    assert groups[0].yield_to == groups[1].yield_to == -1


@pytest.mark.parametrize("seed", [1, 2, 41])
def test_the_two_way_doorway_takes_turns_before_the_door_and_arrives_in_time(seed):
    """doorway_two_way: the groups take turns before any unit is in the door (its faces are at
    x = 79 and 81), so nobody backs out of it, and everyone arrives within the scenario's
    limit. Meeting nose to nose in the door first, with the standoff's right of way alone, seed
    41's last unit arrived at 48.5 s against a 46.8 s limit, seeds 1 and 2 at 34.5 and 39.1 s
    (taking turns before the door: 38.9, 26.1 and 37.4 s)."""
    sim = Simulation(load_scene(scenario_path("doorway_two_way")), seed=seed)
    dt = sim.scene.world.dt
    began = limit = None
    while limit is None or sim.tick * dt < limit:
        sim.step()
        groups = list(sim.orders.groups.values())
        if limit is None and groups:
            limit = time_limit(groups, float(sim.units.length.max()))
        if began is None and any(g.yield_to >= 0 for g in groups):
            x = sim.state.pos[:, 0]
            began = sim.tick * dt
            assert not ((x > 79.0 - 1.0) & (x < 81.0 + 1.0)).any(), "a unit in the door already"
        if groups and all(g.arrived.all() for g in groups):
            break
    assert began is not None, "the groups did not take turns"
    assert all(g.arrived.all() for g in sim.orders.groups.values()), f"late at {limit:.1f} s"


def test_no_turn_that_would_end_at_once(monkeypatch):
    """A yield ends once the group going first has no unit within reach of the point in a
    straight line (``right_of_way.still_to_come``, by its units' own lengths); a turn started
    where that already holds would end the next tick and, the pair marked, never come again.
    So none starts then, and the pair stays unmarked."""
    length = np.full(4, L4)
    grid, groups, pos = two_groups(west_x=22.0, east_x=40.0)
    monkeypatch.setattr(D, "still_to_come", lambda *a: False)
    D.foresee_doors(groups, pos, length, grid, tick=1)
    assert groups[0].yield_to == groups[1].yield_to == -1 and not groups[0].foreseen
    monkeypatch.undo()
    D.foresee_doors(groups, pos, length, grid, tick=2)
    assert groups[1].yield_to == 0 and groups[1].yield_ahead and groups[0].foreseen == {1}


def test_a_new_route_finds_the_shared_door_again():
    """A re-route gives a group a new path array: the cached shared door is for the old one
    (compared by identity: arrays compared by value in a tuple raised "truth value of an
    array is ambiguous"), so it is found again, on the new path."""
    grid = door_grid()
    east_bound = group(0, [0], (55.0, 10.0), grid)
    west_bound = group(1, [1], (5.0, 10.0), grid)
    ra, rb = D.shared_door(east_bound, west_bound, grid, L4, L4)
    east_bound.path = east_bound.path.copy()  # the same cells, a new array
    ra2, rb2 = D.shared_door(east_bound, west_bound, grid, L4, L4)
    np.testing.assert_array_equal(ra2, ra)
    np.testing.assert_array_equal(rb2, rb)
    assert east_bound.doors[1][0] is east_bound.path
