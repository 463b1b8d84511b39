"""The units of a scene and where they start: per-unit property arrays and seeded spawn points.

Everything here draws from the run's one ``numpy.random.Generator``, in a fixed order, so the same
scene and seed spawn the same units.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.spatial import cKDTree

from rigidflock.model import vehicle
from rigidflock.model.state import (
    PLAYER_FAMILY,
    ROLE_CHASE,
    ROLE_INTERCEPT,
    ROLE_NONE,
    ROLE_PLAYER,
    Units,
)
from rigidflock.model.steering.neighbours import cross_pairs
from rigidflock.scene import Scene

ROLE_CODES = {"none": ROLE_NONE, "chase": ROLE_CHASE, "intercept": ROLE_INTERCEPT}
_COLUMNS = ("length", "width", "mass", "thrust", "max_steering_force")
SPAWN_ROUNDS = 50  # redraws of spawn points that land badly


def build_units(scene: Scene) -> Units:
    """The per-unit arrays of ``scene``: its groups in order, then the player (last, if any)."""
    ph = scene.physics
    families: list[str] = []
    specs, fam = [], []
    for g in scene.groups:
        if g.family not in families:
            families.append(g.family)
        specs += [g] * g.count
        fam += [families.index(g.family)] * g.count
    role = [ROLE_CODES[s.role] for s in specs]
    if scene.player is not None:
        families.append(PLAYER_FAMILY)
        specs.append(scene.player)
        fam.append(len(families) - 1)
        role.append(ROLE_PLAYER)
    L, W, m, T, S = (np.array([float(getattr(s, c)) for s in specs]) for c in _COLUMNS)
    drag_k = vehicle.drag_constant(L, W, ph.drag_coefficient, ph.air_density)
    if ph.angular_damping is None:
        kw = vehicle.auto_angular_damping(m, T, drag_k, L)
    else:
        kw = np.full(len(L), float(ph.angular_damping))
    return Units(
        length=L,
        width=W,
        mass=m,
        moment=m * (L * L + W * W) / 12.0,  # pymunk's box moment
        thrust=T,
        max_steer=S,
        drag_k=drag_k,
        angular_damping=kw,
        family=np.asarray(fam, dtype=np.intp),
        role=np.asarray(role, dtype=np.intp),
        family_names=tuple(families),
        has_player=scene.player is not None,
    )


def disc_points(rng: np.random.Generator, center, radius: float, count: int) -> np.ndarray:
    """``count`` points uniform in the disc (centre (2,), radius in world units) -> (count, 2)."""
    r = radius * np.sqrt(rng.random(count))
    t = rng.random(count) * 2 * np.pi
    return np.stack([center[0] + r * np.cos(t), center[1] + r * np.sin(t)], axis=1)


def spawn(
    scene: Scene,
    units: Units,
    obstacles: np.ndarray,
    rng: np.random.Generator,
    is_free: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Initial positions (N, 2) and angles (N,) radians. Disc spawns are uniform; points inside
    an obstacle (M, 3), outside ``is_free`` (walls, buildings) or closer than one unit length to
    an earlier unit are drawn again (up to ``SPAWN_ROUNDS`` rounds)."""
    size = np.asarray(scene.world.size, dtype=float)
    pos = np.zeros((units.n, 2))
    angle = np.zeros(units.n)
    disc_rows = []
    k = 0
    for g in scene.groups:
        rows = np.arange(k, k + g.count)
        if g.spawn.positions is not None:
            pos[rows] = np.asarray(g.spawn.positions, dtype=float)
        else:
            c = size / 2 if g.spawn.center is None else np.asarray(g.spawn.center)
            pos[rows] = disc_points(rng, c, g.spawn.radius, g.count)
            disc_rows.append((rows, c, g.spawn.radius))
        if g.heading is None:
            angle[rows] = rng.random(g.count) * 2 * np.pi
        else:
            angle[rows] = g.heading
        k += g.count
    if scene.player is not None:
        pos[-1] = scene.player.position
        angle[-1] = scene.player.heading
    for _ in range(SPAWN_ROUNDS):
        bad = bad_spawns(pos, units, obstacles, is_free)
        redraw = [(rows[bad[rows]], c, r) for rows, c, r in disc_rows if bad[rows].any()]
        if not redraw:
            break
        for rows, c, r in redraw:
            pos[rows] = disc_points(rng, c, r, len(rows))
    return pos, angle


def bad_spawns(
    pos: np.ndarray,
    units: Units,
    obstacles: np.ndarray,
    is_free: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """(N,) bool: spawn points (N, 2) to draw again. The player's point is never redrawn."""
    bad = np.zeros(units.n, dtype=bool)
    if len(obstacles):
        reach = float(obstacles[:, 2].max() + units.length.max())
        ui, oi, dist = cross_pairs(pos, obstacles[:, :2], reach)
        inside = dist < obstacles[oi, 2] + units.length[ui]
        bad[ui[inside]] = True
    if is_free is not None:
        bad |= ~is_free(pos)
    pairs = cKDTree(pos).query_pairs(float(units.length.max()), output_type="ndarray")
    if len(pairs):
        bad[pairs.max(axis=1)] = True  # the later unit of a too-close pair moves
    if units.has_player:
        bad[-1] = False
    return bad
