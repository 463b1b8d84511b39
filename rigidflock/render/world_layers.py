"""The world's layers: floor (edge, obstacles, buildings, walls), view arcs, RTS marks, links /
feelers / aim lines, hulls, vectors; filled from a :class:`Frame` with numpy.

Hulls are drawn at least ``min_hull_px`` long on screen (scaled about their centres); positions
are exact. The legend says by how much they are enlarged.
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.torus import min_image
from rigidflock.render import colors as C
from rigidflock.render import vertices as G
from rigidflock.render.backend import gl, pyglet
from rigidflock.render.camera import Camera
from rigidflock.render.frame import Frame, Overlays, target_colors
from rigidflock.render.mesh import Mesh
from rigidflock.render.mesh import rgba as _rgba

MIN_HULL_PX = 12.0
VELOCITY_SECONDS = 1.0  # a velocity arrow shows the travel of this long (times the hull scale)
FORCE_SCALE = 0.4  # world units per newton (times the hull scale)
MAX_LINKS = 200_000
MAX_VECTOR_UNITS = 1500  # more arrows than this are slow to draw and unreadable anyway


class WorldLayers:
    """The world's vertex lists and how a :class:`Frame` fills them."""

    def __init__(self, prog):
        self.batch = pyglet.graphics.Batch()
        tri, lines = gl.GL_TRIANGLES, gl.GL_LINES
        # floor, edge, obstacles, buildings, walls
        self.floor = Mesh(prog, self.batch, 0, tri, blend=False)
        self.arc_fill = Mesh(prog, self.batch, 1, tri)
        self.marks = Mesh(prog, self.batch, 2, tri)  # selection rings, slots, routes, marquee
        self.under = Mesh(prog, self.batch, 3, lines)  # arcs, links, feelers, aim lines
        self.hulls = Mesh(prog, self.batch, 4, tri, blend=False)
        self.over = Mesh(prog, self.batch, 5, lines)  # vectors, the unit under the cursor
        self.hull_scale = 1.0
        self.vector_note = ""

    def update(
        self,
        f: Frame,
        camera: Camera,
        overlays: Overlays,
        selected: int | None = None,
        min_hull_px: float = MIN_HULL_PX,
        marquee=None,
    ) -> None:
        """``selected``: the unit under the cursor (a white ring); ``marquee``: the drag
        rectangle (x0, y0, x1, y1) in world units, or None."""
        px = 1.0 / camera.zoom  # world units per screen pixel
        scale = G.hull_scale(f.length, camera.zoom, min_hull_px)
        self.hull_scale = float(np.median(scale)) if len(scale) else 1.0
        self._floor(f, px)
        self._marks(f, px, scale, marquee)
        self.write_hulls(f, scale)
        self._under(f, px, overlays, selected)
        self.vector_note = ""
        self._over(f, px, overlays, scale, selected, camera, marquee)

    def write_hulls(self, f: Frame, scale) -> None:
        n = f.n
        pos, col = self.hulls.views(n * G.HULL_VERTICES)
        if n:
            G.hull_triangles(f.pos, f.angle, f.length, f.width, scale, out=pos)
            G.per_vertex(f.colors, G.HULL_VERTICES, out=col)

    def _floor(self, f: Frame, px: float) -> None:
        lo, hi = (0.0, 0.0), f.size
        edge = {"walls": 4.0, "wrap": 1.5, "open": 1.0}.get(f.bounds, 1.0) * px
        parts = [
            (G.rect_triangles(0.0, 0.0, f.size[0], f.size[1]), _rgba(C.GRID)),
            (G.frame_triangles(lo, hi, edge), _rgba(C.WORLD_EDGE.get(f.bounds, C.GRID))),
        ]
        ob = f.obstacles
        if len(ob):
            seg = 64
            rim = 2.0 * px
            parts.append((G.disc_triangles(ob[:, :2], ob[:, 2], seg), _rgba(C.OBSTACLE_FILL)))
            parts.append(
                (G.ring_triangles(ob[:, :2], ob[:, 2] - rim, ob[:, 2], seg), _rgba(C.OBSTACLE_RIM))
            )
        if len(f.buildings):
            parts.append((G.polygon_triangles(f.buildings), _rgba(C.BUILDING_FILL)))
            rim = min(2.0 * px, 1.0)  # 2 px, at most 1 world unit (zoomed far out)
            parts.append((G.polygon_outlines(f.buildings, rim), _rgba(C.BUILDING_RIM)))
        wl = f.walls
        if len(wl):
            # pymunk's walls are capsules: a thick segment with round ends
            t = np.maximum(wl[:, 4], 1.5 * px)
            parts.append((G.thick_segments(wl[:, 0:2], wl[:, 2:4], t), _rgba(C.WALL)))
            ends = np.concatenate([wl[:, 0:2], wl[:, 2:4]])
            parts.append((G.disc_triangles(ends, np.tile(t / 2, 2), 16), _rgba(C.WALL)))
        self.floor.set(parts)

    def _marks(self, f: Frame, px: float, scale, marquee) -> None:
        """RTS marks under the hulls: formation slots, the selected groups' routes, a ring round
        each selected unit, the drag rectangle's fill."""
        sel = f.selected if f.selected is not None and len(f.selected) == f.n else None
        parts = [*slot_parts(f, px, sel), *route_parts(f.paths, px), *ring_parts(f, px, scale, sel)]
        if marquee is not None:
            x0, y0, x1, y1 = marquee
            parts.append(
                (G.rect_triangles(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)),
                 _rgba(C.MARQUEE_FILL))
            )  # fmt: skip
        self.marks.set(parts)

    def _under(self, f: Frame, px: float, o: Overlays, selected: int | None) -> None:
        fill, lines = [], []
        if o.arcs != "off" and f.view is not None and f.n:
            fill, lines = arc_parts(f, o.arcs, selected)
        if o.links and f.pairs is not None and len(f.pairs[0]):
            lines.append(link_part(f))
        if o.feelers and f.feeler is not None and f.n:
            lines.append(feeler_part(f))
        if o.targets and f.target is not None and f.n:
            lines += target_parts(f, px)
        self.arc_fill.set(fill)
        self.under.set(lines)

    def vector_rows(self, f: Frame, camera: Camera, selected: int | None) -> np.ndarray:
        """Units that get vector arrows: those on screen, at most MAX_VECTOR_UNITS of them
        (the nearest to the unit under the cursor, else to the screen centre)."""
        lo = camera.screen_to_world((0.0, 0.0))
        hi = camera.screen_to_world((camera.width, camera.height))
        p = f.pos
        rows = np.flatnonzero(
            (p[:, 0] >= lo[0]) & (p[:, 0] <= hi[0]) & (p[:, 1] >= lo[1]) & (p[:, 1] <= hi[1])
        )
        if len(rows) > MAX_VECTOR_UNITS:
            focus = p[selected] if selected is not None else np.asarray(camera.center)
            d = np.hypot(p[rows, 0] - focus[0], p[rows, 1] - focus[1])
            rows = rows[np.argpartition(d, MAX_VECTOR_UNITS)[:MAX_VECTOR_UNITS]]
            self.vector_note = f"vectors: the {MAX_VECTOR_UNITS} units nearest the cursor"
        return rows

    def _over(self, f: Frame, px: float, o: Overlays, scale, selected, camera, marquee) -> None:
        lines = []
        if o.vectors and f.n:
            head = 5.0 * px
            rows = self.vector_rows(f, camera, selected)
            sc = np.asarray(scale, float)[rows, None]
            pos = f.pos[rows]
            if f.vel is not None:
                tip = pos + f.vel[rows] * VELOCITY_SECONDS * sc
                lines.append((G.arrows(pos, tip, head), _rgba(C.VELOCITY)))
            for name, color in (("thrust", C.THRUST), ("drag", C.DRAG), ("bow", C.BOW)):
                if f.forces is None or name not in f.forces:
                    continue
                anchor, vec = f.forces[name]
                a = pos + anchor[rows] * sc
                lines.append((G.arrows(a, a + vec[rows] * FORCE_SCALE * sc, head), _rgba(color)))
        if f.player is not None and f.n:
            p = f.player
            r = max(0.9 * f.length[p] * np.asarray(scale).reshape(-1)[p], 9 * px)
            lines.append((G.circle_lines(f.pos[p], r), _rgba(C.PLAYER_RING)))
        if selected is not None and 0 <= selected < f.n:
            r = 0.75 * f.length[selected] * float(np.asarray(scale).reshape(-1)[selected])
            lines.append((G.circle_lines(f.pos[selected], max(r, 8 * px)), _rgba(C.SELECTED)))
        if marquee is not None:
            x0, y0, x1, y1 = marquee
            corners = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], float)
            lines.append((G.segments(corners, np.roll(corners, -1, axis=0)), _rgba(C.MARQUEE)))
        self.over.set(lines)

    def draw(self) -> None:
        self.batch.draw()


