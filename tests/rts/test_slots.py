"""Formation slots: the block around the goal, the first assignment, and re-dealing on the way."""

import numpy as np
import pytest

from rigidflock.rts import navigation
from rigidflock.rts.slots import (
    WAY_CLEAR,
    assign_nearest,
    deal_slots,
    formation_slots,
    move_up,
    off_the_way,
)


def open_field():
    grid = navigation.build_grid((100.0, 100.0), 2.0, 1.0)
    return grid, navigation.distance_field(grid, np.array([50.0, 50.0]))


def test_formation_slots_are_a_compact_block_on_a_lattice_along_the_facing():
    """Nine slots facing +x with spacing 5: the goal and its eight lattice neighbours, nearest
    first (the goal itself), all distinct."""
    grid, fld = open_field()
    goal = np.array([50.0, 50.0])
    slots = formation_slots(grid, fld, goal, np.array([3.0, 0.0]), 9, 5.0)
    np.testing.assert_allclose(slots[0], goal)
    off = (slots - goal) / 5.0
    np.testing.assert_allclose(off, np.round(off), atol=1e-12)
    assert np.abs(off).max() == pytest.approx(1.0)
    assert len({tuple(p) for p in np.round(off).astype(int)}) == 9


def test_formation_slots_turn_with_the_facing():
    """Facing the diagonal, the lattice is turned by 45 degrees: the four nearest neighbours of
    the goal lie on the diagonals."""
    grid, fld = open_field()
    goal = np.array([50.0, 50.0])
    slots = formation_slots(grid, fld, goal, np.array([1.0, 1.0]), 5, 4.0)
    off = slots[1:] - goal
    np.testing.assert_allclose(np.abs(off), 4.0 / np.sqrt(2), atol=1e-12)


def test_formation_slots_skip_blocked_and_unreachable_places():
    """Slots never fall on a blocked cell nor one the field cannot reach (a building next to
    the goal)."""
    building = np.array([[52.0, 40.0], [70.0, 40.0], [70.0, 60.0], [52.0, 60.0]])
    grid = navigation.build_grid((100.0, 100.0), 2.0, 1.0, buildings=[building])
    fld = navigation.distance_field(grid, np.array([48.0, 50.0]))
    slots = formation_slots(grid, fld, np.array([48.0, 50.0]), np.array([1.0, 0.0]), 12, 3.0)
    assert grid.is_free(slots).all()
    assert np.isfinite(fld.dist[grid.cell_of(slots)]).all()


def test_formation_slots_stand_in_sight_of_the_goal_not_behind_the_wall_it_is_reached_through():
    """A wall at x = 60 with a 10-wide gap the group comes through along y = 50; goal at
    (75, 50). The lattice points nearest the goal include some behind the wall (x < 60, reached
    through the gap); the slots take farther ones on the goal's side instead."""
    walls = [((60.0, 0.0), (60.0, 45.0), 2.0), ((60.0, 55.0), (60.0, 100.0), 2.0)]
    grid = navigation.build_grid((100.0, 100.0), 2.0, 1.0, walls=walls)
    goal = np.array([75.0, 50.0])
    fld = navigation.distance_field(grid, goal)
    way = np.stack([np.arange(0.0, 76.0, 2.0), np.full(38, 50.0)], axis=1)
    slots = formation_slots(grid, fld, goal, np.array([1.0, 0.0]), 80, 5.0, way)
    assert len({tuple(p) for p in np.round(slots, 6)}) == 80
    assert (slots[:, 0] > 60.0).all()
    assert grid.is_roomy(slots).all()


def test_off_the_way_clears_the_route_in_but_not_the_goal():
    """A route in along y = 50 from x = 0 to the goal (50, 50), spacing 5: lattice points within
    WAY_CLEAR spacings of it are taken, except near the goal (the formation's centre); a point
    two spacings to the side of the route is free."""
    way = np.stack([np.arange(0.0, 51.0, 2.0), np.full(26, 50.0)], axis=1)
    goal = np.array([50.0, 50.0])
    pts = np.array([[20.0, 50.0], [20.0, 55.0], [20.0, 60.0], [50.0, 50.0], [50.0, 55.0]])
    np.testing.assert_array_equal(
        off_the_way(pts, way, goal, 5.0), [False, False, True, True, True]
    )
    assert 5.0 < WAY_CLEAR * 5.0 < 10.0  # one lattice row each side of the route, not two


