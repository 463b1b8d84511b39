"""Per-unit control (``Command.units``): chosen AI units take their own throttle and bow steer,
with the rules on or off for them; validated before anything changes; recorded and verified."""

import numpy as np
import pytest

from rigidflock import Command, Simulation
from rigidflock.replay import Recorder, ReplayReader, verify
from rigidflock.sim import CommandError

SEEDS = (1, 2, 3)
UNITS = np.array([0, 5, 12])  # chasers and interceptors of aidemo4


def _run(seed, command_of_tick, ticks=240):
    sim = Simulation("aidemo4", seed=seed)
    for t in range(ticks):
        sim.step(command_of_tick(t, sim))
    return sim


@pytest.mark.parametrize("seed", SEEDS)
def test_rules_on_full_throttle_and_no_steer_is_the_uncontrolled_run(seed):
    # the rules' own input (throttle 1, no added steer) through the control path: bit-identical
    plain = _run(seed, lambda t, sim: None)
    same = Command(units=UNITS, unit_throttle=np.ones(3), unit_steer=np.zeros(3), unit_rules=True)
    ctl = _run(seed, lambda t, sim: same)
    for a, b in ((plain.state.pos, ctl.state.pos), (plain.state.angle, ctl.state.angle)):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("steer", [1.0, -1.0])
def test_rules_off_units_follow_their_own_steer(seed, steer):
    # full rudder, no rules: the heading turns the way of the steer (+ port, counter-clockwise)
    # all the time; at full steer and cruise speed a unit turns at ~0.45-0.55 rad/s (the bow
    # force against the angular damping), so 2 s turn it more than 0.7 rad whatever the rules
    # would have done (their chase alone reverses the steer whenever the player crosses the bow)
    sim = Simulation("aidemo4", seed=seed)
    turn = np.zeros(3)
    cmd = Command(units=UNITS, unit_throttle=np.ones(3), unit_steer=np.full(3, steer))
    for _ in range(120):
        before = sim.state.angle[UNITS].copy()
        sim.step(cmd)
        turn += sim.state.angle[UNITS] - before
    assert (steer * turn > 0.7).all()


def test_rules_off_zero_throttle_stops_the_unit():
    # drag without thrust: quadratic drag alone (dv/dt = -k v^2 / m) takes a unit from its
    # cruise speed to 0.59 of it in 5 s; the rules would hold it at cruise speed
    sim = Simulation("aidemo4", seed=1)
    cmd = Command(units=(3,), unit_throttle=(0.0,), unit_steer=(0.0,))
    for _ in range(300):
        sim.step(cmd)
    speed = np.hypot(*sim.state.vel[3])
    assert speed < 0.7 * sim.units.cruise_speed[3]


@pytest.mark.parametrize(
    "fields, words",
    [
        ({"units": (0,), "unit_throttle": (2.0,), "unit_steer": (0.0,)}, "unit_throttle"),
        ({"units": (0, 0), "unit_throttle": (0.0, 0.0), "unit_steer": (0.0, 0.0)}, "distinct"),
        ({"units": (20,), "unit_throttle": (0.0,), "unit_steer": (0.0,)}, "not an AI unit"),
        ({"units": (1,), "unit_throttle": (), "unit_steer": (0.0,)}, "0 values for 1"),
        ({"units": (1,), "unit_throttle": (0.0,), "unit_steer": (np.nan,)}, "unit_steer"),
        ({"units": (1.5,), "unit_throttle": (0.0,), "unit_steer": (0.0,)}, "wrong type"),
        ({"units": (1,), "unit_throttle": (0.0,), "unit_steer": (0.0,), "unit_rules": (1, 0)},
         "unit_rules"),
    ],
)  # fmt: skip
def test_bad_unit_control_is_refused_before_the_step(fields, words):
    sim = Simulation("aidemo4", seed=1)
    with pytest.raises(CommandError, match=words):
        sim.step(Command(**fields))
    assert sim.tick == 0


@pytest.mark.parametrize("arrays", [True, False])
def test_a_controlled_run_records_and_verifies(tmp_path, arrays):
    path = tmp_path / "control.rfr"
    sim = Simulation("aidemo4", seed=4)
    rng = np.random.default_rng(0)
    with Recorder(path, sim) as rec:
        for _ in range(150):
            t, s = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)
            on = np.array([True, False, True])
            if not arrays:
                t, s, on = tuple(t.tolist()), tuple(s.tolist()), tuple(on.tolist())
            cmd = Command(units=UNITS, unit_throttle=t, unit_steer=s, unit_rules=on)
            rec.record(cmd, sim.step(cmd))
    with ReplayReader(path) as r:
        res = verify(r)
    assert res.difference is None and res.ticks_checked == 151