# -- the parts of the layers: (positions (k, 2), colour (4,) or (k, 4)) pairs ----------------


def slot_parts(f: Frame, px: float, sel) -> list:
    """Formation slots: hollow squares in their unit's colour, brighter for the selection's
    (``sel``: (N,) bool or None)."""
    if f.slots is None or not len(f.slots):
        return []
    n = f.n
    su = np.asarray(f.slot_unit, np.intp) if f.slot_unit is not None else None
    ok = su is not None and len(su) == len(f.slots) and (su < n).all()
    col = np.empty((len(f.slots), 4), np.uint8)
    col[:] = f.colors[su] if ok else _rgba(C.TEXT_DIM)
    col[:, 3] = C.SLOT_ALPHA
    if ok and sel is not None:
        col[sel[su], 3] = C.SLOT_SELECTED_ALPHA
    L = float(np.median(f.length)) if n else 1.0
    half = max(0.3 * L, 3.0 * px)
    sq = G.square_outlines(f.slots, half, min(1.5 * px, 0.4 * half))
    return [(sq, G.per_vertex(col, 24))]


def route_parts(paths, px: float) -> list:
    """Each route as a thick polyline with an X at its goal."""
    parts = []
    w = 2.0 * px
    for path in paths or ():
        a, b = G.polyline_segments(path)
        if len(a):
            parts.append((G.thick_segments(a, b, w, extend=1.0), _rgba(C.ROUTE)))
        if len(path):
            c = np.asarray(path[-1], float)
            h = 5.0 * px
            cross = np.array([h, -h])  # the two diagonals of an X at the goal
            x = G.thick_segments([c - h, c + cross], [c + h, c - cross], w)
            parts.append((x, _rgba(C.ROUTE)))
    return parts


