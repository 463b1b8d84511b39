"""Three behaviours, as a user would write them: ``f(units, params) -> directions (n, 2)``.

- :func:`wander`: a seeded wandering path (Reynolds' wander circle).
- :func:`flee`: away from the units of a predator family within a radius.
- :func:`flow_field`: along a steady field of cellular vortices that tiles the world.

Each one is whole-array numpy (no loop over units), so it costs a few numpy passes over the
units it applies to per tick. ``units`` is a read-only
:class:`~rigidflock.model.behaviours.UnitsView`; a zero row of the result means no opinion.
"""

from __future__ import annotations

import numpy as np

__all__ = ["flee", "flow_field", "wander"]


def wander(units, params: dict) -> np.ndarray:
    """Reynolds' wander: each unit steers at a point on a circle of ``radius`` (params, default
    1) ``distance`` ahead (default 2, both in its own frame and in any unit), and the point
    moves along the circle by a random step of at most ``jitter`` (default 0.3) a tick, drawn
    from the behaviour's own generator (``units.rng``, seeded from the run's seed: the same
    seed, the same walk). The point is kept in ``units.memory`` from tick to tick, so the turns
    persist and add up to a wandering path; only square roots, no sines or cosines."""
    jitter = float(params.get("jitter", 0.3))
    on = units.memory.get("on_circle")
    if on is None or len(on) != units.n:
        on = np.zeros((units.n, 2))
        on[:, 0] = 1.0  # start steering straight ahead
    on = on + units.rng.uniform(-jitter, jitter, (units.n, 2))
    on /= np.maximum(np.sqrt(on[:, 0] ** 2 + on[:, 1] ** 2), 1e-12)[:, None]
    units.memory["on_circle"] = on
    ahead = float(params.get("distance", 2.0)) + float(params.get("radius", 1.0)) * on[:, 0]
    side = float(params.get("radius", 1.0)) * on[:, 1]
    h = units.heading  # the unit's frame: ahead along h, side to port of it
    return np.stack([ahead * h[:, 0] - side * h[:, 1], ahead * h[:, 1] + side * h[:, 0]], axis=1)


def flee(units, params: dict) -> tuple[np.ndarray, np.ndarray]:
    """Away from every unit of family ``predator`` (params, default "wolf") within ``radius``
    world units (default 60), each weighted by 1 / distance, so the nearest counts most; no
    opinion when none is near. The predators near are found with ``units.neighbours``, the
    simulation's cell list: one pass for all units. Returns a throttle too: full (1) for a
    unit fleeing, ``calm`` (params, default 1) for the others, so a herd can graze slowly and
    bolt."""
    radius = float(params.get("radius", 60.0))
    code = units.family_code(str(params.get("predator", "wolf")))
    near = units.neighbours(radius)
    hunted = units.everyone.family[near.j] == code
    i, off = near.i[hunted], near.offset[hunted]
    dist = np.maximum(near.distance[hunted], 1e-6)
    away = -off / (dist * dist)[:, None]  # unit vector away, over the distance
    out = np.zeros((units.n, 2))
    out[:, 0] = np.bincount(i, away[:, 0], minlength=units.n)
    out[:, 1] = np.bincount(i, away[:, 1], minlength=units.n)
    fleeing = np.bincount(i, minlength=units.n) > 0
    return out, np.where(fleeing, 1.0, float(params.get("calm", 1.0)))


def flow_field(units, params: dict) -> np.ndarray:
    """Along a steady field of ``cells`` x ``cells`` counter-rotating vortices (params, default
    2) that tiles the world (the Taylor-Green stream function sin(kx x) sin(ky y), periodic, so
    it matches across a wrap-around edge): each unit steers along the flow where it is."""
    cells = float(params.get("cells", 2))
    w, h = units.size
    kx, ky = np.pi * cells / w, np.pi * cells / h
    x, y = units.pos[:, 0], units.pos[:, 1]
    u = ky * np.sin(kx * x) * np.cos(ky * y)
    v = -kx * np.cos(kx * x) * np.sin(ky * y)
    return np.stack([u, v], axis=1)
