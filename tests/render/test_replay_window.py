"""The replay window driven by synthetic events (headless), and the live viewer's R key."""

import pytest

from rigidflock import Simulation, load_scene
from rigidflock.replay import Recorder, ReplayReader, verify
from tests.conftest import ROOT

AIDEMO4 = ROOT / "scenes" / "aidemo4.toml"
pytest.importorskip("pyglet")


def press(window, symbol, modifiers=0):
    window.dispatch_event("on_key_press", symbol, modifiers)
    window.dispatch_events()  # outside pyglet.app.run events are only queued


@pytest.fixture
def replay_viewer(tmp_path):
    from rigidflock.render.replay_window import ReplayViewer
    from rigidflock.replay.playback import Playback

    path = tmp_path / "r.rfr"
    sim = Simulation(load_scene(AIDEMO4))
    with Recorder(path, sim) as rec:
        for _ in range(200):
            rec.record(None, sim.step())
    reader = ReplayReader(path)
    v = ReplayViewer(Playback(reader), (1000, 600), visible=False, screenshot_dir=tmp_path)
    yield v
    v.close()
    reader.close()


def test_keys_step_jump_and_seek(replay_viewer):
    from rigidflock.render.backend import key

    v = replay_viewer
    assert v.tick == 0 and not v.paused
    press(v.window, key.RIGHT)
    assert v.paused and v.tick == 1
    press(v.window, key.RIGHT, key.MOD_SHIFT)
    assert v.tick == 61
    press(v.window, key.LEFT)
    assert v.tick == 60
    press(v.window, key.END)
    assert v.tick == 200
    press(v.window, key.RIGHT)
    assert v.tick == 200  # clamped
    press(v.window, key.HOME)
    assert v.tick == 0
    speed = v.speed
    press(v.window, key.BRACKETRIGHT)
    assert v.speed == 2 * speed
    press(v.window, key.BRACKETLEFT)
    press(v.window, key.BRACKETLEFT)
    assert v.speed == speed / 2
    press(v.window, key.SPACE)
    assert not v.paused
    v.advance(1.0)  # one real second at half speed: ~30 ticks
    assert 28 <= v.tick <= 31
    v.advance(100.0)
    assert v.tick == 200 and v.paused  # stops at the end


def test_timeline_click_seeks(replay_viewer):
    from rigidflock.render.backend import mouse
    from rigidflock.render.replay_window import timeline_rect

    v = replay_viewer
    x0, y0, x1, y1 = timeline_rect(*v.window.get_size())
    v.window.dispatch_event("on_mouse_press", (x0 + x1) / 2, (y0 + y1) / 2, mouse.LEFT, 0)
    v.window.dispatch_events()
    assert v.tick == 100
    v.window.dispatch_event("on_mouse_drag", x0 + 0.25 * (x1 - x0), y0, 0, 0, mouse.LEFT, 0)
    v.window.dispatch_events()
    assert v.tick == 50


def test_overlays_and_capture(replay_viewer, tmp_path):
    from rigidflock.render.backend import key

    v = replay_viewer
    v.seek(120)
    plain = v.capture()
    for sym in (key.V, key.E, key.N, key.T):
        press(v.window, sym)
    extra = v.capture()
    assert plain.shape == extra.shape == (600, 1000, 4)
    assert (plain != extra).any(axis=-1).sum() > 500
    v.draw()  # the window path too, with the timeline
    press(v.window, key.S)
    assert (tmp_path / "rigidflock-replay-r-000120.png").exists()


def test_viewer_r_key_records_mid_run_and_verifies(tmp_path):
    from rigidflock.render.backend import key
    from rigidflock.render.window import Viewer

    v = Viewer(Simulation(load_scene(AIDEMO4)), (800, 600), visible=False, screenshot_dir=tmp_path)
    try:
        press(v.window, key.UP)
        press(v.window, key.LEFT)
        v.step_ticks(30)  # driven by keys before the recording starts
        press(v.window, key.R)
        assert v.recorder is not None
        press(v.window, key.F)  # flocking off, recorded as a toggle
        v.step_ticks(20)
        v.window.dispatch_event("on_key_release", key.LEFT, 0)
        v.window.dispatch_events()
        v.step_ticks(20)
        press(v.window, key.R)
        assert v.recorder is None
    finally:
        v.close()
    files = list(tmp_path.glob("rigidflock-aidemo4-*.rfr"))
    assert len(files) == 1
    with ReplayReader(files[0]) as r:
        assert (r.first_tick, r.last_tick) == (30, 70) and r.complete
        assert r.inputs()[30].toggles == (("flocking", False),)
        assert r.header["prelude"]  # the keys of ticks 0..29
        res = verify(r)
    assert res.ok and res.ticks_checked == 41
