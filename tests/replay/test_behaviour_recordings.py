"""Recordings of runs with behaviours: each behaviour's name and source hash in the header;
opening one imports nothing; re-simulating imports only with leave (or installed code);
``verify`` says when a behaviour's source changed. Tested through the command line, in this
process, with a behaviour module that writes a file when it is imported."""

import importlib
import importlib.metadata
import sys

import pytest

from rigidflock.cli import main
from rigidflock.model.behaviours import ENTRY_POINT_GROUP, source_hash, trusted
from rigidflock.replay import ReplayReader, info, verify
from rigidflock.replay.playback import Playback
from rigidflock.sim import Simulation
from tests import behaviour_rules

SCENE = """
name = "side effects"
seed = 4
[rules]
flocking = false
chase = false
[[groups]]
count = 12
role = "none"
[[behaviours]]
function = "{function}"
params = {{ turn = 40.0 }}
"""

MODULE = """
import pathlib
pathlib.Path({marker!r}).write_text("imported")

import numpy as np


def steer(units, params):
    h = units.heading
    k = units.rng.uniform(-0.5, 0.5, units.n)
    return np.stack([h[:, 0] - k * h[:, 1], h[:, 1] + k * h[:, 0]], axis=1)
"""


@pytest.fixture
def side_effect(tmp_path):
    """A scene beside a module that writes ``marker`` when imported, recorded for 60 ticks;
    the module is then forgotten (sys.modules) and the marker removed, as in a fresh process."""
    name = f"sidefx_{tmp_path.name.replace('-', '_')}"
    marker = tmp_path / "imported.txt"
    (tmp_path / f"{name}.py").write_text(MODULE.format(marker=str(marker)))
    scene = tmp_path / "scene.toml"
    scene.write_text(SCENE.format(function=f"{name}:steer"))
    rec = tmp_path / "run.rfr"
    importlib.invalidate_caches()
    assert main(["run", str(scene), "--ticks", "60", "--record", str(rec), "--quiet"]) == 0
    assert marker.exists()  # running the scene imported it, as running a script would
    sys.modules.pop(name, None)
    marker.unlink()
    yield rec, marker, name, tmp_path
    sys.modules.pop(name, None)


def test_the_header_names_each_behaviour_and_its_source_hash(side_effect):
    rec, marker, name, _ = side_effect
    with ReplayReader(rec) as r:
        stored = r.header["behaviours"]
        assert [b["function"] for b in stored] == [f"{name}:steer"]
        assert len(stored[0]["source_hash"]) == 16 and info(r)["behaviours"] == stored
    assert not marker.exists()


def test_info_and_verify_without_leave_never_import(side_effect, capsys):
    """``replay --info`` lists the behaviours (exit 0); ``verify`` says which behaviours the
    file needs and how to allow them (exit 2); playback draws the stored states. The module's
    file is never written."""
    rec, marker, name, _ = side_effect
    assert main(["replay", str(rec), "--info"]) == 0
    out = capsys.readouterr().out
    assert f"{name}:steer (source hash " in out and "--allow-behaviours" in out
    assert main(["verify", str(rec)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"needs the behaviours {name}:steer" in err[0]
    assert "--allow-behaviours" in err[0]
    with ReplayReader(rec) as r:
        assert Playback(r).view(30).tick == 30
        with pytest.raises(Exception, match="allow-behaviours"):
            verify(r)
    assert name not in sys.modules and not marker.exists()


def test_verify_with_leave_imports_and_matches(side_effect, capsys):
    rec, marker, _, _ = side_effect
    assert main(["verify", str(rec), "--allow-behaviours"]) == 0
    assert "identical: 61 ticks" in capsys.readouterr().out
    assert marker.exists()


def test_verify_says_when_a_behaviours_source_changed(side_effect, capsys):
    """The same rule with a changed source (a comment in the function: the same run) verifies,
    with a note naming the behaviour and both hashes."""
    rec, _, name, folder = side_effect
    path = folder / f"{name}.py"
    path.write_text(
        path.read_text().replace("    h = units.heading", "    # edited\n    h = units.heading")
    )
    importlib.invalidate_caches()
    assert main(["verify", str(rec), "--allow-behaviours"]) == 0
    err = capsys.readouterr().err
    assert f"behaviour '{name}:steer': its source changed since the recording" in err


def test_a_registered_entry_point_needs_no_leave(tmp_path, monkeypatch, capsys):
    """A name registered in the entry point group is installed code: a scene names it without
    a module, and its recordings verify without --allow-behaviours (a fake distribution's
    entry point, through importlib.metadata)."""
    ep = importlib.metadata.EntryPoint("eastward", "tests.behaviour_rules:east", ENTRY_POINT_GROUP)
    real = importlib.metadata.entry_points

    def entry_points(**select):
        if select.get("group") == ENTRY_POINT_GROUP:
            return importlib.metadata.EntryPoints([ep])
        return real(**select)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    assert trusted("eastward") and trusted("tests.behaviour_rules:east")
    assert not trusted("tests.behaviour_rules:crawl")
    scene = tmp_path / "east.toml"
    scene.write_text(SCENE.format(function="eastward"))
    sim = Simulation(str(scene))
    assert sim.behaviours_used == [
        {"function": "eastward", "source_hash": source_hash(behaviour_rules.east)}
    ]
    rec = tmp_path / "east.rfr"
    assert main(["run", str(scene), "--ticks", "30", "--record", str(rec), "--quiet"]) == 0
    assert main(["verify", str(rec)]) == 0
    capsys.readouterr()
    scene.write_text(SCENE.format(function="westward"))
    assert main(["check", str(scene)]) == 2
    err = capsys.readouterr().err
    assert "behaviours[0].function: no behaviour named 'westward'" in err
    assert "registered: eastward" in err


def test_the_shipped_wander_records_and_verifies(tmp_path, capsys):
    """The bundled wander scene (rigidflock's own example: no leave needed) recorded twice with
    one seed gives the same states, and each recording verifies."""
    a, b = tmp_path / "a.rfr", tmp_path / "b.rfr"
    for path in (a, b):
        assert main(["run", "wander", "--ticks", "120", "--record", str(path), "--quiet",
                     "--exact"]) == 0  # fmt: skip
    with ReplayReader(a) as ra, ReplayReader(b) as rb:
        for tick in (0, 60, 120):
            assert ra.state(tick).pos.tobytes() == rb.state(tick).pos.tobytes()
        assert verify(ra).ok
    assert main(["verify", str(b)]) == 0
