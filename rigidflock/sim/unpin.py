"""Backing out units pinned against static geometry, compiled: one pass over the units per tick.

The rule is :meth:`~rigidflock.sim.simulation.Simulation`'s (``UNPIN_*`` there): an AI unit
touching an obstacle, wall or building while slower than ``PIN_SLOW`` x its cruise speed for
longer than ``after`` seconds backs out at ``back_throttle`` for ``hold`` ticks, unless spared
that tick (ordered units lying side-on against a wall: see ``OrderControl.side_on``). The numpy
expression it replaces cost ~10 array operations a tick, each over every unit.
"""

from __future__ import annotations

import math

import numba as nb

from rigidflock.model.flock_metrics import PIN_SLOW


@nb.njit(cache=True)
def unpin_throttle(vel, touching, cruise, pressed, until, tick, dt, after, hold, back_throttle,
                   player, throttle, out, spared):  # fmt: skip
    """Per unit: ``pressed`` (N,) seconds pressed still (``touching`` (N,) > 0 and
    ``|vel|`` (N, 2) below ``PIN_SLOW`` x ``cruise`` (N,) world units / s) grows by ``dt`` or
    resets to 0; past ``after`` seconds it resets and ``until`` (N,) becomes ``tick + hold``.
    ``out`` (N,): ``back_throttle`` while ``tick < until``, else ``throttle`` (N,). ``player``:
    the last row is the player, never pressed. ``spared`` (N,) bool: units the rule leaves to
    their own throttle this tick, not pressed and no longer backing out (ordered units lying
    side-on against a wall). ``pressed`` and ``until`` are updated in place."""
    n = pressed.shape[0]
    for u in range(n):
        p = 0.0
        if spared[u]:
            pressed[u] = 0.0
            until[u] = min(until[u], tick)
            out[u] = throttle[u]
            continue
        still = touching[u] > 0 and math.hypot(vel[u, 0], vel[u, 1]) < PIN_SLOW * cruise[u]
        if still and not (player and u == n - 1):
            p = pressed[u] + dt
        if p > after:
            until[u] = tick + hold
            p = 0.0
        pressed[u] = p
        out[u] = back_throttle if tick < until[u] else throttle[u]
    return out
