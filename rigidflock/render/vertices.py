"""Vertex arrays from state arrays: pure numpy, no OpenGL (testable without a window).

Triangle functions return (V, 2) float32 positions for ``GL_TRIANGLES`` (V a multiple of 3); line
functions return (V, 2) for ``GL_LINES`` (vertex pairs). Colours are per vertex, (V, 4) uint8:
:func:`per_vertex` repeats per-item colours. Functions that take ``out`` write into it (e.g. a
numpy view onto a vertex list) instead of allocating.
"""

from __future__ import annotations

import numpy as np

# the sector of the model's field-of-view rule (defined with it), for the view arcs
from rigidflock.model.steering.view import view_half_angle as view_half_angle

# The hull in the unit's frame, in units of (length, width): a box with a nose (x forward).
HULL = np.array([[0.5, 0.0], [0.1, 0.5], [-0.5, 0.5], [-0.5, -0.5], [0.1, -0.5]], np.float32)
HULL_FAN = np.array([0, 1, 2, 0, 2, 3, 0, 3, 4])
HULL_VERTICES = len(HULL_FAN)  # 9: three triangles


def hull_scale(length: np.ndarray, zoom: float, min_pixels: float) -> np.ndarray:
    """Per-unit factor that makes each hull at least ``min_pixels`` long on screen (>= 1)."""
    return np.maximum(1.0, min_pixels / (np.asarray(length, np.float32) * max(zoom, 1e-12)))


def hull_triangles(pos, angle, length, width, scale=1.0, out=None) -> np.ndarray:
    """Oriented hulls: (N * 9, 2) float32. ``scale`` enlarges the drawn hull about its centre
    (scalar or (N,)); positions stay exact."""
    n = len(pos)
    ang = np.asarray(angle, np.float32)
    c, s = np.cos(ang), np.sin(ang)
    sc = np.broadcast_to(np.asarray(scale, np.float32), (n,))
    lng = np.asarray(length, np.float32) * sc
    wid = np.asarray(width, np.float32) * sc
    p = np.asarray(pos, np.float32)
    hx, hy = HULL[:, 0], HULL[:, 1]
    corners = np.empty((n, len(HULL), 2), np.float32)  # the 5 corners, then the fan picks 9
    corners[..., 0] = p[:, 0:1] + (c * lng)[:, None] * hx - (s * wid)[:, None] * hy
    corners[..., 1] = p[:, 1:2] + (s * lng)[:, None] * hx + (c * wid)[:, None] * hy
    if out is None:
        out = np.empty((n * HULL_VERTICES, 2), np.float32)
    np.take(corners, HULL_FAN, axis=1, out=out.reshape(n, HULL_VERTICES, 2))
    return out


def per_vertex(colors, k: int, out=None) -> np.ndarray:
    """Item colours (N, 4) -> vertex colours (N * k, 4): each repeated ``k`` times."""
    colors = np.ascontiguousarray(colors, np.uint8)
    n = len(colors)
    if out is None:
        out = np.empty((n * k, 4), np.uint8)
    if n and out.flags.c_contiguous:  # one 32-bit word per colour: 10x faster than 4 bytes
        out.view(np.uint32).reshape(n, k)[:] = colors.view(np.uint32).reshape(n, 1)
    else:
        out.reshape(n, k, 4)[:] = colors[:, None, :]
    return out


def _unit_circle(segments: int) -> np.ndarray:
    t = np.linspace(0.0, 2 * np.pi, segments + 1)
    return np.stack([np.cos(t), np.sin(t)], axis=1)


def disc_triangles(centers, radii, segments: int = 48) -> np.ndarray:
    """Filled circles: (M * segments * 3, 2)."""
    centers = np.asarray(centers, float).reshape(-1, 2)
    r = np.asarray(radii, float).reshape(-1)
    u = _unit_circle(segments)
    rim = centers[:, None, :] + r[:, None, None] * u[None]  # (M, S+1, 2)
    tri = np.empty((len(centers), segments, 3, 2))
    tri[:, :, 0] = centers[:, None, :]
    tri[:, :, 1] = rim[:, :-1]
    tri[:, :, 2] = rim[:, 1:]
    return tri.reshape(-1, 2).astype(np.float32)


def ring_triangles(centers, r_inner, r_outer, segments: int = 48) -> np.ndarray:
    """Annuli (circle outlines of a given thickness): (M * segments * 6, 2)."""
    centers = np.asarray(centers, float).reshape(-1, 2)
    m = len(centers)
    ri = np.broadcast_to(np.asarray(r_inner, float), (m,))
    ro = np.broadcast_to(np.asarray(r_outer, float), (m,))
    u = _unit_circle(segments)
    a = centers[:, None, :] + ri[:, None, None] * u[None]
    b = centers[:, None, :] + ro[:, None, None] * u[None]
    q = np.empty((m, segments, 6, 2))
    q[:, :, 0], q[:, :, 1], q[:, :, 2] = a[:, :-1], b[:, :-1], b[:, 1:]
    q[:, :, 3], q[:, :, 4], q[:, :, 5] = a[:, :-1], b[:, 1:], a[:, 1:]
    return q.reshape(-1, 2).astype(np.float32)


