"""Leader election and the chase/intercept aim on hand-checked arrays."""

import numpy as np

from rigidflock.model.steering.flocking import forward_left
from rigidflock.model.steering.pursuit import (
    front_counts,
    intercept_point,
    seek_steer,
    steer_toward,
)


def test_front_counts_only_the_narrow_cone_ahead_within_radius():
    i = np.zeros(4, dtype=np.intp)
    f = np.array([10.0, 10.0, -10.0, 300.0])
    s = np.array([5.0, 15.0, 0.0, 0.0])
    dist = np.hypot(f, s)
    got = front_counts(1, i, f, s, dist, np.full(4, 200.0), front_factor=1.0)
    assert got[0] == 1  # only the first: the second is outside the cone, third behind, last far


def test_intercept_leads_a_crossing_target():
    # target at (100, 0) moving +y at 10; pursuer at rest at the origin: t = 100 / 10 = 10 s
    aim = intercept_point(
        np.zeros((1, 2)),
        np.array([0.0, 10.0]),
        np.array([[100.0, 0.0]]),
    )
    np.testing.assert_allclose(aim, [[100.0, 100.0]])


def test_intercept_without_closing_speed_aims_at_the_target():
    v = np.array([[3.0, 4.0]])
    aim = intercept_point(v, v[0], np.array([[50.0, 0.0]]))
    np.testing.assert_allclose(aim, [[50.0, 0.0]])
    assert np.isfinite(aim).all()


def test_steer_toward_and_seek_pick_the_side():
    fwd, left = forward_left(np.zeros(2))
    d = np.array([[1.0, 1.0], [1.0, -1.0]])
    np.testing.assert_array_equal(steer_toward(d, left), [1.0, -1.0])
    np.testing.assert_allclose(seek_steer(d, fwd, left), [1.0, -1.0])  # 45 deg saturates
    np.testing.assert_allclose(
        seek_steer(np.array([[1.0, 0.1], [1.0, 0.0]]), fwd, left),
        [np.arctan(0.1) / (np.pi / 8), 0.0],
    )
