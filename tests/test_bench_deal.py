"""tools/bench_deal.py: the slot deal's compiled cost against the numpy expression it replaced."""

import importlib.util

import numpy as np

from tests.conftest import ROOT

spec = importlib.util.spec_from_file_location("bench_deal", ROOT / "tools/bench_deal.py")
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)


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
