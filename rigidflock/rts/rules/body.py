"""The members' motion as the rules read it: one snapshot, in the world and in their body frame.

Units: world units, world units per second, radians. m: the group's members.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rigidflock.model.state import State


@dataclass
class Body:
    """The members' motion from the tick's snapshot, in the world and in their body frame."""

    pos: np.ndarray  # (m, 2) world units
    vel: np.ndarray  # (m, 2) world units / s
    angle: np.ndarray  # (m,) heading, radians
    fwd: np.ndarray  # (m, 2) unit vector along the hull
    left: np.ndarray  # (m, 2) unit vector to port
    v_fwd: np.ndarray  # (m,) forward speed, world units / s (negative when reversing)
    v_lat: np.ndarray  # (m,) sideways speed to port, world units / s
    speed: np.ndarray  # (m,) |vel|, world units / s


def body_of(state: State, idx: np.ndarray) -> Body:
    """The :class:`Body` of unit rows ``idx`` (m,) at ``state``."""
    pos, vel, ang = state.pos[idx], state.vel[idx], state.angle[idx]
    fwd = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    left = np.stack([-fwd[:, 1], fwd[:, 0]], axis=1)
    v_fwd = np.einsum("ij,ij->i", vel, fwd)
    v_lat = np.einsum("ij,ij->i", vel, left)
    return Body(pos, vel, ang, fwd, left, v_fwd, v_lat, np.hypot(*vel.T))
