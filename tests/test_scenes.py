"""Every bundled scene runs, and stays physical."""

import numpy as np
import pytest

from rigidflock import load_scene
from rigidflock.sim import Simulation
from tests.conftest import SCENES


def assert_physical(sim):
    st = sim.state
    assert np.isfinite(st.pos).all() and np.isfinite(st.vel).all()
    assert np.isfinite(st.angle).all() and np.isfinite(st.omega).all()
    # nothing outruns full thrust by much: collisions can add a little, never a runaway
    speed = np.hypot(*st.vel.T)
    assert (speed < 3.0 * sim.units.cruise_speed).all()


@pytest.mark.parametrize("path", SCENES, ids=[p.stem for p in SCENES])
def test_scene_runs_a_few_hundred_ticks(path):
    sim = Simulation(load_scene(path))
    for _ in range(300):
        sim.step()
    assert_physical(sim)


@pytest.mark.slow
@pytest.mark.parametrize("path", SCENES, ids=[p.stem for p in SCENES])
def test_scene_stays_physical_for_10000_ticks(path):
    sim = Simulation(load_scene(path))
    for k in range(10_000):
        sim.step()
        if k % 500 == 0:
            assert_physical(sim)
    assert_physical(sim)
