"""Right of way at a door (:mod:`rigidflock.rts.right_of_way`): standoffs, who goes
first, the yielding group's queue and the way it backs out, the other group waiting for the
door to clear; and end to end, the two-way doorway that jammed."""

import numpy as np
import pytest

from rigidflock.bundled import scenario_path
from rigidflock.rts import navigation
from rigidflock.rts import right_of_way as R
from rigidflock.rts.groups import Group
from rigidflock.scene import load_scene
from rigidflock.sim import Simulation

L4 = 4.0  # unit length, world units (the scenarios' units: 4 long, 2 wide)


def door_grid():
    """A 60 x 20 walled world cut by a wall at x = 30 with a door from y = 7 to y = 13 (a 6
    wide gap between the faces, as doorway_two_way's), cells of 2."""
    walls = [((30.0, 0.0), (30.0, 6.0), 2.0), ((30.0, 14.0), (30.0, 20.0), 2.0)]
    return navigation.build_grid((60.0, 20.0), 2.0, 1.25, walls=walls, walled=True)


def group(gid, members, goal, grid):
    members = np.asarray(members)
    fld = navigation.distance_field(grid, np.asarray(goal, float))
    g = Group(
        gid, members, np.asarray(goal, float), np.array([1.0, 0.0]), fld,
        np.zeros((len(members), 2)), 7.0, 0, 30.0,
    )  # fmt: skip
    g.path = navigation.path_from(grid, fld, np.array([5.0 if goal[0] > 30 else 55.0, 10.0]))
    g.path_speed = np.full(len(g.path), g.speed)  # set with every path (no turn limits here)
    return g


# -- standoffs -----------------------------------------------------------------------------------


def nose_to_nose():
    """Units 0 (group 0, heading east) and 1 (group 1, heading west) 4.5 apart in the door; unit
    2 (group 0) behind unit 0; unit 3 (group 1) far off."""
    pos = np.array([[28.0, 10.0], [32.5, 10.2], [23.0, 10.0], [50.0, 3.0]])
    angle = np.array([0.0, np.pi, 0.0, np.pi])
    return pos, angle, np.full(4, L4), np.array([0, 1, 0, 1])


def test_two_stalled_units_nose_to_nose_are_a_standoff_met_halfway():
    pos, angle, length, group_of = nose_to_nose()
    (found,) = R.find_standoffs(pos, angle, length, group_of, np.ones(4, bool))
    a, b, point, axis = found
    assert (a, b) == (0, 1)
    np.testing.assert_allclose(point, [30.25, 10.1])
    np.testing.assert_allclose(axis, np.array([4.5, 0.2]) / np.hypot(4.5, 0.2))


def test_a_standoff_in_the_door_is_narrow_one_in_the_open_or_by_one_wall_is_not():
    """Less than NARROW (one length) of free way to both sides across the meeting: the 6 wide
    door is (free way 1.75 each side of its middle, with the clearance), so is its mouth within
    a length; the open and the foot of the wall (open to one side) are not."""
    grid = door_grid()
    east = np.array([1.0, 0.0])
    assert R.narrow(grid, np.array([30.0, 10.0]), east, L4)
    assert R.narrow(grid, np.array([34.0, 10.5]), east, L4)  # the door a length behind
    assert not R.narrow(grid, np.array([45.0, 10.0]), east, L4)
    # along the wall's face, past the door: the wall on one side only
    assert not R.narrow(grid, np.array([35.5, 10.0]), np.array([0.0, 1.0]), L4)


def test_one_standoff_per_pair_of_groups_met_at_their_closest_units():
    """Two east-bound units of group 0 side by side, each nose to nose with a west-bound unit
    of group 2: one standoff, halfway between the closer pair; group 1's unit far off."""
    pos = np.array([[28.0, 10.0], [28.0, 12.5], [31.0, 10.0], [33.0, 12.5], [50.0, 3.0]])
    angle = np.array([0.0, 0.0, np.pi, np.pi, np.pi])
    group_of = np.array([0, 0, 2, 2, 1])
    found = R.find_standoffs(pos, angle, np.full(5, L4), group_of, np.ones(5, bool))
    assert [(a, b) for a, b, _, _ in found] == [(0, 2)]
    np.testing.assert_allclose(found[0][2], [29.5, 10.0])


