"""Feelers against circles and walls on hand-checked cases, and the blocked interval that says
which way a unit turns (a pocket between two trees, among others)."""

import numpy as np

from rigidflock.model.steering.avoidance import (
    CONTACT_GAIN,
    blocked,
    bow_angle,
    escape,
    guard_range,
    obstacle_feelers,
    obstacle_priority,
    wall_feelers,
    wall_priority,
)
from rigidflock.model.steering.flocking import forward_left

TOUCH = 0.5 * np.hypot(4.0, 2.0) + 1.0  # a 4 x 2 unit's contact distance
L = np.array([4.0])


def feel(obstacle, angle=0.0, feeler=100.0, clearance=3.0, pos=(0.0, 0.0), box=None):
    fwd, _left = forward_left(np.array([angle]))
    return obstacle_feelers(
        np.array([pos], dtype=float),
        fwd,
        np.array([feeler]),
        np.array([clearance]),
        np.array([obstacle], dtype=float),
        box,
    )


def steer(obstacles, angle=0.0, pos=(0.0, 0.0), feeler=100.0, walls=None):
    """One unit's avoidance: (signed feeler command, contact command or None, blocked lo, hi),
    as ``reference.blend_terms`` combines them (+ to port)."""
    fwd, left = forward_left(np.array([angle]))
    p, fl, cl, touch = np.array([pos], float), np.array([feeler]), np.array([3.0]), [TOUCH]
    obs = np.array(obstacles, dtype=float).reshape(-1, 3)
    strength, _felt = obstacle_feelers(p, fwd, fl, cl, obs)
    _urg, cgap, spans, guard = obstacle_priority(p, fwd, fwd, fl, cl, np.array(touch), L, obs)
    if walls is not None:
        strength = strength + wall_feelers(p, fwd, fl, np.array(walls))
        _urg, cgap, wall_spans, guard = wall_priority(
            p, fwd, fwd, fl, np.array(touch), L, np.array(walls), _urg, cgap, guard
        )
        spans = tuple(np.concatenate(pair) for pair in zip(spans, wall_spans, strict=True))
    lo, hi = blocked(1, *spans)
    turn, cmd = escape(lo, hi, bow_angle(fwd, left))
    contact = cmd[0] if np.isfinite(cgap[0]) else None
    return turn[0] * strength[0], contact, lo[0], hi[0]


def test_obstacle_ahead_to_port_turns_starboard():
    push, felt = feel((50.0, 10.0, 8.0))  # 10 to port, within 8 + 3
    assert felt[0] == 0
    np.testing.assert_allclose(push, [100.0 / np.hypot(50, 10)])  # AIDemo4's strength
    cmd, contact, lo, hi = steer([(50.0, 10.0, 8.0)])
    assert cmd == -100.0 / np.hypot(50, 10) and contact is None
    # the blocked interval: the tree's bearing +- asin((8 + 3) / |a|)
    beta = np.arcsin(11.0 / np.hypot(50, 10))
    np.testing.assert_allclose([lo, hi], np.arctan2(10, 50) + np.array([-beta, beta]))


def test_obstacle_ahead_to_starboard_turns_port():
    assert steer([(50.0, -10.0, 8.0)])[0] > 0


def test_obstacles_behind_beyond_the_feeler_or_off_the_line_are_ignored():
    for obstacle in [(-30.0, 0.0, 8.0), (120.0, 0.0, 8.0), (50.0, 12.0, 8.0)]:
        push, felt = feel(obstacle)
        assert push[0] == 0 and felt[0] == -1
        assert steer([obstacle])[2:] == (0.0, 0.0)  # nothing blocked


def test_clearance_widens_the_feeler():
    assert feel((50.0, 10.5, 8.0), clearance=3.0)[0][0] != 0  # 10.5 < 8 + 3
    assert feel((50.0, 10.5, 8.0), clearance=2.0)[0][0] == 0  # 10.5 > 8 + 2


def test_feeler_sees_across_a_wrap_edge():
    box = np.array([200.0, 200.0])
    push, felt = feel((10.0, 101.0, 8.0), pos=(190.0, 100.0), box=box)
    assert felt[0] == 0 and push[0] > 0


def test_nearest_felt_obstacle_is_reported():
    fwd, _left = forward_left(np.zeros(1))
    obs = np.array([[80.0, 1.0, 5.0], [40.0, -1.0, 5.0]])
    _push, felt = obstacle_feelers(np.zeros((1, 2)), fwd, np.array([100.0]), np.array([3.0]), obs)
    assert felt[0] == 1


