"""The flocking rules and view masks on tiny hand-checked arrays (*AI for Game Developers*,
chapter 4 (AIDemo4))."""

import numpy as np

from rigidflock.model.steering import flocking as fl


def one_pair(d, angle=0.0):
    """Unit 0 at the origin facing ``angle`` looks at one neighbour at offset d."""
    d = np.asarray([d], dtype=float)
    return np.array([0]), d, np.array([angle])


def test_local_offsets_rotate_into_body_frame():
    # facing +y (90 deg): a neighbour at world +y is ahead, at world -x is to port
    f, s = fl.local_offsets(np.array([[0.0, 2.0], [-3.0, 0.0]]), np.full(2, np.pi / 2))
    np.testing.assert_allclose(f, [2.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(s, [0.0, 3.0], atol=1e-12)


def heading_left(angle):
    fwd, left = fl.forward_left(np.array([angle]))
    return fwd, left


def test_cohesion_turns_toward_a_neighbour_to_port():
    i, d, _ = one_pair([10.0, 10.0])  # ahead-left of a unit facing +x
    h, left = heading_left(0.0)
    got = fl.cohesion(1, i, d, h, left)
    # 45 degrees off the heading: side +1, acos(cos 45)/pi = 0.25
    np.testing.assert_allclose(got, [0.25])


def test_cohesion_turns_toward_a_neighbour_to_starboard():
    i, d, _ = one_pair([0.0, -5.0])
    h, left = heading_left(0.0)
    np.testing.assert_allclose(fl.cohesion(1, i, d, h, left), [-0.5])


def test_cohesion_uses_the_mean_offset():
    i = np.array([0, 0])
    d = np.array([[10.0, 10.0], [10.0, -10.0]])  # symmetric: mean straight ahead
    h, left = heading_left(0.0)
    np.testing.assert_allclose(fl.cohesion(1, i, d, h, left), [0.0], atol=1e-12)


def test_alignment_follows_the_mean_velocity():
    h, left = heading_left(0.0)
    vel_j = np.array([[0.0, 3.0]])  # neighbour flying to port (+y)
    np.testing.assert_allclose(fl.alignment(1, np.array([0]), vel_j, h, left), [0.5])
    vel_j = np.array([[-3.0, -1e-9]])  # almost opposite, a hair to starboard
    np.testing.assert_allclose(fl.alignment(1, np.array([0]), vel_j, h, left), [-1.0], atol=1e-6)


def test_alignment_with_neighbours_at_rest_is_zero_not_nan():
    h, left = heading_left(0.3)
    got = fl.alignment(1, np.array([0]), np.zeros((1, 2)), h, left)
    assert np.isfinite(got).all() and got[0] == 0.0


def test_separation_turns_away_inversely_with_distance():
    # neighbour to port at distance 5, separation radius 20 -> push to starboard, 20 / 5 = 4
    got = fl.separation(1, np.array([0]), np.array([5.0]), np.array([5.0]), np.array([20.0]))
    np.testing.assert_allclose(got, [-4.0])
    got = fl.separation(1, np.array([0]), np.array([-10.0]), np.array([10.0]), np.array([20.0]))
    np.testing.assert_allclose(got, [2.0])


def test_coincident_units_are_finite():
    h, left = heading_left(0.0)
    i = np.array([0])
    d = np.zeros((1, 2))
    assert np.isfinite(fl.cohesion(1, i, d, h, left)).all()
    sep = fl.separation(1, i, np.zeros(1), np.zeros(1), np.array([20.0]))
    assert np.isfinite(sep).all() and sep[0] != 0.0  # still pushed apart


def test_units_without_neighbours_get_no_force():
    h, left = fl.forward_left(np.zeros(3))
    empty = np.zeros(0, dtype=np.intp)
    assert (fl.cohesion(3, empty, np.zeros((0, 2)), h, left) == 0).all()
    assert (fl.separation(3, empty, np.zeros(0), np.zeros(0), np.zeros(0)) == 0).all()


def test_angle_between_is_atan2_within_its_bound_and_the_kernel_gives_its_bits():
    """The turn term's angle: atan2(|cross|, dot) by a polynomial (fitted within 7.1e-12 rad);
    the compiled twin evaluates the same operations, so the same bits."""
    from rigidflock.model.steering.unit_pass import _angle

    rng = np.random.default_rng(5)
    cross = np.concatenate([rng.normal(size=20000) * 10.0 ** rng.integers(-8, 4, 20000),
                            [0.0, 0.0, 1.0, -1.0, 0.0, 2.0, 1e-300]])  # fmt: skip
    dot = np.concatenate([rng.normal(size=20000) * 10.0 ** rng.integers(-8, 4, 20000),
                          [0.0, 1.0, 0.0, 0.0, -3.0, 2.0, 1.0]])  # fmt: skip
    got = fl.angle_between(cross, dot)
    assert np.abs(got - np.arctan2(np.abs(cross), dot)).max() < 1e-11
    assert got[-7] == 0.0 and got[-3] == np.pi  # (0, 0) gives 0; straight behind gives pi
    compiled = np.array([_angle.py_func(c, d) for c, d in zip(cross, dot, strict=True)])
    assert compiled.tobytes() == got.tobytes()
    import numba as nb

    jitted = nb.njit(lambda c, d: np.array([_angle(c[k], d[k]) for k in range(len(c))]))
    assert jitted(cross, dot).tobytes() == got.tobytes()
