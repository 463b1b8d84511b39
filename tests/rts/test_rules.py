"""The move-order rules one by one (:mod:`rigidflock.rts.rules`): small hand-made arrays, which
units each rule claims and what it commands them; then the one precedence list deciding."""

import numpy as np
import pytest

from rigidflock.rts.progress import BACK_THROTTLE
from rigidflock.rts.rules.arrive import aim_at_slot, arrive, arrive_control, near_slot
from rigidflock.rts.rules.back_off import back_off_stuck
from rigidflock.rts.rules.body import Body
from rigidflock.rts.rules.claim import Claim, decide, nobody
from rigidflock.rts.rules.crossing import give_way_at_crossing
from rigidflock.rts.rules.cruise import BRAKE_GAIN, FLOCK_EN_ROUTE, cruise, cruise_throttle
from rigidflock.rts.rules.flock_share import cut_off, formation_alone
from rigidflock.rts.rules.follow_path import follow_path
from rigidflock.rts.rules.passing import KEEP_RIGHT, pass_on_the_right
from rigidflock.rts.rules.precedence import AIM, DRIVE
from rigidflock.rts.rules.yielding import (
    back_out_of_door,
    hold_for_door,
    wait_at_door,
    wait_beside_the_way,
)


def west_of(x: float):
    """A ``Grid.sees`` stand-in: a segment is in sight when both ends lie west of ``x`` (a wall
    along x = ``x``); it records the rows it was asked about."""
    asked = []

    def sees(a, b, longest=None):
        asked.append(len(a))
        return (a[:, 0] < x) & (b[:, 0] < x)

    sees.asked = asked
    return sees


def heading_east(pos, vel) -> Body:
    """A :class:`Body` of units at ``pos`` (m, 2) heading east (+x) moving at ``vel`` (m, 2)."""
    pos, vel = np.asarray(pos, float), np.asarray(vel, float)
    m = len(pos)
    fwd, left = np.tile([1.0, 0.0], (m, 1)), np.tile([0.0, 1.0], (m, 1))
    return Body(pos, vel, np.zeros(m), fwd, left, vel[:, 0], vel[:, 1], np.hypot(*vel.T))


# -- aim -----------------------------------------------------------------------------------------


def test_near_slot_needs_the_arrival_radius_and_sight():
    """A unit within its arrival radius of its slot is near only if it sees it (near by
    route, not through a wall); sight is asked for the units within the radius alone."""
    pos = np.array([[0.0, 0.0], [8.0, 0.0], [0.0, 0.0]])
    slots = np.array([[3.0, 0.0], [9.0, 0.0], [30.0, 0.0]])
    sees = west_of(5.0)
    near = near_slot(np.hypot(*(slots - pos).T), np.full(3, 4.0), pos, slots, sees)
    np.testing.assert_array_equal(near, [True, False, False])  # 2nd beyond the wall, 3rd far
    assert sees.asked == [2]


def test_aim_at_slot_claims_near_units_and_those_at_the_formation_seeing_their_slot():
    """Near units aim at their slot; at the formation by route (``close``) a unit aims at it
    only once it sees it (else the path leads it round the wall); a unit neither near nor
    close keeps to the path however well it sees its slot."""
    pos = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 0.0]])
    slots = np.array([[4.0, 0.0], [4.0, 1.0], [9.0, 0.0], [4.0, 2.0]])
    near = np.array([True, False, False, False])
    close = np.array([False, True, True, False])
    sees = west_of(5.0)
    c = aim_at_slot(near, close, pos, slots, sees)
    np.testing.assert_array_equal(c.mask, [True, True, False, False])
    np.testing.assert_array_equal(c.aim[c.mask], slots[:2])
    assert c.throttle is None and c.force is None and c.flock is None
    assert sees.asked == [2]  # only the close units not near were looked at


def test_pass_on_the_right_moves_the_aim_right_of_the_way_ahead():
    """Heading east with the aim 10 ahead, right is -y: a unit meeting another group's unit
    head on aims ``KEEP_RIGHT`` widths right; where the full offset is out of sight it takes
    half, where neither is in sight the aim itself; units not meeting are not claimed."""
    pos = np.zeros((3, 2))
    ahead = np.tile([10.0, 0.0], (3, 1))
    width = np.full(3, 2.0)
    meeting = np.array([True, False, True])

    def sees(a, b, longest=None):  # a wall along y = -2.2, right of the way
        return b[:, 1] > -2.2

    c = pass_on_the_right(ahead, pos, width, meeting, sees)
    np.testing.assert_array_equal(c.mask, meeting)
    half_keep = [10.0, -0.5 * KEEP_RIGHT * 2.0]  # -1.25: the full -2.5 is beyond the wall
    np.testing.assert_allclose(c.aim[0], half_keep)
    np.testing.assert_allclose(c.aim[2], half_keep)

    def blind(a, b, longest=None):
        return np.zeros(len(a), bool)

    c = pass_on_the_right(ahead, pos, width, meeting, blind)
    np.testing.assert_array_equal(c.aim[meeting], ahead[meeting])  # nothing in sight: the way


