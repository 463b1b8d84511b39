"""Pin measures: the compiled per-tick pin count is the array formula."""

import numpy as np
import pytest

from rigidflock.model.measures.pins import PIN_SLOW, pin_tick, pinned


def test_pinned_needs_both_contact_and_slowness():
    touching = np.array([True, True, False])
    speed = np.array([0.5, 5.0, 0.0])
    assert pinned(touching, speed, np.full(3, 10.0)) == 1


@pytest.mark.parametrize("seed", range(4))
def test_pin_tick_is_the_array_formula(seed):
    """The compiled per-tick pin count gives the array formula's numbers bit for bit, over a
    run of ticks with units starting, holding and ending pins."""
    rng = np.random.default_rng(seed)
    n, dt = 50, 1 / 60
    cruise = rng.uniform(5, 20, n)
    run, ref = np.zeros(n), np.zeros(n)
    for _ in range(40):
        vel = rng.normal(0, 1.5, (n, 2))
        touching = rng.integers(0, 3, n)
        count, longest = pin_tick(vel, touching, cruise, run, dt)
        now = (touching > 0) & (np.hypot(vel[:, 0], vel[:, 1]) < PIN_SLOW * cruise)
        ref = np.where(now, ref + dt, 0.0)
        assert count == now.sum() == pinned(touching > 0, np.hypot(*vel.T), cruise)
        assert np.array_equal(run, ref)
        assert longest == (ref.max() if now.any() else 0.0)
