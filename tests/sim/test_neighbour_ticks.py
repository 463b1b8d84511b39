"""``world.neighbour_ticks = 1`` (the faster choice for large crowds): the pair pass
finds each unit's neighbours beside the physics step, on the snapshot the step starts from, and
the decision after the step reads those sums with the new snapshot. ``0`` finds them on the
snapshot decided on, as the recordings of model 11, made before the key, were simulated."""

import sys
import threading
import time

import numba as nb
import numpy as np
import pytest

from rigidflock import bundled_scene, load_scene
from rigidflock.model import vehicle
from rigidflock.model.steering.blend import Steerer
from rigidflock.replay import ReplayReader, verify
from rigidflock.scene import SceneError, parse_scene
from rigidflock.scene.overrides import derive
from rigidflock.sim import Simulation
from tests.conftest import ROOT, trajectory

FIELDS = ("force", "heading", "leader", "gap", "felt", "nn", "target", "feeler_end")


def lagging(scene, ticks: int = 1, substeps: int | None = None):
    changes = {"world.neighbour_ticks": ticks}
    if substeps is not None:
        changes["world.substeps"] = substeps
    return derive(scene, changes)


@pytest.mark.parametrize("name", ["aidemo4", "forest", "walls", "rts_doorway"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_decision_reads_this_snapshot_and_the_neighbours_of_the_one_before(name, seed):
    """After each step the steering equals a fresh Steerer's decision on a copy of the state
    given the pair pass on a copy of the snapshot before, bit for bit (nothing the step did
    meanwhile leaked into either). Under move orders (rts_doorway's order comes at tick 30)
    the neighbours are of the state decided on, ordered units flocking in their group and
    leading nobody. Tick 0 acts on the first snapshot's full decision in both models, so the
    state after it is the same; from tick 1 on the older neighbours show."""
    scene = load_scene(bundled_scene(name))
    lag = Simulation(lagging(scene), seed=seed)
    now = Simulation(lagging(scene, 0), seed=seed)
    fresh = Steerer(lag.units, lag.steerer.world, 0.0)
    before = lag.state.copy()
    for tick in range(45):
        lag.step()
        now.step()
        assert lag.steering_state is lag.state
        # as after this tick's control, when the pairs were found
        key, role, wall_feeler = lag.orders.steering_keys()
        ordered = name == "rts_doorway" and tick >= 30
        assert (key is not None) == ordered
        if ordered:  # under move orders: neighbours of the state decided on
            assert lag.pairs_state is lag.state
            fresh.pairs(lag.state.copy(), lag.rules, key)
        else:
            assert lag.pairs_state.tick == tick == lag.tick - 1
            np.testing.assert_array_equal(lag.pairs_state.pos, before.pos)
            fresh.pairs(before, lag.rules, key)
        want = fresh.decide(lag.state.copy(), lag.rules, role, wall_feeler)
        for field in FIELDS:
            np.testing.assert_array_equal(getattr(lag.steering, field), getattr(want, field))
        for got, ref in zip(lag.steering.pairs, want.pairs, strict=True):
            np.testing.assert_array_equal(got, ref)
        if tick == 0:
            np.testing.assert_array_equal(lag.state.pos, now.state.pos)
        before = lag.state.copy()
    assert not np.array_equal(lag.state.pos, now.state.pos)


def test_pairs_then_decide_on_one_snapshot_is_the_whole_decision():
    """The steerer's two halves on the same snapshot are its one call (what
    ``neighbour_ticks = 0`` and every fresh decision run)."""
    sim = Simulation(lagging(load_scene(bundled_scene("forest"))), seed=5)
    for _ in range(20):
        sim.step()
    one = Steerer(sim.units, sim.steerer.world, 0.0)
    two = Steerer(sim.units, sim.steerer.world, 0.0)
    whole = one(sim.state, sim.rules)
    two.pairs(sim.state, sim.rules)
    halves = two.decide(sim.state, sim.rules)
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(whole, field), getattr(halves, field))


@pytest.mark.parametrize("name", ["aidemo4", "rts_doorway"])
def test_neighbour_ticks_0_is_model_11(name, monkeypatch):
    """Model 11's recordings (a flock with a player and obstacles; move orders through a
    doorway) re-simulate integer for integer with ``world.neighbour_ticks = 0`` (and, as the
    reader gives a file of a model before 15, ordered units feeling the world's walls with
    the full feeler)."""
    path = ROOT / "tests" / "fixtures" / f"{name}_model11.rfr"
    # the module (the package's ``verify`` is its function)
    verify_module = sys.modules[verify.__module__]
    monkeypatch.setattr(verify_module, "model_problem", lambda header: None)
    with ReplayReader(path) as reader:
        # a file of a model before 12 plays its scene as that model ran it
        assert reader.scene().world.neighbour_ticks == 0
        result = verify(reader)
    assert result.ok and result.ticks_checked == 121, result


@pytest.mark.parametrize(
    ("name", "substeps"), [("forest", None), ("forest", 3), ("rts_doorway", None), ("walls", 2)]
)
def test_finding_neighbours_in_the_background_thread_or_the_callers_gives_the_same_run(
    name, substeps, monkeypatch
):
    """The background thread (two cores) and the caller's thread (NUMBA_NUM_THREADS=1) give
    bit-identical runs, with move orders too (rts_doorway's order comes at tick 30; from then
    on every decision finds its own neighbours, in the caller's thread). With several
    substeps the pair pass runs before the step in the caller's thread (the later substeps
    read the next snapshot into the state)."""
    where = []
    scene = lagging(load_scene(bundled_scene(name)), substeps=substeps)
    threaded = Simulation(scene, seed=4)
    inline = Simulation(scene, seed=4)
    inline.threaded = False
    for sim in (threaded, inline):  # where each pair pass runs (Steerer.pairs)

        def spy(*args, _pairs=sim.steerer.pairs, **kwargs):
            where.append(threading.current_thread().name)
            return _pairs(*args, **kwargs)

        monkeypatch.setattr(sim.steerer, "pairs", spy)
    if nb.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one numba thread: the pair pass always runs in the caller's thread")
    assert threaded.threaded == (substeps is None)
    where.clear()
    a = trajectory(threaded, 150)
    # every pair pass beside a step ran on the background thread; under move orders (from
    # rts_doorway's tick 30) each decision found its own, in the caller's thread
    want = "rigidflock-background" if substeps is None else "MainThread"
    beside = 30 if name == "rts_doorway" else 150
    assert where == [want] * beside + ["MainThread"] * (len(where) - beside)
    assert len(where) == 150 or name == "rts_doorway"
    passes, where[:] = len(where), []
    np.testing.assert_array_equal(a, trajectory(inline, 150))
    assert where == ["MainThread"] * passes
    if name == "rts_doorway":
        assert threaded.orders.groups  # the order was given and controlled


def test_the_pair_pass_beside_the_step_runs_on_one_numba_thread(monkeypatch):
    """The step has the other core; the pair pass's parallel kernels must not wake a second
    thread beside it."""
    import numba as nb

    sim = Simulation(lagging(load_scene(bundled_scene("forest"))), seed=1)
    if not sim.threaded:
        pytest.skip("one numba thread: the pair pass runs in the caller's thread")
    seen = []
    pairs = sim.steerer.pairs

    def spy(*args, **kwargs):
        pairs(*args, **kwargs)
        seen.append((threading.current_thread().name, nb.get_num_threads()))

    monkeypatch.setattr(sim.steerer, "pairs", spy)
    for _ in range(20):
        sim.step()
    assert seen == [("rigidflock-background", 1)] * 20


def test_a_step_that_fails_beside_the_pair_pass_leaves_no_trace(monkeypatch):
    """pymunk's step raising while the pair pass still runs beside it: the error reaches the
    caller, the GIL switch interval is as before, the decision in force is untouched, and the
    next step waits for that pass before it starts another (they share the steerer's
    buffers)."""
    sim = Simulation(lagging(load_scene(bundled_scene("forest"))), seed=1)
    if not sim.threaded:
        pytest.skip("one numba thread: no pair pass beside the step")
    sim.step()
    switch = sys.getswitchinterval()
    step, pairs = sim.world.step, sim.steerer.pairs
    calls = []

    def slow_pairs(*args, **kwargs):
        time.sleep(0.2)  # still running when the step fails
        pairs(*args, **kwargs)

    def fail_once(dt):
        calls.append(dt)
        if len(calls) == 1:
            raise RuntimeError("pymunk failed")
        step(dt)

    monkeypatch.setattr(sim.steerer, "pairs", slow_pairs)
    monkeypatch.setattr(sim.world, "step", fail_once)
    in_force = sim.steering.copy()
    with pytest.raises(RuntimeError, match="pymunk failed"):
        sim.step()
    assert sys.getswitchinterval() == switch
    assert sim.tick == 1 and sim.background_running  # the pass is still under way
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(sim.steering, field), getattr(in_force, field))
    sim.step()  # waits for it first
    assert sim.tick == 2 and sim.pairs_state.tick == 1 and not sim.background_pending