def test_formation_slots_leave_the_group_s_way_in_free():
    """A group coming in along y = 50 from the left: no slot on that line short of the goal
    (a unit standing on a slot in the door it came through would shut it for the rest), and
    still ``count`` distinct slots, more of them ahead of the goal."""
    grid, fld = open_field()
    goal = np.array([50.0, 50.0])
    way = np.stack([np.arange(0.0, 51.0, 2.0), np.full(26, 50.0)], axis=1)
    slots = formation_slots(grid, fld, goal, np.array([1.0, 0.0]), 25, 5.0, way)
    assert len(np.unique(slots, axis=0)) == 25
    on_way = (np.abs(slots[:, 1] - 50.0) < 7.0) & (slots[:, 0] < 50.0 - WAY_CLEAR * 5.0)
    assert not on_way.any()
    assert (slots[:, 0] > 50.0).sum() > (slots[:, 0] < 50.0).sum()


def test_with_no_room_for_every_unit_the_free_points_are_shared():
    """50 units at 3 apart in a 10 x 10 world: the few free lattice points there are each take
    several units (every one of them still gets a slot, nearest points first), and none is off
    the free cells."""
    grid = navigation.build_grid((10.0, 10.0), 2.0, 1.0)
    fld = navigation.distance_field(grid, np.array([5.0, 5.0]))
    slots = formation_slots(grid, fld, np.array([5.0, 5.0]), np.array([1.0, 0.0]), 50, 3.0)
    distinct = np.unique(slots, axis=0)
    assert slots.shape == (50, 2) and 1 <= len(distinct) < 50
    np.testing.assert_array_equal(slots[: len(distinct)], slots[len(distinct) : 2 * len(distinct)])


def test_assign_nearest_gives_each_unit_the_slot_that_keeps_paths_short():
    """Units in a row left to right get the slots in the same order, though dealt reversed
    (crossing paths would cost more in total)."""
    pos = np.array([[0.0, 0.0], [10.0, 0.0], [20.0, 0.0]])
    slots = np.array([[21.0, 5.0], [11.0, 5.0], [1.0, 5.0]])
    np.testing.assert_array_equal(
        assign_nearest(pos, slots, np.zeros(2), np.array([1.0, 0.0])), slots[::-1]
    )


def deal(slots, arrived, close, pos, to_go, angle=None):
    slots = slots.copy()
    angle = np.zeros(len(pos)) if angle is None else angle
    deal_slots(
        slots,
        np.zeros(2),
        np.array([1.0, 0.0]),
        arrived,
        close,
        pos,
        angle,
        to_go,
        np.ones(len(pos)),
    )
    return slots


def test_far_units_get_the_deepest_slots_in_order_of_route_left():
    """Far from the formation, the unit with the least route left takes the slot farthest
    along the direction of travel, so the first to arrive do not block the rest. An arrived
    unit keeps its slot."""
    slots = np.array([[-2.0, 0.0], [2.0, 0.0], [0.0, 0.0], [5.0, 0.0]])
    arrived = np.array([False, False, False, True])
    far = np.zeros(4, bool)
    pos = np.zeros((4, 2))
    out = deal(slots, arrived, far, pos, to_go=np.array([30.0, 10.0, 20.0, 0.0]))
    np.testing.assert_array_equal(out, [[-2.0, 0.0], [2.0, 0.0], [0.0, 0.0], [5.0, 0.0]])
    out = deal(slots, arrived, far, pos, to_go=np.array([10.0, 30.0, 20.0, 0.0]))
    np.testing.assert_array_equal(out, [[2.0, 0.0], [-2.0, 0.0], [0.0, 0.0], [5.0, 0.0]])


