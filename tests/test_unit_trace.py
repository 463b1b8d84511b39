"""tools/unit_trace.py: the order control behind each unit in a box, sample by sample."""

import pytest

from tests.conftest import load_tool

tool = load_tool("unit_trace")


def test_every_ordered_unit_in_the_box_at_every_sample():
    """The wall squeeze's two units, the box the whole world: both at each of the samples
    between 2 and 4 s (every half second: 2.0 ... 4.0, or 2.5 ... 4.0 if the first sample
    tick falls just short of 2 s), bottom to top, with the control the simulation got."""
    rows = tool.trace("wall_squeeze", 1, 2.0, 4.0, (-1e9, -1e9, 1e9, 1e9), every=0.5)
    times = sorted({r["t"] for r in rows})
    assert 4 <= len(times) <= 5 and times[-1] == pytest.approx(4.0, abs=0.02)
    for t in times:
        at = [r for r in rows if r["t"] == t]
        assert len(at) == 2
        assert at[0]["y"] <= at[1]["y"]
    for r in rows:
        assert set(r) == set(tool.COLUMNS)
        assert -1.0 <= r["throttle"] <= 1.0 and -1.0 <= r["asked"] <= 1.0
        assert r["touching"] in (0, 1) and r["flock"] in (0.0, 0.5)
        assert r["speed"] >= 0 and r["to_slot"] >= 0 and r["waited"] >= -1.5
    assert "touch" in tool.line(rows[0]) and f"{rows[0]['unit']:5d}" in tool.line(rows[0])


def test_an_empty_box_gives_no_rows():
    assert tool.trace("wall_squeeze", 1, 1.0, 2.0, (-10.0, -10.0, -5.0, -5.0)) == []


@pytest.mark.parametrize("given", ["physics.corners=0.5", "no-equals-sign"])
def test_a_bad_set_is_one_clear_line(given, capsys, monkeypatch):
    """A bad ``--set`` names the scene file and the key on one line, exit status 2, no trace."""
    argv = ["unit_trace.py", "wall_squeeze", "--from", "1", "--to", "2", "--box", "0,0,1,1"]
    monkeypatch.setattr("sys.argv", [*argv, "--set", given])
    assert tool.main() == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "wall_squeeze.toml" in err[0] and given.split("=")[0] in err[0]
    assert captured.out == ""