def test_no_standoff_while_one_of_them_still_makes_progress_or_within_one_group():
    pos, angle, length, group_of = nose_to_nose()
    assert R.find_standoffs(pos, angle, length, group_of, np.array([1, 0, 1, 1], bool)) == []
    assert R.find_standoffs(pos, angle, length, np.zeros(4, np.intp), np.ones(4, bool)) == []


def test_no_standoff_between_units_heading_the_same_way_or_passing_wide():
    pos, angle, length, group_of = nose_to_nose()
    same = angle.copy()
    same[1] = 0.0
    assert R.find_standoffs(pos, same, length, group_of, np.ones(4, bool)) == []
    wide = pos.copy()
    wide[1, 1] += 1.2 * L4  # more than a length off the bow line: they pass
    assert R.find_standoffs(wide, angle, length, group_of, np.ones(4, bool)) == []


# -- who goes first ------------------------------------------------------------------------------


def test_right_of_way_goes_to_the_group_in_the_door_then_through_then_larger_then_older():
    """(in the narrow way, through, still to come, id) per group."""
    assert R.has_right_of_way((1, 0, 1, 1), (0, 3, 4, 0))  # in the door beats all else
    assert R.has_right_of_way((1, 2, 1, 5), (1, 0, 6, 0))  # then two through beat none
    assert not R.has_right_of_way((1, 0, 3, 0), (1, 1, 1, 1))
    assert R.has_right_of_way((1, 0, 4, 1), (1, 0, 3, 0))  # then the one with more to come
    assert R.has_right_of_way((1, 0, 3, 0), (1, 0, 3, 1))  # tie: the older order
    assert not R.has_right_of_way((1, 0, 3, 1), (1, 0, 3, 0))


def test_a_unit_in_the_door_is_squeezed_one_at_its_mouth_is_not():
    grid = door_grid()
    pos = np.array([[30.0, 10.0], [30.0, 8.5], [34.0, 10.0], [45.0, 10.0]])
    L = np.full(4, L4)
    got = R.squeezed(grid, pos, np.array([1.0, 0.0]), L)
    np.testing.assert_array_equal(got, [True, True, False, False])


def test_a_standoff_makes_the_group_not_in_the_door_yield_at_the_meeting_point():
    """West unit 1 is in the door, east unit 2 just out of it (east of the wall's face at
    x = 31), though the east group has more still to come: the east group yields."""
    grid = door_grid()
    west = group(0, [0, 1], (55.0, 10.0), grid)  # going east
    east = group(1, [2, 3, 4], (5.0, 10.0), grid)  # going west
    pos = np.array([[20.0, 10.0], [29.5, 10.0], [34.0, 10.0], [40.0, 15.0], [45.0, 10.0]])
    point = np.array([31.75, 10.0])
    R.start_yield(west, east, point, np.array([1.0, 0.0]), pos, np.full(5, L4), grid, tick=100)
    assert west.yield_to == -1 and east.yield_to == 0 and east.yield_tick == 100
    np.testing.assert_array_equal(east.yield_point, point)
    # with neither in the door, the group with a unit through (west) goes first
    east.yield_to = -1
    pos[1] = [40.0, 5.0]
    pos[2] = [36.0, 10.0]
    R.start_yield(west, east, point, np.array([1.0, 0.0]), pos, np.full(5, L4), grid, tick=200)
    assert west.yield_to == -1 and east.yield_to == 0


# -- yielding ------------------------------------------------------------------------------------


