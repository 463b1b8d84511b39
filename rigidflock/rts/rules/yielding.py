"""Right of way at a door (:mod:`rigidflock.rts.right_of_way`) as rules: who waits, and how.

- :func:`wait_beside_the_way` (aim): the yielding group's units not through the point steer at
  their places in its queue, beside the way the other group comes out of the door;
- :func:`wait_at_door` (throttle, flock share): the group with the right of way stops short of
  a door a unit of the yielding group is still backing out of (its bow force is the next rule's);
- :func:`back_out_of_door` (throttle, bow force, flock share): a unit of the yielding group too
  near the meeting point reverses to its place, stern first along the way it came;
- :func:`hold_for_door` (throttle, bow force, flock share): the yielding group's other units not
  through the point queue short of it, each at its place, seeking their aim.

None of them flocks: the push of the other group's units passing close wedges one in the door.
Units: world units per second, newtons; throttle unclipped. m: the group's members.
"""

from __future__ import annotations

import numpy as np

from rigidflock.rts.rules.claim import Claim, nobody
from rigidflock.rts.rules.cruise import BRAKE_GAIN


def wait_beside_the_way(
    held: np.ndarray, places: np.ndarray | None, pos: np.ndarray, sees
) -> Claim:
    """Aim of the yielding units ``held`` (m,) bool short of the meeting point: their places
    ``places`` (m, 2) in the queue (:func:`~rigidflock.rts.right_of_way.wait_places`), for those
    at ``pos`` (m, 2) that see theirs (``sees``: ``Grid.sees``; the others follow the rules
    after). None held: nobody (``places`` is then not needed)."""
    if not held.any():
        return nobody(len(held))
    rows = np.flatnonzero(held)
    mask = np.zeros(len(held), dtype=bool)
    mask[rows[sees(pos[rows], places[rows])]] = True
    return Claim(mask, aim=places)


def wait_at_door(wait: np.ndarray | None, v_fwd: np.ndarray, cruise: np.ndarray) -> Claim:
    """Throttle and flock share of the units that ``wait`` (m,) bool, or None: nobody, short of
    a door another group's unit backs out of (:func:`~rigidflock.rts.right_of_way.door_taken`):
    ``BRAKE_GAIN`` on their forward speed ``v_fwd`` (m,) against ``cruise`` (m,), world units
    / s, down to a stop; no flocking. The bow force is left to the next rule."""
    if wait is None:
        return nobody(len(v_fwd))
    return Claim(wait, throttle=BRAKE_GAIN * -v_fwd / cruise, flock=0.0)


def back_out_of_door(
    backing: np.ndarray, throttle: np.ndarray | None, stern: np.ndarray | None
) -> Claim:
    """Throttle, bow force and flock share of the yielding units ``backing`` (m,) bool out of
    the door: their ``throttle`` (m,) from :func:`~rigidflock.rts.right_of_way.yield_throttle`
    (full reverse) and the bow force ``stern`` (m,), N, that turns their stern toward their way
    back (:func:`~rigidflock.rts.right_of_way.stern_steer`); no flocking. None of them: nobody
    (``throttle`` and ``stern`` are then not needed)."""
    if not backing.any():
        return nobody(len(backing))
    return Claim(backing, throttle=throttle, force=stern, flock=0.0)


def hold_for_door(held: np.ndarray, throttle: np.ndarray | None, seek_force: np.ndarray) -> Claim:
    """Throttle, bow force and flock share of the yielding units ``held`` (m,) bool short of the
    meeting point: their ``throttle`` (m,) from
    :func:`~rigidflock.rts.right_of_way.yield_throttle` (braking to a stop at their place in
    the queue) and the bow force ``seek_force`` (m,), N, toward their aim; no flocking. None
    held: nobody (``throttle`` is then not needed)."""
    if not held.any():
        return nobody(len(held))
    return Claim(held, throttle=throttle, force=seek_force, flock=0.0)
