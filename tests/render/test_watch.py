"""``view --watch``: an edit of a setting applies live, an edit of anything else restarts at
tick 0 with the same camera, a broken edit shows its errors and the last good scene runs on."""

import os

import pytest

from rigidflock import Simulation, load_scene
from rigidflock.render.watch import scene_diff
from rigidflock.scene import parse_scene
from tests.conftest import ROOT

AIDEMO4 = ROOT / "scenes" / "aidemo4.toml"


def save(path, text):
    """Write ``text`` as an editor saving would, with a newer modification time."""
    st = path.stat() if path.exists() else None
    path.write_text(text)
    if st is not None:  # the file system's clock may not have moved on since the last save
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


@pytest.fixture
def watched(tmp_path):
    from rigidflock.render.window import Viewer

    path = tmp_path / "scene.toml"
    text = AIDEMO4.read_text()
    save(path, text)
    v = Viewer(Simulation(load_scene(path)), (800, 500), visible=False, tuning=True)
    v.watch(path)
    yield v, path, text
    v.close()


def test_scene_diff_splits_live_keys_from_the_rest():
    a = parse_scene("[[groups]]\ncount = 3\n")
    b = parse_scene(
        'name = "x"\n[rules]\nview = "narrow"\nweights = { cohesion = 2 }\n'
        "[physics]\nangular_damping = 3\n[[groups]]\ncount = 3\nthrust = 12\n"
    )
    live, fixed = scene_diff(a, b)
    assert live == {"rules.view": "narrow", "rules.weights.cohesion": 2.0,
                    "physics.angular_damping": 3.0, "groups[0].thrust": 12.0}  # fmt: skip
    assert fixed == []  # the name changes nothing in a running simulation
    c = parse_scene("[world]\nsize = [500, 500]\n[[groups]]\ncount = 4\n")
    assert sorted(scene_diff(a, c)[1]) == ["groups[0].count", "world.size"]


def test_an_edited_weight_applies_live_at_the_next_tick(watched):
    v, path, text = watched
    v.step_ticks(20)
    save(path, text.replace("cohesion = 1.0", "cohesion = 2.5"))
    got = v.poll_watch(now=1e9)
    assert got.kind == "live" and got.changes == {"rules.weights.cohesion": 2.5}
    v.step_ticks(1)
    assert v.sim.tick == 21 and v.sim.rules.weights.cohesion == 2.5  # the run went on
    assert "(live)" in v.message
    assert v.sim.tuned_scene().rules.weights.cohesion == 2.5  # W writes it back
    assert v.tuner.resets(every=True)["rules.weights.cohesion"] == 2.5  # the file's value now


def test_a_broken_edit_shows_its_errors_and_the_run_survives_it(watched):
    v, path, text = watched
    v.step_ticks(5)
    save(
        path,
        text.replace("cohesion = 1.0", "cohesion = -1.0").replace("[rules]", "[rules]\nbogus = 1"),
    )
    got = v.poll_watch(now=1e9)
    assert got.kind == "error" and len(got.errors) == 2
    assert any("rules.weights.cohesion" in line for line in v.notice_lines)
    assert any("bogus" in line for line in v.notice_lines)
    assert "keeps running" in v.notice_lines[-1]
    v.step_ticks(5)
    v.draw()  # the errors draw over the world
    assert v.sim.tick == 10 and v.sim.rules.weights.cohesion == 1.0
    save(path, "[[groups]\ncount = ")  # not even TOML
    assert v.poll_watch(now=2e9).kind == "error" and "line" in v.notice_lines[0]
    path.unlink()  # an editor that saves by renaming: gone for a moment
    assert v.poll_watch(now=3e9).kind == "error"
    save(path, text.replace("cohesion = 1.0", "cohesion = 0.5"))
    assert v.poll_watch(now=4e9).kind == "live" and v.notice_lines == []
    v.step_ticks(1)
    assert v.sim.tick == 11 and v.sim.rules.weights.cohesion == 0.5


def test_an_edit_that_cannot_apply_live_restarts_at_tick_zero_with_the_same_camera(watched):
    v, path, text = watched
    v.step_ticks(30)
    v.camera.zoom_at((400, 250), 2.0)
    zoom, center = v.camera.zoom, tuple(v.camera.center)
    save(path, text.replace("count = 10", "count = 4", 1))
    got = v.poll_watch(now=1e9)
    assert got.kind == "restart" and got.fixed == ["groups[0].count"]
    assert v.sim.tick == 0 and v.sim.units.n_ai == 14
    assert v.camera.zoom == zoom and tuple(v.camera.center) == center
    assert "groups[0].count changed" in v.message and "tick 0" in v.message
    v.step_ticks(3)
    assert v.poll_watch(now=2e9) is None  # nothing saved since


# -- the scene list (L) --------------------------------------------------------------------------


def press(v, symbol):
    v.window.dispatch_event("on_key_press", symbol, 0)
    v.window.dispatch_events()  # outside pyglet.app.run events are only queued


def test_the_scene_list_opens_a_bundled_scene_with_one_key(tmp_path, monkeypatch):
    from rigidflock.render.backend import key
    from rigidflock.render.scene_list import scene_entries
    from rigidflock.render.window import Viewer

    (tmp_path / "mine.toml").write_text("[[groups]]\ncount = 3\n")
    (tmp_path / "broken.toml").write_text("[[groups]]\ncount = -3\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')  # not a scene
    monkeypatch.chdir(tmp_path)
    entries = scene_entries()
    names = [e.name for e in entries]
    assert names[0] == "aidemo4" and "rts_doorway" in names and names[-2:] == ["broken", "mine"]
    assert entries[-1].where == "here" and len({e.label for e in entries}) == len(entries)
    v = Viewer(Simulation("aidemo4"), (800, 500), visible=False)
    try:
        v.step_ticks(5)
        press(v, key.L)
        assert v.scenes.shown
        v.draw()  # the list draws over the world
        doorway = next(e for e in entries if e.name == "rts_doorway")
        press(v, ord(doorway.label))  # one key
        assert not v.scenes.shown and v.sim.tick == 0
        assert v.sim.scene.name == load_scene(doorway.path).name
        assert v.sim.scene.world.size == load_scene(doorway.path).world.size
        v.step_ticks(2)
        press(v, key.L)
        press(v, key.UP)  # the cursor wraps to the last
        press(v, key.ENTER)
        assert v.sim.units.n_ai == 3 and v.sim.tick == 0  # mine.toml, from the current folder
        press(v, key.L)
        broken = next(e for e in v.scenes.entries if e.name == "broken")
        press(v, ord(broken.label))
        assert v.sim.units.n_ai == 3  # not opened: the errors show, the scene runs on
        assert any("groups[0].count" in line for line in v.notice_lines)
    finally:
        v.close()