def test_the_yielding_queue_backs_out_stands_and_closes_up():
    """Four members of a yielding group, 2, 3, 9 and 30 world units off the meeting point along
    a straight route (all still before it by route), standing: the nearest's place is WAIT_BACK
    lengths back from the point (8), each next one WAIT_SPACING lengths farther (13, 18, 23).
    The first three are nearer than their places by more than half a length and back out at
    full reverse; the fourth, 7 short of its place, closes up at the speed it can still stop
    from. Why 2 lengths for the first: the door is half a length thick and the other group's
    unit is clear of it a length and a half past the point, so nearer would still block the
    door; farther (2.5 and 1.5 lengths apart) and the yielding group took too long to come
    through once the door was free (doorway_two_way over its limit on some of seeds 1-16)."""
    off = np.array([2.0, 3.0, 9.0, 30.0])
    to_go = 50.0 + off  # before the point by route
    L = np.full(4, L4)
    held, back = R.queue(to_go, 50.0, off, L, np.zeros(4, bool))
    assert held.all()
    np.testing.assert_allclose(back, [8.0, 13.0, 18.0, 23.0])
    assert (R.WAIT_BACK * L4, R.WAIT_SPACING * L4) == (8.0, 5.0)
    backing, thr = R.yield_throttle(
        off - back, held, L, 7.07, np.full(4, 7.07), np.zeros(4), np.ones(4)
    )
    np.testing.assert_array_equal(backing, [True, True, True, False])
    np.testing.assert_array_equal(thr[:3], [R.BACK_THROTTLE] * 3)
    assert thr[3] > 0.5  # 7 world units short of its place (23): drives on
    # at its place, standing: no throttle either way
    backing, thr = R.yield_throttle(
        np.zeros(1), np.ones(1, bool), L[:1], 7.07, np.full(1, 7.07), np.zeros(1), np.ones(1)
    )
    assert not backing[0] and thr[0] == pytest.approx(0.0)


def test_a_yielding_unit_above_its_stopping_curve_brakes_at_full_reverse():
    """15 world units short of its place at the group's speed, 7.07 world units/s: the speed
    it can still stop from at BRAKE_SHARE x 1 world unit/s^2 is sqrt(2 x 0.75 x 15) = 4.7.
    Above that, full reverse: the curve plans on three quarters of it, and the gain on the
    speed error alone asked -0.21 (doorway_two_way seed 50, wall_squeeze seed 1: the unit ran
    on into the door it was yielding). Below the curve the gain closes the error: at 4 world
    units/s it keeps some throttle."""
    thr = []
    for v in (7.07, 4.0):
        backing, t = R.yield_throttle(
            np.array([15.0]), np.ones(1, bool), np.array([L4]), 7.07, np.array([7.07]),
            np.array([v]), np.ones(1),
        )  # fmt: skip
        assert not backing[0]
        thr.append(float(t[0]))
    assert thr[0] == -1.0
    assert 0.0 < thr[1] < 1.0


def test_members_through_the_point_or_on_their_slots_are_not_held():
    """Through: on the far side by route and more than PAST lengths off in a straight line (a
    unit just past the point by route but still in the door is held: route costs near walls
    would call it through too soon)."""
    off = np.array([6.0, 2.0, 6.0])
    to_go = np.array([44.0, 48.0, 56.0])
    arrived = np.array([False, False, True])
    held, _ = R.queue(to_go, 50.0, off, np.full(3, L4), arrived)
    np.testing.assert_array_equal(held, [False, True, False])


def test_the_queue_waits_beside_the_way_on_the_side_it_is_in_sight():
    """Meeting point (30, 10), the route coming east to it: places 8 and 13 back (x = 22 and
    17), 6 to the route's right (south, y = 4) or its left (north, y = 16) as asked; where the
    full offset is out of sight of the point, half of it; where neither is, on the route."""
    point, east = np.array([30.0, 10.0]), np.array([1.0, 0.0])
    back, aside = np.array([8.0, 13.0]), np.array([6.0, -6.0])

    def sees(a, b, longest=None):
        return np.ones(len(a), bool)

    np.testing.assert_allclose(R.wait_places(point, east, back, aside, sees), [[22, 4], [17, 16]])

    def narrow(a, b, longest=None):  # walls 4 off the route on both sides
        return np.abs(b[:, 1] - 10.0) < 4.0

    np.testing.assert_allclose(R.wait_places(point, east, back, aside, narrow), [[22, 7], [17, 13]])

    def blind(a, b, longest=None):
        return np.zeros(len(a), bool)

    np.testing.assert_allclose(R.wait_places(point, east, back, aside, blind), [[22, 10], [17, 10]])


def test_short_of_a_place_is_the_straight_distance_before_it_the_route_distance_past_it():
    """Route east, place (22, 4): a unit at (10, 9) is 13 short of it (5-12-13); one at
    (24, 4) is 2 past it along the route, -2 (it would back out past half a length)."""
    place = np.array([[22.0, 4.0], [22.0, 4.0]])
    pos = np.array([[10.0, 9.0], [24.0, 4.0]])
    np.testing.assert_allclose(R.short_of(place, pos, np.array([1.0, 0.0])), [13.0, -2.0])


