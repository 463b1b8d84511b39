"""Three behaviours, as a user would write them: ``f(units, params) -> directions (n, 2)``.

- :func:`wander`: a seeded random walk of the heading.
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
    """Steer toward the heading turned by a random angle of at most ``turn`` degrees either way
    (params, default 60, below 90), drawn each tick from the behaviour's own generator
    (``units.rng``: seeded from the run's seed; its tangent uniform, so no sine or cosine is
    needed: h + k port(h) is turned by atan(k)). The bow force is proportional to the angle,
    and the unit's inertia and damping add the draws up into a random walk of its heading: the
    same seed, the same walk."""
    most = np.tan(np.radians(min(float(params.get("turn", 60.0)), 89.0)))
    k = units.rng.uniform(-most, most, units.n)
    h = units.heading
    return np.stack([h[:, 0] - k * h[:, 1], h[:, 1] + k * h[:, 0]], axis=1)


def flee(units, params: dict) -> np.ndarray:
    """Away from every unit of family ``predator`` (params, default "wolf") within ``radius``
    world units (default 60), each weighted by 1 / distance, so the nearest counts most; no
    opinion when none is near. The units of the family chasing them are found with
    ``units.neighbours``, the simulation's cell list: one pass for all units."""
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
    return out


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
