"""tools/pin_spells.py: the pins of one scenario run, and with ``--crowd`` the stalls of ordered
units that touched nothing static, to set the pins against."""

import importlib.util

from tests.conftest import ROOT

spec = importlib.util.spec_from_file_location("pin_spells", ROOT / "tools/pin_spells.py")
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)


def test_a_unit_waiting_its_turn_in_the_open_is_a_stall_not_a_pin():
    """wall_squeeze seed 1: the east unit waits in the open for the west one to clear the gap
    (slower than a tenth of cruise for about 2 s, touching nothing) and nobody is pressed on a
    wall: no pin, one stall or more, each as long as asked.
    Without ``crowd`` no stalls are tracked."""
    pins, stalls = tool.spells("wall_squeeze", 1, None, 0.5, until=30.0, crowd=True)
    assert pins == []
    assert stalls and all(s[0] >= 0.5 for s in stalls)
    assert stalls == sorted(stalls, reverse=True)
    # ended before the run did (30 s at most): a spell cut by arriving ends there, too
    assert all(s[2] <= 30.0 for s in stalls)
    assert tool.spells("wall_squeeze", 1, None, 0.5, until=30.0)[1] == []