def segments(a, b) -> np.ndarray:
    """Line segments a[k] -> b[k]: (K * 2, 2) for GL_LINES."""
    a = np.asarray(a, np.float32).reshape(-1, 2)
    b = np.asarray(b, np.float32).reshape(-1, 2)
    out = np.empty((len(a), 2, 2), np.float32)
    out[:, 0], out[:, 1] = a, b
    return out.reshape(-1, 2)


def crosses(points, half: float) -> np.ndarray:
    """An 'x' mark at each point, arms ``half`` long: (K * 4, 2) for GL_LINES."""
    p = np.asarray(points, np.float32).reshape(-1, 2)
    d1 = np.array([half, half], np.float32)
    d2 = np.array([half, -half], np.float32)
    out = np.empty((len(p), 4, 2), np.float32)
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = p - d1, p + d1, p - d2, p + d2
    return out.reshape(-1, 2)


def sector_points(pos, angle, half_angle, radius, segments: int = 32) -> np.ndarray:
    """Arc points of each unit's view sector, (N, segments + 1, 2), from -half to +half angle
    around the unit's orientation."""
    pos = np.asarray(pos, float).reshape(-1, 2)
    n = len(pos)
    half = np.broadcast_to(np.asarray(half_angle, float), (n,))
    t = np.linspace(-1.0, 1.0, segments + 1)[None, :] * half[:, None] + np.asarray(angle)[:, None]
    r = np.broadcast_to(np.asarray(radius, float), (n,))[:, None]
    return pos[:, None, :] + r[..., None] * np.stack([np.cos(t), np.sin(t)], axis=-1)


def sector_lines(pos, angle, half_angle, radius, segments: int = 32) -> np.ndarray:
    """Outline of each view sector (the arc, and the two edges when it is not a full circle)."""
    pos = np.asarray(pos, float).reshape(-1, 2)
    n = len(pos)
    arc = sector_points(pos, angle, half_angle, radius, segments)
    parts = [np.stack([arc[:, :-1], arc[:, 1:]], axis=2).reshape(n, -1, 2)]
    half = np.broadcast_to(np.asarray(half_angle, float), (n,))
    if np.any(half < np.pi - 1e-6):
        edges = np.stack([pos, arc[:, 0], pos, arc[:, -1]], axis=1)
        edges[half >= np.pi - 1e-6] = np.nan  # full circle: no edges
        parts.append(edges)
    out = np.concatenate(parts, axis=1).reshape(-1, 2)
    return out[~np.isnan(out[:, 0])].astype(np.float32)


def sector_triangles(pos, angle, half_angle, radius, segments: int = 32) -> np.ndarray:
    """Filled view sectors: (N * segments * 3, 2)."""
    pos = np.asarray(pos, float).reshape(-1, 2)
    arc = sector_points(pos, angle, half_angle, radius, segments)
    tri = np.empty((len(pos), segments, 3, 2))
    tri[:, :, 0] = pos[:, None, :]
    tri[:, :, 1] = arc[:, :-1]
    tri[:, :, 2] = arc[:, 1:]
    return tri.reshape(-1, 2).astype(np.float32)


def rect_triangles(x0, y0, x1, y1) -> np.ndarray:
    """Filled axis-aligned rectangles (arrays or scalars): (K * 6, 2)."""
    x0, y0, x1, y1 = (np.atleast_1d(np.asarray(v, float)) for v in (x0, y0, x1, y1))
    q = np.stack(
        [
            np.stack([x0, y0], -1),
            np.stack([x1, y0], -1),
            np.stack([x1, y1], -1),
            np.stack([x0, y0], -1),
            np.stack([x1, y1], -1),
            np.stack([x0, y1], -1),
        ],
        axis=1,
    )
    return q.reshape(-1, 2).astype(np.float32)


def frame_triangles(lo, hi, thickness: float, inside: bool = False) -> np.ndarray:
    """A rectangular frame of ``thickness`` around the box [lo, hi] (outside it, or inside when
    ``inside``): four rectangles, (24, 2)."""
    (x0, y0), (x1, y1) = lo, hi
    t = float(thickness)
    if inside:
        x0, y0, x1, y1 = x0 + t, y0 + t, x1 - t, y1 - t
    return rect_triangles(
        [x0 - t, x1, x0 - t, x0 - t],
        [y0 - t, y0 - t, y0 - t, y1],
        [x0, x1 + t, x1 + t, x1 + t],
        [y1 + t, y1 + t, y0, y1 + t],
    )


