"""Verification: re-simulating a file names the first tick (and unit) that differs."""

import pytest

from rigidflock import Command
from rigidflock.replay import ReplayReader, verify
from tests.replay.recording import AIDEMO4, record_run


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


def test_verify_reports_progress(tmp_path):
    path = tmp_path / "p.rfr"
    record_run(path, AIDEMO4, 20, chunk_ticks=8)
    seen = []
    with ReplayReader(path) as r:
        res = verify(r, progress=lambda done, total: seen.append((done, total)))
    assert res.ok and res.ticks_checked == 21 and res.complete and res.problem is None
    assert seen == [(t, 21) for t in range(1, 22)]