def test_wall_ahead_is_felt_and_turned_from():
    size = [100.0, 100.0]
    # heading right, a little up, toward x = 100: the wall lies ahead and to starboard of a unit
    # angled to port, so it turns further to port
    assert steer([], angle=0.3, pos=(80.0, 50.0), feeler=50.0, walls=size)[0] > 0
    fwd, _left = forward_left(np.array([0.3]))
    push = wall_feelers(np.array([[20.0, 50.0]]), fwd, np.array([50.0]), np.array(size))
    assert push[0] == 0


def test_two_trees_the_unit_does_not_fit_between_are_gone_round():
    # trees of radius 16 whose edges are 1.5 apart (the forest's limited view, seed 3),
    # straight ahead with the gap a little to port: AIDemo4's sum nearly cancels and would
    # steer into the gap; the merged interval sends the unit round the nearer side of the pair
    a, b = (60.0, 17.5, 16.0), (60.0, -16.0, 16.0)
    aidemo4 = sum(-np.sign(o[1]) * 100.0 / np.hypot(o[0], o[1]) for o in (a, b))
    assert abs(aidemo4) < 0.03 * 100.0 / 60.0
    cmd, _contact, lo, hi = steer([a, b])
    assert cmd < 0  # round the starboard tree: its outer end is the nearer one
    assert cmd == -(100.0 / np.hypot(60, 17.5) + 100.0 / np.hypot(60, 16))
    assert lo < np.arctan2(-16, 60) and hi > np.arctan2(17.5, 60)  # both trees in one interval


def test_a_wide_gap_keeps_aidemo4s_rule():
    # 20 world units between the trees: neither is felt from the middle, nothing is blocked
    cmd, _contact, lo, hi = steer([(60.0, 26.0, 16.0), (60.0, -26.0, 16.0)])
    assert cmd == 0 and lo == hi == 0.0


def test_a_unit_in_a_two_tree_pocket_turns_out_of_it():
    # the forest's pocket, measured: the unit's side against tree 20 (to port, just behind its
    # beam), its nose 1.7 from tree 11 (ahead to starboard); steering along tree 11's tangent
    # nearer the heading, as for one surface, would turn it to port, deeper into the pocket
    heading = np.radians(94.0)
    pos = (362.8, 444.3)
    t20, t11 = (345.7, 444.8, 16.0), (378.2, 453.0, 16.0)
    _cmd, contact, lo, _hi = steer([t20, t11], angle=heading, pos=pos)
    assert contact is not None and contact < 0  # turns to starboard, out of the pocket
    # toward tree 11's other tangent: more than a right angle round, past the pocket's mouth
    assert lo < -np.pi / 2 and contact == CONTACT_GAIN * max(lo / np.pi, -1.0)
    # with tree 20 gone the same contact steers along tree 11's tangent nearer the heading
    _cmd, alone, _lo, _hi = steer([t11], angle=heading, pos=pos)
    a = np.subtract(t11[:2], pos)
    bearing = np.arctan2(a[1], a[0]) - heading
    np.testing.assert_allclose(alone, CONTACT_GAIN * (bearing + np.pi / 2) / np.pi)


def test_a_corner_is_turned_out_of_toward_its_open_side():
    # heading into the corner (300, 300) a little above the diagonal: AIDemo4's pushes from the
    # two walls nearly cancel (100 / 27.8 to starboard against 100 / 28.8 to port)
    size = [300.0, 300.0]
    cmd, _contact, lo, hi = steer([], angle=np.radians(46.0), pos=(280.0, 280.0), walls=size)
    # both walls block one interval; its port end (along y = 300) is the nearer
    np.testing.assert_allclose(
        [lo, hi], np.radians([-46.0, 44.0]) + np.arccos(0.2) * np.array([-1, 1])
    )
    assert cmd > 0
    cmd, _contact, _lo, _hi = steer([], angle=np.radians(44.0), pos=(280.0, 280.0), walls=size)
    assert cmd < 0


def test_blocked_merges_through_chains_whatever_their_order():
    unit = np.array([0, 0, 0, 0, 1])
    lo = np.array([0.5, -0.2, 0.3, 2.5, 0.1])
    hi = np.array([0.9, 0.4, 0.6, 3.0, 0.2])
    out = blocked(2, unit, lo, hi)
    np.testing.assert_array_equal(out[0], [-0.2, 0.0])  # unit 1's only interval misses 0
    np.testing.assert_array_equal(out[1], [0.9, 0.0])
    order = np.array([3, 0, 2, 4, 1])
    again = blocked(2, unit[order], lo[order], hi[order])
    np.testing.assert_array_equal(again, out)