def test_the_queue_lines_up_along_the_way_the_route_comes_to_the_point():
    """A path east along y = 10 with a one-cell jog at the door (x = 30): the direction over
    the four cells before the point is east, not the jog's diagonal; at the path's start, over
    the cells after it."""
    x = np.arange(0.0, 60.0, 2.0)
    path = np.stack([x, np.where(x == 30.0, 12.0, 10.0)], axis=1)
    np.testing.assert_allclose(R.route_direction(path, np.array([28.0, 10.0])), [1.0, 0.0])
    np.testing.assert_allclose(R.route_direction(path, np.array([0.0, 10.0])), [1.0, 0.0])


def test_yielding_units_wait_beside_the_way_on_their_own_side():
    """The east group yields at the door (point (31, 10)), coming west along y = 10: a unit
    coming up on the route waits ASIDE lengths to its right (north, y = 16), one coming up more
    than LEFT_OF lengths left of it (south) waits on the left (y = 4): neither stands on the
    way the west group comes out of the door, nor crosses it to get to its place."""
    grid = door_grid()
    east = group(1, [0, 1], (5.0, 10.0), grid)
    east.yield_to, east.yield_point = 0, np.array([31.0, 10.0])
    pos = np.array([[45.0, 10.5], [50.0, 3.0]])
    q = R.yielding_members(
        east, grid, grid.cell_of(pos), pos, np.zeros(2), np.full(2, L4), np.full(2, 7.07),
        np.ones(2),
    )  # fmt: skip
    assert q.held.all() and not q.backing.any()
    np.testing.assert_allclose(q.aside, [R.ASIDE * L4, -R.ASIDE * L4])
    assert q.places[0, 1] == pytest.approx(10.0 + R.ASIDE * L4, abs=0.5)
    assert q.places[1, 1] == pytest.approx(10.0 - R.ASIDE * L4, abs=0.5)
    assert (q.places[:, 0] > 31.0 + R.WAIT_BACK * L4 - 0.5).all()  # back from the door


def test_a_unit_backs_out_stern_first_along_the_path_and_to_its_right():
    """A straight path east along y = 10, one cell per world unit; a unit whose place is cell
    20 at (20, 10.5): its stern aims 4 cells back (16, 10), one length to the right of the way
    the path runs (east: right is south), where that is in sight; in the path itself where
    not."""
    path = np.stack([np.arange(40.0), np.full(40, 10.0)], axis=1)
    pos = np.array([[20.0, 10.5]])

    def sees(a, b):
        return np.ones(len(a), bool)

    def blind(a, b):
        return np.zeros(len(a), bool)

    aside = np.array([L4])
    got = R.back_target(path, np.array([20]), pos, 4, aside, sees)
    np.testing.assert_allclose(got, [[16.0, 6.0]])
    np.testing.assert_allclose(
        R.back_target(path, np.array([20]), pos, 4, aside, blind), [[16, 10]]
    )


def test_the_group_with_the_right_of_way_waits_while_the_door_is_taken():
    """The east group yields at the door (point (30, 10)); its unit 2 is still 3 off the point
    (in the door): the west units within DOOR_REACH lengths of it wait, the one farther off and
    the one through do not. Once unit 2 is CLEAR lengths off, none wait."""
    grid = door_grid()
    west = group(0, [0, 1, 4], (55.0, 10.0), grid)
    east = group(1, [2, 3], (5.0, 10.0), grid)
    east.yield_to, east.yield_point = 0, np.array([30.0, 10.0])
    pos = np.array([[25.0, 10.0], [10.0, 10.0], [33.0, 10.0], [45.0, 10.0], [40.0, 10.0]])
    wait = R.door_taken(west, [east], pos, np.full(5, L4), grid)
    np.testing.assert_array_equal(wait, [True, False, False])
    pos[2] = [30.0 + 1.6 * L4, 10.0]
    assert not R.door_taken(west, [east], pos, np.full(5, L4), grid).any()


