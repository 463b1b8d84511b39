"""Per-unit CSV traces: ``tick,id,family,x,y,angle,vx,vy,omega,leader``, one row per unit per
traced tick (the player's family is ``player``). Floats are written with 17 significant digits so a
trace holds the state exactly."""

from __future__ import annotations

import numpy as np

HEADER = "tick,id,family,x,y,angle,vx,vy,omega,leader"


class TraceWriter:
    """Writes rows for a simulation's current state into an open text file."""

    def __init__(self, fh, units):
        self.fh = fh
        self.ids = np.arange(units.n)
        self.family = np.asarray(units.family_names, dtype=object)[units.family]
        fh.write(HEADER + "\n")

    def write(self, state) -> None:
        n = len(self.ids)
        rows = np.empty((n, 10), dtype=object)
        rows[:, 0] = state.tick
        rows[:, 1] = self.ids
        rows[:, 2] = self.family
        rows[:, 3:5] = state.pos
        rows[:, 5] = state.angle
        rows[:, 6:8] = state.vel
        rows[:, 8] = state.omega
        rows[:, 9] = state.leader.astype(int)
        np.savetxt(
            self.fh, rows, fmt="%d,%d,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d", delimiter=","
        )