@pytest.mark.parametrize("threaded", [True, False])
def test_an_error_in_the_pair_pass_reaches_the_caller_and_the_run_goes_on(monkeypatch, threaded):
    """pymunk stepped before the error came: the state is read from it (the tick advances) and
    the next step decides afresh on it, as a fresh simulation's first tick would."""
    sim = Simulation(lagging(load_scene(bundled_scene("aidemo4"))), seed=1)
    sim.threaded = sim.threaded and threaded
    pairs = sim.steerer.pairs
    failing = [True]

    def fail_once(*args, **kwargs):
        if failing.pop() if failing else False:
            raise MemoryError("no room for the pairs")
        pairs(*args, **kwargs)

    monkeypatch.setattr(sim.steerer, "pairs", fail_once)
    with pytest.raises(MemoryError, match="no room"):
        sim.step()
    assert not sim.background_pending and sim.tick == 1
    moved = sim.state.copy()
    sim.world.read(moved)
    sim.world.wrap(moved)
    np.testing.assert_array_equal(sim.state.pos, moved.pos)  # the state is pymunk's
    fresh = Steerer(sim.units, sim.steerer.world, 0.0)
    want = fresh(sim.state.copy(), sim.rules)  # tick 1 decided afresh: its own neighbours
    forces = vehicle.vehicle_forces_rows
    applied = []

    def spy(angle, vel, omega, throttle, fs, *rest):
        applied.append(fs.copy())  # the bow forces the tick applies
        return forces(angle, vel, omega, throttle, fs, *rest)

    monkeypatch.setattr(vehicle, "vehicle_forces_rows", spy)
    sim.step()
    assert sim.tick == 2 and sim.pairs_state.tick == 1
    n_ai = sim.units.n_ai
    np.testing.assert_array_equal(applied[0][:n_ai], want.force[:n_ai])