def test_a_yield_ends_once_the_other_group_is_through_or_after_yield_seconds():
    """A yield holds while a unit of the group with the right of way is short of the door, and
    while it is through but less than ``CLEAR_OF`` lengths past the meeting point (at 1
    length, a unit still crawling out of the door counted as through, and the yielding units
    came on and pushed it back through the door); it ends after ``YIELD_SECONDS``."""
    grid = door_grid()
    west = group(0, [0, 1], (55.0, 10.0), grid)
    east = group(1, [2, 3], (5.0, 10.0), grid)
    groups = {0: west, 1: east}
    east.yield_to, east.yield_point, east.yield_tick = 0, np.array([30.0, 10.0]), 0
    L = np.full(4, L4)
    coming = np.array([[24.0, 10.0], [40.0, 10.0], [45.0, 10.0], [45.0, 14.0]])
    R.end_yields(groups, coming, L, grid, tick=60, dt=1 / 60)
    assert east.yield_to == 0  # unit 0 is 6 short of the door
    R.end_yields(groups, coming, L, grid, tick=int(R.YIELD_SECONDS * 60) + 1, dt=1 / 60)
    assert east.yield_to == -1  # waited long enough
    east.yield_to = 0
    through = coming.copy()
    through[0] = [36.0, 10.0]  # 1.5 lengths through: still in the way of the yielding units
    R.end_yields(groups, through, L, grid, tick=60, dt=1 / 60)
    assert east.yield_to == 0
    through[:2] = [[41.0, 10.0], [44.0, 10.0]]  # both more than CLEAR_OF (2.5) lengths through
    R.end_yields(groups, through, L, grid, tick=60, dt=1 / 60)
    assert east.yield_to == -1


def test_a_yield_taken_ahead_ends_once_the_other_group_is_clear_of_the_door():
    """A yield begun before the groups met (``rts/doors.py``) has its units waiting outside the
    door from the start, so it ends once the other group's units are ``CLEAR_AHEAD`` (1.5)
    lengths through, clear of the door, instead of ``CLEAR_OF`` (2.5): the yielding units,
    standing from rest 8-18 world units off, take seconds to reach the door (on seeds 1-48 of
    doorway_two_way the slowest run went from 0.92 of its limit to 0.85)."""
    grid = door_grid()
    west = group(0, [0, 1], (55.0, 10.0), grid)
    east = group(1, [2, 3], (5.0, 10.0), grid)
    groups = {0: west, 1: east}
    L = np.full(4, L4)
    # unit 0 1.75 lengths through, unit 1 farther: a standoff's yield holds, one taken ahead ends
    pos = np.array([[37.0, 10.0], [44.0, 10.0], [45.0, 10.0], [45.0, 14.0]])
    for ahead, holds in ((False, True), (True, False)):
        east.yield_to, east.yield_point, east.yield_tick = 0, np.array([30.0, 10.0]), 0
        east.yield_ahead = ahead
        R.end_yields(groups, pos, L, grid, tick=60, dt=1 / 60)
        assert (east.yield_to == 0) == holds
    # a standoff's yield clears the flag set by an earlier one taken ahead
    R.start_yield(west, east, np.array([30.0, 10.0]), np.array([1.0, 0.0]), pos, L, grid, tick=9)
    assert east.yield_to == 0 and not east.yield_ahead


# -- end to end ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 5, 23])
def test_the_two_way_door_clears_with_one_group_yielding(seed):
    """doorway_two_way (without a right of way, on seed 3 six units jammed nose to nose in the
    door from about 10 s on; keeping right and backing off freed them one by one, the last east
    unit came through at 41 s and arrived after the 47 s limit): one group yields to the other,
    whose three units are through the door within 30 s of the start, and the yielding group
    goes on once they are. Which group yields depends on how they come: the west group on 1
    and 23, the east on 5. These seeds were picked where the groups met in a standoff in the
    door (on seeds 1-40: standoffs on 20, the property held on 19); with turns taken before
    the door (``tests/rts/test_doors.py``) they yield ahead of it instead."""
    sim = Simulation(load_scene(scenario_path("doorway_two_way")), seed=seed)
    dt = sim.scene.world.dt
    yields = set()
    while sim.tick * dt < 30.0:
        sim.step()
        yields |= {(g.id, g.yield_to) for g in sim.orders.groups.values() if g.yield_to >= 0}
    assert yields, f"no yield on seed {seed}"
    assert len(yields) == 1  # one group yields, to the other, and never the other way round
    ((yielder, first),) = yields
    x = sim.state.pos[sim.orders.groups[first].members, 0]
    # the wall's faces are x = 79 and 81; the west group (0) goes east, the east one west
    assert (x > 81.0).all() if first == 0 else (x < 79.0).all()
    assert sim.orders.groups[yielder].yield_to == -1


