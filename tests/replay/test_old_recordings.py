"""Recordings of earlier models. Fixtures are kept for the current model (verified by
``test_model_recordings``) and, of earlier ones, only where the reader reads a file differently
by its model: rigidflock 0.1.0's (format 1, model 1, ``*_v010.rfr``), model 11's (before
``world.neighbour_ticks``) and ``rts_doorway`` by models 14 and 15 (the wall feeler of ordered
units); a recording of any other earlier model answers as these do. Each still reads and plays
back at its first and last tick; ``verify`` and ``rigidflock verify`` say in one line that it
cannot be verified (this model simulates it differently: docs/changelog.md) instead of reporting a
difference; and the reader gives a file's scene the keys its model ran it with."""

import pytest

from rigidflock.cli import main
from rigidflock.replay import ReplayReader, verify
from rigidflock.replay.playback import Playback
from rigidflock.scene.specs import MAX_FACTOR
from rigidflock.sim import MODEL_VERSION
from tests.conftest import ROOT
from tests.replay.recording import FIXTURE_TICKS, fixture_scene

FIXTURES = sorted((ROOT / "tests" / "fixtures").glob("*_v010.rfr")) + [
    p
    for p in sorted((ROOT / "tests" / "fixtures").glob("*_model*.rfr"))
    if p.stem.rsplit("_model", 1)[1] != str(MODEL_VERSION)
]
# the earlier models the reader treats apart (see the module docstring)
KEPT_MODELS = {1, 11, 14, 15}


def model_of(path) -> int:
    """The model a fixture was recorded by (files without the field are model 1)."""
    with ReplayReader(path) as reader:
        return int(reader.header.get("model_version") or 1)


def line(version: int) -> str:
    return (
        f"recorded by model version {version}; this rigidflock simulates model {MODEL_VERSION}: "
        "cannot verify; replay and export still work"
    )


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_an_old_recording_says_it_cannot_be_verified_in_one_line(path, capsys):
    with ReplayReader(path) as reader:
        assert reader.ticks == FIXTURE_TICKS[fixture_scene(path)] + 1  # tick 0 included
        result = verify(reader)
    assert not result.ok and result.difference is None
    assert result.unverifiable == line(model_of(path)) and result.ticks_checked == 0
    assert main(["verify", str(path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"rigidflock: {path}: {line(model_of(path))}"]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_an_old_recording_still_plays_back(path):
    with ReplayReader(path) as reader:
        assert reader.header.get("model_version") in (None, *range(2, MODEL_VERSION))
        playback = Playback(reader)
        for tick in (playback.first_tick, playback.last_tick):
            view = playback.view(tick)
            assert view.tick == tick and len(view.state.pos) == reader.units


def test_there_are_fixtures():
    # a flock with a player, and move orders through a doorway, by the models the reader
    # reads apart, and no other earlier model's (they would only grow the repository)
    assert len(FIXTURES) >= 4
    assert {model_of(p) for p in FIXTURES} == KEPT_MODELS


@pytest.mark.parametrize(("version", "wall_feeler"), [(14, MAX_FACTOR), (15, 2.0)])
def test_an_old_recording_plays_its_scene_as_its_model_ran_it(version, wall_feeler):
    """Before model 15 ordered units felt the world's walls with the full feeler: the reader
    gives such a file's scene the largest wall feeler, which no feeler exceeds, so that the
    orders track re-simulates the file's orders as its model did."""
    path = ROOT / "tests" / "fixtures" / f"rts_doorway_model{version}.rfr"
    with ReplayReader(path) as reader:
        assert reader.scene().navigation.wall_feeler == wall_feeler
