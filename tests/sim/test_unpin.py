"""The compiled unpin rule (``model/steering/unpin.py``) against the numpy rule it replaced, tick
by tick, and as the simulation applies it."""

import numpy as np
import pytest

from rigidflock.model.steering.unpin import PIN_SLOW, back_out, unpin_throttle


def unpin_reference(vel, touching, cruise, pressed, until, tick, dt, after, hold, back, player,
                    throttle, spared):  # fmt: skip
    """The rule as numpy: returns (throttle, pressed, until)."""
    speed = np.hypot(vel[:, 0], vel[:, 1])
    now = (touching > 0) & (speed < PIN_SLOW * cruise) & ~spared
    if player:
        now[-1] = False
    pressed = np.where(now, pressed + dt, 0.0)
    start = pressed > after
    if start.any():
        until = np.where(start, tick + hold, until)
        pressed[start] = 0.0
    until = np.where(spared, np.minimum(until, tick), until)
    return np.where(tick < until, back, throttle), pressed, until


@pytest.mark.parametrize("player", [False, True])
def test_unpin_matches_the_numpy_rule(player):
    rng = np.random.default_rng(3)
    n, dt = 200, 1 / 60
    cruise = rng.uniform(5.0, 10.0, n)
    pressed, until = np.zeros(n), np.full(n, -1, np.int64)
    ref_pressed, ref_until = pressed.copy(), until.copy()
    out = np.empty(n)
    backs = 0
    for tick in range(400):
        # mostly slow units in contact, so many are pressed long enough to back out
        vel = rng.normal(size=(n, 2)) * np.where(rng.random(n) < 0.9, 0.3, 8.0)[:, None]
        touching = (rng.random(n) < 0.95).astype(np.int64)
        throttle = np.where(rng.random(n) < 0.5, 1.0, rng.uniform(-1.0, 1.0, n))
        # a few units spared now and then (side-on against a wall), some mid back-out
        spared = rng.random(n) < 0.05
        got = unpin_throttle(vel, touching, cruise, pressed, until, tick, dt, (0.5, 60, -0.6),
                             player, throttle, out, spared)  # fmt: skip
        want, ref_pressed, ref_until = unpin_reference(
            vel,
            touching,
            cruise,
            ref_pressed,
            ref_until,
            tick,
            dt,
            0.5,
            60,
            -0.6,
            player,
            throttle,
            spared,
        )
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(pressed, ref_pressed)
        np.testing.assert_array_equal(until, ref_until)
        backs += int((want == -0.6).sum())
    assert backs > 0


def test_a_spared_unit_keeps_its_throttle_and_stops_backing_out():
    """A unit pressed still against a wall backs out once pressed for ``after`` seconds; spared
    (side-on against the wall), it keeps its own throttle at once and is not pressed
    again until it is no longer spared."""
    dt, after, hold = 0.1, 0.25, 20
    vel, touching, cruise = np.zeros((1, 2)), np.ones(1, np.int64), np.full(1, 7.0)
    pressed, until, out = np.zeros(1), np.full(1, -1, np.int64), np.empty(1)
    none, spared = np.zeros(1, bool), np.ones(1, bool)
    got = [
        unpin_throttle(vel, touching, cruise, pressed, until, t, dt, (after, hold, -0.6), False,
                       np.ones(1), out, none)[0]
        for t in range(5)
    ]  # fmt: skip
    assert got == [1.0, 1.0, -0.6, -0.6, -0.6]  # pressed 0.3 s > 0.25 s at the third tick
    got = [
        unpin_throttle(vel, touching, cruise, pressed, until, t, dt, (after, hold, -0.6), False,
                       np.ones(1), out, spared)[0]
        for t in range(5, 10)
    ]  # fmt: skip
    assert got == [1.0] * 5 and pressed[0] == 0.0 and until[0] <= 9


def test_the_orders_side_on_rows_reach_the_unpin_pass(monkeypatch):
    """The simulation hands the orders' ``side_on`` rows to the unpin pass as its spared rows
    (what the pass does with them: the test above); the others are not spared."""
    from rigidflock.scene import parse_scene
    from rigidflock.sim import simulation
    from rigidflock.sim.simulation import Simulation

    scene = parse_scene(
        "[rules]\nchase = false\n[[groups]]\ncount = 4\n[[orders]]\nselect = { family = "
        '"regular" }\ngoal = [700.0, 500.0]\n',
        "t.toml",
    )
    sim = Simulation(scene)
    sim.step()  # the order is given
    control, seen = sim.orders.control, []

    def marked(*args):
        out = control(*args)
        out.side_on[:] = False
        out.side_on[1] = True
        return out

    def spy(*args):
        seen.append(args[-1].copy())
        return unpin_throttle(*args)

    monkeypatch.setattr(sim.orders, "control", marked)
    monkeypatch.setattr(simulation, "unpin_throttle", spy)
    sim.step()
    np.testing.assert_array_equal(seen[-1][:4], [False, True, False, False])


def test_the_rule_backs_out_for_its_seconds_at_its_throttle():
    """``back_out(dt)``: pressed for more than half a second, a unit backs out for one second
    (60 ticks of 1/60 s, 30 of 1/30 s) at -0.6."""
    assert back_out(1 / 60) == (0.5, 60, -0.6)
    assert back_out(1 / 30) == (0.5, 30, -0.6)


def test_the_pinned_time_measure_counts_by_the_rules_threshold():
    """The pinned-time measure keeps its own copy of ``PIN_SLOW`` (measures import no rules):
    it must count the units the rule finds pressed still, so the two agree."""
    from rigidflock.model.measures import pins

    assert pins.PIN_SLOW == PIN_SLOW
