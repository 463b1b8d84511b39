"""Backing off: a unit stuck on the way (:mod:`rigidflock.rts.progress`) reverses for a second.

Units: newtons; throttle in [-1, 1]. m: the group's members.
"""

from __future__ import annotations

import numpy as np

from rigidflock.rts.progress import BACK_THROTTLE
from rigidflock.rts.rules.claim import Claim


def back_off_stuck(backing: np.ndarray, seek_force: np.ndarray) -> Claim:
    """Throttle and bow force of the units ``backing`` (m,) bool off, stuck
    (:func:`~rigidflock.rts.progress.start_backing`): ``BACK_THROTTLE``, with the bow force of
    seeking their aim (``seek_force`` (m,), N), which turns the hull whichever way it moves,
    so backing with the bow swung toward the aim comes out of the corner pointing the right
    way. Their flock share is the next rule's."""
    return Claim(backing, throttle=BACK_THROTTLE, force=seek_force)
