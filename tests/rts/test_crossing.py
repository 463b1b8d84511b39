"""Giving way at a crossing (rts/rules/crossing.py): who yields to whom, and how."""

import numpy as np

from rigidflock.rts.rules.crossing import YIELD_SPEED, crossing_yields, give_way_at_crossing

L = 4.0


def yields(pos, heading_deg, speed=5.0, groups=None):
    pos = np.asarray(pos, dtype=float)
    angle = np.radians(np.asarray(heading_deg, dtype=float))
    vel = speed * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    n = len(pos)
    group = np.arange(n) if groups is None else np.asarray(groups)
    return crossing_yields(pos, vel, angle, np.full(n, L), group, np.ones(n, dtype=bool))


def test_of_two_crossing_units_the_one_with_the_other_on_its_right_yields():
    # A eastbound, B northbound coming up from A's right front: A gives way, B goes on
    assert yields([[0.0, 0.0], [3.0, -3.0]], [0.0, 90.0]).tolist() == [True, False]
    # mirrored (B southbound from A's left front): B has A on its right, B yields
    assert yields([[0.0, 0.0], [3.0, 3.0]], [0.0, -90.0]).tolist() == [False, True]


def test_a_pair_locked_side_by_side_breaks_with_one_yielding():
    # pressed together heading the same way (each turning into the other): the one with the
    # other on its right yields, so the other draws ahead
    assert yields([[0.0, 0.0], [0.5, -2.0]], [-20.0, 20.0]).tolist() == [True, False]


def test_head_on_units_and_units_of_one_group_do_not_yield_here():
    # head on they keep right (rules/passing.py)
    assert not yields([[0.0, 0.0], [6.0, -0.5]], [0.0, 180.0]).any()
    assert not yields([[0.0, 0.0], [3.0, -3.0]], [0.0, 90.0], groups=[0, 0]).any()
    # out of reach (over 2 lengths apart)
    assert not yields([[0.0, 0.0], [7.0, -7.0]], [0.0, 90.0]).any()


def test_a_ring_of_four_yields_opens():
    # four units meeting at a crossing, each with the next on its right: not all wait
    pos = [[-3.0, 0.5], [0.5, 3.0], [3.0, -0.5], [-0.5, -3.0]]
    y = yields(pos, [0.0, -90.0, 180.0, 90.0])
    assert 0 < y.sum() < 4, y


def test_a_yielding_unit_brakes_toward_a_quarter_of_its_cruise_speed_whatever_its_mass():
    cruise = np.array([7.0, 7.0, 7.0])
    c = give_way_at_crossing(np.array([True, True, False]), np.array([7.0, 1.0, 7.0]), cruise)
    assert c.mask.tolist() == [True, True, False]
    assert c.throttle[0] < 0.0 < c.throttle[1]  # above the yield speed it brakes, below it creeps
    assert YIELD_SPEED * 7.0 > 1.0 and c.flock == 0.0