def test_close_units_share_their_slots_by_distance_preferring_slots_ahead():
    """At the formation the slots go by distance (Hungarian); a slot behind a unit costs two
    of its lengths more, so a unit facing +x takes the one ahead even when a little farther."""
    slots = np.array([[0.0, 0.0], [10.0, 0.0]])
    close = np.ones(2, bool)
    arrived = np.zeros(2, bool)
    pos = np.array([[9.0, 0.0], [1.0, 0.0]])
    out = deal(slots, arrived, close, pos, to_go=np.zeros(2))
    np.testing.assert_array_equal(out, [[10.0, 0.0], [0.0, 0.0]])
    # nearest overall would be unit 0 (x = 4.9) -> 0 and unit 1 (x = 5.1) -> 10 (9.90 against
    # 10.30); facing away from those slots (unit 0 toward +x, unit 1 toward -x) they swap
    pos = np.array([[4.9, 0.0], [5.1, 1.0]])
    out = deal(slots, arrived, close, pos, to_go=np.zeros(2), angle=np.array([0.0, np.pi]))
    np.testing.assert_array_equal(out, [[10.0, 0.0], [0.0, 0.0]])
    out = deal(slots, arrived, close, pos, to_go=np.zeros(2), angle=np.array([np.pi, 0.0]))
    np.testing.assert_array_equal(out, [[0.0, 0.0], [10.0, 0.0]])


def test_one_unit_alone_keeps_its_slot():
    """Nothing to deal with fewer than two units in a class."""
    slots = np.array([[0.0, 0.0], [10.0, 0.0]])
    out = deal(slots, np.array([True, False]), np.ones(2, bool), np.ones((2, 2)), np.zeros(2))
    np.testing.assert_array_equal(out, slots)


def test_slots_leave_room_for_the_unit_standing_on_them():
    """A goal 1 from the world's right edge (a 100 x 100 walled world, cells of 4): with
    ``reach`` = 2 (half a unit's length) the ends of a unit standing on a slot lie in cells with
    room, so no slot is within 2 of the edge and a unit of length 4 on one does not touch it.
    Without it the cell beside the edge, whose centre has the clearance, took slots 1 from the
    edge: in a 600-unit bottleneck a unit stood on such a slot against the world's edge, counted
    pinned, for 191 s."""
    grid = navigation.build_grid((100.0, 100.0), 4.0, 1.25, walled=True)
    field = navigation.distance_field(grid, np.array([99.0, 50.0]))
    goal, facing = np.array([99.0, 50.0]), np.array([1.0, 0.0])
    plain = formation_slots(grid, field, goal, facing, 9, 3.0)
    roomy = formation_slots(grid, field, goal, facing, 9, 3.0, reach=2.0)
    assert plain[:, 0].max() > 98.0  # the old rule: a slot within 2 of the edge
    assert roomy[:, 0].max() <= 98.0 and roomy[:, 1].min() >= 2.0 and roomy[:, 1].max() <= 98.0
    assert len({tuple(p) for p in roomy}) == 9


