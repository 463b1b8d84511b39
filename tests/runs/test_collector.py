"""The run's collector: its figures from the tick's own passes are those of the full searches,
and the summary and the series rows agree on what they share."""

import numpy as np
import pytest

from rigidflock.bench import bench_scene
from rigidflock.model.measures.alignment import polarization
from rigidflock.model.measures.reference import nn_distances
from rigidflock.runs.collector import Collector, nearest_neighbours
from rigidflock.runs.runner import flock_link, run_scene
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
def test_nearest_neighbours_equal_the_kdtree_search(name, seed, reaction, neighbours):
    """In the snapshot the steering found neighbours on: the one before the state when the
    decision ran beside the step or found its neighbours there, else the state itself."""
    sim = Simulation(scene_of(name, reaction, neighbours), seed=seed)
    for _ in range(40):
        before = sim.state.copy()
        sim.step()
        n = sim.units.n_ai
        view = sim.measurables()
        # beside the step, or a tick old while no group is under orders (rts_crossing's are
        # given at tick 0): the snapshot the step started from, not the state after it
        if reaction or (neighbours and not sim.orders.groups):
            np.testing.assert_array_equal(view.pairs_pos, before.pos[:n])
            assert not np.array_equal(view.pairs_pos, view.pos)
        else:
            np.testing.assert_array_equal(view.pairs_pos, view.pos)
        ref = nn_distances(view.pairs_pos, sim.box)
        np.testing.assert_array_equal(nearest_neighbours(view), ref)


def test_nearest_neighbours_of_isolated_units():
    """Units with nobody in the search radius are searched again (rings of cells)."""
    scene = bench_scene(60, spacing=200.0)  # sparse: most units alone
    sim = Simulation(scene)
    sim.step()
    view = sim.measurables()
    assert np.isinf(view.nn_within).any()
    np.testing.assert_array_equal(nearest_neighbours(view), nn_distances(view.pairs_pos, sim.box))


@pytest.mark.parametrize("name", ["aidemo4.toml", "forest.toml", "walls.toml"])
@pytest.mark.parametrize("seed", [4, 5])
@pytest.mark.parametrize(("reaction", "neighbours"), TIMINGS)
def test_summary_equals_the_reference_measures_tick_by_tick(name, seed, reaction, neighbours):
    """The summary's means are those of numpy's polarization and a k-d tree search every tick,
    to the bit; the run's own summary is the same collector's."""
    scene = scene_of(name, reaction, neighbours)
    sim = Simulation(scene, seed=seed)
    collector = Collector(sim, flock_link(scene))
    pol, nn_mean, nn_min = [], [], []
    for _ in range(60):
        collector.add(sim.step())
        view = sim.measurables()
        pol.append(polarization(view.heading))
        nn = nn_distances(view.pairs_pos, sim.box)
        nn_mean.append(nn.mean())
        nn_min.append(nn.min())
    collector.finish()
    m = collector.summary(sim.units.has_player)
    assert m["polarization_mean"] == sum(pol) / 60
    assert m["polarization_final"] == pol[-1]
    assert m["nn_distance_mean"] == sum(nn_mean) / 60
    assert m["min_separation"] == min(nn_min)
    assert m == run_scene(scene, 60, seed=seed).metrics


@pytest.mark.parametrize("name", ["aidemo4.toml", "forest.toml", "rts_crossing.toml"])
@pytest.mark.parametrize("seed", [1, 2])
def test_deciding_beside_the_step_the_figures_are_of_the_snapshot_decided_on(name, seed):
    """world.reaction_ticks = 1: the steering is one tick old, and the nearest neighbours are
    the k-d tree's distances in the snapshot it decided on (not the state after the step)."""
    sim = Simulation(reacting(load_scene(ROOT / "scenes" / name)), seed=seed)
    moved = False
    for _ in range(40):
        before = sim.state.pos[: sim.units.n_ai].copy()
        sim.step()
        ref = nn_distances(before, sim.box)
        view = sim.measurables()
        np.testing.assert_array_equal(nearest_neighbours(view), ref)
        moved |= not np.array_equal(ref, nn_distances(view.pos, sim.box))
    assert moved  # the two snapshots' distances differ: the test tells them apart


def test_a_row_and_the_summary_share_the_tick_figures():
    """A row sampled at the tick just added has the summary's polarization and the tick's
    nearest-neighbour mean and minimum; sampling before any tick (the spawned state) measures
    it then, and the summary of no ticks has no means."""
    sim = Simulation(load_scene(ROOT / "scenes" / "aidemo4.toml"), seed=3)
    collector = Collector(sim, 2.0)
    first = collector.sample()
    assert first["tick"] == 0 and first["polarization"] == polarization(sim.measurables().heading)
    assert collector.summary(True)["polarization_mean"] is None
    for _ in range(5):
        collector.add(sim.step())
    row = collector.sample()
    m = collector.summary(True)
    nn = nn_distances(sim.measurables().pairs_pos, sim.box)
    assert row["tick"] == 5 and row["polarization"] == m["polarization_final"]
    assert row["nn_mean"] == nn.mean() and row["min_separation"] == nn.min()
    assert row["unit_contacts_total"] == m["unit_contacts"]
    assert [r["tick"] for r in collector.rows] == [0, 5]
