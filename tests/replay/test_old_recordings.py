"""Recordings made by earlier models still read and play back: rigidflock 0.1.0's (format 1,
model 1, ``*_v010.rfr``) and models 2 to 11's (``*_model2.rfr`` ... ``*_model11.rfr``). They cannot
be verified any more, since this model simulates them differently (model 2: prioritised feelers,
routes from the unit's half-width; model 3: wall sliding and slots off the way for ordered units;
model 4: no backing off queued in a crowd, slots in sight of the goal; model 5: slots with room
for their unit; model 6: ordered units leave a wall at 45 degrees as they slide along it; model
7: units waiting against a wall are let into the stream; model 8: large groups' slots dealt by
auction; model 9: units sliding side-on along a wall are not backed out; model 10: ordered units
slow for turns; model 11: a yield at a door ends later; model 12: the steering decided on the
snapshot one tick old; in models 8 and 9 these two scenes' runs
are the same, but their recordings say model 7 and 8; in model 10 the aidemo4 run (no move
orders) is as in model 9, and in model 11 both are as in model 10).
``verify`` says so in one line instead of reporting a difference."""

import importlib

import pytest

from rigidflock.cli import main
from rigidflock.replay import ReplayReader, verify
from rigidflock.replay.playback import Playback
from rigidflock.sim import MODEL_VERSION
from tests.conftest import ROOT

FIXTURES = sorted((ROOT / "tests" / "fixtures").glob("*_v010.rfr")) + [
    p
    for v in range(2, MODEL_VERSION)
    for p in sorted((ROOT / "tests" / "fixtures").glob(f"*_model{v}.rfr"))
]


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
        assert reader.ticks == 121  # recorded with --ticks 120 (tick 0 included)
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
    # a flock with a player, and move orders through a doorway, by model 1 and by model 2
    assert len(FIXTURES) >= 4
    assert {model_of(p) for p in FIXTURES} == set(range(1, MODEL_VERSION))


MODEL_11 = sorted((ROOT / "tests" / "fixtures").glob("*_model11.rfr"))


@pytest.mark.parametrize("path", MODEL_11, ids=lambda p: p.stem)
@pytest.mark.parametrize("as_recorded", [True, False])
def test_a_model_11_recording_reads_with_the_steering_decided_before_the_step(
    path, as_recorded, monkeypatch
):
    """Model 12 only changed world.reaction_ticks' default from 0 to 1, so a recording of model
    11 whose scene does not set it is read with 0 (what it ran with; the orders track rebuilds
    its control from that) and, re-simulated so, gives its stored states tick for tick. With the
    default (1) instead it departs from them: the check can fail."""
    # the package exports the function verify under its module's name
    monkeypatch.setattr(
        importlib.import_module("rigidflock.replay.verify"), "model_problem", lambda h: None
    )
    with ReplayReader(path) as reader:
        assert reader.header["model_version"] == 11
        assert "reaction_ticks" not in reader.header["scene_text"]
        if not as_recorded:
            reader_module = importlib.import_module("rigidflock.replay.reader")
            monkeypatch.setattr(reader_module, "model_version_of", lambda h: MODEL_VERSION)
        assert reader.scene().world.reaction_ticks == (0 if as_recorded else 1)
        result = verify(reader)
    assert result.ok is as_recorded, result


def test_a_model_11_scene_with_a_byte_order_mark_reads_too():
    """The recorder keeps a scene file's text as read, byte-order mark and all."""
    with ReplayReader(MODEL_11[0]) as reader:
        reader.header["scene_text"] = "\ufeff" + reader.header["scene_text"]
        assert reader.scene().world.reaction_ticks == 0


def test_a_model_11_scene_that_set_reaction_ticks_keeps_it():
    """Model 11 had the key (default 0): a scene that set it to 1 ran with 1."""
    with ReplayReader(MODEL_11[0]) as reader:
        text = reader.header["scene_text"]
        assert "[world]\n" in text
        reader.header["scene_text"] = text.replace("[world]\n", "[world]\nreaction_ticks = 1\n")
        assert reader.scene().world.reaction_ticks == 1
