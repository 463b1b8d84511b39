"""Recordings made before the package moved into layers (rigidflock 0.1.0, format 1) still verify:
the move changed no arithmetic, so re-simulating them must give the stored states integer for
integer (compact precision)."""

import pytest

from rigidflock.replay import ReplayReader, verify
from tests.conftest import ROOT

FIXTURES = sorted((ROOT / "tests" / "fixtures").glob("*.rfr"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_recording_from_before_the_layers_still_verifies(path):
    with ReplayReader(path) as reader:
        assert reader.ticks == 121  # recorded with --ticks 120 (tick 0 included)
        result = verify(reader)
    assert result.ok, result
    assert result.ticks_checked == 121 and result.complete


def test_there_are_fixtures():
    assert len(FIXTURES) >= 2  # a flock with a player, and move orders through a doorway
