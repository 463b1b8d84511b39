"""``world.reaction_ticks = 1``: the rules decide beside the physics step, on the snapshot one tick
old, with the same results in the background thread as in the caller's."""

import os
import sys
import threading
import time

import numpy as np
import pytest

from rigidflock import bundled_scene, load_scene
from rigidflock.model import background
from rigidflock.model.steering.blend import Steerer
from rigidflock.sim import Simulation
from tests.conftest import reacting, trajectory


@pytest.mark.parametrize("name", ["aidemo4", "forest", "walls"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_forces_act_on_the_decision_made_one_tick_before(name, seed):
    """After each step the steering is the decision on the snapshot before the state: a fresh
    Steerer given a copy of that snapshot decides the same, bit for bit (so nothing the step did
    meanwhile leaked into it). Tick 0 acts on the first snapshot's decision in both models, so
    the state after it is the same; from tick 1 on the late reaction shows."""
    scene = load_scene(bundled_scene(name))
    late = Simulation(reacting(scene), seed=seed)
    now = Simulation(reacting(scene, 0), seed=seed)
    fresh = Steerer(late.units, late.steerer.world, 0.0)
    before = late.state.copy()
    for tick in range(30):
        late.step()
        now.step()
        assert late.steering_state.tick == tick == late.tick - 1
        want = fresh(before, late.rules)
        for field in ("force", "heading", "leader", "gap", "felt"):
            np.testing.assert_array_equal(getattr(late.steering, field), getattr(want, field))
        np.testing.assert_array_equal(late.steering_state.pos, before.pos)
        if tick == 0:
            np.testing.assert_array_equal(late.state.pos, now.state.pos)
        before = late.state.copy()
    assert not np.array_equal(late.state.pos, now.state.pos)


@pytest.mark.parametrize(
    ("name", "substeps"), [("forest", None), ("forest", 3), ("rts_doorway", None), ("walls", 2)]
)
def test_deciding_in_the_background_thread_or_the_callers_gives_the_same_run(
    name, substeps, monkeypatch
):
    """The background thread (two cores) and the caller's thread (NUMBA_NUM_THREADS=1) give
    bit-identical runs, with move orders too (rts_doorway's order comes at tick 30). With
    several substeps the decision runs after the step in the caller's thread (their force
    kernel would run in parallel beside the decision's)."""
    where = []
    run = background.Job.run

    def spy(job):
        where.append(threading.current_thread().name)
        run(job)

    monkeypatch.setattr(background.Job, "run", spy)
    scene = reacting(load_scene(bundled_scene(name)), substeps=substeps)
    threaded = Simulation(scene, seed=4)
    inline = Simulation(scene, seed=4)
    inline.threaded = False
    if os.cpu_count() < 2:
        pytest.skip("one core: no second thread to decide in")
    assert threaded.threaded == (substeps is None)
    where.clear()
    a = trajectory(threaded, 150)
    # every decision of the threaded run ran on the background thread (lists built ahead
    # would run there too, but not while the steering runs on one thread)
    want = "rigidflock-background" if substeps is None else "MainThread"
    assert where == [want] * 150
    where.clear()
    np.testing.assert_array_equal(a, trajectory(inline, 150))
    assert where == ["MainThread"] * 150
    if name == "rts_doorway":
        assert threaded.orders.groups  # the order was given and controlled


def test_a_reacting_simulation_leaves_the_callers_numba_threads_alone():
    """The decision's passes run on one numba thread; the caller's thread keeps its count
    (its own parallel kernels, such as the vehicle forces, still use every thread)."""
    import numba as nb

    before = nb.get_num_threads()
    sim = Simulation(reacting(load_scene(bundled_scene("forest"))), seed=1)
    sim.threaded = False  # the decisions run in this thread too
    for _ in range(5):
        sim.step()
    assert nb.get_num_threads() == before


def test_a_step_that_fails_beside_a_decision_leaves_no_trace(monkeypatch):
    """pymunk's step raising while the decision runs beside it: the error reaches the caller,
    the GIL switch interval is as before, and the next step waits for that decision before it
    starts another (they share the steerer's buffers), then runs as usual."""
    sim = Simulation(reacting(load_scene(bundled_scene("forest"))), seed=1)
    sim.step()
    switch = sys.getswitchinterval()
    step = sim.world.step
    calls = []

    def fail_once(dt):
        calls.append(dt)
        if len(calls) == 1:
            time.sleep(0.05)  # the decision is still under way, or just done
            raise RuntimeError("pymunk failed")
        step(dt)

    monkeypatch.setattr(sim.world, "step", fail_once)
    in_force = sim.steering.copy()
    with pytest.raises(RuntimeError, match="pymunk failed"):
        sim.step()
    assert sys.getswitchinterval() == switch
    assert sim.tick == 1 and sim.background_pending  # left running, or done and not taken
    # the decision left running wrote the other set of arrays, not the one in force
    for name in ("force", "heading", "leader", "gap"):
        np.testing.assert_array_equal(getattr(sim.steering, name), getattr(in_force, name))
    sim.step()
    assert sim.tick == 2 and sim.steering_state.tick == 1 and not sim.background_pending
    assert sys.getswitchinterval() == switch


def test_a_reacting_run_is_deterministic_and_reset_replays_it():
    sim = Simulation(reacting(load_scene(bundled_scene("forest"))), seed=7)
    a = trajectory(sim, 120)
    sim.reset(7)
    np.testing.assert_array_equal(a, trajectory(sim, 120))


def test_an_error_in_the_decision_reaches_the_caller(monkeypatch):
    """What the decision raises in the background thread is raised by step(), not lost."""
    sim = Simulation(reacting(load_scene(bundled_scene("aidemo4"))), seed=1)

    def fail(*args):
        raise MemoryError("no room for the pairs")

    monkeypatch.setattr(Steerer, "__call__", fail)
    with pytest.raises(MemoryError, match="no room"):
        sim.step()
