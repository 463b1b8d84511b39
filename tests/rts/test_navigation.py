"""Routes: the walkable grid, distance fields, a group's path and the congestion cost of a
re-search; and, end to end, one path per group ("Group Movement
in RTS")."""

import numpy as np
import pytest

from rigidflock.rts import navigation
from rigidflock.sim import Simulation


def wall_grid():
    """20 x 10 world, unit cells, a wall across x = 10 from y = 0 to y = 7: the way round is
    above it."""
    return navigation.build_grid((20.0, 10.0), 1.0, 0.4, walls=[((10.0, 0.0), (10.0, 7.0), 1.0)])


def test_a_field_runs_downhill_to_its_goal():
    """Distance 0 at the goal's cell, which is its own next cell; every reachable cell's next
    cell is strictly nearer, so following it always ends at the goal."""
    grid = wall_grid()
    goal = np.array([18.5, 2.5])
    fld = navigation.distance_field(grid, goal)
    g = fld.goal_cell
    assert fld.dist[g] == 0.0 and fld.next_cell[g] == g
    ok = np.isfinite(fld.dist) & (np.arange(grid.n) != g)
    assert (fld.dist[fld.next_cell[ok]] < fld.dist[ok]).all()
    # blocked cells under the wall are not reachable
    assert not np.isfinite(fld.dist[grid.blocked.ravel()]).any()


def test_path_from_goes_round_the_wall_and_ends_at_the_goal():
    """The path is route points (cell centres, or a cell's clearest point where its centre is
    too near the wall) from the start's cell to the goal's, each step to a neighbouring cell,
    over the end of the wall (above y = 7)."""
    grid = wall_grid()
    fld = navigation.distance_field(grid, np.array([18.5, 2.5]))
    path = navigation.path_from(grid, fld, np.array([2.5, 2.5]))
    np.testing.assert_array_equal(path[0], [2.5, 2.5])
    np.testing.assert_array_equal(path[-1], [18.5, 2.5])
    iy, ix = np.divmod(grid.cell_of(path), grid.nx)
    steps = np.abs(np.diff(np.stack([ix, iy], axis=1), axis=0))
    assert (steps <= 1).all() and (steps.sum(axis=1) > 0).all()
    crossing = path[np.argmin(np.abs(path[:, 0] - 10.5))]
    assert crossing[1] > 7.0
    # length matches the field's distance to go from the start
    assert np.hypot(*np.diff(path, axis=0).T).sum() == pytest.approx(
        fld.dist[grid.cell_of(path[:1])[0]]
    )


def test_path_from_the_goal_is_the_goal_cell_alone():
    grid = wall_grid()
    fld = navigation.distance_field(grid, np.array([18.5, 2.5]))
    np.testing.assert_array_equal(
        navigation.path_from(grid, fld, np.array([18.2, 2.9])), [[18.5, 2.5]]
    )


def test_congestion_cost_adds_four_cells_per_stopped_unit_under_it():
    """Two stopped units in one cell make it cost 8 cells more to enter (a re-search goes
    round a jam); the other cells cost nothing extra."""
    grid = navigation.build_grid((10.0, 10.0), 2.0, 0.1)
    cost = navigation.congestion_cost(grid, np.array([[1.0, 1.0], [1.5, 0.5], [9.0, 9.0]]))
    assert cost.shape == (grid.n,)
    assert cost[0] == 16.0 and cost[grid.n - 1] == 8.0
    assert cost.sum() == 24.0
    assert navigation.congestion_cost(grid, np.zeros((0, 2))).sum() == 0.0


def test_extra_cost_makes_the_way_round_a_jam_the_shorter():
    """A short band of stopped units across the straight way (y = 8..12, x = 10): crossing it
    costs 16 + 4 from the start, going round 16 + 6 (sqrt 2 - 1) (six diagonal steps), so the
    distance to go is the way round's."""
    grid = navigation.build_grid((20.0, 20.0), 1.0, 0.1)
    jam = np.array([[10.5, y + 0.5] for y in range(8, 13)])
    start = grid.cell_of(np.array([[2.5, 10.5]]))[0]
    plain = navigation.distance_field(grid, np.array([18.5, 10.5]))
    fld = navigation.distance_field(
        grid, np.array([18.5, 10.5]), navigation.congestion_cost(grid, jam)
    )
    assert plain.dist[start] == pytest.approx(16.0)
    assert fld.dist[start] == pytest.approx(16.0 + 6 * (np.sqrt(2) - 1))