def test_a_group_past_dense_most_is_dealt_in_blocks_in_bounded_memory(monkeypatch):
    """20,000 units: one least-total assignment's dense matrices would take ~22 GB (a
    MemoryError, or swapping for minutes). Above DENSE_MOST the slots are dealt within blocks
    of DENSE_MOST units (here lowered to 500): a permutation of the slots, at the order and at
    a re-deal, with tracemalloc's peak a few block matrices, not one 20,000-square (3.2 GB)."""
    import tracemalloc

    from rigidflock.rts import slots as S

    monkeypatch.setattr(S, "DENSE_MOST", 500)
    rng = np.random.default_rng(3)
    m = 20_000
    slots = np.stack(np.meshgrid(np.arange(142.0), np.arange(142.0)), -1).reshape(-1, 2)[:m]
    pos = rng.uniform(-300.0, 0.0, (m, 2))
    tracemalloc.start()
    try:
        dealt = assign_nearest(pos, slots, np.array([70.0, 70.0]), np.array([1.0, 0.0]))
        again = dealt.copy()
        deal_slots(again, np.array([70.0, 70.0]), np.array([1.0, 0.0]), np.zeros(m, bool),
                   np.ones(m, bool), pos, np.zeros(m), np.zeros(m), np.full(m, 4.0))  # fmt: skip
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 60e6, peak
    for out in (dealt, again):
        assert sorted(map(tuple, out)) == sorted(map(tuple, slots))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_large_crowd_among_its_slots_keeps_them(monkeypatch, seed):
    """1,200 units each within 0.5 world units of its own slot (a disc of slots 10 apart),
    DENSE_MOST lowered to 300: the order's deal and three re-deals leave at least 95% on their
    own slot. A first version dealt large groups by rows of sqrt(m) across the facing, which
    kept 18-24% of this crowd (a disc's rows are not sqrt(m) long), every half second."""
    from rigidflock.rts import slots as S

    monkeypatch.setattr(S, "DENSE_MOST", 300)
    rng = np.random.default_rng(seed)
    grid = 10.0 * np.stack(np.meshgrid(np.arange(-25.0, 26), np.arange(-25.0, 26)), -1)
    grid = grid.reshape(-1, 2)
    slots = grid[np.argsort(np.hypot(*grid.T), kind="stable")][:1200]
    own = rng.permutation(1200)
    pos = slots[own] + rng.uniform(-0.5, 0.5, (1200, 2))
    goal, facing = np.zeros(2), np.array([1.0, 0.0])
    dealt = assign_nearest(pos, slots, goal, facing)
    assert np.mean(np.all(dealt == slots[own], axis=1)) >= 0.95
    again = dealt.copy()
    for _ in range(3):  # re-deals every half second keep it
        deal_slots(again, goal, facing, np.zeros(1200, bool), np.ones(1200, bool), pos,
                   np.zeros(1200), np.zeros(1200), np.full(1200, 4.0))  # fmt: skip
    assert np.mean(np.all(again == slots[own], axis=1)) >= 0.95


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_blocks_keep_an_approaching_crowd_s_paths_near_the_least_total(monkeypatch, seed):
    """A crowd of 600 coming from behind the formation (400 world units back), DENSE_MOST
    lowered to 150: dealt in blocks by depth, the total distance is within 1% of the least
    (the rearmost units take the rearmost slots)."""
    from rigidflock.rts import slots as S
    from rigidflock.rts.assignment import auction

    monkeypatch.setattr(S, "DENSE_MOST", 150)
    rng = np.random.default_rng(seed)
    slots = 10.0 * np.stack(np.meshgrid(np.arange(25.0), np.arange(24.0)), -1).reshape(-1, 2)
    pos = slots[rng.permutation(600)] + rng.normal(0.0, 10.0, (600, 2)) - [400.0, 0.0]
    cost = np.hypot(*(pos[:, None, :] - slots[None, :, :]).transpose(2, 0, 1))
    dealt = assign_nearest(pos, slots, slots.mean(axis=0), np.array([1.0, 0.0]))
    assert sorted(map(tuple, dealt)) == sorted(map(tuple, slots))
    least = cost[np.arange(600), auction(cost, 1e-4, 5.0)].sum()
    assert np.hypot(*(dealt - pos).T).sum() <= 1.01 * least


