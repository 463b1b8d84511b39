"""Feelers against circular obstacles and the world's walls (DESIGN.md section 4).

The feeler of unit i runs from p_i along its heading h_i for ``feeler_len`` world units. An obstacle
(centre c, radius r) is felt when a = c - p_i projects ahead (0 < a . h < feeler_len) and the
feeler line passes within r + W/2 + L/2 of c; the unit then turns away from it with a force
proportional to feeler_len / |a|. Arrays: positions/headings (N, 2); per-unit values (N,).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from rigidflock.model.steering.flocking import side
from rigidflock.model.torus import fold, min_image


def obstacle_feelers(
    pos: np.ndarray,
    heading: np.ndarray,
    left: np.ndarray,
    feeler_len: np.ndarray,
    clearance: np.ndarray,
    obstacles: np.ndarray,
    box: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Feeler response to circles.

    ``obstacles``: (M, 3) rows (cx, cy, r); ``clearance``: (N,) W/2 + L/2 added to each radius;
    ``left``: (N, 2) the body's port axis (side is judged in the body frame). Returns the summed
    command sum(-side(a) * feeler_len / |a|) per unit (N,) and the index of the nearest felt
    obstacle per unit (N,), -1 where none.
    """
    n, m = len(pos), len(obstacles)
    out = np.zeros(n)
    felt = np.full(n, -1, dtype=np.intp)
    if n == 0 or m == 0:
        return out, felt
    reach = float(np.max(feeler_len) + np.max(obstacles[:, 2]) + np.max(clearance))
    if n * m <= 200_000:
        ui, oi = np.divmod(np.arange(n * m), m)
    else:  # candidates within reach only
        if box is not None:
            tu = cKDTree(fold(pos, box), boxsize=box)
            to = cKDTree(fold(obstacles[:, :2], box), boxsize=box)
        else:
            tu, to = cKDTree(pos), cKDTree(obstacles[:, :2])
        pairs = tu.sparse_distance_matrix(to, reach, output_type="ndarray")
        ui, oi = pairs["i"].astype(np.intp), pairs["j"].astype(np.intp)
    a = min_image(obstacles[oi, :2] - pos[ui], box)
    ahead = np.einsum("ij,ij->i", a, heading[ui])
    perp = np.abs(a[:, 0] * heading[ui, 1] - a[:, 1] * heading[ui, 0])
    hit = (ahead > 0) & (ahead < feeler_len[ui]) & (perp < obstacles[oi, 2] + clearance[ui])
    ui, oi, a = ui[hit], oi[hit], a[hit]
    dist = np.maximum(np.hypot(a[:, 0], a[:, 1]), 1e-6)
    lat = np.einsum("ij,ij->i", a, left[ui])
    np.add.at(out, ui, -side(lat) * feeler_len[ui] / dist)
    # nearest felt obstacle: sort by distance descending so the nearest is written last
    order = np.argsort(-dist, kind="stable")
    felt[ui[order]] = oi[order]
    return out, felt


def wall_feelers(
    pos: np.ndarray,
    heading: np.ndarray,
    left: np.ndarray,
    feeler_len: np.ndarray,
    size: np.ndarray,
) -> np.ndarray:
    """Feeler response to the four walls of a walled world [0, w] x [0, h].

    A wall is felt when the feeler reaches it (distance along h to the wall, t, is below
    ``feeler_len``); the unit turns away from the wall's side with force feeler_len / t, the same
    law as for obstacles. Returns (N,).
    """
    out = np.zeros(len(pos))
    for axis in (0, 1):
        hv = heading[:, axis]
        for wall, toward in ((0.0, -1.0), (float(size[axis]), 1.0)):
            # travel toward this wall, and distance along h until the feeler reaches it
            moving = hv * toward > 1e-9
            t = np.where(moving, (wall - pos[:, axis]) / np.where(moving, hv, 1.0), np.inf)
            hit = moving & (t < feeler_len)
            normal = np.zeros((len(pos), 2))
            normal[:, axis] = toward
            lat = np.einsum("ij,ij->i", normal, left)
            out += np.where(hit, -side(lat) * feeler_len / np.maximum(t, 1e-6), 0.0)
    return out
