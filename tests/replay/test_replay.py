"""Replays: recording, reading back exactly, the command codec, and verification."""

import dataclasses

import numpy as np
import pytest

from rigidflock import Command, Simulation, load_scene
from rigidflock.replay import (
    Recorder,
    ReplayError,
    ReplayReader,
    from_jsonable,
    quantize,
    to_jsonable,
    verify,
)
from tests.conftest import ROOT, SCENES

AIDEMO4 = ROOT / "scenes" / "aidemo4.toml"


def record_run(path, scene_path, ticks, commands=None, precision="compact", chunk_ticks=None,
               tamper=None):  # fmt: skip
    """Run and record; returns the live states (copies). ``commands``: tick -> Command.
    ``tamper(tick, sim, command)`` may return (command_to_store, state_to_store) overrides."""
    sim = Simulation(load_scene(scene_path))
    live = [sim.state.copy()]
    with Recorder(path, sim, precision=precision, chunk_ticks=chunk_ticks) as rec:
        for _ in range(ticks):
            cmd = (commands or {}).get(sim.tick)
            stored_cmd = cmd
            events = sim.step(cmd)
            live.append(sim.state.copy())
            if tamper is not None:
                stored_cmd, fake = tamper(sim.tick, sim, cmd)
                if fake is not None:
                    real, sim.state = sim.state, fake
                    rec.record(stored_cmd, events)
                    sim.state = real
                    continue
            rec.record(stored_cmd, events)
    return live


def assert_same(reader, live, precision):
    assert reader.first_tick == 0 and reader.last_tick == len(live) - 1
    for t, st in enumerate(live):
        raw = reader.raw(t)
        for name in ("pos", "vel", "angle", "omega"):
            if precision == "compact":
                assert np.array_equal(raw[name], quantize(getattr(st, name), name)), (t, name)
            else:
                a = np.ascontiguousarray(getattr(st, name)).view(np.uint64)
                assert np.array_equal(raw[name].view(np.uint64), a), (t, name)
        assert np.array_equal(raw["leader"], st.leader), t


@pytest.mark.parametrize("precision", ["compact", "exact"])
@pytest.mark.parametrize("scene", SCENES, ids=lambda p: p.stem)
def test_every_scene_round_trips_and_verifies(tmp_path, scene, precision):
    path = tmp_path / "run.rfr"
    live = record_run(path, scene, 90, precision=precision, chunk_ticks=25)
    with ReplayReader(path) as r:
        assert r.complete and r.problem is None
        assert r.precision == precision and r.units == len(live[0].pos)
        assert_same(r, live, precision)
        if precision == "exact":
            st = r.state(57)
            assert np.array_equal(st.pos, live[57].pos) and np.array_equal(st.vel, live[57].vel)
        else:
            assert np.abs(r.state(57).pos - live[57].pos).max() <= 0.5 / 1024 + 1e-12
        result = verify(r)
    assert result.ok and result.ticks_checked == 91


def test_keyboard_style_commands_record_and_verify(tmp_path):
    """Commands as the viewer builds them (Controls + held keys), scripted."""
    pytest.importorskip("pyglet")
    from rigidflock.render.backend import key
    from rigidflock.render.input import Controls

    scene = load_scene(AIDEMO4)
    sim = Simulation(scene)
    controls = Controls(scene.player.control)
    held: dict[int, bool] = {}
    script = {
        10: ("press", key.UP),
        20: ("press", key.LEFT),
        50: ("release", key.LEFT),
        55: ("press", key.F),  # flocking off
        60: ("press", key.RIGHT),
        80: ("press", key._3),  # narrow view
        90: ("release", key.UP),
        100: ("press", key.O),
    }
    path = tmp_path / "keys.rfr"
    live = [sim.state.copy()]
    with Recorder(path, sim) as rec:
        for t in range(140):
            if t in script:
                what, sym = script[t]
                if what == "press":
                    held[sym] = True
                    controls.key_press(sym, 0, sim.rules)
                else:
                    held[sym] = False
            cmd = controls.command(held)
            rec.record(cmd, sim.step(cmd))
            live.append(sim.state.copy())
    assert sim.rules.view == "narrow" and not sim.rules.flocking
    with ReplayReader(path) as r:
        inputs = r.inputs()
        assert inputs[10].throttle == 1.0 and inputs[30].steer == 1.0
        assert inputs[55].toggles == (("flocking", False),)
        assert_same(r, live, "compact")
        assert verify(r).ok


