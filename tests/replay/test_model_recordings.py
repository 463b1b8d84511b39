"""Recordings of the current model, kept as files (``tests/fixtures/*_model22.rfr``):
re-simulating them gives the stored states integer for integer. A code change that alters a
run's arithmetic fails here, and must either be undone or bump ``MODEL_VERSION`` and record these
again: ``rigidflock run SCENE --ticks 120 --seed 1 --record FILE`` for ``aidemo4`` and
``rts_doorway``, and ``rigidflock run scenes/scenarios/doorway_one_way.toml --ticks 1320 --seed 1
--record FILE`` (its four units all on their slots by tick 1293: the 120 ticks of the others end
long before any unit reaches its formation)."""

import pytest

from rigidflock.replay import ReplayReader, verify
from rigidflock.sim import MODEL_VERSION, Simulation
from tests.conftest import ROOT
from tests.replay.recording import FIXTURE_TICKS, fixture_scene

FIXTURES = sorted((ROOT / "tests" / "fixtures").glob(f"*_model{MODEL_VERSION}.rfr"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_recording_of_this_model_verifies(path):
    with ReplayReader(path) as reader:
        assert reader.header.get("model_version") == MODEL_VERSION
        ticks = reader.ticks
        assert ticks == FIXTURE_TICKS[fixture_scene(path)] + 1  # tick 0 included
        result = verify(reader)
    assert result.ok, result
    assert result.ticks_checked == ticks and result.complete


def test_there_are_recordings_of_this_model():
    # a flock with a player and obstacles, move orders through a doorway, and a group that
    # reaches its formation
    assert {fixture_scene(p) for p in FIXTURES} == set(FIXTURE_TICKS)


def test_the_longer_recordings_ticks_reach_the_formation():
    # the 120-tick recordings end long before any unit is at its formation, where the order
    # alone steers: the scene recorded for longer has every unit on its slot within
    # the recorded ticks (it verifies above, so the recording holds the same states)
    sim = Simulation(ROOT / "rigidflock" / "bundled" / "scenarios" / "doorway_one_way.toml", seed=1)
    for _ in range(FIXTURE_TICKS["doorway_one_way"]):
        sim.step()
    (g,) = sim.orders.groups.values()
    assert g.arrival_tick is not None and g.arrived.all()
