"""A replay rebuilds the move orders' control of the live run tick by tick, bit for bit from an
exact file, whether the rules decide before the physics step or beside it."""

import numpy as np
import pytest

from rigidflock import Simulation, bundled_scene, load_scene
from rigidflock.replay import Recorder, ReplayReader
from rigidflock.replay.playback import Playback
from rigidflock.rts.orders import Orders
from tests.conftest import reacting


@pytest.fixture
def controls(monkeypatch):
    """Every Orders.control call's tick and output (throttle, force), in call order."""
    seen = []
    control = Orders.control

    def spy(self, state, gap, tick, dt):
        out = control(self, state, gap, tick, dt)
        seen.append((tick, out.throttle.copy(), out.force.copy()))
        return out

    monkeypatch.setattr(Orders, "control", spy)
    return seen


@pytest.mark.parametrize("reaction", [0, 1])
# rts_doorway's order comes at tick 30, rts_crossing's at 0: recordings started before the
# first order, at it (0) and after it (60)
@pytest.mark.parametrize("start", [0, 10, 60])
@pytest.mark.parametrize("name", ["rts_doorway", "rts_crossing"])  # one group, two that meet
def test_the_replay_rebuilds_the_live_control(tmp_path, controls, reaction, start, name):
    scene = reacting(load_scene(bundled_scene(name)), reaction)
    sim = Simulation(scene, seed=2)
    for _ in range(start):
        sim.step()
    path = tmp_path / "d.rfr"
    with Recorder(path, sim, precision="exact") as rec:
        while sim.tick < 200:
            rec.record(None, sim.step())
    first = max(start, min(o.tick for o in scene.orders))  # control from the first order on
    live = {t: (th, f) for t, th, f in controls if t >= start}
    assert sorted(live) == list(range(first, 200))
    controls.clear()
    with ReplayReader(path) as r:
        Playback(r).view(199)  # the orders at 199: control of ticks start..198 rebuilt
    rebuilt = {t: (th, f) for t, th, f in controls if t >= start}
    assert sorted(rebuilt) == list(range(first, 199))
    for t, (th, f) in rebuilt.items():
        np.testing.assert_array_equal(th, live[t][0], err_msg=f"throttle at tick {t}")
        np.testing.assert_array_equal(f, live[t][1], err_msg=f"force at tick {t}")
