"""Recording and reading back exactly: every scene, keyboard-style commands, mid-run starts."""

import numpy as np
import pytest

from rigidflock import Command, Simulation, load_scene
from rigidflock.replay import Recorder, ReplayReader, verify
from tests.conftest import SCENES
from tests.replay.recording import AIDEMO4, assert_same, record_run


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


def test_recorder_arguments_and_a_closed_recorder(tmp_path):
    sim = Simulation(load_scene(AIDEMO4))
    with pytest.raises(ValueError, match="precision must be one of"):
        Recorder(tmp_path / "p.rfr", sim, precision="lossy")
    with pytest.raises(ValueError, match=r"chunk_ticks must be 1\.\.65536"):
        Recorder(tmp_path / "c.rfr", sim, chunk_ticks=1 << 17)
    rec = Recorder(tmp_path / "r.rfr", sim, chunk_ticks=4)
    for _ in range(6):
        rec.record(None, sim.step())
    rec.flush()  # one chunk of 4 ticks, one of 3 (tick 0 included)
    with ReplayReader(tmp_path / "r.rfr") as r:
        assert not r.complete and r.ticks == 7 and len(r.chunks) == 2
    rec.close()
    with pytest.raises(ValueError, match="recorder is closed"):
        rec.record(None, sim.step())
    with ReplayReader(tmp_path / "r.rfr") as r:
        assert r.complete and r.end["ticks"] == 7 and r.last_tick == 6