def test_wait_beside_the_way_aims_the_held_units_that_see_their_place_at_it():
    """Held units aim at their places in the queue, those that see them; a held unit whose
    place is out of sight is left to the rules after (it follows its path); units not held are
    not claimed, and with none held nobody is (no places needed)."""
    pos = np.array([[0.0, 0.0], [0.0, 0.0], [60.0, 0.0], [0.0, 0.0]])
    places = np.array([[10.0, 6.0], [15.0, -6.0], [20.0, 6.0], [0.0, 0.0]])
    held = np.array([True, True, True, False])
    c = wait_beside_the_way(held, places, pos, west_of(50.0))
    np.testing.assert_array_equal(c.mask, [True, True, False, False])
    np.testing.assert_array_equal(c.aim[:2], places[:2])
    assert not wait_beside_the_way(np.zeros(2, bool), None, pos[:2], west_of(50.0)).mask.any()


def test_follow_path_claims_every_unit_with_its_point_ahead():
    """The default aim: every unit, at its point on the path."""
    ahead = np.array([[1.0, 2.0], [3.0, 4.0]])
    c = follow_path(ahead)
    assert c.mask.all() and c.aim is ahead


# -- drive ---------------------------------------------------------------------------------------


def test_wait_at_door_brakes_to_a_stop_and_leaves_the_bow_force():
    """The units that wait brake on their forward speed (a unit moving on gets a negative
    throttle in proportion, one stopped none) and do not flock; their bow force is left to
    the next rule (None); without a door to wait at nobody is claimed."""
    wait = np.array([True, True, False])
    v_fwd, cruise_speed = np.array([4.0, 0.0, 4.0]), np.full(3, 8.0)
    c = wait_at_door(wait, v_fwd, cruise_speed)
    np.testing.assert_array_equal(c.mask, wait)
    np.testing.assert_allclose(c.throttle[:2], [-BRAKE_GAIN * 0.5, 0.0])
    assert c.force is None and c.flock == 0.0
    assert not wait_at_door(None, v_fwd, cruise_speed).mask.any()


def test_back_out_of_door_reverses_with_the_stern_force():
    """A yielding unit too near the meeting point backs out at its yield throttle with the
    stern force and no flocking; with none backing nobody is claimed and no throttle or
    stern force is needed."""
    backing = np.array([False, True])
    throttle, stern = np.array([0.3, -1.0]), np.array([0.0, 12.0])
    c = back_out_of_door(backing, throttle, stern)
    np.testing.assert_array_equal(c.mask, backing)
    assert c.throttle[1] == -1.0 and c.force[1] == 12.0 and c.flock == 0.0
    c = back_out_of_door(np.zeros(2, bool), None, None)
    assert not c.mask.any() and c.throttle is None


def test_hold_for_door_queues_at_the_yield_throttle_seeking_its_aim():
    """A held unit takes its yield throttle and seeks its aim, without flocking."""
    held = np.array([True, False])
    c = hold_for_door(held, np.array([0.2, 0.9]), np.array([5.0, -5.0]))
    np.testing.assert_array_equal(c.mask, held)
    assert c.throttle[0] == 0.2 and c.force[0] == 5.0 and c.flock == 0.0
    assert not hold_for_door(np.zeros(2, bool), None, np.zeros(2)).mask.any()


def test_back_off_stuck_reverses_seeking_its_aim_and_leaves_the_flock_share():
    """A stuck unit backs off at ``BACK_THROTTLE`` with the seek force (which swings the bow
    toward the aim as it backs); whether it flocks is the next rule's (None)."""
    backing = np.array([True, False])
    c = back_off_stuck(backing, np.array([7.0, 3.0]))
    np.testing.assert_array_equal(c.mask, backing)
    assert c.throttle == BACK_THROTTLE < 0 and c.force[0] == 7.0 and c.flock is None


