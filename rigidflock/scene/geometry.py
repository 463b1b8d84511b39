"""Plane geometry of the static world: convex polygons and thick segments (numpy, no pymunk).

Used by scene validation (pure checks on a few shapes) and by navigation (distances from many
grid points at once). Points are (x, y) in world units; polygons are (K, 2) arrays of vertices in
counter-clockwise order.
"""

from __future__ import annotations

import numpy as np


def rect_polygon(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """The rectangle [x0, x1] x [y0, y1] as a counter-clockwise polygon (4, 2)."""
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


def signed_area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def is_convex(poly: np.ndarray, tol: float = 1e-9) -> bool:
    """True for a strictly convex polygon in either orientation (no collinear triples)."""
    if len(poly) < 3:
        return False
    e = np.roll(poly, -1, axis=0) - poly
    cross = e[:, 0] * np.roll(e, -1, axis=0)[:, 1] - e[:, 1] * np.roll(e, -1, axis=0)[:, 0]
    return bool(np.all(cross > tol) or np.all(cross < -tol))


def ccw(poly: np.ndarray) -> np.ndarray:
    """The polygon with counter-clockwise vertex order."""
    return poly if signed_area(poly) > 0 else poly[::-1].copy()


def segment_distance(points: np.ndarray, a, b) -> np.ndarray:
    """Distance from each point (P, 2) to the segment a-b, (P,)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    ab = b - a
    denom = float(ab @ ab)
    t = np.zeros(len(points)) if denom == 0 else np.clip((points - a) @ ab / denom, 0.0, 1.0)
    closest = a + t[:, None] * ab
    return np.hypot(*(points - closest).T)


def polygon_distance(points: np.ndarray, poly: np.ndarray) -> np.ndarray:
    """Signed distance from each point (P, 2) to a convex counter-clockwise polygon: negative
    inside (minus the distance to the nearest edge), positive outside."""
    edges = np.roll(poly, -1, axis=0) - poly
    normals = np.stack([edges[:, 1], -edges[:, 0]], axis=1)  # outward for ccw
    normals /= np.hypot(*normals.T)[:, None]
    proj = np.einsum("pkd,kd->pk", points[:, None, :] - poly[None, :, :], normals)
    inside = np.all(proj <= 0, axis=1)
    edge_d = np.min(
        np.stack([segment_distance(points, poly[k], poly[(k + 1) % len(poly)])
                  for k in range(len(poly))], axis=1),
        axis=1,
    )  # fmt: skip
    return np.where(inside, -edge_d, edge_d)


def polygons_overlap(p: np.ndarray, q: np.ndarray, tol: float = 1e-9) -> bool:
    """Separating-axis test for two convex polygons: True when their interiors intersect
    (touching edges do not count)."""
    for poly in (p, q):
        edges = np.roll(poly, -1, axis=0) - poly
        for ex, ey in edges:
            axis = np.array([ey, -ex])
            a, b = p @ axis, q @ axis
            if a.max() <= b.min() + tol or b.max() <= a.min() + tol:
                return False
    return True
