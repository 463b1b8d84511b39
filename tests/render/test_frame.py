"""Frames as plain arrays: interpolation between ticks, the overlay switches (no OpenGL)."""

import numpy as np
import pytest

from rigidflock.render.frame import Overlays, interpolate


def test_interpolation_takes_the_short_way_across_a_wrap_edge():
    prev = np.array([[799.0, 300.0]])
    cur = np.array([[1.0, 300.0]])
    pos, ang = interpolate(prev, np.array([3.1]), cur, np.array([-3.1]), 0.5, box=(800, 600))
    np.testing.assert_allclose(pos, [[0.0, 300.0]])
    assert abs(abs(ang[0]) - 3.1 - (np.pi - 3.1)) < 1e-9 or abs(ang[0]) > 3.1


def test_overlays_parse():
    o = Overlays.parse("vectors, arcs")
    assert o.vectors and o.arcs == "all" and not o.links
    assert Overlays.parse("all").links
    with pytest.raises(ValueError, match="unknown overlay"):
        Overlays.parse("vectors,sparkles")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_feelers_and_aims_of_a_decision_one_tick_old_start_at_the_unit(seed):
    """world.reaction_ticks = 1: the steering is of the snapshot before the state. Feelers are
    drawn as the decision's offsets from where each unit is now, so none is longer than a
    feeler, even for a unit that crossed a wrap-around edge this tick (a feeler drawn from the
    new position to the old tip once spanned the world); aim points move with their unit."""
    from rigidflock import Simulation, bundled_scene, load_scene
    from rigidflock.render.frame import frame_from_sim
    from tests.conftest import reacting

    sim = Simulation(reacting(load_scene(bundled_scene("aidemo4"))), seed=seed)
    feeler = sim.units.length * sim.rules.feeler_factor
    for _ in range(120):
        sim.step()
        f = frame_from_sim(sim, vectors=False)
        # the decision's feeler: its heading times the feeler length, from the unit
        np.testing.assert_allclose(f.feeler, sim.steering.heading * feeler[:, None], atol=1e-9)
        aim = sim.steering.target - sim.steering_state.pos
        drawn = f.target - sim.state.pos
        ok = np.isfinite(aim[:, 0])
        np.testing.assert_allclose(drawn[ok], aim[ok], atol=1e-9)
