"""The wrap-around world: folding positions and the minimum image, numpy and compiled."""

import numpy as np

from rigidflock.model import torus


def test_fold_puts_positions_in_the_box():
    box = np.array([10.0, 4.0])
    p = torus.fold(np.array([[-1.0, 5.0], [10.0, -4.0], [-1e-300, 3.9]]), box)
    np.testing.assert_array_equal(p, [[9.0, 1.0], [0.0, 0.0], [0.0, 3.9]])
    assert (p >= 0).all() and (p < box).all()


def test_min_image_takes_the_short_way():
    box = np.array([10.0, 4.0])
    np.testing.assert_allclose(torus.min_image(np.array([[9.0, -3.0]]), box), [[-1.0, 1.0]])
    d = np.array([[9.0, -3.0]])
    assert torus.min_image(d, None) is d


def test_compiled_min_image_is_the_numpy_one_bit_for_bit():
    rng = np.random.default_rng(0)
    box = np.array([37.5, 12.25])
    d = rng.uniform(-100, 100, (2000, 2))
    d[:10] = box / 2  # ties fold the same way on both paths
    # the compiled one returns offsets under a quarter period as they are: at that edge too
    d[10:14] = [[box[0] / 4, -box[1] / 4], [-box[0] / 4, box[1] / 4]] * 2
    d[12:14] = np.nextafter(d[12:14], 0.0)
    d[14:20] = [[0.0, -0.0], [-0.0, 0.0], [1e-300, -1e-300]] * 2
    ref = torus.min_image(d, box)
    got = np.array([torus.min_image_2d(x, y, box[0], box[1], True) for x, y in d])
    assert got.tobytes() == ref.tobytes()  # bits: assert_array_equal takes -0.0 for 0.0
    assert torus.min_image_2d(50.0, -50.0, box[0], box[1], False) == (50.0, -50.0)


def test_inside_says_whether_fold_would_leave_every_position():
    from rigidflock.model.torus import fold, inside

    box = np.array([100.0, 50.0])
    within = np.random.default_rng(1).random((40, 2)) * box
    assert inside(within, 100.0, 50.0)
    assert fold(within, box).tobytes() == within.tobytes()
    for p in (within - 30.0, within + 80.0, np.array([[100.0, 0.0]]), np.array([[np.nan, 1.0]])):
        assert not inside(p, 100.0, 50.0)
    assert inside(np.array([[-0.0, 49.9]]), 100.0, 50.0)  # -0.0 is 0: in the world


def test_outside_lists_the_positions_fold_would_move():
    box = np.array([100.0, 50.0])
    rng = np.random.default_rng(2)
    p = rng.uniform(-20.0, 120.0, (500, 2))
    p[:4] = [[100.0, 0.0], [-0.0, 49.9], [np.nan, 1.0], [0.0, 50.0]]
    got = torus.outside(p, 100.0, 50.0)
    moved = np.flatnonzero(~(torus.fold(p, box) == p).all(axis=1))  # NaN != NaN: moved
    np.testing.assert_array_equal(got, moved)
    assert 1 not in got and {0, 2, 3} <= set(got.tolist())
