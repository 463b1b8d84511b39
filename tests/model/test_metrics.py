"""Flock measurements: the compiled flock labelling gives scipy's labels exactly."""

import numpy as np
import pytest

from rigidflock.model.metrics import flock_labels, flock_labels_reference


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


def test_nn_completed_searches_positions_outside_a_wrapped_world_and_beside_a_nan():
    """Positions not yet folded into a wrap-around world are folded before the search, and one
    NaN position (a unit the run is about to report as failed) leaves the others' distances
    those of the k-d tree over the rest (it once left every searched unit at inf)."""
    from rigidflock.model.metrics import nn_completed, nn_distances

    rng = np.random.default_rng(3)
    box = np.array([200.0, 120.0])
    pos = rng.uniform(-50.0, 250.0, (80, 2))
    far = np.full(80, np.inf)  # as if nobody were within the steering's radius
    np.testing.assert_array_equal(nn_completed(far, pos, box, 10.0), nn_distances(pos, box))
    pos[7] = np.nan
    got = nn_completed(far, pos, box, 10.0)
    rest = np.delete(np.arange(80), 7)
    np.testing.assert_array_equal(got[rest], nn_distances(pos[rest], box))
