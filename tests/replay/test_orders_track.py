"""A replay rebuilds the move orders' control of the live run tick by tick, bit for bit from an
exact file, whether the rules decide before the physics step or beside it, and whether the
flocking's neighbours are found on the snapshot decided on or the one before."""

import numpy as np
import pytest

from rigidflock import Simulation, bundled_scene, load_scene
from rigidflock.replay import Recorder, ReplayReader
from rigidflock.replay.playback import Playback
from rigidflock.rts.orders import Orders
from rigidflock.scene import OrderSpec, SelectSpec
from rigidflock.scene.overrides import derive
from rigidflock.sim.commands import Command
from tests.conftest import reacting

# (world.reaction_ticks, world.neighbour_ticks): neighbours of the state decided on, neighbours a
# tick early, the whole decision beside the step
TIMINGS = [(0, 0), (0, 1), (1, 1)]


def timed(name: str, reaction: int, neighbours: int):
    scene = reacting(load_scene(bundled_scene(name)), reaction)
    return derive(scene, {"world.neighbour_ticks": neighbours})


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


@pytest.mark.parametrize(("reaction", "neighbours"), TIMINGS)
# rts_doorway's order comes at tick 30, rts_crossing's at 0: recordings started before the
# first order, at it (0) and after it (60)
@pytest.mark.parametrize("start", [0, 10, 60])
@pytest.mark.parametrize("name", ["rts_doorway", "rts_crossing"])  # one group, two that meet
def test_the_replay_rebuilds_the_live_control(
    tmp_path, controls, reaction, neighbours, start, name
):
    scene = timed(name, reaction, neighbours)
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


@pytest.mark.parametrize(("reaction", "neighbours"), TIMINGS)
def test_orders_and_switches_given_as_commands_are_rebuilt(
    tmp_path, controls, reaction, neighbours
):
    """Ticks that give an order or switch a rule decide afresh (before the step); the replay
    reads the same gaps at them and after them."""
    scene = timed("rts_doorway", reaction, neighbours)
    sim = Simulation(scene, seed=3)
    goal = tuple(float(v) for v in sim.state.pos[0] + 40.0)
    order = OrderSpec(select=SelectSpec(ids=(0, 1, 2, 3)), goal=goal)
    commands = {
        50: Command(orders=(order,)),
        80: Command(toggles=(("view", "wide"),)),
        81: Command(toggles=(("flocking", False),)),
        120: Command(toggles=(("flocking", True),)),
    }
    path = tmp_path / "c.rfr"
    with Recorder(path, sim, precision="exact") as rec:
        while sim.tick < 160:
            cmd = commands.get(sim.tick)
            rec.record(cmd, sim.step(cmd))
    live = {t: (th, f) for t, th, f in controls}
    assert len(sim.orders.groups) == 2  # the scene's order and the command's
    controls.clear()
    with ReplayReader(path) as r:
        Playback(r).view(159)
    rebuilt = {t: (th, f) for t, th, f in controls}
    assert sorted(rebuilt) == list(range(30, 159))
    for t, (th, f) in rebuilt.items():
        np.testing.assert_array_equal(th, live[t][0], err_msg=f"throttle at tick {t}")
        np.testing.assert_array_equal(f, live[t][1], err_msg=f"force at tick {t}")
