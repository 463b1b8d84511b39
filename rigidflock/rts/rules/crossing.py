"""Giving way at a crossing: of two units of different groups converging across each other, the
one that has the other on its right yields (the rule of the road).

Two units of crossing groups that meet can lock: each turns toward its own goal, which is into
the other, and the pair runs on together off both routes for as long as neither gives way
(``four_way_oncoming``: 14 s and 98 world units). Nothing in keeping right
(:mod:`.passing`) breaks it: the two are not head on. Here, each tick:

- :func:`crossing_yields`: a unit yields to a unit of another group within ``CROSS_REACH`` of
  its length, on its right (ahead of its stern, right of its bow line), not head on (headings
  less than ``HEAD_ON`` apart: head on they keep right) and converging, or pressed against it;
  in a ring of such units (four meeting at a crossing each have one on their right) the unit of
  the lowest group goes on, so the ring opens;
- :func:`give_way_at_crossing` (throttle, flock share): a yielding unit brakes to
  ``YIELD_SPEED`` of its cruise speed, keeps steering at its aim (which comes round behind the
  other as it passes) and does not flock; the other keeps on and passes ahead of it.

For any mass: the throttle brakes on the unit's own speed against its own cruise speed.
Units: world units, radians, world units per second; throttle unclipped. m: a group's members;
N: all units.
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.steering.neighbours import cross_pairs
from rigidflock.rts.rules.claim import Claim, nobody
from rigidflock.rts.rules.cruise import BRAKE_GAIN

CROSS_REACH = 2.0  # unit lengths between centres: near enough to give way
HEAD_ON = np.cos(np.radians(150.0))  # headings farther apart than 150 degrees: head on
PRESSED = 1.25  # mean unit lengths between centres: touching (or nearly), converging or not
YIELD_SPEED = 0.25  # share of its cruise speed a yielding unit slows to


def crossing_yields(
    pos: np.ndarray,
    vel: np.ndarray,
    angle: np.ndarray,
    length: np.ndarray,
    group_of: np.ndarray,
    free: np.ndarray,
) -> np.ndarray:
    """(N,) bool: the units that give way at a crossing (module docstring). ``pos``, ``vel``
    (N, 2), ``angle`` (N,) radians, ``length`` (N,) over all units; ``group_of`` (N,) their
    order groups (-1: none); ``free`` (N,) bool: the ordered units the rule applies to (on the
    way, not at their slot)."""
    n = len(pos)
    out = np.zeros(n, dtype=bool)
    rows = np.flatnonzero(free & (group_of >= 0))
    if len(rows) < 2 or len(np.unique(group_of[rows])) < 2:
        return out
    i, j, d = cross_pairs(pos[rows], pos[rows], CROSS_REACH * float(length[rows].max()))
    i, j = rows[i], rows[j]
    keep = (group_of[i] != group_of[j]) & (d > 0.0) & (d < CROSS_REACH * length[i])
    i, j, d = i[keep], j[keep], d[keep]
    if len(i) == 0:
        return out
    fwd_i = np.stack([np.cos(angle[i]), np.sin(angle[i])], axis=1)
    fwd_j = np.stack([np.cos(angle[j]), np.sin(angle[j])], axis=1)
    r = pos[j] - pos[i]
    ahead = np.einsum("ij,ij->i", r, fwd_i)
    right = r[:, 0] * fwd_i[:, 1] - r[:, 1] * fwd_i[:, 0]
    across = np.einsum("ij,ij->i", fwd_i, fwd_j) > HEAD_ON
    closing = np.einsum("ij,ij->i", vel[j] - vel[i], r) < 0.0
    pressed = d < PRESSED * 0.5 * (length[i] + length[j])
    edge = (right > 0.0) & (ahead > -0.5 * length[i]) & across & (closing | pressed)
    i, j = i[edge], j[edge]
    if len(i) == 0:
        return out
    # a ring of yields opens at its lowest group: a unit need not yield to one that yields in
    # turn when its own group is the lower
    must = np.zeros(n, dtype=bool)
    must[i] = True
    kept = ~must[j] | (group_of[i] > group_of[j])
    out[i[kept]] = True
    return out


def give_way_at_crossing(yields: np.ndarray, v_fwd: np.ndarray, cruise: np.ndarray) -> Claim:
    """Throttle and flock share of the members that ``yields`` (m,) bool at a crossing
    (:func:`crossing_yields`): ``BRAKE_GAIN`` on their forward speed ``v_fwd`` (m,) against
    ``YIELD_SPEED`` of ``cruise`` (m,), world units / s; no flocking. The bow force is the next
    rule's (it keeps seeking the unit's aim)."""
    if not yields.any():
        return nobody(len(v_fwd))
    return Claim(yields, throttle=BRAKE_GAIN * (YIELD_SPEED * cruise - v_fwd) / cruise, flock=0.0)
