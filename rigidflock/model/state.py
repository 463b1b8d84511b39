"""Struct-of-arrays simulation state.

:class:`Units` holds what does not change during a run (one entry per unit, the player last);
:class:`State` is the per-tick snapshot every rule reads. Positions are world units, angles radians
(counter-clockwise from world +x), velocities world units per second.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def read_only(a: np.ndarray) -> np.ndarray:
    """A view of ``a`` that cannot be written through (``a`` itself stays writeable)."""
    v = a.view()
    v.flags.writeable = False
    return v


ROLE_NONE, ROLE_CHASE, ROLE_INTERCEPT, ROLE_PLAYER = 0, 1, 2, 3
PLAYER_FAMILY = "player"


@dataclass(frozen=True, eq=False)
class Units:
    """Per-unit constants, each an array of shape (N,). The player, if any, is the last row."""

    length: np.ndarray  # L, world units
    width: np.ndarray  # W, world units
    mass: np.ndarray  # kg
    moment: np.ndarray  # kg m^2 (box moment)
    thrust: np.ndarray  # T, newtons at throttle 1
    max_steer: np.ndarray  # clamp of the bow force |Fs|, newtons
    drag_k: np.ndarray  # 0.5 * rho * Cd * L * W: drag force = -drag_k * |u| * u
    angular_damping: np.ndarray  # k_w: torque = -k_w * omega
    family: np.ndarray  # int index into family_names
    role: np.ndarray  # ROLE_* codes
    family_names: tuple[str, ...] = ()
    has_player: bool = False

    @property
    def n(self) -> int:
        return len(self.length)

    @property
    def n_ai(self) -> int:
        return self.n - int(self.has_player)

    @property
    def cruise_speed(self) -> np.ndarray:
        """Terminal speed under full thrust, sqrt(T / drag_k), world units / s."""
        return np.sqrt(self.thrust / self.drag_k)

    @property
    def turn_rate(self) -> np.ndarray:
        """Steady turn rate under full bow force, rad / s: its torque 0.5 L Fs against the
        angular damping k_w, whatever the speed (inf without damping)."""
        with np.errstate(divide="ignore"):
            return 0.5 * self.length * self.max_steer / self.angular_damping


@dataclass(eq=False)
class State:
    """The world at one tick. Arrays have N rows (player last); ``leader`` is for AI units only."""

    tick: int
    pos: np.ndarray  # (N, 2)
    vel: np.ndarray  # (N, 2)
    angle: np.ndarray  # (N,)
    omega: np.ndarray  # (N,) rad / s
    leader: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # (N,)

    def copy(self, out: State | None = None) -> State:
        """A copy; into ``out``'s arrays (of the same shapes) when given."""
        if out is None:
            return State(
                self.tick,
                self.pos.copy(),
                self.vel.copy(),
                self.angle.copy(),
                self.omega.copy(),
                self.leader.copy(),
            )
        out.tick = self.tick
        for name in ("pos", "vel", "angle", "omega"):
            np.copyto(getattr(out, name), getattr(self, name))
        out.leader = self.leader.copy()
        return out


def headings(vel: np.ndarray, angle: np.ndarray, min_speed: float = 1e-6) -> np.ndarray:
    """Unit direction of travel h, shape (N, 2): the velocity direction, or the orientation when a
    unit is (nearly) at rest (|v| <= ``min_speed``), so h is never NaN."""
    speed = np.hypot(vel[:, 0], vel[:, 1])
    fwd = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    moving = speed > min_speed
    h = fwd
    h[moving] = vel[moving] / speed[moving, None]
    return h
