"""Units waiting against a wall beside a gap are let into the stream that passes their bow.

A crowd pressing through a gap pushes the units that reach the wall beside it into a lane along
its face (:mod:`.wall_slide` slides them toward the gap), each queueing behind the next and the
head waiting to merge at the jamb. The stream through the gap passes the head's bow without
queueing for it (it is beside the stream's way, not ahead), so the lane waits for as long as the
stream flows, pressed against the face (pinned 5-7 s in the 1,000-unit bottleneck). Drivers at a
lane merge take turns. Here a unit against a wall that has made no progress
(:func:`~.progress.track_progress`) for ``MERGE_WAIT`` seconds counts as ahead of every unit of
its group that has the waiting unit's bow (where it would go, half a length ahead of its centre)
in front of it (anywhere in that half plane, not only in the one-length corridor a queue looks
down) and has waited ``MERGE_MARGIN`` less: those queue for it
by the queue's own rule (:func:`~.control.cruise_throttle`: slowing from two lengths of centre
distance, stopped at one; a unit passing the lane's head 1.25-1.75 lengths off wants a quarter
to three quarters of the group's speed), at its formation too (short of the arrival radius,
within which it arrives), where units otherwise stand close and do not queue: near a gap the
whole crowd is at its formation by route, so without that the stream never slowed for the
lane. Once the head moves on, its wait is over, and the next in the lane has waited longest.

Units: world units, seconds. m: the group's members, p: pairs of members within ``REACH``.
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.steering.neighbours import cross_pairs
from rigidflock.rts.control import QUEUE_GAP
from rigidflock.rts.progress import CROWDED

MERGE_WAIT = 1.0  # seconds without progress, against a wall: waiting to merge
MERGE_MARGIN = 0.5  # seconds: a unit lets in one that has waited this much longer than itself
# unit lengths: the gap's reach: the queue slows for a unit within two queue gaps, and stuck
# detection (:func:`~.progress.find_stuck`) spares a unit within CROWDED lengths behind another
REACH = max(2.0 * QUEUE_GAP, CROWDED)


def waiting_to_merge(against: np.ndarray, arrived: np.ndarray, waited: np.ndarray) -> np.ndarray:
    """(m,) bool: units ``against`` (m,) a wall, not ``arrived`` (m,), that have ``waited``
    (m,) more than ``MERGE_WAIT`` seconds without progress."""
    return against & ~arrived & (waited > MERGE_WAIT)


def merge_gap(
    gap: np.ndarray,
    pos: np.ndarray,
    fwd: np.ndarray,
    length: np.ndarray,
    waited: np.ndarray,
    waiting: np.ndarray,
) -> np.ndarray:
    """(m,) ``gap`` (the distance to the nearest unit ahead, world units) or less: the
    distance to the nearest unit ``waiting`` (m,) bool to merge whose own bow (half its
    ``length`` ahead of its centre) lies ahead of the unit's centre along its heading (``fwd``
    (m, 2), unit vectors) and that has ``waited`` (m,) seconds ``MERGE_MARGIN`` longer.
    ``pos`` (m, 2) world units. Only pairs within ``REACH`` of the longest ``length`` (m,) are
    looked at (a k-d tree): a gap farther than that changes no throttle and no stuck detection."""
    w = np.flatnonzero(waiting)
    if len(w) == 0:
        return gap
    r = REACH * float(length.max())
    i, o, _ = cross_pairs(pos[w], pos, r)
    k = w[i]  # waiting unit k, passing unit o
    d = pos[k] - pos[o]
    dist = np.hypot(d[:, 0], d[:, 1])
    # judged by the waiting unit's bow, where it would go: turned toward the gap beside a
    # passing unit, its centre can be abeam while its bow is already ahead on that unit's way
    bow = d + 0.5 * length[k][:, None] * fwd[k]
    ahead = np.einsum("pc,pc->p", bow, fwd[o])
    # a unit's own bow is ahead of it: the strict margin keeps it from letting itself in
    lets_in = (ahead > 0) & (waited[k] > waited[o] + MERGE_MARGIN)
    out = gap.copy()
    np.minimum.at(out, o[lets_in], dist[lets_in])
    return out
