"""Recordings made by rigidflock 0.1.0 (format 1, model 1) still read and play back; they cannot
be verified any more, since model 2 (issue 11: prioritised feelers, routes from the unit's
half-width) simulates them differently. ``verify`` says so in one line instead of reporting a
difference."""

import pytest

from rigidflock.cli import main
from rigidflock.replay import ReplayReader, verify
from rigidflock.replay.playback import Playback
from rigidflock.sim import MODEL_VERSION
from tests.conftest import ROOT

FIXTURES = sorted((ROOT / "tests" / "fixtures").glob("*_v010.rfr"))
LINE = (
    f"recorded by model version 1; this rigidflock simulates model {MODEL_VERSION}: "
    "cannot verify; replay and export still work"
)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_an_old_recording_says_it_cannot_be_verified_in_one_line(path, capsys):
    with ReplayReader(path) as reader:
        assert reader.ticks == 121  # recorded with --ticks 120 (tick 0 included)
        result = verify(reader)
    assert not result.ok and result.difference is None
    assert result.unverifiable == LINE and result.ticks_checked == 0
    assert main(["verify", str(path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"rigidflock: {path}: {LINE}"]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_an_old_recording_still_plays_back(path):
    with ReplayReader(path) as reader:
        assert reader.header.get("model_version") is None
        playback = Playback(reader)
        for tick in (playback.first_tick, playback.last_tick):
            view = playback.view(tick)
            assert view.tick == tick and len(view.state.pos) == reader.units


def test_there_are_fixtures():
    assert len(FIXTURES) >= 2  # a flock with a player, and move orders through a doorway