def ring_parts(f: Frame, px: float, scale, sel) -> list:
    """A ring round each selected unit (``sel``: (N,) bool or None)."""
    if sel is None or not sel.any():
        return []
    rows = np.flatnonzero(sel)
    sc = np.broadcast_to(np.asarray(scale, float), (f.n,))[rows]
    r = np.maximum(0.75 * f.length[rows] * sc, 7.0 * px)
    segs = 24 if len(rows) <= 2000 else 10
    return [(G.ring_triangles(f.pos[rows], r - 1.5 * px, r, segs), _rgba(C.SELECTION))]


def arc_parts(f: Frame, arcs: str, selected: int | None) -> tuple[list, list]:
    """View arcs (``arcs``: "all" or "cursor", the unit ``selected``): (fill, outline) parts.
    Only the cursor's unit is filled; every unit's arc ("all") is a faint outline, fainter the
    more there are, so the world stays readable (a wide view's arc covers most of it)."""
    rows = np.arange(f.n) if arcs == "all" else np.array([], int)
    if arcs == "cursor" and selected is not None:
        rows = np.array([selected])
    if not len(rows):
        return [], []
    segs = 32 if len(rows) <= 1000 else 12
    args = (f.pos[rows], f.angle[rows], f.view.half_angle, f.view.radius[rows], segs)
    color = C.ARC
    if arcs == "all":
        alpha = int(np.clip(C.ARC[3] * np.sqrt(4.0 / len(rows)), 24, C.ARC[3]))
        color = (*C.ARC[:3], alpha)
    lines = [(G.sector_lines(*args), _rgba(color))]
    fill = [(G.sector_triangles(*args), _rgba(C.ARC_FILL))] if arcs == "cursor" else []
    return fill, lines


def link_part(f: Frame) -> tuple:
    """Neighbour links (at most MAX_LINKS), the short way across a wrapping edge."""
    i, j = (np.asarray(a)[:MAX_LINKS] for a in f.pairs)
    d = f.pos[j] - f.pos[i]
    if f.bounds == "wrap":
        d = min_image(d, np.asarray(f.size, float))
    col = f.colors[i].copy()
    col[:, 3] = C.LINK_ALPHA
    return (G.segments(f.pos[i], f.pos[i] + d), G.per_vertex(col, 2))


def feeler_part(f: Frame) -> tuple:
    """The AI units' feelers, coloured where they touch something."""
    ai = np.ones(f.n, bool)
    if f.player is not None:
        ai[f.player] = False
    rows = np.flatnonzero(ai)
    tip = f.pos[rows] + f.feeler[rows]
    hit = f.felt[rows] >= 0 if f.felt is not None else np.zeros(len(rows), bool)
    col = np.where(hit[:, None], _rgba(C.FEELER_HIT), _rgba(C.FEELER)).astype(np.uint8)
    return (G.segments(f.pos[rows], tip), G.per_vertex(col, 2))


def target_parts(f: Frame, px: float) -> list:
    """Aim lines to the units' targets, an X at each."""
    rows = np.flatnonzero(np.isfinite(f.target[:, 0]))
    if not len(rows):
        return []
    col = target_colors(None if f.role is None else f.role[rows], len(rows))
    return [
        (G.segments(f.pos[rows], f.target[rows]), G.per_vertex(col, 2)),
        (G.crosses(f.target[rows], 5.0 * px), G.per_vertex(col, 4)),
    ]
