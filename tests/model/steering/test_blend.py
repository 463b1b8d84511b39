"""The compiled steering path must agree with the numpy definitions of the rules."""

import dataclasses

import numpy as np
import pytest

from rigidflock.model.steering.blend import Steerer, World
from rigidflock.model.steering.reference import steer_reference
from rigidflock.sim import Simulation
from tests.conftest import reacting, trajectory

SCENE = """
[world]
size = [300.0, 240.0]
bounds = "{bounds}"
[rules]
view = "{view}"
radius_factor = {{ wide = 12.0, limited = 10.0, narrow = 14.0 }}
[[groups]]
family = "a"
count = 60
spawn = {{ radius = 100.0 }}
[[groups]]
family = "b"
role = "intercept"
count = 40
spawn = {{ radius = 100.0 }}
[[obstacles]]
center = [40.0, 40.0]
radius = 12.0
[[obstacles]]
center = [260.0, 200.0]
radius = 20.0
[player]
position = [150.0, 20.0]
control = "none"
"""


@pytest.mark.parametrize("bounds", ["wrap", "walls", "open"])
@pytest.mark.parametrize("view", ["wide", "limited", "narrow"])
@pytest.mark.parametrize("reaction", [0, 1])
def test_fast_steering_matches_the_reference(scene_from, bounds, view, reaction):
    """The compiled passes against the numpy reference: on two threads (the steering decided
    before the step, its passes forced to two threads whatever the thread policy would
    measure) and on one (decided beside the step, world.reaction_ticks = 1)."""
    text = SCENE.format(bounds=bounds, view=view)
    sim = Simulation(reacting(scene_from(text), reaction))
    if reaction == 0:
        sim.steerer.threads = _TwoThreads()
    world = World(sim.obstacles, sim.size, sim.box, bounds == "walls")
    # every third unit's feeler cut to 2 lengths for the world's walls (as for ordered units)
    short = np.where(np.arange(sim.units.n) % 3 == 0, 2.0 * sim.units.length, np.inf)
    for tick in range(200):
        sim.step()
        if tick % 50 != 49:
            continue
        for rules, wall_feeler in (
            (sim.rules, None),
            (dataclasses.replace(sim.rules, flocking=False), None),
            (sim.rules, short),
        ):
            fast = sim.steerer(sim.state, rules, wall_feeler=wall_feeler)
            ref = steer_reference(sim.state, sim.units, rules, world, wall_feeler)
            np.testing.assert_allclose(fast.force, ref.force, rtol=1e-9, atol=1e-9)
            np.testing.assert_array_equal(fast.leader, ref.leader)
            np.testing.assert_array_equal(fast.felt, ref.felt)
            np.testing.assert_allclose(fast.gap, ref.gap, rtol=1e-12)
            np.testing.assert_array_equal(np.isnan(fast.target), np.isnan(ref.target))
            fp = set(zip(*fast.pairs, strict=True))
            rp = set(zip(*ref.pairs, strict=True))
            assert fp == rp
    assert sim.state.leader.any()


@pytest.mark.parametrize("bounds", ["wrap", "walls"])
def test_neighbour_reuse_is_bit_identical_to_fresh_searches(scene_from, bounds):
    sc = scene_from(SCENE.format(bounds=bounds, view="wide"))
    fresh = Simulation(sc, neighbour_skin=0.0)
    reused = Simulation(sc, neighbour_skin=6.0)
    a, b = trajectory(fresh, 400), trajectory(reused, 400)
    assert np.array_equal(a, b)
    assert reused.steerer.verlet.builds < fresh.steerer.verlet.builds / 3


class _TwoThreads:
    """A thread policy that always runs the passes on two threads (then the simulation builds
    neighbour lists ahead, in a background thread beside the physics step)."""

    threads = 2

    def begin(self):
        import numba as nb

        nb.set_num_threads(min(2, nb.config.NUMBA_NUM_THREADS))

    def end(self, seconds):
        pass


@pytest.mark.parametrize("bounds", ["wrap", "walls"])
def test_lists_built_ahead_are_bit_identical_to_fresh_searches(scene_from, bounds):
    """Which valid neighbour list the pairs come from changes nothing: a run whose lists are
    built ahead in a background thread is the run of a fresh search every tick, bit for bit."""
    # built ahead only while the steering is decided before the step (beside it, the decision
    # itself runs there, lists and all)
    sc = reacting(scene_from(SCENE.format(bounds=bounds, view="wide")), 0)
    fresh = Simulation(sc, neighbour_skin=0.0)
    ahead = Simulation(sc, neighbour_skin=6.0)
    ahead.steerer.threads = _TwoThreads()
    ahead.steerer.verlet.ahead_from = 0.0  # however quick the build (100 units)
    a, b = trajectory(fresh, 400), trajectory(ahead, 400)
    assert np.array_equal(a, b)
    assert ahead.steerer.verlet.built_ahead >= 3


def test_a_failing_build_ahead_leaves_the_tick_whole(scene_from, monkeypatch):
    """Building ahead only saves time: when it fails (here a MemoryError copying the
    positions) the tick goes on and builds its lists itself, the run unchanged."""
    sc = reacting(scene_from(SCENE.format(bounds="walls", view="wide")), 0)
    fresh = Simulation(sc, neighbour_skin=0.0)
    ahead = Simulation(sc, neighbour_skin=6.0)
    ahead.steerer.threads = _TwoThreads()

    def fail(*args):
        raise MemoryError

    monkeypatch.setattr(ahead.steerer.verlet, "build_ahead", fail)
    assert np.array_equal(trajectory(fresh, 200), trajectory(ahead, 200))
    assert ahead.steerer.verlet.built_ahead == 0


