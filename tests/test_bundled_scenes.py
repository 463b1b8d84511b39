"""Scenes travel with the package: listed, copied out, and taken by name wherever a scene is."""

import re

import pytest

from rigidflock import Simulation, bundled_scene
from rigidflock.bundled import bundled, bundled_names, resolve_scene, resolve_sweep
from rigidflock.cli import main
from tests.conftest import ROOT


def test_the_top_level_scenes_folder_is_the_package_one():
    assert (ROOT / "scenes").resolve() == (ROOT / "rigidflock" / "bundled").resolve()
    assert {p.stem for p in (ROOT / "scenes").glob("*.toml")} == set(bundled_names())


def test_package_data_declares_the_scenes():
    """Every .toml under rigidflock/bundled (the bundled sweeps too) matches a package-data glob,
    so a wheel carries it (the slow wheel test checks a real build)."""
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = data["tool"]["setuptools"]["package-data"]["rigidflock.bundled"]
    folder = ROOT / "rigidflock" / "bundled"
    files = sorted(folder.rglob("*.toml"))
    assert len(files) >= 12  # eleven scenes and the forest cohesion sweep
    for f in files:
        assert any(f.relative_to(folder).match(g) for g in globs), f


def test_names_resolve_with_or_without_the_extension():
    assert bundled_scene("aidemo4") == bundled_scene("aidemo4.toml")
    assert bundled_scene("aidemo4").is_file()
    assert bundled_scene("../aidemo4") is None and bundled_scene("nope") is None


def test_an_existing_file_wins_over_a_bundled_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_scene("aidemo4") == bundled_scene("aidemo4")
    (tmp_path / "aidemo4.toml").write_text("[[groups]]\ncount = 2\n")
    assert resolve_scene("aidemo4.toml").resolve() == (tmp_path / "aidemo4.toml").resolve()


def test_run_and_simulation_take_a_bundled_name(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "aidemo4", "--ticks", "3", "--quiet"]) == 0
    assert main(["check", "rts_doorway.toml"]) == 0
    assert Simulation("forest", seed=2).units.n_ai == 40


def test_the_readmes_checkout_paths_work_anywhere(tmp_path, monkeypatch, capsys):
    """The README writes scene and sweep paths as in a checkout (``scenes/forest.toml``,
    ``scenes/sweeps/forest_cohesion.toml``); run from any other folder (an installed copy) they
    name the bundled files, and a sweep also goes by its name. A file of that path here wins."""
    monkeypatch.chdir(tmp_path)
    folder = ROOT / "rigidflock" / "bundled"
    assert resolve_scene("scenes/forest.toml").resolve() == (folder / "forest.toml").resolve()
    scenario = resolve_scene("scenes/scenarios/wall_squeeze.toml").resolve()
    assert scenario == (folder / "scenarios" / "wall_squeeze.toml").resolve()
    sweep = (folder / "sweeps" / "forest_cohesion.toml").resolve()
    assert resolve_sweep("scenes/sweeps/forest_cohesion.toml").resolve() == sweep
    assert resolve_sweep("forest_cohesion").resolve() == sweep
    # not mapped: out of the folder and back in, a sweep as a scene, a scene as a sweep, not TOML
    for arg in ("scenes/../scenes/forest.toml", "scenes/sweeps/forest_cohesion.toml",
                "scenes/__init__.py"):  # fmt: skip
        assert str(resolve_scene(arg)) == arg
    assert str(resolve_sweep("scenes/forest.toml")) == "scenes/forest.toml"
    assert resolve_scene("scenes/nope.toml").name == "nope.toml"  # left for the reader to report
    assert main(["check", "scenes/scenarios/wall_squeeze.toml"]) == 0
    (tmp_path / "scenes").mkdir()
    (tmp_path / "scenes" / "forest.toml").write_text("[[groups]]\ncount = 2\n")
    assert (
        resolve_scene("scenes/forest.toml").resolve() == (tmp_path / "scenes/forest.toml").resolve()
    )


def test_an_unknown_name_is_one_clear_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "aidemo5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "rigidflock run: no such scene file or bundled scene: aidemo5 (did you mean aidemo4?)"
    ]


def test_scenes_lists_every_bundled_scene_with_a_line_about_it(capsys):
    assert main(["scenes"]) == 0
    out = capsys.readouterr().out
    for s in bundled("scene"):
        assert s.name in out.split("scenarios (")[0]
    assert "AI for Game Developers" in out
    # and the bundled sweeps, which `rigidflock sweep NAME` takes
    sweeps = out.split("sweeps (rigidflock sweep NAME):")[1]
    assert re.search(
        r"^  forest_cohesion +Which cohesion weight keeps a flock together", sweeps, re.M
    )


def test_scenes_copy_copies_and_never_overwrites(tmp_path, capsys):
    assert main(["scenes", "copy", "aidemo4", str(tmp_path)]) == 0
    copied = tmp_path / "aidemo4.toml"
    assert copied.read_text() == bundled_scene("aidemo4").read_text()
    copied.write_text("# mine\n")
    capsys.readouterr()
    assert main(["scenes", "copy", "aidemo4", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and copied.read_text() == "# mine\n"
    assert main(["scenes", "copy", "aidemo4", str(tmp_path / "mine.toml")]) == 0
    assert main(["scenes", "copy", "nope", str(tmp_path)]) == 2


@pytest.mark.slow
def test_the_wheel_holds_the_scenes(tmp_path):
    import subprocess
    import sys
    import zipfile

    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True,
    )
    (wheel,) = tmp_path.glob("rigidflock-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for stem in bundled_names():
        assert f"rigidflock/bundled/{stem}.toml" in names