def arrows(a, b, head: float, angle: float = 0.45) -> np.ndarray:
    """Arrows a[k] -> b[k] with two head strokes ``head`` long (at most 40% of the shaft):
    (K * 6, 2) for GL_LINES."""
    a = np.asarray(a, np.float32).reshape(-1, 2)
    b = np.asarray(b, np.float32).reshape(-1, 2)
    d = b - a
    n = np.hypot(d[:, 0], d[:, 1])
    u = d / np.maximum(n, 1e-12)[:, None]
    h = np.minimum(np.float32(head), 0.4 * n)[:, None]
    c, s = np.float32(np.cos(angle)), np.float32(np.sin(angle))
    back = -u
    r1 = np.stack([back[:, 0] * c - back[:, 1] * s, back[:, 0] * s + back[:, 1] * c], axis=1)
    r2 = np.stack([back[:, 0] * c + back[:, 1] * s, -back[:, 0] * s + back[:, 1] * c], axis=1)
    out = np.empty((len(a), 6, 2), np.float32)
    out[:, 0], out[:, 1] = a, b
    out[:, 2], out[:, 3] = b, b + h * r1
    out[:, 4], out[:, 5] = b, b + h * r2
    return out.reshape(-1, 2)


def circle_lines(centers, radii, segments: int = 32) -> np.ndarray:
    """Circle outlines as GL_LINES: (M * segments * 2, 2)."""
    centers = np.asarray(centers, float).reshape(-1, 2)
    r = np.broadcast_to(np.asarray(radii, float), (len(centers),))
    pts = centers[:, None, :] + r[:, None, None] * _unit_circle(segments)[None]
    return np.stack([pts[:, :-1], pts[:, 1:]], axis=2).reshape(-1, 2).astype(np.float32)


def thick_segments(a, b, width, extend: float = 0.0) -> np.ndarray:
    """Segments a[k] -> b[k] drawn ``width`` wide (scalar or (K,)) as two triangles each, each
    end pushed out by ``extend`` times the half width (1: square caps that close corners):
    (K * 6, 2)."""
    a = np.asarray(a, float).reshape(-1, 2)
    b = np.asarray(b, float).reshape(-1, 2)
    d = b - a
    n = np.hypot(d[:, 0], d[:, 1])
    u = d / np.maximum(n, 1e-12)[:, None]
    h = 0.5 * np.broadcast_to(np.asarray(width, float), (len(a),))[:, None]
    nrm = np.stack([-u[:, 1], u[:, 0]], axis=1) * h
    a = a - extend * h * u
    b = b + extend * h * u
    q = np.empty((len(a), 6, 2))
    q[:, 0], q[:, 1], q[:, 2] = a - nrm, b - nrm, b + nrm
    q[:, 3], q[:, 4], q[:, 5] = a - nrm, b + nrm, a + nrm
    return q.reshape(-1, 2).astype(np.float32)


def polygon_triangles(polygons) -> np.ndarray:
    """Filled convex polygons (a sequence of (K, 2) arrays), each as a fan from its first
    corner: (sum of (K - 2) * 3, 2)."""
    parts = []
    for poly in polygons:
        p = np.asarray(poly, float).reshape(-1, 2)
        if len(p) < 3:
            continue
        tri = np.empty((len(p) - 2, 3, 2))
        tri[:, 0] = p[0]
        tri[:, 1] = p[1:-1]
        tri[:, 2] = p[2:]
        parts.append(tri.reshape(-1, 2))
    if not parts:
        return np.zeros((0, 2), np.float32)
    return np.concatenate(parts).astype(np.float32)


def polygon_edges(polygons) -> tuple[np.ndarray, np.ndarray]:
    """Every edge of every polygon: (start (E, 2), end (E, 2))."""
    polys = [np.asarray(p, float).reshape(-1, 2) for p in polygons if len(p) >= 2]
    if not polys:
        return np.zeros((0, 2)), np.zeros((0, 2))
    a = np.concatenate(polys)
    b = np.concatenate([np.roll(p, -1, axis=0) for p in polys])
    return a, b


def polygon_outlines(polygons, width: float) -> np.ndarray:
    """Outlines ``width`` wide centred on the edges of convex polygons, corners closed:
    (E * 6, 2) triangles."""
    a, b = polygon_edges(polygons)
    return thick_segments(a, b, width, extend=1.0)


def polyline_segments(points) -> tuple[np.ndarray, np.ndarray]:
    """A polyline's consecutive pairs: (start (K-1, 2), end (K-1, 2))."""
    p = np.asarray(points, float).reshape(-1, 2)
    return p[:-1], p[1:]


def square_outlines(centers, half: float, width: float) -> np.ndarray:
    """Hollow axis-aligned squares of half side ``half`` (to the outer edge) around each centre,
    ``width`` thick: four rectangles each, (M * 24, 2) triangles."""
    c = np.asarray(centers, float).reshape(-1, 2)
    if not len(c):
        return np.zeros((0, 2), np.float32)
    x, y = c[:, 0], c[:, 1]
    o, i = half, half - width
    x0 = np.stack([x - o, x + i, x - i, x - i], axis=1).ravel()
    x1 = np.stack([x - i, x + o, x + i, x + i], axis=1).ravel()
    y0 = np.stack([y - o, y - o, y - o, y + i], axis=1).ravel()
    y1 = np.stack([y + o, y + o, y - i, y + o], axis=1).ravel()
    return rect_triangles(x0, y0, x1, y1)
