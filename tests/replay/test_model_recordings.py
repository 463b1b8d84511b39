"""Recordings of the current model, kept as files (``tests/fixtures/*_model17.rfr``, recorded with
``rigidflock run SCENE --ticks 120 --seed 1 --record FILE``): re-simulating them gives the stored
states integer for integer. A code change that alters a run's arithmetic fails here, and must
either be undone or bump ``MODEL_VERSION`` and record these again."""

import pytest

from rigidflock.replay import ReplayReader, verify
from rigidflock.sim import MODEL_VERSION
from tests.conftest import ROOT

FIXTURES = sorted((ROOT / "tests" / "fixtures").glob(f"*_model{MODEL_VERSION}.rfr"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_recording_of_this_model_verifies(path):
    with ReplayReader(path) as reader:
        assert reader.header.get("model_version") == MODEL_VERSION
        assert reader.ticks == 121  # --ticks 120, tick 0 included
        result = verify(reader)
    assert result.ok, result
    assert result.ticks_checked == 121 and result.complete


def test_there_are_recordings_of_this_model():
    # a flock with a player and obstacles, and move orders through a doorway
    assert {p.stem.rsplit("_", 1)[0] for p in FIXTURES} >= {"aidemo4", "rts_doorway"}
