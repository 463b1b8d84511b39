"""The live viewer's side-panel state: rates, the cached HUD, messages (no window)."""

from rigidflock.render.hud import Hud
from rigidflock.render.live_status import HUD_INTERVAL, LiveStatus, Rate


def test_rate_counts_the_last_second():
    r = Rate()
    r.add(0.0, 3)
    r.add(0.5)
    assert r.value(0.9) == 4.0
    assert r.value(1.2) == 1.0  # the three at t=0 are over a second old


def test_status_is_rebuilt_when_due_and_shows_recording_and_message(capsys):
    st = LiveStatus()
    assert st.due(0.0)
    hud = st.show(Hud(status=[("tick", "1")]), 10.0, recording="x.rfr")
    assert hud.status[-1] == ("REC", "x.rfr") and st.hud is hud
    assert not st.due(10.0 + HUD_INTERVAL / 2) and st.due(10.0 + HUD_INTERVAL)
    st.say("goal moved")
    assert st.hud is None and capsys.readouterr().out == "rigidflock: goal moved\n"
    import time

    hud = st.show(Hud(), time.perf_counter())
    assert hud.notes == ["goal moved"]
