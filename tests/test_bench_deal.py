"""tools/bench_deal.py: the slot deal's compiled cost against the numpy expression it replaced."""

import numpy as np
import pytest

from rigidflock.rts.slots import slot_cost
from tests.conftest import load_tool

tool = load_tool("bench_deal")


def test_the_tool_finds_the_two_costs_the_same_and_prints_their_times(capsys, monkeypatch):
    monkeypatch.setattr("sys.argv", ["bench_deal", "--units", "300", "--repeats", "1"])
    assert tool.main() == 0
    out = capsys.readouterr().out
    assert "300 units: cost matrix compiled" in out
    assert "the same to the bit: True" in out


def test_its_crowd_stands_a_little_off_a_slot_each():
    # the nearly degenerate deal of a crowd at its formation: each unit within a few world
    # units of a slot (3 world units' spread), slots 10 apart, one unit per slot
    slots, pos, angle, length = tool.crowd(400, 2)
    assert len(slots) == len(pos) == len(angle) == len(length) == 400
    nearest = np.hypot(*(pos[:, None, :] - slots[None, :, :]).transpose(2, 0, 1)).min(axis=1)
    assert np.median(nearest) < 5.0
    assert len(np.unique(slots, axis=0)) == 400


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_compiled_slot_cost_is_the_numpy_one_to_the_bit(seed):
    """The deal's cost kernel must give the costs the numpy expression it replaced gave, to
    the last bit: a crowd at its formation is a nearly degenerate assignment, where one ulp
    can hand a slot to another unit and change the run (and every recording)."""
    rng = np.random.default_rng(seed)
    m, k = 200, 150
    pos, slots = rng.random((m, 2)) * 400.0, rng.random((k, 2)) * 400.0
    slots[:3] = pos[0]  # no offset
    slots[3] = pos[1] + [0.0, 5.0]  # abeam of a unit facing +x: not behind
    angle = rng.random(m) * 4 * np.pi - 2 * np.pi
    angle[1] = 0.0
    length = rng.random(m) * 8.0
    length[1] = 4.0
    want = tool.numpy_cost(pos, angle, length, slots)
    got = slot_cost(pos, np.cos(angle), np.sin(angle), 2.0 * length, slots, np.empty((m, k)))
    np.testing.assert_array_equal(got, want)
    assert got[1, 3] == pytest.approx(5.0)  # abeam is not behind: no 2 x 4 added
