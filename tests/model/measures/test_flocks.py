"""Flock measures: the compiled flock labelling gives scipy's labels exactly; elongation."""

import numpy as np
import pytest

from rigidflock.model.measures.flocks import elongation, flock_count, flock_labels
from rigidflock.model.measures.reference import flock_labels_reference


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("wrap", [False, True])
def test_flock_labels_equal_the_kdtree_and_scipy_components(seed, wrap):
    """Clustered units of three families, links from short to longer than half the world (every
    pair in range), positions on and past the world's edge: the same label array, element for
    element, so flock counts and per-flock figures are unchanged."""
    rng = np.random.default_rng(seed)
    box = np.array([300.0, 200.0])
    n = int(rng.integers(2, 400))
    centres = rng.uniform(0, box, size=(8, 2))
    pos = centres[rng.integers(0, 8, n)] + rng.normal(0, 12.0, size=(n, 2))
    pos[: n // 10] = rng.choice([0.0, 300.0, -1e-9], size=(n // 10, 2))  # edges and just past
    if not wrap:
        pos = np.clip(pos, 0, box)
    family = rng.integers(0, 3, n)
    for link in (2.0, 9.5, 40.0, 250.0):
        b = box if wrap else None
        got = flock_labels(pos, family, link, b)
        want = flock_labels_reference(pos, family, link, b)
        assert np.array_equal(got, want), (seed, wrap, link)


def test_flock_labels_of_few_units():
    assert flock_labels(np.zeros((0, 2)), np.zeros(0, int), 5.0).shape == (0,)
    assert list(flock_labels(np.zeros((1, 2)), np.zeros(1, int), 5.0)) == [0]
    two = np.array([[0.0, 0.0], [3.0, 4.0]])  # 5 apart: linked below 5 only (strict)
    assert list(flock_labels(two, np.zeros(2, int), 5.0)) == [0, 1]
    assert list(flock_labels(two, np.zeros(2, int), 5.01)) == [0, 0]
    assert list(flock_labels(two, np.array([0, 1]), 5.01)) == [0, 1]  # other family
    assert list(flock_labels_reference(two, np.zeros(2, int), 5.0)) == [0, 1]  # strict too


def test_flock_count_and_elongation_of_a_line_and_a_ring():
    """A line of units is one long flock; a ring is one round flock (elongation ~1); two
    separate rings are two flocks; none big enough is NaN."""
    k = np.arange(20)
    line = np.stack([k * 1.0, 0.1 * (k % 2)], axis=1)  # a zigzag 0.1 wide
    a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    ring = 10.0 * np.stack([np.cos(a), np.sin(a)], axis=1)
    labels = flock_labels(line, np.zeros(20, int), 1.5)
    assert flock_count(labels) == 1 and elongation(line, labels) > 20.0
    labels = flock_labels(ring, np.zeros(24, int), 3.0)
    assert flock_count(labels) == 1 and elongation(ring, labels) == pytest.approx(1.0, abs=0.05)
    two = np.concatenate([ring, ring + 100.0])
    assert flock_count(flock_labels(two, np.zeros(48, int), 3.0)) == 2
    assert np.isnan(elongation(ring[:2], np.zeros(2, int)))