def test_arrive_claims_the_near_units_with_the_arrive_control():
    """Near its slot a unit brakes onto it: a unit moving at 6 toward a slot 1 ahead wants
    0.5 (e / 2 s) and brakes (negative throttle); one 2 to its left steers to port (positive
    force) at zero speed ahead; neither flocks. A unit not near is not claimed."""
    b = heading_east([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [[6.0, 0.0], [0.0, 0.0], [6.0, 0.0]])
    to_slot = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 0.0]])
    near = np.array([True, True, False])
    mass, drag, thrust = np.full(3, 10.0), np.zeros(3), np.full(3, 10.0)
    c = arrive(near, to_slot, np.hypot(*to_slot.T), b, 5.0, mass, drag, thrust)
    np.testing.assert_array_equal(c.mask, near)
    want = arrive_control(to_slot, np.hypot(*to_slot.T), b, 5.0, mass, drag, thrust)
    np.testing.assert_array_equal(c.throttle, want[0])
    np.testing.assert_array_equal(c.force, want[1])
    assert c.throttle[0] < -1.0 and c.force[1] > 0.0 and c.flock == 0.0


def test_cut_off_claims_units_that_see_neither_slot_nor_path():
    """A unit aiming at its slot is never cut off; one that does not see its place on the
    path is (the flock's pull would hold it against the wall between); flock share only."""
    pos = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    place = np.array([[9.0, 0.0], [9.0, 0.0], [1.0, 0.0]])
    c = cut_off(np.array([True, False, False]), pos, place, west_of(5.0))
    np.testing.assert_array_equal(c.mask, [False, True, False])
    assert c.flock == 0.0 and c.throttle is None and c.force is None


def test_formation_alone_spares_units_meeting_one_head_on():
    """At the formation only the order steers, except for a unit meeting another group's unit
    head on (separation turns it to starboard); short of the formation nobody is claimed."""
    close = np.array([True, True, False])
    c = formation_alone(close, np.array([False, True, False]))
    np.testing.assert_array_equal(c.mask, [True, False, False])
    assert c.flock == 0.0 and c.throttle is None and c.force is None


def test_cruise_claims_everyone_and_does_not_queue_behind_oncoming_units():
    """The default: every unit cruises at the group's speed seeking its aim, flocking at
    ``FLOCK_EN_ROUTE``. Of two units 1.2 lengths behind another, the one meeting another
    group's unit head on does not queue (it takes the throttle of a free way, to pass on the
    right); the other slows for the queue."""
    steer, gap, length = np.zeros(3), np.array([1.2, 1.2, np.inf]), np.ones(3)
    meeting = np.array([True, False, False])
    none = np.zeros(3, bool)
    speed, v_fwd, limit = np.full(3, 8.0), np.full(3, 4.0), np.full(3, np.inf)
    c = cruise(steer, gap, meeting, none, length, 4.0, speed, v_fwd, limit, np.full(3, 2.0))
    assert c.mask.all() and c.flock == FLOCK_EN_ROUTE
    np.testing.assert_array_equal(c.force, np.full(3, 2.0))
    free = cruise_throttle(steer, np.full(3, np.inf), length, none, 4.0, speed, v_fwd, limit)
    assert c.throttle[0] == free[0] and c.throttle[2] == free[2]
    assert c.throttle[1] < free[1] - 0.5


# -- deciding ------------------------------------------------------------------------------------


def first(m):
    return Claim(np.array([True, False, False]), throttle=-1.0)


def second(m):
    return Claim(np.array([True, True, False]), throttle=0.5, force=np.array([1.0, 2.0, 3.0]))


def default(m):
    return Claim(np.ones(3, bool), throttle=np.full(3, 0.9), force=np.zeros(3), flock=0.5)


def test_the_first_rule_claiming_a_unit_decides_each_channel():
    """Unit 0 is claimed by all three: the first decides its throttle, the second its force
    (the first leaves force to the next); unit 2 gets the default's."""
    order = (first, second, default)
    claims = {r: r(3) for r in order}
    np.testing.assert_array_equal(decide(claims, order, "throttle"), [-1.0, 0.5, 0.9])
    np.testing.assert_array_equal(decide(claims, order, "force"), [1.0, 2.0, 0.0])
    np.testing.assert_array_equal(decide(claims, order, "flock"), [0.5, 0.5, 0.5])
    # the other order: the second rule now decides unit 0's throttle too
    swapped = (second, first, default)
    np.testing.assert_array_equal(decide(claims, swapped, "throttle"), [0.5, 0.5, 0.9])


def test_the_precedence_list_and_the_claims_must_agree():
    """A rule asked but missing from the list, one in the list without a claim, or a last
    rule that does not claim everyone is an error, not a silent default."""
    claims = {r: r(3) for r in (first, second, default)}
    with pytest.raises(ValueError, match="differ"):
        decide(claims, (first, default), "throttle")
    with pytest.raises(ValueError, match="must claim all"):
        decide({first: first(3), second: second(3)}, (first, second), "throttle")
    with pytest.raises(ValueError, match="unknown channel"):
        decide(claims, (first, second, default), "speed")
    assert not nobody(4).mask.any() and nobody(4).throttle is None