def test_a_lagging_run_is_deterministic_and_reset_replays_it():
    sim = Simulation(lagging(load_scene(bundled_scene("forest"))), seed=7)
    a = trajectory(sim, 120)
    sim.reset(7)
    np.testing.assert_array_equal(a, trajectory(sim, 120))


def test_neighbours_newer_than_the_decision_are_refused():
    """With the whole decision a tick late, neighbours of the snapshot after it do not exist."""
    text = "[world]\nreaction_ticks = 1\nneighbour_ticks = 0\n[[groups]]\ncount = 3\n"
    with pytest.raises(SceneError, match=r"world\.neighbour_ticks.*at least world\.reaction"):
        parse_scene(text, "late.toml")
    scene = parse_scene(text.replace("neighbour_ticks = 0", "neighbour_ticks = 1"), "late.toml")
    assert scene.world.reaction_ticks == scene.world.neighbour_ticks == 1


@pytest.mark.parametrize(
    ("count", "reaction", "late"), [(1999, 0, False), (2000, 0, False), (2000, 1, True)]
)
def test_auto_follows_the_reaction_ticks_at_any_size(count, reaction, late):
    """``"auto"`` (the default) is ``world.reaction_ticks``, whatever the crowd's size: a
    scene of 2,000 AI units runs the model of one of 1,999 (a speed choice changes no result
    unless the scene asks for it, with ``neighbour_ticks = 1``)."""
    text = (
        f"[world]\nsize = [2000.0, 2000.0]\nreaction_ticks = {reaction}\n[[groups]]\n"
        f"count = {count}\nspawn = {{ center = [1000.0, 1000.0], radius = 900.0 }}\n"
        '[player]\ncontrol = "none"\n'
    )
    sim = Simulation(parse_scene(text, "crowd.toml"), seed=1)
    assert sim.scene.world.neighbour_ticks is None and sim.units.n_ai == count
    assert sim.neighbour_ticks == reaction
    sim.step()
    sim.step()
    assert (sim.pairs_state is not sim.state) == late


@pytest.mark.parametrize("value", ["2", "-1", '"x"', '"Auto"', "true", "1.0"])
def test_a_bad_neighbour_ticks_is_one_line_naming_the_key_and_exit_2(tmp_path, capsys, value):
    """In a scene file (``check`` and ``run`` alike) and as ``run --set``: one line naming the
    file and ``world.neighbour_ticks``, exit 2, and no output file written."""
    from rigidflock.cli import main

    scene = tmp_path / "s.toml"
    scene.write_text(f"[world]\nneighbour_ticks = {value}\n[[groups]]\ncount = 3\n")
    out = tmp_path / "m.json"
    for argv in (["check", str(scene)], ["run", str(scene), "--ticks", "2", "--metrics", str(out)]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "s.toml" in err[0] and "world.neighbour_ticks" in err[0], err
    good = tmp_path / "g.toml"
    good.write_text("[[groups]]\ncount = 3\n")
    argv = ["run", str(good), "--ticks", "2", "--metrics", str(out), "--set"]
    assert main([*argv, f"world.neighbour_ticks={value}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "world.neighbour_ticks" in err[0], err
    assert not out.exists()
