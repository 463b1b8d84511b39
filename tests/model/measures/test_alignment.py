"""Alignment measures: polarization (numpy and compiled agree), milling, the flock centre."""

import numpy as np
import pytest

from rigidflock.model.measures.alignment import (
    flock_centre,
    milling,
    polarization,
    polarization_fast,
)


def ring(n=24, radius=50.0, centre=(500.0, 400.0)):
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    pos = np.asarray(centre) + radius * np.stack([np.cos(a), np.sin(a)], axis=1)
    tangent = np.stack([-np.sin(a), np.cos(a)], axis=1)
    return pos, tangent


@pytest.mark.parametrize("n", [1, 2, 7, 1000, 10001])
def test_polarization_fast_is_polarization(n):
    """The compiled polarization gives numpy's value bit for bit, on whole and sliced arrays
    (the collector passes read-only slices of the steering's headings)."""
    rng = np.random.default_rng(n)
    for _ in range(10):
        a = rng.uniform(0, 2 * np.pi, n)
        h = np.stack([np.cos(a), np.sin(a)], axis=1)
        assert polarization_fast(h) == polarization(h)
        part = h[: n // 2 + 1]
        part.flags.writeable = False
        assert polarization_fast(part) == polarization(part)


def test_polarization_of_aligned_and_opposed_headings():
    assert polarization(np.tile([0.6, 0.8], (5, 1))) == pytest.approx(1.0)
    assert polarization(np.array([[1.0, 0.0], [-1.0, 0.0]])) == pytest.approx(0.0)
    none = np.zeros((0, 2))
    assert np.isnan(polarization(none)) and np.isnan(polarization_fast(none))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_milling_is_one_for_a_mill_and_small_for_a_parallel_or_random_flock(seed):
    """A ring circling its centre is the definition of a mill (1); the same ring moving in one
    direction has no angular momentum about its centre (0); random headings give ~1/sqrt(N)."""
    rng = np.random.default_rng(seed)
    pos, tangent = ring()
    speed = rng.uniform(5, 10, size=(len(pos), 1))
    assert milling(pos, tangent * speed) == pytest.approx(1.0)
    assert milling(pos, np.tile([7.0, 0.0], (len(pos), 1))) == pytest.approx(0.0, abs=1e-12)
    pos = rng.uniform(0, 400, (400, 2))
    heading = rng.normal(size=(400, 2))
    assert milling(pos, heading) < 0.15  # 1/sqrt(400) = 0.05; 3x for the tail


def test_milling_about_the_seam_of_a_wrap_around_world():
    """A mill centred on the seam of a wrap-around world is still a mill: the centre is the
    circular mean (on the seam), not the middle of the world."""
    box = np.array([1000.0, 800.0])
    pos, tangent = ring(centre=(0.0, 400.0))
    wrapped = np.mod(pos, box)
    x = flock_centre(wrapped, box)[0]
    assert min(x, 1000 - x) == pytest.approx(0.0, abs=1e-6)
    assert milling(wrapped, tangent, box) == pytest.approx(1.0)
    assert milling(wrapped, tangent) < 0.7  # without the box the seam tears it apart (0.57)
