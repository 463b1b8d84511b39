"""The viewer's tuning panel driven by synthetic mouse and key events (headless): a slider moved
or a setting stepped changes the setting in the next tick's command, a recording of the session
verifies, the scene written back passes ``check`` with the tuned settings."""

import numpy as np
import pytest

from rigidflock import Simulation, load_scene
from rigidflock.cli import main
from rigidflock.render.tuning import Setting, Tuner, settings_for
from rigidflock.replay import ReplayReader, verify
from rigidflock.scene import parse_scene
from tests.conftest import ROOT

AIDEMO4 = ROOT / "scenes" / "aidemo4.toml"


@pytest.fixture
def viewer(tmp_path):
    from rigidflock.render.window import Viewer

    v = Viewer(Simulation(load_scene(AIDEMO4)), (1000, 700), visible=False, tuning=True,
               screenshot_dir=tmp_path)  # fmt: skip
    v.draw()  # lays the panel out
    yield v
    v.close()


def press(viewer, symbol, modifiers=0):
    viewer.window.dispatch_event("on_key_press", symbol, modifiers)
    viewer.window.dispatch_events()


def mouse(viewer, name, *args):
    viewer.window.dispatch_event(name, *args)
    viewer.window.dispatch_events()


def slider_point(viewer, path, fraction):
    """The screen point ``fraction`` of the way along the slider of ``path``."""
    i = [s.path for s in viewer.tuner.settings].index(path)
    sl = viewer.panel.sliders[i]
    return round(sl.x + fraction * sl.width), round(sl.y + sl.height / 2)


def test_settings_snap_to_steps_and_hold_the_scenes_values():
    s = Setting("rules.weights.cohesion", "cohesion", 0.0, 5.0, 0.05)
    assert s.snap(1.2345) == 1.25 and s.snap(-3) == 0.0 and s.snap(99) == 5.0
    assert s.at(0.5) == 2.5 and s.fraction(1.25) == 0.25 and s.text(1.25) == "1.25"
    big = parse_scene("[rules]\nsteering_force = 300\n[[groups]]\ncount = 2\n")
    (force,) = [x for x in settings_for(big) if x.path == "rules.steering_force"]
    assert force.high >= 600  # the scene's own value sits inside the range, not at its end


def test_a_slider_dragged_changes_the_setting_in_the_next_ticks_command(viewer, tmp_path):
    from rigidflock.render.backend import mouse as buttons

    sim, commands = viewer.sim, []
    viewer.on_command = lambda tick, command: commands.append(command)
    viewer.start_recording(tmp_path / "tuned.rfr")
    viewer.step_ticks(10)
    x, y = slider_point(viewer, "rules.weights.cohesion", 0.3)
    mouse(viewer, "on_mouse_press", x, y, buttons.LEFT, 0)
    x2, _ = slider_point(viewer, "rules.weights.cohesion", 0.8)
    mouse(viewer, "on_mouse_drag", x2, y, x2 - x, 0, buttons.LEFT, 0)
    mouse(viewer, "on_mouse_release", x2, y, buttons.LEFT, 0)
    assert sim.rules.weights.cohesion == 1.0  # changes wait for the next tick
    # the press went to the panel, not to the world's selection
    assert len(viewer.selection) == 0 and viewer.marquee is None
    viewer.step_ticks(1)
    (path, value), *_ = commands[-1].changes.items()
    # 80% of the way along 0..5 (the knob's width takes a little off the travel)
    assert path == "rules.weights.cohesion" and 3.6 <= value <= 4.2
    assert sim.rules.weights.cohesion == value
    viewer.step_ticks(30)
    viewer.stop_recording()
    with ReplayReader(tmp_path / "tuned.rfr") as reader:
        result = verify(reader)
    assert result.ok and result.complete and result.ticks_checked == 42


