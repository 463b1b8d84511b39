"""Scene generation: what a scene leaves to its seeded random generator.

For now the obstacle field (``[obstacle_field]``: ``count`` random circles of ``radius``, kept
``margin`` away from the world edge, the spawn discs and the player). The simulation calls
:func:`place_obstacles` first thing after seeding its one generator, so the draw order here is part
of every recorded replay: do not change it.
"""

from __future__ import annotations

import numpy as np

from rigidflock.scene.errors import SceneError
from rigidflock.scene.specs import Scene

_ATTEMPTS_PER_OBSTACLE = 200
_GAP = 1.0  # least gap between a field circle and any other obstacle, world units


def spawn_discs(scene: Scene) -> list[tuple[np.ndarray, float]]:
    """``(centre (2,), radius)`` of every group spawned in a disc (world units)."""
    size = np.asarray(scene.world.size, dtype=float)
    discs = []
    for g in scene.groups:
        if g.spawn.positions is None:
            c = size / 2 if g.spawn.center is None else np.asarray(g.spawn.center)
            discs.append((c, g.spawn.radius))
    return discs


def _fits(c: np.ndarray, radius: float, keep_out, obs) -> bool:
    """A circle at ``c`` (2,) clears every keep-out disc and, by ``_GAP``, every obstacle."""
    if any(np.hypot(*(c - kc)) < kr + radius for kc, kr in keep_out):
        return False
    return not any(np.hypot(c[0] - x, c[1] - y) < r + radius + _GAP for x, y, r in obs)


def place_obstacles(scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """Scene obstacles plus the seeded obstacle field, (K, 3) rows of x, y, radius (world units).

    Each field circle keeps ``margin`` from the world edge, clears every spawn disc and the player
    by ``margin``, and does not overlap another obstacle. Draws two numbers from ``rng`` per
    attempt, nothing when there is no field. Raises :class:`SceneError` when the field does not
    fit.
    """
    obs = [(o.center[0], o.center[1], o.radius) for o in scene.obstacles]
    fld = scene.obstacle_field
    if fld is None or fld.count == 0:
        return np.asarray(obs, dtype=float).reshape(-1, 3)
    keep_out = [(c, r + fld.margin) for c, r in spawn_discs(scene)]
    if scene.player is not None:
        keep_out.append((np.asarray(scene.player.position), fld.margin))
    size = np.asarray(scene.world.size, dtype=float)
    lo, hi = np.full(2, fld.margin), size - fld.margin
    placed = 0
    for _ in range(_ATTEMPTS_PER_OBSTACLE * fld.count):
        if placed == fld.count:
            break
        c = lo + rng.random(2) * (hi - lo)
        if _fits(c, fld.radius, keep_out, obs):
            obs.append((c[0], c[1], fld.radius))
            placed += 1
    if placed < fld.count:
        raise SceneError(
            [
                f"{scene.source}: obstacle_field: only {placed} of {fld.count} obstacles fit "
                f"(margin {fld.margin:g} from edges, spawn discs and the player); "
                "lower count, radius or margin"
            ]
        )
    return np.asarray(obs, dtype=float).reshape(-1, 3)


def check_generation(scene: Scene, seed: int | None = None) -> np.ndarray:
    """Place the obstacles as a run with ``seed`` (default: the scene's) would, (K, 3).

    Raises :class:`SceneError` when the obstacle field does not fit. A run seeds its generator
    and places the obstacles before any other draw, so this is exactly what the run will see.
    """
    return place_obstacles(scene, np.random.default_rng(scene.seed if seed is None else int(seed)))
