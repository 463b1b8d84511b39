"""Observations of any unit (:class:`~rigidflock.envs.observation.UnitObserver`): the evader's
layout in the observer's own frame, teammates then watched units; the player's observation is
the evader's, and the kernel matches its numpy reference."""

import numpy as np
import pytest

from rigidflock import Command, Simulation
from rigidflock.envs.observation import OWN, PER_PURSUER, Observer, UnitObserver

THREE = """
[world]
size = [400.0, 300.0]
bounds = "walls"
[[groups]]
count = 3
spawn = {{ positions = [[100.0, 100.0], [130.0, 100.0], [100.0, 160.0]] }}
[player]
position = [200.0, 100.0]
"""


def test_a_pursuer_sees_its_teammates_and_the_evader_in_its_own_frame(scene_from):
    sim = Simulation(scene_from(THREE.format()), seed=1)
    st = sim.state
    st.angle[:] = np.pi / 2  # every unit faces +y: forward is +y, port is -x
    st.vel[:] = 0.0
    st.omega[:] = 0.0
    obs = UnitObserver(sim, ks=(2, 1), rays=0)
    group = np.array([0, 0, 0, 1])  # three pursuers (team 0), the evader (group 1)
    o = obs(sim, 0, group)
    assert o.shape == (OWN + PER_PURSUER * 3,)
    r = obs.sense_range
    # teammates, nearest first: unit 1 30 to +x (starboard: port -30), unit 2 60 ahead
    t1, t2, ev = (o[OWN + PER_PURSUER * j : OWN + PER_PURSUER * (j + 1)] for j in range(3))
    np.testing.assert_allclose(t1[:2], [0.0, -30.0 / r], atol=1e-6)
    np.testing.assert_allclose(t2[:2], [60.0 / r, 0.0], atol=1e-6)
    np.testing.assert_allclose(ev[:2], [0.0, -100.0 / r], atol=1e-6)  # evader 100 to +x
    assert t1[5] == t2[5] == ev[5] == 1.0
    # the observer itself is never one of its teammates
    o2 = UnitObserver(sim, ks=(3, 1), rays=0)(sim, 0, group)
    assert o2[OWN + 2 * PER_PURSUER + 5] == 0.0  # only 2 teammates besides unit 0: padding


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_players_unit_observation_is_the_evaders(seed):
    sim = Simulation("aidemo4", seed=seed)
    ev = Observer(sim, k=5, rays=8)
    unit = UnitObserver(sim, ks=(5,), rays=8)
    group = np.where(np.arange(sim.units.n) < sim.units.n_ai, 0, -1)
    me = sim.units.n - 1
    for _ in range(120):
        sim.step(Command(throttle=1.0, steer=0.3))
        assert ev(sim).tobytes() == unit(sim, me, group).tobytes()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kernel_matches_reference_for_any_unit(seed):
    # every unit of the walls scene as observer (feelers against walls), in two made-up teams
    sim = Simulation("walls", seed=seed)
    obs = UnitObserver(sim, ks=(3, 2, 2), rays=8)
    n = sim.units.n
    side = np.arange(n) % 3  # three made-up groups
    flag = (np.arange(n) % 2).astype(float)
    for _ in range(60):
        sim.step()
    for me in range(n):
        group = (side - side[me]) % 3  # its own side first
        np.testing.assert_allclose(
            obs(sim, me, group, flag), obs.reference_of(sim, me, group, flag), atol=2e-6
        )