def standoffs_reference(pos, angle, length, group_of, stalled):
    """The definition of :func:`~rigidflock.rts.right_of_way.find_standoffs` over all pairs of
    stalled units (what it computed before its candidates came from a k-d tree)."""
    rows = np.flatnonzero(stalled & (group_of >= 0))
    p, g, L = pos[rows], group_of[rows], length[rows][:, None]
    fwd = np.stack([np.cos(angle[rows]), np.sin(angle[rows])], axis=1)
    d = p[None, :, :] - p[:, None, :]
    ahead = np.einsum("ijk,ik->ij", d, fwd)
    side = np.abs(d[..., 0] * fwd[:, 1:2] - d[..., 1] * fwd[:, 0:1])
    hit = (g[:, None] != g[None, :]) & (fwd @ fwd.T < 0.0)
    hit &= (ahead > 0) & (ahead < R.STANDOFF_AHEAD * L) & (side < L)
    hit |= hit.T
    i, j = np.nonzero(np.triu(hit))
    dist = np.hypot(*(p[j] - p[i]).T)
    a, b = np.minimum(g[i], g[j]), np.maximum(g[i], g[j])
    order = np.lexsort((dist, b, a))
    first = np.ones(len(order), dtype=bool)
    first[1:] = (a[order][1:] != a[order][:-1]) | (b[order][1:] != b[order][:-1])
    return [(int(a[k]), int(b[k]), 0.5 * (p[i[k]] + p[j[k]])) for k in order[first]]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_find_standoffs_agrees_with_the_all_pairs_definition(seed):
    """Candidates come from a k-d tree within the reach of the longest unit (all pairs took
    25 ms a tick with 1,000 units stalled, 390 ms with 2,000): crowds of four groups, lengths
    1-6, most units stalled, half the time on a lattice (ties in distance, where the first pair
    found wins): the same group pairs and meeting points, in the same order."""
    rng = np.random.default_rng(seed)
    total = 0
    for _ in range(20):
        k = int(rng.integers(2, 200))
        pos = rng.uniform(0.0, rng.uniform(10.0, 120.0), (k, 2))
        angle = rng.uniform(-np.pi, np.pi, k)
        length = rng.uniform(1.0, 6.0, k)
        group_of = rng.integers(-1, 4, k)
        stalled = rng.random(k) < 0.8
        if rng.random() < 0.5:  # on a lattice, facing +-x: many pairs at equal distances
            pos = np.floor(pos / 4.0) * 4.0
            angle = np.where(rng.random(k) < 0.5, 0.0, np.pi)
            length = np.full(k, 4.0)
        got = R.find_standoffs(pos, angle, length, group_of, stalled)
        want = standoffs_reference(pos, angle, length, group_of, stalled)
        assert [(a, b) for a, b, _, _ in got] == [(a, b) for a, b, _ in want]
        for (_, _, point, _), (_, _, p_want) in zip(got, want, strict=True):
            np.testing.assert_array_equal(point, p_want)
        total += len(want)
    assert total > 20  # standoffs were there to find


def test_a_standoff_at_the_corner_of_the_range_is_found():
    """Two units of different groups head on, 2.9 lengths apart along the bow line and 0.9 to
    the side: 3.04 lengths apart, within range (ahead < 3 L, off the line < L), so the k-d
    tree's reach is L sqrt(3^2 + 1), not 3 L."""
    pos = np.array([[0.0, 0.0], [2.9 * L4, 0.9 * L4]])
    found = R.find_standoffs(pos, np.array([0.0, np.pi]), np.full(2, L4), np.array([0, 1]),
                             np.ones(2, bool))  # fmt: skip
    assert [(a, b) for a, b, _, _ in found] == [(0, 1)]