def test_a_unit_nearly_stopped_turns_its_bow_away():
    # a wall ahead of the direction of travel (drifting north at walking pace toward y = 300,
    # 37 away: within avoidance.SPAN_REACH of the 100-unit feeler, so it blocks headings) but
    # the bow points 125 degrees to starboard of it: the body turns further to
    # starboard, away from the wall (AIDemo4's side, judged in the body frame), not to port
    # as the direction of travel alone would say (the wall lies a little to its starboard)
    h = np.array([[np.cos(np.radians(94.4)), np.sin(np.radians(94.4))]])
    fwd, left = forward_left(np.radians([-31.0]))
    bow = bow_angle(h, left)
    np.testing.assert_allclose(bow, np.radians([-125.4]))
    fl, size = np.array([100.0]), np.array([400.0, 300.0])
    no_guard = (np.zeros(1, bool), np.zeros(1, bool))
    _urg, _cgap, spans, _guard = wall_priority(np.array([[195.9, 262.8]]), h, fwd, fl,
                                               np.array([TOUCH]), L, size, np.zeros(1),
                                               np.full(1, np.inf), no_guard)  # fmt: skip
    lo, hi = blocked(1, *spans)
    assert lo < 0 < hi and hi < -lo  # under way along h, port would be the nearer end
    turn, _cmd = escape(lo, hi, bow)
    assert turn[0] == -1.0
    assert escape(lo, hi, np.zeros(1))[0][0] == 1.0


def guard_of(pos, heading_deg, tree):
    """(contact gap, lo, hi of the other rules' force with a least turn of 1)"""
    fwd, _left = forward_left(np.radians([heading_deg]))
    _urg, cgap, _spans, guard = obstacle_priority(
        np.array([pos]), fwd, fwd, np.array([100.0]), np.array([3.0]), np.array([TOUCH]), L,
        np.array([tree]),
    )  # fmt: skip
    g_lo, g_hi = guard_range(*guard, 1.0)
    return cgap[0], g_lo[0], g_hi[0]


def test_the_flock_may_not_turn_a_unit_into_a_tree_it_rubs_along():
    # seed 12 of the limited view: a unit sliding north along a tree to port of it (its side
    # 0.9 from the bark, the tree's centre a little behind its beam) was turned into the tree by
    # its flock each tick and dragged round it by friction, scraping
    pos, tree = (344.1, 450.8), (327.5, 447.5, 16.0)
    for heading, port in ((95.0, True), (100.0, True), (285.0, False)):
        cgap, g_lo, g_hi = guard_of(pos, heading, tree)
        # beside it, not ahead: no contact steering, but a least turn away from the tree
        assert not np.isfinite(cgap)
        assert (g_lo, g_hi) == ((-np.inf, -1.0) if port else (1.0, np.inf))


def test_a_tree_at_the_stern_does_not_guard():
    # touching the stern (2.1 from the centre, straight astern): turning either way is free
    cgap, g_lo, g_hi = guard_of((0.0, 0.0), 0.0, (-18.1, 0.0, 16.0))
    assert not np.isfinite(cgap) and (g_lo, g_hi) == (-np.inf, np.inf)


def test_a_wall_beside_guards_its_side():
    fwd, _left = forward_left(np.radians([90.0]))  # north, the wall x = 0 to port, 1.5 away
    no_guard = (np.zeros(1, bool), np.zeros(1, bool))
    _urg, cgap, _spans, guard = wall_priority(
        np.array([[1.5, 50.0]]), fwd, fwd, np.array([100.0]), np.array([TOUCH]), L,
        np.array([300.0, 300.0]), np.zeros(1), np.full(1, np.inf), no_guard,
    )  # fmt: skip
    assert not np.isfinite(cgap[0]) and guard[0][0] and not guard[1][0]  # port only


def test_touched_on_both_sides_the_other_rules_cannot_turn_a_unit():
    lo, hi = guard_range(np.array([True, True, False]), np.array([True, False, False]), 2.0)
    np.testing.assert_array_equal(lo, [0.0, -np.inf, -np.inf])
    np.testing.assert_array_equal(hi, [0.0, -2.0, np.inf])
