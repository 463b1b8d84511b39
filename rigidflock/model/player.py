"""The player's control when no command drives it: a tick script or a waypoint autopilot."""

from __future__ import annotations

import numpy as np

from rigidflock.model.steering import flocking, pursuit
from rigidflock.scene import PlayerSpec

WAYPOINT_REACH = 5.0  # autopilot: a waypoint counts as reached within this many player lengths


class PlayerControl:
    """Throttle and steer (each in [-1, 1]) for the player, one call per tick.

    ``control = "script"`` plays the scene's script (the last entry at or before the tick);
    ``"waypoints"`` and ``"keyboard"`` with waypoints fly the autopilot (full throttle,
    proportional bow steering toward the next waypoint, no shortcut across a wrap edge); a
    command's throttle or steer, when given, overrides the scene's control.
    """

    def __init__(self, spec: PlayerSpec):
        self.spec = spec
        self._waypoint = 0
        self._script_pos = 0

    def __call__(
        self,
        tick: int,
        pos: np.ndarray,
        angle: float,
        throttle: float | None = None,
        steer: float | None = None,
    ) -> tuple[float, float]:
        """(throttle, steer) at ``tick`` for the player at ``pos`` (2,) heading ``angle`` rad."""
        p = self.spec
        auto = (0.0, 0.0)
        if p.control == "script" and p.script:
            auto = self._scripted(tick)
        elif p.control in ("waypoints", "keyboard") and p.waypoints:
            auto = self._autopilot(pos, angle)
        t = auto[0] if throttle is None else throttle
        s = auto[1] if steer is None else steer
        return float(np.clip(t, -1, 1)), float(np.clip(s, -1, 1))

    def _scripted(self, tick: int) -> tuple[float, float]:
        script = self.spec.script
        while self._script_pos + 1 < len(script) and script[self._script_pos + 1].tick <= tick:
            self._script_pos += 1
        e = script[self._script_pos]
        return (e.throttle, e.steer) if e.tick <= tick else (0.0, 0.0)

    def _autopilot(self, pos: np.ndarray, angle: float) -> tuple[float, float]:
        p = self.spec
        target = np.asarray(p.waypoints[self._waypoint], dtype=float)
        if np.hypot(*(target - pos)) < WAYPOINT_REACH * p.length:
            self._waypoint = (self._waypoint + 1) % len(p.waypoints)
            target = np.asarray(p.waypoints[self._waypoint], dtype=float)
        fwd, left = flocking.forward_left(np.array([angle]))
        steer = pursuit.seek_steer((target - pos)[None, :], fwd, left)
        return 1.0, float(steer[0])