def test_the_drive_list_decides_one_unit_per_row_of_its_table():
    """Nine units, unit k claimed by the k-th rule of ``DRIVE`` and by every rule after it
    (the default claims all): each unit's throttle is its own rule's, and where that rule
    leaves the force (waiting at a door, giving way at a crossing) or the flock share (backing
    off stuck) the next claiming rule decides it."""
    m = len(DRIVE)
    upto = [np.arange(m) <= k for k in range(m)]  # rule k claims units 0..k
    seek, stern = np.full(m, 1.0), np.full(m, -3.0)
    b = heading_east(np.zeros((m, 2)), np.tile([2.0, 0.0], (m, 1)))
    to_slot = np.tile([1.0, 0.0], (m, 1))
    ones = np.ones(m)
    claims = {
        wait_at_door: wait_at_door(np.arange(m) == 0, b.v_fwd, np.full(m, 4.0)),
        back_out_of_door: back_out_of_door(np.arange(m) <= 1, np.full(m, -1.0), stern),
        hold_for_door: hold_for_door(np.arange(m) <= 2, np.full(m, 0.1), seek),
        back_off_stuck: back_off_stuck(np.arange(m) <= 3, seek),
        give_way_at_crossing: give_way_at_crossing(upto[4], b.v_fwd, np.full(m, 4.0)),
        arrive: arrive(upto[5], to_slot, ones, b, 5.0, ones * 10, 0 * ones, ones * 10),
        cut_off: cut_off(~upto[6], np.zeros((m, 2)), np.zeros((m, 2)), lambda a, b: ~upto[6]),
        formation_alone: formation_alone(upto[7], np.zeros(m, bool)),
        cruise: cruise(0 * ones, np.full(m, np.inf), ~upto[8], ~upto[8], ones, 4.0, ones * 8,
                       b.v_fwd, np.full(m, np.inf), seek),
    }  # fmt: skip
    assert tuple(claims) == DRIVE  # the test builds the table in the list's order
    throttle = decide(claims, DRIVE, "throttle")
    force = decide(claims, DRIVE, "force")
    flock = decide(claims, DRIVE, "flock")
    arrive_thr, arrive_force = arrive_control(to_slot, ones, b, 5.0, ones * 10, 0 * ones, ones * 10)
    assert throttle[0] == pytest.approx(-BRAKE_GAIN * 0.5)  # waiting at the door brakes
    assert force[0] == stern[0]  # its bow force: the next claiming rule's (backing out)
    assert throttle[1] == -1.0 and force[1] == stern[1]
    assert throttle[2] == 0.1 and force[2] == seek[2]
    assert throttle[3] == BACK_THROTTLE and force[3] == seek[3]
    assert flock[3] == 0.0  # backing off leaves the flock share: the next claimer's
    # giving way at a crossing: braking from 2 toward a quarter of 4; the bow force is arrive's
    assert throttle[4] == pytest.approx(BRAKE_GAIN * (1.0 - 2.0) / 4.0)
    assert force[4] == arrive_force[4]
    assert throttle[5] == arrive_thr[5] and force[5] == arrive_force[5]
    assert (flock[:8] == 0.0).all() and flock[8] == FLOCK_EN_ROUTE
    assert throttle[6] == throttle[7] == throttle[8]  # cut off, at the formation: cruising
    assert (force[6:] == seek[6:]).all()


def test_the_aim_list_puts_the_slot_before_the_queue_before_keeping_right_before_the_path():
    """A unit near its slot, held and meeting another group's unit aims at its slot; one held
    and meeting at its place in the queue; one only meeting right of the path; the rest follow
    the path."""
    pos, ahead = np.zeros((4, 2)), np.tile([10.0, 0.0], (4, 1))
    slots = np.tile([2.0, 2.0], (4, 1))
    places = np.tile([5.0, 6.0], (4, 1))
    meeting = np.array([True, True, True, False])
    held = np.array([True, True, False, False])
    claims = {
        aim_at_slot: aim_at_slot(np.array([True, False, False, False]), np.zeros(4, bool), pos,
                                 slots, west_of(50.0)),
        wait_beside_the_way: wait_beside_the_way(held, places, pos, west_of(50.0)),
        pass_on_the_right: pass_on_the_right(ahead, pos, np.ones(4), meeting, west_of(50.0)),
        follow_path: follow_path(ahead),
    }  # fmt: skip
    aim = decide(claims, AIM, "aim")
    np.testing.assert_array_equal(aim[0], slots[0])
    np.testing.assert_array_equal(aim[1], places[1])
    np.testing.assert_allclose(aim[2], [10.0, -KEEP_RIGHT])
    np.testing.assert_array_equal(aim[3], ahead[3])
