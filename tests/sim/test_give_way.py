"""Units close behind a backing unit stop pushing it (``model/steering/give_way.py``): the pass
against an all-pairs numpy statement of the rule, and the cases it is for."""

import numpy as np
import pytest

from rigidflock.model.steering.give_way import REACH, give_way
from rigidflock.model.torus import min_image


def give_way_reference(pos, angle, length, backing, w, h, wrap, throttle):
    """All pairs (u behind backer b): b ahead of u's bow, within u's length across it and
    ``REACH`` of its lengths between centres; u not backing itself. Offsets folded as the
    simulation folds them (``torus.min_image``), distances compared squared, as the kernel does."""
    d = min_image(pos[None, :, :] - pos[:, None, :], np.array([w, h]) if wrap else None)
    c, s = np.cos(angle)[:, None], np.sin(angle)[:, None]
    f = d[..., 0] * c + d[..., 1] * s
    side = -d[..., 0] * s + d[..., 1] * c
    r = REACH * length[:, None]
    near = d[..., 0] ** 2 + d[..., 1] ** 2 < r * r
    behind = (f > 0) & (np.abs(side) < length[:, None]) & near & backing[None, :]
    gives = behind.any(axis=1) & ~backing
    return np.where(gives, np.minimum(throttle, 0.0), throttle), int((gives & (throttle > 0)).sum())


@pytest.mark.parametrize("wrap", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_give_way_matches_the_all_pairs_rule(wrap, seed):
    """Crowds of 300 units of mixed lengths in a 100 x 80 world (many within reach of each
    other), a tenth backing, throttles of both signs; on the torus, units straddle the seam."""
    rng = np.random.default_rng(seed)
    n, w, h = 300, 100.0, 80.0
    pos = rng.uniform([0, 0], [w, h], (n, 2))
    angle = rng.uniform(-np.pi, np.pi, n)
    length = rng.choice([2.0, 4.0, 6.0], n)
    backing = rng.random(n) < 0.1
    throttle = rng.uniform(-1.0, 1.0, n)
    want, count = give_way_reference(pos, angle, length, backing, w, h, wrap, throttle)
    got = throttle.copy()
    assert give_way(pos, angle, length, backing, w, h, wrap, got) == count
    np.testing.assert_array_equal(got, want)
    assert count > 5  # the configurations exercise the rule, not only its absence


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("size", [(5.0, 7.0), (12.0, 9.0), (30.0, 20.0)])
def test_give_way_in_tiny_wrapped_worlds(seed, size):
    """Worlds one, two or a few grid cells across (each cell at least 1.5 of the longest
    length): every cell is visited once, and each pair across the seam by its nearest image."""
    rng = np.random.default_rng(seed)
    n, (w, h) = 40, size
    pos = rng.uniform([0, 0], [w, h], (n, 2))
    angle = rng.uniform(-np.pi, np.pi, n)
    length = rng.uniform(0.5, 3.0, n)
    backing = rng.random(n) < 0.2
    throttle = rng.uniform(-1.0, 1.0, n)
    for wrap in (True, False):
        want, count = give_way_reference(pos, angle, length, backing, w, h, wrap, throttle)
        got = throttle.copy()
        assert give_way(pos, angle, length, backing, w, h, wrap, got) == count
        np.testing.assert_array_equal(got, want)


def test_a_unit_pushing_a_backing_one_stops_thrusting_and_no_other_does():
    """Unit 0 backs out (facing east); unit 1 sits one length behind it facing it, unit 2 one
    length behind facing away, unit 3 within reach and facing east but 1.25 lengths to the side
    (outside its corridor), unit 4 two lengths behind (beyond reach), unit 5 south of it facing it
    but itself backing. Only unit 1 gives way."""
    L = 4.0
    pos = np.array([[50.0, 50.0], [46.0, 50.0], [46.0, 50.0], [48.0, 55.0], [42.0, 50.0],
                    [50.0, 45.0]])  # fmt: skip
    angle = np.array([0.0, 0.0, np.pi, 0.0, 0.0, np.pi / 2])
    backing = np.array([True, False, False, False, False, True])
    throttle = np.ones(6)
    assert give_way(pos, angle, np.full(6, L), backing, 200.0, 200.0, False, throttle) == 1
    np.testing.assert_array_equal(throttle, [1.0, 0.0, 1.0, 1.0, 1.0, 1.0])


def test_nobody_backing_changes_nothing():
    rng = np.random.default_rng(0)
    pos = rng.uniform(0, 50, (100, 2))
    throttle = rng.uniform(-1, 1, 100)
    got = throttle.copy()
    backing = np.zeros(100, bool)
    assert give_way(pos, np.zeros(100), np.full(100, 4.0), backing, 50.0, 50.0, True, got) == 0
    np.testing.assert_array_equal(got, throttle)