AROUND_A_WALL = """
[world]
size = [400.0, 300.0]
bounds = "walls"
[rules]
chase = false
view = "limited"
radius_factor = {{ wide = 6.0, limited = 6.0, narrow = 6.0 }}
separation_factor = 3.5
[[walls]]
start = [200.0, {y0}]
end = [200.0, {y1}]
thickness = 6.0
[[groups]]
count = 20
heading = 0
spawn = {{ center = [80.0, 150.0], radius = 40.0 }}
[[orders]]
select = {{ family = "regular" }}
goal = [320.0, 150.0]
"""


@pytest.mark.parametrize("y0,y1", [(60.0, 240.0), (40.0, 230.0)])
def test_a_group_goes_around_a_wall_on_one_side(scene_from, y0, y1):
    """The wall stands across the straight line, the group centred behind it (first case
    symmetric: each unit's own shortest way would split the group). One path per group keeps
    every unit on the same side ("Group Movement in RTS")."""
    sim = Simulation(scene_from(AROUND_A_WALL.format(y0=y0, y1=y1)))
    side = {}
    for _ in range(4000):
        prev = sim.state.pos[:20].copy()
        sim.step()
        now = sim.state.pos[:20]
        crossing = (prev[:, 0] < 200) & (now[:, 0] >= 200)
        for k in np.flatnonzero(crossing):
            side.setdefault(int(k), now[k, 1] > 150)
    assert len(side) == 20  # everyone got past the wall
    assert len(set(side.values())) == 1


@pytest.mark.parametrize("cell", [1.0, 2.0, 4.0])
def test_a_gap_narrower_than_a_cell_stays_routable_through_its_middle(cell):
    """A wall across the world with a gap 3.4 wide between its faces (the wall-squeeze case:
    room for a unit 2 wide with 0.7 to spare each side) and clearance 1.25: the free band in the
    gap is 0.9 wide, narrower than every cell size tried, yet the route goes through it and
    every route point keeps the clearance."""
    walls = [((20.0, 0.0), (20.0, 17.3), 2.0), ((20.0, 22.7), (20.0, 40.0), 2.0)]
    grid = navigation.build_grid((40.0, 40.0), cell, 1.25, walls=walls, walled=True, preferred=2.4)
    fld = navigation.distance_field(grid, np.array([35.0, 20.0]))
    start = np.array([5.0, 20.0])
    assert np.isfinite(fld.dist[grid.cell_of(start[None, :])[0]])
    path = navigation.path_from(grid, fld, start)
    clear = navigation.distance_to_solid(path, (40.0, 40.0), walls, (), None, True)
    assert (clear >= 1.25).all()
    # it crosses the wall line where a unit 2 wide fits: its half-width (1) clear of both wall
    # ends (straight steps between route points may cut the clearance a little)
    k = np.flatnonzero(np.diff(np.sign(path[:, 0] - 20.0)))[0]
    y = np.interp(20.0, path[k : k + 2, 0], path[k : k + 2, 1])
    assert 19.3 <= y <= 20.7


def test_a_gap_a_unit_does_not_fit_through_stays_closed():
    """The same wall with a gap 2.2 wide between its faces: clearance 1.25 each side needs 2.5,
    so no route goes through it (the goal beyond is unreachable)."""
    walls = [((20.0, 0.0), (20.0, 17.9), 2.0), ((20.0, 22.1), (20.0, 40.0), 2.0)]
    grid = navigation.build_grid((40.0, 40.0), 2.0, 1.25, walls=walls, walled=True)
    fld = navigation.distance_field(grid, np.array([35.0, 20.0]))
    assert not np.isfinite(fld.dist[grid.cell_of(np.array([[5.0, 20.0]]))[0]])
