"""Per-sample flock measurements: milling, the centre, pinned counts."""

import numpy as np
import pytest

from rigidflock.model.flock_metrics import (
    flock_centre,
    milling,
    nearest_distance,
    pinned,
)


def ring(n=24, radius=50.0, centre=(500.0, 400.0)):
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    pos = np.asarray(centre) + radius * np.stack([np.cos(a), np.sin(a)], axis=1)
    tangent = np.stack([-np.sin(a), np.cos(a)], axis=1)
    return pos, tangent


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


def test_pinned_needs_both_contact_and_slowness():
    touching = np.array([True, True, False])
    speed = np.array([0.5, 5.0, 0.0])
    assert pinned(touching, speed, np.full(3, 10.0)) == 1


def test_nearest_distance_wraps():
    box = np.array([100.0, 100.0])
    assert nearest_distance(np.array([1.0, 50.0]), np.array([[99.0, 50.0], [50, 50]]), box) == 2.0
    assert nearest_distance(np.zeros(2), np.zeros((0, 2))) is None


@pytest.mark.parametrize("seed", range(4))
def test_pin_tick_is_the_array_formula(seed):
    """The compiled per-tick pin count gives the array formula's numbers bit for bit, over a
    run of ticks with units starting, holding and ending pins."""
    from rigidflock.model.flock_metrics import PIN_SLOW, pin_tick

    rng = np.random.default_rng(seed)
    n, dt = 50, 1 / 60
    cruise = rng.uniform(5, 20, n)
    run, ref = np.zeros(n), np.zeros(n)
    for _ in range(40):
        vel = rng.normal(0, 1.5, (n, 2))
        touching = rng.integers(0, 3, n)
        count, longest = pin_tick(vel, touching, cruise, run, dt)
        pinned = (touching > 0) & (np.hypot(vel[:, 0], vel[:, 1]) < PIN_SLOW * cruise)
        ref = np.where(pinned, ref + dt, 0.0)
        assert count == pinned.sum() and np.array_equal(run, ref)
        assert longest == (ref.max() if pinned.any() else 0.0)
