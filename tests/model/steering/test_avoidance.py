"""Feelers against circles and walls on hand-checked cases."""

import numpy as np

from rigidflock.model.steering.avoidance import obstacle_feelers, wall_feelers
from rigidflock.model.steering.flocking import forward_left


def feel(obstacle, angle=0.0, feeler=100.0, clearance=3.0, pos=(0.0, 0.0), box=None):
    fwd, left = forward_left(np.array([angle]))
    return obstacle_feelers(
        np.array([pos], dtype=float),
        fwd,
        left,
        np.array([feeler]),
        np.array([clearance]),
        np.array([obstacle], dtype=float),
        box,
    )


def test_obstacle_ahead_to_port_turns_starboard():
    push, felt = feel((50.0, 10.0, 8.0))  # 10 to port, within 8 + 3
    assert push[0] < 0 and felt[0] == 0
    np.testing.assert_allclose(push, [-100.0 / np.hypot(50, 10)])


def test_obstacle_ahead_to_starboard_turns_port():
    push, _ = feel((50.0, -10.0, 8.0))
    assert push[0] > 0


def test_obstacles_behind_beyond_the_feeler_or_off_the_line_are_ignored():
    for obstacle in [(-30.0, 0.0, 8.0), (120.0, 0.0, 8.0), (50.0, 12.0, 8.0)]:
        push, felt = feel(obstacle)
        assert push[0] == 0 and felt[0] == -1


def test_clearance_widens_the_feeler():
    assert feel((50.0, 10.5, 8.0), clearance=3.0)[0][0] != 0  # 10.5 < 8 + 3
    assert feel((50.0, 10.5, 8.0), clearance=2.0)[0][0] == 0  # 10.5 > 8 + 2


def test_feeler_sees_across_a_wrap_edge():
    box = np.array([200.0, 200.0])
    push, felt = feel((10.0, 101.0, 8.0), pos=(190.0, 100.0), box=box)
    assert felt[0] == 0 and push[0] < 0


def test_nearest_felt_obstacle_is_reported():
    fwd, left = forward_left(np.zeros(1))
    obs = np.array([[80.0, 1.0, 5.0], [40.0, -1.0, 5.0]])
    _push, felt = obstacle_feelers(
        np.zeros((1, 2)), fwd, left, np.array([100.0]), np.array([3.0]), obs
    )
    assert felt[0] == 1


def test_wall_ahead_is_felt_and_turned_from():
    fwd, left = forward_left(np.array([0.3]))  # heading right, a little up, toward x = 100
    push = wall_feelers(
        np.array([[80.0, 50.0]]), fwd, left, np.array([50.0]), np.array([100.0, 100.0])
    )
    # the wall lies ahead and to starboard of a unit angled to port: turn further to port
    assert push[0] > 0
    push = wall_feelers(
        np.array([[20.0, 50.0]]), fwd, left, np.array([50.0]), np.array([100.0, 100.0])
    )
    assert push[0] == 0
