"""tools/pin_spells.py: the pins of one scenario run, and with ``--crowd`` the stalls of ordered
units that touched nothing static, to set the pins against."""

import numpy as np
import pytest

from tests.conftest import load_tool
from tests.runs.test_scenarios import heavy

tool = load_tool("pin_spells")


def test_a_stall_is_a_slow_spell_that_touched_nothing_static_and_ends_on_the_slot():
    """Four units, cruise 10 (pin speed 1), dt 1, seven ticks. Unit 0 is slow for three ticks
    without touching: one stall of 3 s, ending on the fourth. Unit 1 is as slow but touches a
    wall on its second tick: no stall; its next slow spell, ticks 4-5, touches nothing: a stall
    of 2 s. Unit 2 is slow for two ticks and then stands on its slot: a stall of 2 s, cut there.
    Unit 3 is slow for two ticks and touches on the tick it speeds up: a stall of 2 s (the touch
    is after it)."""
    cruise = np.full(4, 10.0)
    a, b = 0.5, 5.0  # slow, not
    speed = np.array(
        [[a, a, a, b, b, b, b], [a, a, a, b, a, a, b], [a, a, a, a, a, a, a], [a, a, b, b, b, b, b]]
    )
    touching = np.zeros((4, 7), dtype=np.int8)
    touching[1, 1] = touching[3, 2] = 1
    on_slot = np.zeros((4, 7), dtype=bool)
    on_slot[2, 2:] = True
    slow, touched = np.zeros(4), np.zeros(4, dtype=bool)
    found = []
    for t in range(7):
        vel = np.stack([speed[:, t], np.zeros(4)], axis=1)
        ended, length = tool.stall_tick(
            vel, touching[:, t], cruise, on_slot[:, t], slow, touched, 1.0
        )
        found += [(int(k), float(length[k]), t) for k in np.flatnonzero(ended)]
    assert sorted(found) == [(0, 3.0, 3), (1, 2.0, 6), (2, 2.0, 2), (3, 2.0, 2)]


@pytest.mark.parametrize("until", [11.5, 30.0])
def test_a_unit_waiting_its_turn_in_the_open_is_a_stall_not_a_pin(until):
    """wall_squeeze seed 1 with rigidflock's default unit (10 kg; the scene's own units, 0.7
    kg, take other ways): the west unit (0) waits in the open, beside the way, for the east
    one to clear the gap, slower than a tenth of cruise from 10.9 s to 11.6 s, touching
    nothing, and nobody is pressed on a wall: no pin, and that stall the longest. A run cut
    off at 11.5 s, with the stall still under way, counts it up to then. Without ``crowd`` no
    stalls are tracked."""
    keys = heavy("wall_squeeze")
    pins, stalls = tool.spells("wall_squeeze", 1, None, 0.5, until, keys, crowd=True)
    assert pins == []
    length, unit, end = stalls[0][:3]
    assert unit == 0 and abs(end - min(until, 11.6)) < 0.1
    assert abs((end - length) - 10.9) < 0.1  # from when it slowed, cut off or not
    assert tool.spells("wall_squeeze", 1, None, 0.5, until, keys)[1] == []
