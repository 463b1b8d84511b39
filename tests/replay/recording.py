"""Shared helpers of the replay tests: record a scripted run, compare what a file read back."""

import numpy as np

from rigidflock import Simulation, load_scene
from rigidflock.replay import Recorder, quantize
from tests.conftest import ROOT

AIDEMO4 = ROOT / "scenes" / "aidemo4.toml"
# the --ticks each model's recordings in tests/fixtures were made with, by scene
FIXTURE_TICKS = {"aidemo4": 120, "rts_doorway": 120, "doorway_one_way": 1320}


def fixture_scene(path) -> str:
    """The scene a fixture recording (``SCENE_modelN.rfr``, ``SCENE_v010.rfr``) is of."""
    return path.stem.rsplit("_", 1)[0]


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
