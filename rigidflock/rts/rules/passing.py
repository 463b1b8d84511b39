"""Passing on the right: units meeting another group's unit head on keep right of their route.

- :func:`oncoming_ahead`: the members with another group's unit close ahead, heading at them
  (two such units, one each way in a door, would each queue behind the other forever);
- :func:`pass_on_the_right` (aim): those, short of the formation, steer ``KEEP_RIGHT`` of their
  widths to the right of their aim on the path (:func:`keep_right`): both keep right and pass
  instead of meeting nose to nose.

Units: world units, radians. m: the group's members; N: all units.
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.steering.neighbours import cross_pairs
from rigidflock.rts.in_line import ahead_in_line, in_line_reach
from rigidflock.rts.rules.claim import Claim

ONCOMING_AHEAD = 3.0  # unit lengths: another group's unit this close ahead, heading at us
# unit widths: meeting another group's unit head on, a unit steers this far right of its route
# target. Two groups' targets along the same wall lie within a width of its face: at 0.75 the
# lines they kept right of lay 1.7 world units apart, less than a width (2), and the east group
# pushed a west unit back 116 world units in 37 s (the two-way hallway, seed 7). At 1.25 the
# nine smaller scenarios on seeds 1-24 miss their time limit in 1 run of 216 instead of 4
KEEP_RIGHT = 1.25


def oncoming_ahead(
    pos: np.ndarray,
    angle: np.ndarray,
    group_of: np.ndarray,
    members: np.ndarray,
    length: np.ndarray,
    ignore=(),
) -> np.ndarray:
    """(m,) bool: each of ``members`` (m,) (unit rows of one group) has a unit of another group
    within ``ONCOMING_AHEAD`` of its lengths (m,) ahead, within one length to either side of
    its bow line, heading against it (headings more than 90 degrees apart). ``pos`` (N, 2),
    ``angle`` (N,) radians and ``group_of`` (N,) over all units (-1: not ordered); the units
    of the groups ``ignore`` (ids) do not count (they yield to this one). Two such units, one
    each way in a door, would each queue behind the other forever."""
    me = int(group_of[members[0]])
    others = np.flatnonzero((group_of >= 0) & (group_of != me) & ~np.isin(group_of, ignore))
    out = np.zeros(len(members), dtype=bool)
    if len(others) == 0:
        return out
    # candidates from a k-d tree (all pairs was (m, others) a tick, ~6 ms a group at 1,000)
    reach = in_line_reach(length, ONCOMING_AHEAD)
    i, j, _ = cross_pairs(pos[members], pos[others], reach)
    if len(i) == 0:
        return out
    j = others[j]
    fwd = np.stack([np.cos(angle[members[i]]), np.sin(angle[members[i]])], axis=1)
    a = angle[j]
    facing = fwd[:, 0] * np.cos(a) + fwd[:, 1] * np.sin(a) < 0.0
    hit = ahead_in_line(pos[j] - pos[members[i]], fwd, length[i], ONCOMING_AHEAD) & facing
    out[i[hit]] = True
    return out


def keep_right(
    target: np.ndarray, pos: np.ndarray, offset: np.ndarray, meeting: np.ndarray, sees
) -> np.ndarray:
    """(m, 2): the units ``meeting`` (m,) another group's unit head on steer ``offset`` (m,)
    (``KEEP_RIGHT`` of their widths) to the right of their ``target`` (m, 2) as seen from
    ``pos`` (m, 2), or half that where the full offset is not in line of sight (``sees``:
    ``Grid.sees``), or at the target itself: both keep right and pass instead of meeting nose
    to nose."""
    rows = np.flatnonzero(meeting)
    if len(rows) == 0:
        return target
    d = target[rows] - pos[rows]
    d = d / np.maximum(np.hypot(*d.T), 1e-9)[:, None]
    right = np.stack([d[:, 1], -d[:, 0]], axis=1)
    out = target.copy()
    for share in (0.5, 1.0):  # the larger offset wins where it is visible
        moved = target[rows] + share * offset[rows, None] * right
        ok = sees(pos[rows], moved)
        out[rows[ok]] = moved[ok]
    return out


def pass_on_the_right(
    ahead: np.ndarray,
    pos: np.ndarray,
    width: np.ndarray,
    meeting: np.ndarray,
    sees,
) -> Claim:
    """Aim of the units ``meeting`` (m,) bool another group's unit head on: their point
    ``ahead`` (m, 2) on the path moved ``KEEP_RIGHT`` x ``width`` (m,) right as seen from
    ``pos`` (m, 2) (:func:`keep_right`, ``sees``: ``Grid.sees``)."""
    return Claim(meeting, aim=keep_right(ahead, pos, KEEP_RIGHT * width, meeting, sees))
