"""Recordings made by earlier models still read and play back: rigidflock 0.1.0's (format 1,
model 1, ``*_v010.rfr``) and models 2 to 19's (``*_model2.rfr`` ... ``*_model19.rfr``). They cannot
be verified any more, since this model simulates them differently (model 2: prioritised feelers,
routes from the unit's half-width; model 3: wall sliding and slots off the way for ordered units;
model 4: no backing off queued in a crowd, slots in sight of the goal; model 5: slots with room
for their unit; model 6: ordered units leave a wall at 45 degrees as they slide along it; model
7: units waiting against a wall are let into the stream; model 8: large groups' slots dealt by
auction; model 9: units sliding side-on along a wall are not backed out; model 10: ordered units
slow for turns; model 11: a yield at a door ends later; in models 8 and 9 these two scenes' runs
are the same, but their recordings say model 7 and 8; in model 10 the aidemo4 run (no move
orders) is as in model 9, and in models 11 and 12 both are as in model 10; model 12 changed only
crowds of 2,000 AI units or more; model 13: two groups take turns at a door before they meet
in it, and both scenes have one group; model 14: units close behind a backing unit stop pushing
it, and neither scene's first 120 ticks has one; model 15: ordered units feel the world's
walls only 2 lengths ahead, and aidemo4 has no move order; model 16: a yielding unit brakes
harder, and both scenes have one group; model 17: units at their formation do not flock, and
a standing unit moves up for a late one, and both scenes' first 120 ticks are as in model
16; model 18: a unit waiting to merge is let in when its bow is ahead, and the three recorded
scenes are as in model 17; in model 19 a unit at its formation queues for one it lets in, and
the three are as in model 18; model 20 removed that merge, and the three are as in model 19).
``verify`` says so in one line instead of reporting a difference."""

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
    # a flock with a player, and move orders through a doorway, by model 1 and by model 2
    assert len(FIXTURES) >= 4
    assert {model_of(p) for p in FIXTURES} == set(range(1, MODEL_VERSION))


@pytest.mark.parametrize(("version", "wall_feeler"), [(14, MAX_FACTOR), (15, 2.0)])
def test_an_old_recording_plays_its_scene_as_its_model_ran_it(version, wall_feeler):
    """Before model 15 ordered units felt the world's walls with the full feeler: the reader
    gives such a file's scene the largest wall feeler, which no feeler exceeds, so that the
    orders track re-simulates the file's orders as its model did."""
    path = ROOT / "tests" / "fixtures" / f"rts_doorway_model{version}.rfr"
    with ReplayReader(path) as reader:
        assert reader.scene().navigation.wall_feeler == wall_feeler
