"""Overrides (--set, derive): validated like the file, and the changed scene is the stored text."""

import dataclasses
import tomllib

import pytest

from rigidflock import Simulation
from rigidflock.cli import main
from rigidflock.replay import ReplayReader, verify
from rigidflock.scene import SceneError, load_scene, parse_scene
from rigidflock.scene.overrides import apply_overrides, derive, parse_assignment, to_toml
from tests.conftest import ROOT, SCENES

AIDEMO4 = ROOT / "scenes" / "aidemo4.toml"


@pytest.mark.parametrize("path", SCENES, ids=lambda p: p.stem)
def test_every_bundled_scene_survives_being_written_out(path):
    """The TOML writer loses nothing: a scene written out and read again is the same scene."""
    scene = load_scene(path)
    again = parse_scene(to_toml(tomllib.loads(scene.text)), scene.source)
    strip = {"text": "", "warnings": ()}
    assert dataclasses.replace(again, **strip) == dataclasses.replace(scene, **strip)


def test_values_are_toml_and_bare_words_are_strings():
    assert parse_assignment("rules.weights.cohesion=2") == ("rules.weights.cohesion", 2)
    assert parse_assignment("rules.view=narrow") == ("rules.view", "narrow")
    assert parse_assignment("groups[0].spawn.center=[10, 20]")[1] == [10, 20]
    with pytest.raises(ValueError, match="PATH=VALUE"):
        parse_assignment("rules.view")


def test_derive_changes_the_scene_and_its_text():
    scene = derive(load_scene(AIDEMO4), {"rules.view": "narrow", "groups[1].count": 4})
    assert scene.rules.view == "narrow" and scene.groups[1].count == 4
    assert parse_scene(scene.text).rules.view == "narrow"
    assert scene.source == str(AIDEMO4)


def test_a_bad_override_is_the_files_error_naming_the_override():
    with pytest.raises(SceneError) as e:
        apply_overrides(load_scene(AIDEMO4), ["rules.weights.cohesion=abc", "rules.viw=wide"])
    assert e.value.errors == [
        f'{AIDEMO4}: rules.viw: unknown key (did you mean "view"?) (--set rules.viw)',
        f'{AIDEMO4}: rules.weights.cohesion: must be a number >= 0, got "abc" '
        "(--set rules.weights.cohesion)",
    ]


def test_an_index_past_the_end_is_an_error():
    with pytest.raises(SceneError, match=r"--set groups\[7\].count: index 7 is out of range"):
        apply_overrides(load_scene(AIDEMO4), ["groups[7].count=3"])


def test_cli_set_is_recorded_and_verifies(tmp_path, capsys):
    """A replay of a changed scene stores the changed text, so verify re-simulates the same run
    (a scene changed behind the recorder's back would differ from tick 1)."""
    rec = tmp_path / "r.rfr"
    args = ["run", str(AIDEMO4), "--ticks", "60", "--quiet", "--record", str(rec)]
    assert main([*args, "--set", "groups[0].count=7", "--set", "rules.view=narrow"]) == 0
    with ReplayReader(rec) as r:
        scene = r.scene()
        assert scene.groups[0].count == 7 and scene.rules.view == "narrow"
        assert verify(r).ok


@pytest.mark.parametrize("bad", ["groups[0].count=0", "nonsense", "world.size=[1]", "x" * 5000])
def test_cli_bad_set_is_one_line_and_exit_2(bad, tmp_path, capsys):
    out = tmp_path / "m.json"
    assert main(["run", str(AIDEMO4), "--ticks", "5", "--set", bad, "--metrics", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(str(AIDEMO4)) and "--set" in err[0]
    assert len(err[0]) < 300  # a huge value is not echoed back
    assert not out.exists()


def test_simulation_takes_a_path():
    a, b = Simulation(AIDEMO4, seed=3), Simulation(load_scene(AIDEMO4), seed=3)
    for _ in range(20):
        a.step(), b.step()
    assert (a.state.pos == b.state.pos).all()
    with pytest.raises(SceneError, match="cannot read"):
        Simulation(ROOT / "scenes" / "no_such_scene.toml")
