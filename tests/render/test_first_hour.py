"""What a newcomer sees in the viewer and in replays: the arrows take over any player, the
legend lists what the scene can show, a resize refits, replays draw the orders and count contacts
as the live panel does, and the player's command is shown as given."""

import numpy as np
import pytest

from rigidflock import Simulation, bundled_scene, load_scene
from rigidflock.render.frame import Overlays, frame_from_sim
from rigidflock.render.hud import fit_text, overlay_legend, replay_hud, sim_hud
from rigidflock.replay import Recorder, ReplayReader
from rigidflock.replay.playback import Playback


def press(viewer, symbol, modifiers=0):
    viewer.window.dispatch_event("on_key_press", symbol, modifiers)
    viewer.window.dispatch_events()


def release(viewer, symbol, modifiers=0):
    viewer.window.dispatch_event("on_key_release", symbol, modifiers)
    viewer.window.dispatch_events()


def test_arrow_keys_take_over_a_waypoint_player(capsys):
    from rigidflock.render.backend import key
    from rigidflock.render.window import Viewer

    sim = Simulation("walls")
    assert sim.scene.player.control == "waypoints"
    v = Viewer(sim, (800, 600), visible=False)
    try:
        v.step_ticks(5)
        assert sim.player_command[0] == 1.0  # the autopilot: full throttle
        assert dict(v.hud(fresh=True).status)["player"].endswith("autopilot")
        assert "arrow keys: take over the player" in v.hud(fresh=True).notes
        press(v, key.DOWN)
        press(v, key.RIGHT)
        v.step_ticks(3)
        assert sim.player_command == (-1.0, -1.0)  # the arrows, not the autopilot
        status = v.hud(fresh=True)
        assert dict(status.status)["player"].endswith("arrow keys")
        assert "drive the player now" in capsys.readouterr().out
        release(v, key.DOWN)
        release(v, key.RIGHT)
        v.step_ticks(1)
        assert sim.player_command == (0.0, 0.0)  # taken over: nothing held, it coasts
    finally:
        v.close()


def test_legend_lists_only_what_the_scene_can_show():
    everything = Overlays.parse("all")
    no_player = sim_hud(Simulation("view_wide"))
    labels = [t for _, t in overlay_legend(everything, no_player)]
    assert "chase aim (the player)" not in labels and "intercept aim point (x)" not in labels
    assert "feeler touching" not in labels  # nothing to touch in an empty wrap-around world
    full = [t for _, t in overlay_legend(everything, sim_hud(Simulation("aidemo4")))]
    assert "chase aim (the player)" in full and "intercept aim point (x)" in full
    assert "feeler touching" in full


def test_pictures_carry_no_interactive_hints():
    hud = sim_hud(Simulation("aidemo4"))
    names = [k for k, _ in hud.status]
    assert "speed" not in names and "fps" not in names and not hud.hints
    assert not any("arrow" in n for n in hud.notes)


def test_resize_refits_the_world():
    from rigidflock.render.camera import fit_camera
    from rigidflock.render.window import Viewer

    v = Viewer(Simulation("aidemo4"), (800, 600), visible=False)
    try:
        v.on_resize(1400, 700)
        want = fit_camera(v.world_size, (1400, 700))
        assert v.camera.zoom == pytest.approx(want.zoom)
        np.testing.assert_allclose(v.camera.center, want.center)
        assert v.camera.viewport == want.viewport
    finally:
        v.close()


def test_long_names_fit_the_panel():
    name = "rigidflock-rts_chokepoint-20250101-120000.rfr"
    short = fit_text(name, 22)
    assert len(short) == 22 and short.startswith("rigidflock") and short.endswith(".rfr")


@pytest.fixture(scope="module")
def doorway_replay(tmp_path_factory):
    """rts_doorway recorded exactly for 240 ticks (its order is given at tick 30), with the live
    simulation's orders and contact totals kept at tick 200."""
    path = tmp_path_factory.mktemp("rfr") / "doorway.rfr"
    sim = Simulation(load_scene(bundled_scene("rts_doorway")))
    live = {}
    with Recorder(path, sim, precision="exact") as rec:
        for _ in range(240):
            rec.record(None, sim.step())
            if sim.tick == 200:
                f = frame_from_sim(sim, vectors=False)
                live = {
                    "slots": f.slots.copy(),
                    "paths": [p.copy() for p in f.paths],
                    "contacts": sim_hud(sim).status[-3:],
                    "arrived": [g.arrived.copy() for g in sim.orders.groups.values()],
                }
    return path, live


def test_replay_draws_the_orders_the_live_run_had(doorway_replay):
    path, live = doorway_replay
    with ReplayReader(path) as r:
        pb = Playback(r)
        assert pb.view(20).orders is not None and not pb.view(20).orders.groups  # not yet
        view = pb.view(200)
        f = frame_from_sim(view, vectors=False)
        # exact file: the rebuilt slots and routes are the live ones
        np.testing.assert_array_equal(f.slots, live["slots"])
        assert len(f.paths) == len(live["paths"]) == 1
        np.testing.assert_array_equal(f.paths[0], live["paths"][0])
        hud = replay_hud(pb, view)
        assert [k for k, _, _ in hud.marks][-2:] == ["slot", "route"]
        assert dict(hud.status)["orders"].startswith("1 group")
        # seeking back and forth gives the same
        pb.view(230)
        np.testing.assert_array_equal(frame_from_sim(pb.view(200), vectors=False).slots, f.slots)


def test_replay_counts_contacts_like_the_live_panel(doorway_replay):
    path, live = doorway_replay
    with ReplayReader(path) as r:
        hud = replay_hud(Playback(r), Playback(r).view(200))
    assert hud.status[-3:] == live["contacts"]
    assert hud.status[-3][1] == "so far"
    assert int(live["contacts"][1][1].split()[1]) > 0  # the doorway run has unit contacts by then


def test_replay_shows_the_players_command_as_given(tmp_path, scene_from):
    scene = scene_from(
        '[[groups]]\ncount = 3\n[player]\nposition = [100.0, 100.0]\ncontrol = "script"\n'
        "script = [{ tick = 0, throttle = 0.5, steer = 0.37 }]\n"
    )
    sim = Simulation(scene)
    path = tmp_path / "p.rfr"
    with Recorder(path, sim) as rec:
        for _ in range(5):
            rec.record(None, sim.step())
    with ReplayReader(path) as r:
        pb = Playback(r)
        player = dict(replay_hud(pb, pb.view(5)).status)["player"]
    assert "+0.50" in player and "+0.37" in player


def test_replay_screenshot_of_an_rts_run_shows_route_and_slots(doorway_replay, tmp_path):
    from rigidflock.render import colors as C
    from rigidflock.render.replay_window import replay_screenshot

    path, _ = doorway_replay
    with ReplayReader(path) as r:
        image = replay_screenshot(Playback(r), 200, tmp_path / "s.png", (1000, 700))
    world = image[:, 260:, :3].astype(int)
    route = (np.abs(world - np.asarray(C.ROUTE[:3])) <= 30).all(axis=-1)
    assert route.sum() > 50  # the route is drawn
