"""Spacing measures: nearest neighbours completed from the steering's distances equal the k-d
tree's; the nearest of a set wraps."""

import numpy as np
import pytest

from rigidflock.model.measures.reference import nn_distances
from rigidflock.model.measures.spacing import nearest_distance, nn_completed


def test_nn_completed_searches_positions_outside_a_wrapped_world_and_beside_a_nan():
    """Positions not yet folded into a wrap-around world are folded before the search, and one
    NaN position (a unit the run is about to report as failed) leaves the others' distances
    those of the k-d tree over the rest (it once left every searched unit at inf)."""
    rng = np.random.default_rng(3)
    box = np.array([200.0, 120.0])
    pos = rng.uniform(-50.0, 250.0, (80, 2))
    far = np.full(80, np.inf)  # as if nobody were within the steering's radius
    np.testing.assert_array_equal(nn_completed(far, pos, box, 10.0), nn_distances(pos, box))
    pos[7] = np.nan
    got = nn_completed(far, pos, box, 10.0)
    rest = np.delete(np.arange(80), 7)
    np.testing.assert_array_equal(got[rest], nn_distances(pos[rest], box))


@pytest.mark.parametrize("wrap", [False, True])
def test_nn_completed_keeps_the_distances_found_and_searches_the_rest(wrap):
    """Units whose nearest neighbour lies within the radius keep the distance given; the others
    (inf) get the k-d tree's; read-only inputs (the simulation's view) are not written."""
    rng = np.random.default_rng(5)
    box = np.array([400.0, 300.0]) if wrap else None
    pos = rng.uniform(0.0, 300.0, (120, 2))
    ref = nn_distances(pos, box)
    within = np.where(ref < 20.0, ref, np.inf)
    assert np.isinf(within).any() and np.isfinite(within).any()
    within.flags.writeable = pos.flags.writeable = False
    np.testing.assert_array_equal(nn_completed(within, pos, box, 20.0), ref)
    assert np.isinf(within).sum() == (ref >= 20.0).sum()  # the input is as it was
    assert nn_completed(np.zeros(1), pos[:1], box, 20.0).shape == (0,)


def test_nearest_distance_wraps():
    box = np.array([100.0, 100.0])
    assert nearest_distance(np.array([1.0, 50.0]), np.array([[99.0, 50.0], [50, 50]]), box) == 2.0
    assert nearest_distance(np.zeros(2), np.zeros((0, 2))) is None
