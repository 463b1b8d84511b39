"""Recordings made before the package moved into layers (rigidflock 0.1.0, format 1, no model
version field: model 1) still verify: the move changed no arithmetic, so re-simulating them gives
the stored states integer for integer (compact precision). A recording of another model version
cannot be verified; ``verify`` says so in one line instead of reporting a difference."""

import pytest

from rigidflock.cli import main
from rigidflock.replay import ReplayReader, verify
from rigidflock.replay.playback import Playback
from tests.conftest import ROOT

FIXTURES = sorted((ROOT / "tests" / "fixtures").glob("*.rfr"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_recording_from_before_the_layers_still_verifies(path):
    with ReplayReader(path) as reader:
        assert reader.ticks == 121  # recorded with --ticks 120 (tick 0 included)
        assert reader.header.get("model_version") is None  # written before the field: model 1
        result = verify(reader)
    assert result.ok, result
    assert result.ticks_checked == 121 and result.complete


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_recording_of_another_model_says_so_in_one_line(path, capsys, monkeypatch):
    """As a later rigidflock whose model changed (MODEL_VERSION 2) would see these files."""
    import importlib

    # the package exports the function verify under the module's name: import the module itself
    monkeypatch.setattr(importlib.import_module("rigidflock.replay.verify"), "MODEL_VERSION", 2)
    line = (
        "recorded by model version 1; this rigidflock simulates model 2: "
        "cannot verify; replay and export still work"
    )
    with ReplayReader(path) as reader:
        result = verify(reader)
    assert not result.ok and result.difference is None
    assert result.unverifiable == line and result.ticks_checked == 0
    assert main(["verify", str(path)]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [f"rigidflock: {path}: {line}"]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_an_old_recording_plays_back(path):
    with ReplayReader(path) as reader:
        playback = Playback(reader)
        for tick in (playback.first_tick, playback.last_tick):
            view = playback.view(tick)
            assert view.tick == tick and len(view.state.pos) == reader.units


def test_there_are_fixtures():
    assert len(FIXTURES) >= 2  # a flock with a player, and move orders through a doorway