def test_flocking_pairs_come_by_unit_whichever_list_made_them(scene_from):
    """``Steering.pairs`` in the units' order (owner, then partner ascending), not in the
    rows' cell order, which depends on when the list was built: the viewer draws the first
    links, the same ones in every run."""
    sim = Simulation(scene_from(SCENE.format(bounds="wrap", view="wide")))
    for _ in range(30):
        sim.step()
    i, j = sim.steering.pairs
    assert len(i) > 50
    assert (np.lexsort((j, i)) == np.arange(len(i))).all()


@pytest.mark.parametrize("reaction", [0, 1])
@pytest.mark.parametrize("bounds", ["wrap", "walls"])
def test_output_sets_taken_in_turn_give_the_run_of_new_arrays(scene_from, bounds, reaction):
    """The simulation's steerer fills two sets of output arrays in turn (``keep=2``) instead of
    new ones each tick: the same run bit for bit, the same flocking pairs at every tick (their
    mask array is reused across neighbour rebuilds, grown when the candidates outgrow it)."""
    sc = reacting(scene_from(SCENE.format(bounds=bounds, view="wide")), reaction)
    kept, new = Simulation(sc), Simulation(sc)
    new.steerer.keep = 0  # from here: new arrays at every call
    assert kept.steerer.keep == 2
    counts = set()
    masks = []  # the mask arrays behind the kept decisions' pairs, each once
    for _ in range(300):
        kept.step()
        new.step()
        mask = kept.steering.pair_source[3]
        base = mask if mask.base is None else mask.base
        if not any(base is m for m in masks):
            masks.append(base)
        assert np.array_equal(kept.state.pos, new.state.pos)
        for name in ("force", "heading", "leader", "feeler_end", "felt", "gap", "nn"):
            np.testing.assert_array_equal(getattr(kept.steering, name),
                                          getattr(new.steering, name))  # fmt: skip
        for a, b in zip(kept.steering.pairs, new.steering.pairs, strict=True):
            np.testing.assert_array_equal(a, b)
        counts.add(len(kept.steering.pair_source[1]))
    assert len(counts) > 3  # the candidate count changed at rebuilds: the mask was refilled
    assert kept.steerer.verlet.builds > 3
    # refilled in place at most rebuilds: new arrays only when the candidates outgrew one
    assert len(masks) < kept.steerer.verlet.builds / 2


def test_a_kept_decision_holds_until_keep_more_calls(scene_from):
    """With ``keep=2`` a returned decision's arrays are not written by the next call (the
    simulation acts on one decision while the next is made), and the call after reuses them."""
    sim = Simulation(scene_from(SCENE.format(bounds="walls", view="wide")))
    steer = Steerer(sim.units, sim.steerer.world, 6.0, keep=2)
    first = steer(sim.state, sim.rules)
    want = first.copy()
    for _ in range(20):
        sim.step()
    second = steer(sim.state, sim.rules)
    assert not np.array_equal(second.force, want.force)
    _assert_same_decision(first, want)
    third = steer(sim.state, sim.rules)
    assert third.force is first.force
    np.testing.assert_array_equal(third.force, second.force)
    fresh = Steerer(sim.units, sim.steerer.world, 6.0)  # keep=0: new arrays at every call
    assert fresh(sim.state, sim.rules).force is not fresh(sim.state, sim.rules).force


FIELDS = ("force", "heading", "leader", "feeler_end", "felt", "target", "gap", "nn")


def _assert_same_decision(got, want):
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
    for a, b in zip(got.pairs, want.pairs, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("reaction", [0, 1])
def test_a_decision_held_stays_whole_through_a_step_and_its_copy_for_good(scene_from, reaction):
    """What the simulation promises of ``sim.steering``: every array of a decision a caller
    holds (its flocking pairs too) stays as it was through the next step, which decides once;
    the step after that reuses its arrays, and ``copy()`` keeps them."""
    sim = Simulation(reacting(scene_from(SCENE.format(bounds="walls", view="wide")), reaction))
    for _ in range(25):
        sim.step()
    held = sim.steering
    want = held.copy()
    assert want.force is not held.force and want.pair_source[3] is not held.pair_source[3]
    sim.step()
    assert sim.steering is not held
    _assert_same_decision(held, want)
    sim.step()
    assert sim.steering is held  # the arrays taken again, written over
    assert not np.array_equal(held.force, want.force)
    assert len(want.pairs[0]) > 50


LONE = """
[world]
size = [300.0, 240.0]
bounds = "walls"
[[groups]]
family = "a"
count = 1
"""


@pytest.mark.parametrize("reference", [False, True])
def test_a_wall_feeler_cut_short_feels_only_a_near_wall(scene_from, reference):
    """A lone unit heading south at a wall: its 25-length feeler (100 world units) turns it
    from 30 away; cut to 2 lengths (8 world units, as for ordered units) it does not, but it
    still turns from 6 away."""
    sim = Simulation(scene_from(LONE))
    st, u = sim.state, sim.units
    world = World(sim.obstacles, sim.size, sim.box, True)
    short = 2.0 * u.length
    st.angle[:] = -np.pi / 2
    st.vel[:] = (0.0, -5.0)

    def force(y, wall_feeler):
        st.pos[:] = (150.0, y)
        if reference:
            return steer_reference(st, u, sim.rules, world, wall_feeler).force[0]
        return sim.steerer(st, sim.rules, wall_feeler=wall_feeler).force[0]

    assert force(30.0, None) != 0.0
    assert force(30.0, short) == 0.0
    assert force(6.0, short) != 0.0
