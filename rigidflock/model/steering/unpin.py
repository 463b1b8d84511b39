"""Backing out units pinned against static geometry: the unpin rule, compiled (one pass a tick).

An AI unit touching an obstacle, wall or building while slower than ``PIN_SLOW`` x its cruise
speed for longer than ``UNPIN_AFTER`` seconds backs out at ``UNPIN_THROTTLE`` for
``UNPIN_SECONDS`` (its bow force keeps steering it off the surface): wedged between two trees
or nose-in to a wall, turning alone cannot free it. Units spared that tick keep their own
throttle (ordered units lying side-on against a wall: ``OrderControl.side_on``; reversing along
a wall pushes the units queued behind back down the lane). It applies to every AI unit, after
the move orders' throttle; the player is never pressed. The numpy expression it replaces cost
~10 array operations a tick, each over every unit.

The pinned-time measure (:mod:`rigidflock.model.measures.pins`) counts pinned units by the same
threshold, as a named copy of ``PIN_SLOW`` (measures import no rules).
"""

from __future__ import annotations

import math

import numba as nb

PIN_SLOW = 0.1  # a unit slower than this fraction of its cruise speed, touching: pressed still
UNPIN_AFTER = 0.5  # seconds pressed still against static geometry before a unit backs out
UNPIN_SECONDS = 1.0  # how long it backs out
UNPIN_THROTTLE = -0.6  # at this throttle (its bow force keeps steering it off the surface)


def back_out(dt: float) -> tuple[float, int, float]:
    """The rule's (seconds pressed before backing out, ticks it backs out, throttle) at ticks
    of ``dt`` seconds: the ``back_out`` argument of :func:`unpin_throttle`."""
    return UNPIN_AFTER, int(round(UNPIN_SECONDS / dt)), UNPIN_THROTTLE


@nb.njit(cache=True)
def unpin_throttle(vel, touching, cruise, pressed, until, tick, dt, back_out, player, throttle,
                   out, spared):  # fmt: skip
    """Per unit: ``pressed`` (N,) seconds pressed still (``touching`` (N,) > 0 and
    ``|vel|`` (N, 2) below ``PIN_SLOW`` x ``cruise`` (N,) world units / s) grows by ``dt`` or
    resets to 0; past ``after`` seconds it resets and ``until`` (N,) becomes ``tick + hold``,
    where ``back_out`` is (``after``, ``hold`` ticks, ``back_throttle``) (:func:`back_out`).
    ``out`` (N,): ``back_throttle`` while ``tick < until``, else ``throttle`` (N,). ``player``:
    the last row is the player, never pressed. ``spared`` (N,) bool: units the rule leaves to
    their own throttle this tick, not pressed and no longer backing out (ordered units lying
    side-on against a wall). ``pressed`` and ``until`` are updated in place."""
    after, hold, back_throttle = back_out
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
