"""Line of sight over the route grid: the compiled kernel gives the numpy definition's answers,
bit for bit (the RTS recordings verify only if it does), and sees what the grid's geometry says."""

import numpy as np
import pytest

from rigidflock.rts import navigation
from rigidflock.rts.reference import sees_reference


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_kernel_answers_as_the_numpy_definition(seed):
    """Random segments, some leaving the world, some through the gap: the same booleans at the
    same sample count, and both answers occur (the comparison is not vacuous)."""
    rng = np.random.default_rng(seed)
    grid = navigation.build_grid(
        (60.0, 40.0),
        4.0,
        1.2,
        walls=[((30.0, 0.0), (30.0, 16.0), 1.0), ((30.0, 24.0), (30.0, 40.0), 1.0)],
        buildings=[np.array([[8.0, 8.0], [16.0, 8.0], [16.0, 14.0], [8.0, 14.0]])],
        obstacles=np.array([[45.0, 30.0, 3.0], [50.0, 10.0, 2.0]]),
        walled=True,
    )
    a = rng.uniform([-5.0, -5.0], [65.0, 45.0], size=(4000, 2))
    b = rng.uniform([-5.0, -5.0], [65.0, 45.0], size=(4000, 2))
    # segments through the gap's neighbourhood, where the fine raster decides
    a[:1000] = rng.uniform([20.0, 15.0], [29.0, 25.0], size=(1000, 2))
    b[:1000] = rng.uniform([31.0, 15.0], [40.0, 25.0], size=(1000, 2))
    got = grid.sees(a, b)
    longest = float(np.hypot(*(b - a).T).max())
    samples = int(min(64, max(8, np.ceil(longest * navigation.SUBSAMPLES / grid.cell))))
    np.testing.assert_array_equal(got, sees_reference(grid, a, b, samples))
    assert got.any() and not got.all()
    assert got[:1000].any() and not got[:1000].all()


def test_line_of_sight_follows_the_wall_and_its_gap():
    """Across the wall only through the gap; along one side always; nothing outside the
    world; an empty query is empty."""
    grid = navigation.build_grid(
        (60.0, 40.0), 4.0, 1.2, walls=[((30.0, 0.0), (30.0, 16.0), 1.0),
                                       ((30.0, 24.0), (30.0, 40.0), 1.0)]
    )  # fmt: skip
    a = np.array([[20.0, 20.0], [20.0, 5.0], [5.0, 5.0], [5.0, 5.0]])
    b = np.array([[40.0, 20.0], [40.0, 5.0], [25.0, 35.0], [5.0, 45.0]])
    np.testing.assert_array_equal(grid.sees(a, b), [True, False, True, False])
    assert grid.sees(np.zeros((0, 2)), np.zeros((0, 2))).shape == (0,)
