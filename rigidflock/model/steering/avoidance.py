"""Feelers against circular obstacles and the world's walls (DESIGN.md section 4).

The feeler of unit i runs from p_i along its heading h_i for ``feeler_len`` world units. An obstacle
(centre c, radius r) is felt when a = c - p_i projects ahead (0 < a . h < feeler_len) and the
feeler line passes within r + W/2 + L/2 of c; the unit then turns away from it with a force
proportional to feeler_len / |a|. Arrays: positions/headings (N, 2); per-unit values (N,).

Priority (model 2, issue 11): the feeler's command is AIDemo4's, but it no longer simply adds to
flocking. A felt obstacle or wall nearer than ``PRIORITY_REACH`` of the feeler makes the unit
urgent (:func:`urgency`, 0..1, 1 within ``PRIORITY_FULL`` of the feeler) and the other rules'
force is scaled by 1 - urgency, so the flock's pull cannot hold a unit nose-on to a tree. A unit
touching static geometry ahead of it (its centre within its half-diagonal plus
``CONTACT_TOLERANCE`` of the surface) steers along the surface's tangent instead, whichever
tangent is nearer its heading, and nothing else steers it then (:func:`obstacle_priority`,
:func:`wall_priority`).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from rigidflock.model.steering.flocking import side
from rigidflock.model.torus import fold, min_image

PRIORITY_REACH = 0.5  # share of the feeler: a felt surface nearer than this takes priority
PRIORITY_FULL = 0.2  # share of the feeler: nearer than this, avoidance alone steers
CONTACT_TOLERANCE = 1.0  # world units beyond the half-diagonal that count as touching
CONTACT_GAIN = 4.0  # contact command per unit of turn (side * angle / pi) toward the tangent


def urgency(gap, feeler_len):
    """How much a felt surface ``gap`` world units ahead (along the feeler, or from the unit's
    centre to an obstacle's edge) takes priority: 0 beyond PRIORITY_REACH x ``feeler_len``,
    rising linearly to 1 at PRIORITY_FULL x ``feeler_len``."""
    span = (PRIORITY_REACH - PRIORITY_FULL) * feeler_len
    return np.clip((PRIORITY_REACH * feeler_len - gap) / span, 0.0, 1.0)


def turn_toward(u: np.ndarray, heading: np.ndarray, left: np.ndarray) -> np.ndarray:
    """side(u) * acos(h . u) / pi for directions ``u`` (K, 2) of any length; 0 for zero ones."""
    norm = np.hypot(u[:, 0], u[:, 1])
    safe = np.where(norm > 1e-9, norm, 1.0)
    un = u / safe[:, None]
    cos = np.clip(np.einsum("ij,ij->i", heading, un), -1.0, 1.0)
    out = side(np.einsum("ij,ij->i", left, un)) * np.arccos(cos) / np.pi
    return np.where(norm > 1e-9, out, 0.0)


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


def obstacle_priority(
    pos: np.ndarray,
    heading: np.ndarray,
    left: np.ndarray,
    feeler_len: np.ndarray,
    clearance: np.ndarray,
    touch: np.ndarray,
    obstacles: np.ndarray,
    box: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Priority and contact against circles: (urgency (N,) of the felt obstacles (the largest),
    distance from the centre to the nearest touched obstacle's edge (N,), inf when none,
    and the contact command (N,): CONTACT_GAIN x the turn toward that obstacle's tangent nearer
    the heading). An obstacle is touched when its edge is within ``touch`` (N,) of the unit's
    centre and its centre is ahead (a . h > 0)."""
    n, m = len(pos), len(obstacles)
    urg, cgap, cmd = np.zeros(n), np.full(n, np.inf), np.zeros(n)
    if n == 0 or m == 0:
        return urg, cgap, cmd
    ui, oi = np.divmod(np.arange(n * m), m)
    a = min_image(obstacles[oi, :2] - pos[ui], box)
    h = heading[ui]
    ahead = np.einsum("ij,ij->i", a, h)
    perp = np.abs(a[:, 0] * h[:, 1] - a[:, 1] * h[:, 0])
    dist = np.maximum(np.hypot(a[:, 0], a[:, 1]), 1e-6)
    edge = dist - obstacles[oi, 2]
    fl = feeler_len[ui]
    felt = (ahead > 0) & (ahead < fl) & (perp < obstacles[oi, 2] + clearance[ui])
    np.maximum.at(urg, ui[felt], urgency(edge[felt], fl[felt]))
    touched = (ahead > 0) & (edge < touch[ui])
    if touched.any():
        ui, a, edge, h = ui[touched], a[touched], edge[touched], h[touched]
        tangent = np.stack([-a[:, 1], a[:, 0]], axis=1)
        tangent *= np.where(np.einsum("ij,ij->i", tangent, h) < 0, -1.0, 1.0)[:, None]
        order = np.argsort(-edge, kind="stable")  # the nearest written last
        cgap[ui[order]] = edge[order]
        cmd[ui[order]] = CONTACT_GAIN * turn_toward(tangent[order], h[order], left[ui[order]])
    return urg, cgap, cmd


def wall_priority(
    pos: np.ndarray,
    heading: np.ndarray,
    left: np.ndarray,
    feeler_len: np.ndarray,
    touch: np.ndarray,
    size: np.ndarray,
    urg: np.ndarray,
    cgap: np.ndarray,
    cmd: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`obstacle_priority`'s three results with the four walls of [0, w] x [0, h] folded
    in: a wall the feeler reaches (distance t along h) is urgent by t; a wall within ``touch`` of
    the centre that the unit heads toward is touched, its tangent the heading with the wall's
    normal part removed."""
    urg, cgap, cmd = urg.copy(), cgap.copy(), cmd.copy()
    for axis in (0, 1):
        hv = heading[:, axis]
        for wall, toward in ((0.0, -1.0), (float(size[axis]), 1.0)):
            moving = hv * toward > 1e-9
            t = np.where(moving, (wall - pos[:, axis]) / np.where(moving, hv, 1.0), np.inf)
            hit = moving & (t < feeler_len)
            urg = np.where(hit, np.maximum(urg, urgency(t, feeler_len)), urg)
            d = (wall - pos[:, axis]) * toward
            touched = moving & (d < touch) & (d < cgap)
            tangent = heading.copy()
            tangent[:, axis] = 0.0
            c = CONTACT_GAIN * turn_toward(tangent, heading, left)
            cgap = np.where(touched, d, cgap)
            cmd = np.where(touched, c, cmd)
    return urg, cgap, cmd


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
