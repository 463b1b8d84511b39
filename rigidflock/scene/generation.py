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
_BLOCK = 256  # candidate centres tested at once
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


def _fits(c: np.ndarray, radius: float, obs: np.ndarray) -> bool:
    """A circle at ``c`` (2,) clears every circle of ``obs`` (K, 3) by ``_GAP``."""
    return not (np.hypot(c[0] - obs[:, 0], c[1] - obs[:, 1]) < obs[:, 2] + radius + _GAP).any()


def _cannot_fit(scene: Scene, lo: np.ndarray, hi: np.ndarray) -> bool:
    """True when the field's circles (kept ``_GAP`` apart) have more area than the box their
    centres may take, grown by a radius on every side: no placement can succeed, so none is
    tried (trying would take ``_ATTEMPTS_PER_OBSTACLE`` draws per circle)."""
    fld = scene.obstacle_field
    r = fld.radius + _GAP / 2
    w, h = max(0.0, hi[0] - lo[0]) + 2 * r, max(0.0, hi[1] - lo[1]) + 2 * r
    return fld.count * np.pi * r * r > w * h


def _refuse(scene: Scene, placed: int | None) -> SceneError:
    """The error of a field that does not fit (``placed`` None: refused by area alone)."""
    fld = scene.obstacle_field
    fit = (
        f"{fld.count} circles of radius {fld.radius:g} cover more than the room for them"
        if placed is None
        else f"only {placed} of {fld.count} obstacles fit"
    )
    return SceneError(
        [
            f"{scene.source}: obstacle_field: {fit} (margin {fld.margin:g} from edges, spawn "
            "discs and the player); lower count, radius or margin"
        ]
    )


def place_obstacles(scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """Scene obstacles plus the seeded obstacle field, (K, 3) rows of x, y, radius (world units).

    Each field circle keeps ``margin`` from the world edge, clears every spawn disc and the player
    by ``margin``, and does not overlap another obstacle. Draws two numbers from ``rng`` per
    attempt, nothing when there is no field. Raises :class:`SceneError` when the field does not
    fit (at once, drawing nothing, when its circles' area alone is larger than the room).
    """
    scene_obs = [(o.center[0], o.center[1], o.radius) for o in scene.obstacles]
    fld = scene.obstacle_field
    if fld is None or fld.count == 0:
        return np.asarray(scene_obs, dtype=float).reshape(-1, 3)
    keep_out = [(c, r + fld.margin) for c, r in spawn_discs(scene)]
    if scene.player is not None:
        keep_out.append((np.asarray(scene.player.position), fld.margin))
    keep_c = np.asarray([c for c, _ in keep_out], dtype=float).reshape(-1, 2)
    keep_r = np.asarray([r for _, r in keep_out], dtype=float)
    size = np.asarray(scene.world.size, dtype=float)
    lo, hi = np.full(2, fld.margin), size - fld.margin
    if _cannot_fit(scene, lo, hi):
        raise _refuse(scene, None)
    obs = np.zeros((len(scene_obs) + fld.count, 3))
    obs[: len(scene_obs)] = np.asarray(scene_obs, dtype=float).reshape(-1, 3)
    k = len(scene_obs)
    placed = used = 0
    # Candidates are drawn in blocks from a copy of the generator (the same doubles, in the same
    # order, as two at a time) and tested against everything placed before the block at once;
    # then the generator itself draws exactly the numbers the attempts used.
    probe = np.random.Generator(type(rng.bit_generator)())
    probe.bit_generator.state = rng.bit_generator.state
    attempts = _ATTEMPTS_PER_OBSTACLE * fld.count
    while placed < fld.count and used < attempts:
        block = min(_BLOCK, attempts - used)
        cands = lo + probe.random((block, 2)) * (hi - lo)
        ok = np.ones(block, dtype=bool)
        if len(keep_r):
            d = np.hypot(cands[:, :1] - keep_c[:, 0], cands[:, 1:] - keep_c[:, 1])
            ok &= ~(d < keep_r + fld.radius).any(axis=1)
        o = obs[:k]
        d = np.hypot(cands[:, :1] - o[:, 0], cands[:, 1:] - o[:, 1])
        ok &= ~(d < o[:, 2] + fld.radius + _GAP).any(axis=1)
        start, taken = k, block
        for i in np.flatnonzero(ok):  # only these can fit; test them against this block's
            if _fits(cands[i], fld.radius, obs[start:k]):
                obs[k] = (cands[i, 0], cands[i, 1], fld.radius)
                k += 1
                placed += 1
                if placed == fld.count:
                    taken = int(i) + 1
                    break
        used += taken
    rng.random(2 * used)  # the generator moves on as if it had drawn every attempt itself
    if placed < fld.count:
        raise _refuse(scene, placed)
    return obs


def check_generation(scene: Scene, seed: int | None = None) -> np.ndarray:
    """Place the obstacles as a run with ``seed`` (default: the scene's) would, (K, 3).

    Raises :class:`SceneError` when the obstacle field does not fit. A run seeds its generator
    and places the obstacles before any other draw, so this is exactly what the run will see.
    """
    return place_obstacles(scene, np.random.default_rng(scene.seed if seed is None else int(seed)))