def test_keys_select_step_and_reset_settings(viewer):
    from rigidflock.render.backend import key

    sim, commands = viewer.sim, []
    viewer.on_command = lambda tick, command: commands.append(command)
    assert viewer.tuner.settings[viewer.tuner.selected].path == "rules.weights.cohesion"
    press(viewer, key.TAB)  # alignment
    press(viewer, key.BRACKETRIGHT)
    press(viewer, key.BRACKETRIGHT, key.MOD_SHIFT)  # 10 steps
    viewer.step_ticks(1)
    assert commands[-1].changes == {"rules.weights.alignment": 1.55}
    assert sim.rules.weights.alignment == 1.55
    press(viewer, key.TAB, key.MOD_SHIFT)
    press(viewer, key.BRACKETLEFT)
    viewer.step_ticks(1)
    assert sim.rules.weights.cohesion == 0.95
    press(viewer, key.BACKSPACE, key.MOD_SHIFT)  # all back to the scene's values
    viewer.step_ticks(1)
    assert sim.rules.weights == sim.scene.rules.weights
    assert commands[-1].changes["groups[1].thrust"] == 15.0  # the interceptors' thrust


def test_the_wheel_over_a_slider_steps_it_and_the_world_does_not_zoom(viewer):
    zoom = viewer.camera.zoom
    x, y = slider_point(viewer, "rules.steering_force", 0.5)
    mouse(viewer, "on_mouse_scroll", x, y, 0, 1)
    viewer.step_ticks(1)
    assert viewer.sim.rules.steering_force == 20.5 and viewer.camera.zoom == zoom


def test_a_change_the_run_refuses_is_said_and_dropped(viewer):
    viewer.controls.change("groups[0].thrust", 1e6)  # the physics cannot take it
    viewer.step_ticks(1)
    assert viewer.sim.tick == 1 and viewer.sim.units.thrust[0] == 10.0
    assert "not changed" in viewer.message and "groups[0]" in viewer.message


def test_p_hides_the_panel_and_the_world_takes_the_room(viewer):
    from rigidflock.render.backend import key

    width = viewer.camera.viewport[2]
    press(viewer, key.P)
    assert not viewer.tuner.shown and viewer.camera.viewport[2] > width
    x, y = (viewer.panel.rect[0] + 20, 300)
    assert not viewer.panel.inside(x, y)
    press(viewer, key.P)
    assert viewer.tuner.shown and viewer.camera.viewport[2] == width


def test_the_panel_scales_with_the_window():
    from rigidflock.render.tuning_panel import tuning_width

    assert tuning_width(1280, 800) == 240 and tuning_width(640, 400) == 144


def test_w_writes_the_scene_as_tuned_and_check_accepts_it(viewer, tmp_path, capsys):
    from rigidflock.render.backend import key

    viewer.controls.change("rules.weights.separation", 2.5)
    viewer.controls.change("groups[0].thrust", 12.0)
    press(viewer, key.F)  # a rule switch is a setting too
    viewer.step_ticks(3)
    press(viewer, key.W)
    path = tmp_path / "aidemo4-tuned.toml"
    assert path.exists() and "wrote aidemo4-tuned.toml" in viewer.message
    assert main(["check", str(path)]) == 0
    scene = load_scene(path)
    assert scene.rules == viewer.sim.rules and not scene.rules.flocking
    assert scene.groups[0].thrust == 12.0
    np.testing.assert_array_equal(Simulation(scene).units.thrust, viewer.sim.units.thrust)


def test_view_save_tuned_writes_the_scene_with_its_overrides(tmp_path):
    out, shot = tmp_path / "tuned.toml", tmp_path / "shot.png"
    rc = main(["view", str(AIDEMO4), "--set", "rules.weights.cohesion=2.5", "--ticks", "2",
               "--screenshot", str(shot), "--save-tuned", str(out)])  # fmt: skip
    assert rc == 0 and main(["check", str(out)]) == 0
    assert load_scene(out).rules.weights.cohesion == 2.5


def test_tuner_without_a_window():
    t = Tuner(load_scene(AIDEMO4))
    assert t.select(-1).path == "groups[1].thrust"  # wraps round
    assert t.stepped(15.0, 3) == ("groups[1].thrust", 16.5)
    assert t.resets(every=False) == {"groups[1].thrust": 15.0}