@pytest.mark.parametrize("most", [1, 2, 7, 20])
def test_blocks_cut_between_lattice_rows(monkeypatch, most):
    """Depths of a lattice in rows of 7: blocks of ceil(most / 2) to most rows (the last may be
    smaller), cut only between rows when a row fits in a block (most >= 7), edges from 0 to m."""
    from rigidflock.rts import slots as S

    monkeypatch.setattr(S, "DENSE_MOST", most)
    depth = np.repeat(np.arange(30.0), 7)
    edges = S.block_edges(depth)
    sizes = np.diff(edges)
    assert edges[0] == 0 and edges[-1] == len(depth) and (sizes > 0).all()
    assert (sizes[:-1] >= (most + 1) // 2).all() and (sizes <= most).all()
    if most >= 7:
        assert all(e % 7 == 0 for e in edges)


def _queue(late_speed=0.2, heading=(1.0, 0.0)):
    """Unit 0 on its way, 3 world units behind arrived unit 1 (length 4), its slot 20 further
    on past unit 1; unit 2 arrived off to the side."""
    slots = np.array([[23.0, 0.0], [3.0, 0.0], [3.0, 10.0]])
    arrived = np.array([False, True, True])
    pos = np.array([[0.0, 0.0], [3.0, 0.0], [3.0, 10.0]])
    fwd = np.array([heading, [1.0, 0.0], [1.0, 0.0]])
    speed = np.array([late_speed, 0.0, 0.0])
    return slots, arrived, pos, fwd, speed, np.full(3, 4.0)


def test_a_unit_standing_in_a_late_one_s_way_moves_up_to_its_slot():
    # the bottleneck's late unit pushed for 8 s at full throttle into one standing on its slot,
    # 3 world units ahead: the standing one takes the far slot and the late one its place
    slots, arrived, pos, fwd, speed, L = _queue()
    moved = move_up(slots, arrived, pos, fwd, speed, L, group_speed=7.0)
    assert moved.tolist() == [1]
    assert slots.tolist() == [[3.0, 0.0], [23.0, 0.0], [3.0, 10.0]]
    assert arrived.tolist() == [False, False, True]


@pytest.mark.parametrize(
    "late_speed, heading, why",
    [
        (3.0, (1.0, 0.0), "still moving at 3 of the group's 7 world units/s: not blocked"),
        (0.2, (0.0, 1.0), "heading across: the standing unit is beside it, not in front"),
        (0.2, (-1.0, 0.0), "heading away from it"),
    ],
)
def test_no_unit_moves_up_for_one_not_blocked_by_it(late_speed, heading, why):
    slots, arrived, pos, fwd, speed, L = _queue(late_speed, heading)
    before = slots.copy()
    assert len(move_up(slots, arrived, pos, fwd, speed, L, group_speed=7.0)) == 0, why
    assert (slots == before).all() and arrived.tolist() == [False, True, True]


def test_no_unit_moves_up_away_from_the_late_one_s_slot():
    # the late unit's slot lies behind it: the standing unit ahead is farther from it
    slots, arrived, pos, fwd, speed, L = _queue()
    slots[0] = [-20.0, 0.0]
    assert len(move_up(slots, arrived, pos, fwd, speed, L, group_speed=7.0)) == 0


def test_each_unit_moves_up_for_one_late_unit_only_the_nearest():
    # two late units behind one standing unit: the nearer swaps, the other waits for the next deal
    slots = np.array([[30.0, 0.0], [31.0, 1.0], [4.0, 0.0]])
    arrived = np.array([False, False, True])
    pos = np.array([[0.0, 0.0], [1.5, 1.0], [4.0, 0.0]])
    fwd = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    moved = move_up(slots, arrived, pos, fwd, np.zeros(3), np.full(3, 4.0), group_speed=7.0)
    assert moved.tolist() == [2]
    assert slots.tolist() == [[30.0, 0.0], [4.0, 0.0], [31.0, 1.0]]


def test_one_late_unit_with_two_standing_in_front_swaps_with_the_nearer_only():
    # two units stand in front of one late unit: a second swap would deal one slot twice
    slots = np.array([[30.0, 0.0], [3.0, 0.5], [4.5, -0.5]])
    arrived = np.array([False, True, True])
    pos = slots.copy()
    pos[0] = [0.0, 0.0]
    fwd = np.array([[1.0, 0.0]] * 3)
    moved = move_up(slots, arrived, pos, fwd, np.zeros(3), np.full(3, 4.0), group_speed=7.0)
    assert moved.tolist() == [1]
    assert slots.tolist() == [[3.0, 0.5], [30.0, 0.0], [4.5, -0.5]]
    assert arrived.tolist() == [False, False, True]
