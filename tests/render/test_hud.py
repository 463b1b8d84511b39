"""The side panel's words: one status builder for the live viewer and the replay (no OpenGL)."""

from rigidflock import Simulation, load_scene
from rigidflock.render.hud import rule_rows, sim_hud, status_rows
from rigidflock.replay import Recorder, ReplayReader
from rigidflock.replay.playback import Playback
from rigidflock.scene import RulesSpec
from tests.conftest import ROOT

AIDEMO4 = ROOT / "scenes" / "aidemo4.toml"


def test_rule_rows_mark_switches_queued_for_the_next_tick():
    rules = RulesSpec()
    assert rule_rows(rules) == [("view", "wide"), ("rules", "flocking chase avoid")]
    rows = rule_rows(rules, {"chase": False, "view": "narrow"})
    assert rows == [("view", "narrow*"), ("rules", "flocking avoid"), ("off", "chase*")]


def test_live_and_replay_status_agree_on_the_same_tick(tmp_path):
    from rigidflock.render.replay_window import replay_hud

    path = tmp_path / "h.rfr"
    sim = Simulation(load_scene(AIDEMO4))
    with Recorder(path, sim) as rec:
        for _ in range(30):
            rec.record(None, sim.step())
    live_hud = sim_hud(sim, speed=2.0, paused=True, interactive=True)
    live = dict(live_hud.status)
    with ReplayReader(path) as r:
        hud = replay_hud(Playback(r), Playback(r).view(30), speed=2.0, paused=True, keys=True)
    stored = dict(hud.status)
    for name in ("speed", "units", "leaders", "view", "rules", "contacts"):
        assert live[name] == stored[name], name
    # the contact figures: running totals in both, the same numbers
    assert live_hud.status[-3:] == hud.status[-3:]
    assert hud.status[-3][1] == "so far"
    assert live["tick"] == "30" and stored["tick"] == "30 / 30"
    assert live["player"].split(" u/s")[0] == stored["player"].split(" u/s")[0]
    assert live["speed"] == "x2  PAUSED"
    assert hud.title == "rigidflock replay" and "click the timeline to seek" in hud.notes


def test_status_rows_order():
    sim = Simulation(load_scene(AIDEMO4))
    rows = status_rows(
        [("tick", "0")], sim.units, sim.state, sim.rules, player=" x", rts=[("orders", "none")],
        contacts=(1, 2, 3, 4),
    )  # fmt: skip
    names = [k for k, _ in rows]
    assert names == [
        "tick",
        "units",
        "leaders",
        "view",
        "rules",
        "player",
        "orders",
        "contacts",
        "",
        "",
    ]
    assert rows[-3:] == [
        ("contacts", "so far"),
        ("", "unit 1  obst 2"),
        ("", "wall 3  player 4"),
    ]
    assert rows[5][1].endswith(" u/s x")
