"""Rules that only turn the flocking rules off, leaving throttle and bow force to the others.

- :func:`formation_alone`: at the formation only the order steers (the flock's pull and push
  fight the unit's own way to its slot, and in a crowd they press units into the walls: without
  them the 1,000-unit bottleneck's wall contacts more than halved, its pinned time a third
  less), but not a unit meeting another group's unit head on, which separation turns to
  starboard (keeping right is for units short of the formation);
- :func:`cut_off`: a unit cut off from its group by a wall (the flocking rules know no scene
  walls, and their pull toward the others would hold it against that wall).

m: the group's members.
"""

from __future__ import annotations

import numpy as np

from rigidflock.rts.rules.claim import Claim


def formation_alone(close: np.ndarray, head_on: np.ndarray) -> Claim:
    """Flock share 0 for the units ``close`` (m,) bool to the formation by route
    (:func:`~.arrive.at_formation`), except those meeting another group's unit ``head_on``
    (m,) bool."""
    return Claim(close & ~head_on, flock=0.0)


def cut_off(aiming_at_slot: np.ndarray, pos: np.ndarray, place: np.ndarray, sees) -> Claim:
    """Flock share 0 for the units that see neither their slot (not ``aiming_at_slot`` (m,)
    bool: :func:`~.arrive.aim_at_slot`'s mask) nor their place on the group's path (``place``
    (m, 2), from ``pos`` (m, 2); ``sees``: ``Grid.sees``, asked for every member)."""
    return Claim(~aiming_at_slot & ~sees(pos, place), flock=0.0)