def test_default_command_is_the_same_as_none(tmp_path):
    """Ticks whose command is None or Command() are not stored: the simulation must treat
    both alike."""
    a, b = Simulation(load_scene(AIDEMO4)), Simulation(load_scene(AIDEMO4))
    for _ in range(60):
        a.step(None)
        b.step(Command())
    assert np.array_equal(a.state.pos, b.state.pos) and np.array_equal(a.state.vel, b.state.vel)


def test_command_codec_round_trips_nested_dataclasses():
    cmd = Command(throttle=-0.5, steer=1.0, toggles=(("view", "narrow"), ("chase", False)))
    data = to_jsonable(cmd)
    assert from_jsonable(data) == cmd
    import json

    assert from_jsonable(json.loads(json.dumps(data))) == cmd


def test_command_with_an_unknown_field_is_a_clear_error(tmp_path):
    @dataclasses.dataclass(frozen=True)
    class Command:  # a "newer" Command with a field this version lacks
        throttle: float | None = None
        warp: float = 9.0

    sim = Simulation(load_scene(AIDEMO4))
    path = tmp_path / "newer.rfr"
    with Recorder(path, sim) as rec:
        rec.record(Command(throttle=1.0), sim.step())
    with ReplayReader(path) as r, pytest.raises(ReplayError, match="no field 'warp'"):
        r.inputs()


def test_verify_reports_the_first_changed_state(tmp_path):
    path = tmp_path / "tampered.rfr"

    def tamper(tick, sim, cmd):
        if tick == 40:
            fake = sim.state.copy()
            fake.pos[3, 1] += 0.25
            return cmd, fake
        return cmd, None

    record_run(path, AIDEMO4, 80, tamper=tamper)
    with ReplayReader(path) as r:
        res = verify(r)
    d = res.difference
    assert d is not None and d.tick == 40 and d.unit == 3 and d.field == "pos"
    assert d.amount == pytest.approx(0.25, abs=1e-3)
    assert "tick 40: unit 3 position differs by 0.25" in d.describe()


@pytest.mark.parametrize("precision", ["compact", "exact"])
def test_verify_reports_the_first_tick_after_a_changed_input(tmp_path, precision):
    path = tmp_path / "input.rfr"
    commands = {30: Command(throttle=1.0, steer=1.0)}

    def tamper(tick, sim, cmd):  # store a different command for tick 30
        return (Command(throttle=1.0, steer=-1.0) if tick == 31 else cmd), None

    record_run(path, AIDEMO4, 60, commands=commands, precision=precision, tamper=tamper)
    with ReplayReader(path) as r:
        assert r.inputs()[30].steer == -1.0
        d = verify(r).difference
    assert d is not None and d.tick == 31  # the state the changed command made


def test_recording_from_mid_run_keeps_the_earlier_inputs(tmp_path):
    sim = Simulation(load_scene(AIDEMO4))
    log = []
    for t in range(50):
        cmd = Command(throttle=1.0, steer=0.5) if 20 <= t < 30 else None
        if cmd is not None:
            log.append((t, cmd))
        sim.step(cmd)
    path = tmp_path / "mid.rfr"
    with Recorder(path, sim, prelude=log) as rec:
        for _ in range(40):
            rec.record(None, sim.step())
    with ReplayReader(path) as r:
        assert (r.first_tick, r.last_tick) == (50, 90)
        res = verify(r)
    assert res.ok and res.ticks_checked == 41


def test_compact_recording_of_flock500_is_small(tmp_path):
    path = tmp_path / "f.rfr"
    record_run(path, ROOT / "scenes" / "flock500.toml", 240)
    per = path.stat().st_size / (500 * 241)
    assert per <= 8.0, per


def test_commands_with_move_orders_round_trip_when_the_simulation_has_them(tmp_path):
    """Move orders (nested frozen dataclasses inside Command) round-trip through the codec."""
    from rigidflock.scene import OrderSpec, SelectSpec

    order = OrderSpec(select=SelectSpec(ids=(0, 1, 2)), goal=(400.0, 300.0))
    cmd = Command(orders=(order,))
    import json

    assert from_jsonable(json.loads(json.dumps(to_jsonable(cmd)))) == cmd
    path = tmp_path / "orders.rfr"
    live = record_run(path, AIDEMO4, 60, commands={10: cmd})
    with ReplayReader(path) as r:
        assert r.inputs()[10] == cmd
        assert_same(r, live, "compact")
        assert verify(r).ok
