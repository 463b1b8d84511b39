"""The run metrics from the tick's own passes give the values of the full searches."""

import numpy as np
import pytest

from rigidflock.bench import bench_scene
from rigidflock.model.metrics import nn_distances, polarization
from rigidflock.runs import metrics as run_metrics
from rigidflock.runs.runner import run_scene
from rigidflock.scene import load_scene
from rigidflock.scene.overrides import derive
from rigidflock.sim import Simulation
from tests.conftest import ROOT, reacting

SCENES = ["aidemo4.toml", "walls.toml", "forest.toml", "rts_crossing.toml"]


def scene_of(name: str, reaction_ticks: int, neighbour_ticks: int = 1):
    scene = reacting(load_scene(ROOT / "scenes" / name), reaction_ticks)
    return derive(scene, {"world.neighbour_ticks": neighbour_ticks})


# (world.reaction_ticks, world.neighbour_ticks): neighbours of the state decided on, neighbours a
# tick early, the whole decision beside the step
TIMINGS = [(0, 0), (0, 1), (1, 1)]


@pytest.mark.parametrize("name", SCENES)
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(("reaction", "neighbours"), TIMINGS)
def test_tick_nn_equals_the_kdtree_search(name, seed, reaction, neighbours):
    """In the snapshot the steering found neighbours on: the one before the state when the
    decision ran beside the step or found its neighbours there, else the state itself."""
    sim = Simulation(scene_of(name, reaction, neighbours), seed=seed)
    for _ in range(40):
        before = sim.state.copy()
        sim.step()
        n = sim.units.n_ai
        # beside the step, or a tick old while no group is under orders (rts_crossing's are
        # given at tick 0): the snapshot the step started from, not the state after it
        if reaction or (neighbours and not sim.orders.groups):
            np.testing.assert_array_equal(sim.pairs_state.pos, before.pos)
            assert not np.array_equal(sim.pairs_state.pos, sim.state.pos)
        else:
            assert sim.pairs_state is sim.state
        ref = nn_distances(sim.pairs_state.pos[:n], sim.box)
        np.testing.assert_array_equal(run_metrics.tick_nn(sim, sim.box), ref)


def test_tick_nn_with_isolated_units():
    """Units with nobody in the search radius come from the k-d tree fallback."""
    scene = bench_scene(60, spacing=200.0)  # sparse: most units alone
    sim = Simulation(scene)
    sim.step()
    assert np.isinf(sim.steering.nn).any()
    ref = nn_distances(sim.pairs_state.pos[: sim.units.n_ai], sim.box)
    np.testing.assert_array_equal(run_metrics.tick_nn(sim, sim.box), ref)


@pytest.mark.parametrize("name", ["aidemo4.toml", "forest.toml", "walls.toml"])
@pytest.mark.parametrize("seed", [4, 5])
@pytest.mark.parametrize(("reaction", "neighbours"), TIMINGS)
def test_run_summary_unchanged(name, seed, reaction, neighbours, monkeypatch):
    """The summary equals the one computed with a k-d tree search every tick (as before)."""
    scene = scene_of(name, reaction, neighbours)
    fast = run_scene(scene, 60, seed=seed).metrics
    monkeypatch.setattr(
        run_metrics,
        "tick_nn",
        lambda sim, box: nn_distances(sim.pairs_state.pos[: sim.units.n_ai], box),
    )
    monkeypatch.setattr(run_metrics, "polarization_fast", polarization)
    slow = run_scene(scene, 60, seed=seed).metrics
    assert fast == slow


@pytest.mark.parametrize("n", [1, 2, 7, 1000, 10001])
def test_polarization_fast_is_polarization(n):
    from rigidflock.model.metrics import polarization, polarization_fast

    rng = np.random.default_rng(n)
    for _ in range(10):
        a = rng.uniform(0, 2 * np.pi, n)
        h = np.stack([np.cos(a), np.sin(a)], axis=1)
        assert polarization_fast(h) == polarization(h)
        assert polarization_fast(h[: n // 2 + 1]) == polarization(h[: n // 2 + 1])


@pytest.mark.parametrize("name", ["aidemo4.toml", "forest.toml", "rts_crossing.toml"])
@pytest.mark.parametrize("seed", [1, 2])
def test_deciding_beside_the_step_the_figures_are_of_the_snapshot_decided_on(name, seed):
    """world.reaction_ticks = 1: the steering is one tick old, and tick_nn gives the k-d tree's
    distances in the snapshot it decided on (not the state after the step)."""
    sim = Simulation(reacting(load_scene(ROOT / "scenes" / name)), seed=seed)
    moved = False
    for _ in range(40):
        before = sim.state.pos[: sim.units.n_ai].copy()
        sim.step()
        ref = nn_distances(before, sim.box)
        np.testing.assert_array_equal(run_metrics.tick_nn(sim, sim.box), ref)
        moved |= not np.array_equal(ref, nn_distances(sim.state.pos[: sim.units.n_ai], sim.box))
    assert moved  # the two snapshots' distances differ: the test tells them apart
