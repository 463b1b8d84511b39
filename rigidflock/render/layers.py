"""Vertex lists per layer, written from a :class:`Frame` with numpy, and the HUD.

Every layer is one pyglet vertex list (position float32, colour uint8) of one shader program; a
frame's vertices are computed by :mod:`.geometry` and written straight into the list's client
buffer through ``numpy.ctypeslib.as_array`` (the attribute getter also marks the range for
upload). Layers, back to front: the world's floor and edge, obstacles, buildings and walls;
view arcs; RTS marks (selection rings, formation slots, routes, the drag rectangle's fill);
links / feelers / aim lines; hulls; vectors and the drag rectangle's edge. The HUD (side panel,
legend, key help) is drawn last in screen pixels.

Hulls are drawn at least ``min_hull_px`` long on screen (scaled about their centres); positions
are exact. The legend says by how much they are enlarged.
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.torus import min_image
from rigidflock.render import colors as C
from rigidflock.render import geometry as G
from rigidflock.render.backend import Mat4, gl, pyglet
from rigidflock.render.camera import Camera, side_panel_width
from rigidflock.render.frame import Frame, Overlays, target_colors
from rigidflock.render.hud import Hud, help_text, overlay_legend

MIN_HULL_PX = 12.0
VELOCITY_SECONDS = 1.0  # a velocity arrow shows the travel of this long (times the hull scale)
FORCE_SCALE = 0.4  # world units per newton (times the hull scale)
MAX_LINKS = 200_000
MAX_VECTOR_UNITS = 1500  # more arrows than this are slow to draw and unreadable anyway

_VS = """#version 330 core
in vec2 position;
in vec4 colors;
out vec4 v_color;
uniform WindowBlock { mat4 projection; mat4 view; } window;
void main() {
    gl_Position = window.projection * window.view * vec4(position, 0.0, 1.0);
    v_color = colors;
}
"""
_FS = """#version 330 core
in vec4 v_color;
out vec4 out_color;
void main() { out_color = v_color; }
"""


class _LayerGroup(pyglet.graphics.ShaderGroup):
    """The program, with alpha blending on for translucent layers (off for opaque ones: cheaper
    on a software renderer)."""

    def __init__(self, program, order: int, blend: bool):
        super().__init__(program, order=order)
        self.blend = blend

    def set_state(self) -> None:
        self.program.use()
        if self.blend:
            gl.glEnable(gl.GL_BLEND)
            gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)

    def unset_state(self) -> None:
        if self.blend:
            gl.glDisable(gl.GL_BLEND)
        self.program.stop()

    def __hash__(self):
        return hash((self.program, self.order, self.blend, id(self)))

    def __eq__(self, other):
        return self is other


def program():
    return gl.current_context.create_program((_VS, "vertex"), (_FS, "fragment"))


class Mesh:
    """One vertex list of a layer, resized to fit what it is given.

    A list never becomes empty: pyglet's Batch drops an empty domain (and its group) from its draw
    list for good, so "nothing" is one degenerate, fully transparent primitive instead."""

    def __init__(self, prog, batch, order: int, mode: int, blend: bool = True):
        self.group = _LayerGroup(prog, order, blend)
        self.minimum = 3 if mode == gl.GL_TRIANGLES else 2
        self.vl = prog.vertex_list(
            self.minimum, mode, batch=batch, group=self.group, position="f", colors="Bn"
        )
        self.count = 0  # vertices in use

    def views(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Writable (n, 2) float32 positions and (n, 4) uint8 colours; re-fetched on every call
        (a resize moves the buffer, and fetching marks the range for upload)."""
        size = max(n, self.minimum)
        if self.vl.count != size:
            self.vl.resize(size)
        pos = np.ctypeslib.as_array(self.vl.position).reshape(size, 2)
        col = np.ctypeslib.as_array(self.vl.colors).reshape(size, 4)
        if n < size:
            pos[n:] = 0.0
            col[n:] = 0
        self.count = n
        return pos[:n], col[:n]

    def set(self, parts) -> None:
        """``parts``: (positions (k, 2), colour (4,) or (k, 4)) pairs, concatenated in order."""
        parts = [(p, c) for p, c in parts if len(p)]
        n = sum(len(p) for p, _ in parts)
        pos, col = self.views(n)
        k = 0
        for p, c in parts:
            pos[k : k + len(p)] = p
            col[k : k + len(p)] = c
            k += len(p)

    def delete(self) -> None:
        self.vl.delete()


def _rgba(color) -> np.ndarray:
    return np.asarray(color, np.uint8)


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
        """RTS marks under the hulls: formation slots (hollow squares in their unit's colour,
        brighter for the selection's), the selected groups' routes, a ring round each selected
        unit, the drag rectangle's fill."""
        parts = []
        n = f.n
        sel = f.selected if f.selected is not None and len(f.selected) == n else None
        if f.slots is not None and len(f.slots):
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
            parts.append((sq, G.per_vertex(col, 24)))
        if f.paths:
            w = 2.0 * px
            for path in f.paths:
                a, b = G.polyline_segments(path)
                if len(a):
                    parts.append((G.thick_segments(a, b, w, extend=1.0), _rgba(C.ROUTE)))
                if len(path):
                    c = np.asarray(path[-1], float)
                    h = 5.0 * px
                    cross = np.array([h, -h])  # the two diagonals of an X at the goal
                    x = G.thick_segments([c - h, c + cross], [c + h, c - cross], w)
                    parts.append((x, _rgba(C.ROUTE)))
        if sel is not None and sel.any():
            rows = np.flatnonzero(sel)
            sc = np.broadcast_to(np.asarray(scale, float), (n,))[rows]
            r = np.maximum(0.75 * f.length[rows] * sc, 7.0 * px)
            segs = 24 if len(rows) <= 2000 else 10
            ring = G.ring_triangles(f.pos[rows], r - 1.5 * px, r, segs)
            parts.append((ring, _rgba(C.SELECTION)))
        if marquee is not None:
            x0, y0, x1, y1 = marquee
            parts.append(
                (G.rect_triangles(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)),
                 _rgba(C.MARQUEE_FILL))
            )  # fmt: skip
        self.marks.set(parts)

    def _under(self, f: Frame, px: float, o: Overlays, selected: int | None) -> None:
        fill, lines = [], []
        n = f.n
        ai = np.ones(n, bool)
        if f.player is not None:
            ai[f.player] = False
        if o.arcs != "off" and f.view is not None and n:
            rows = np.arange(n) if o.arcs == "all" else np.array([], int)
            if o.arcs == "cursor" and selected is not None:
                rows = np.array([selected])
            if len(rows):
                segs = 32 if len(rows) <= 1000 else 12
                args = (f.pos[rows], f.angle[rows], f.view.half_angle, f.view.radius[rows], segs)
                lines.append((G.sector_lines(*args), _rgba(C.ARC)))
                if len(rows) <= 50:
                    fill.append((G.sector_triangles(*args), _rgba(C.ARC_FILL)))
        if o.links and f.pairs is not None and len(f.pairs[0]):
            i, j = (np.asarray(a)[:MAX_LINKS] for a in f.pairs)
            d = f.pos[j] - f.pos[i]
            if f.bounds == "wrap":
                d = min_image(d, np.asarray(f.size, float))
            col = f.colors[i].copy()
            col[:, 3] = C.LINK_ALPHA
            lines.append((G.segments(f.pos[i], f.pos[i] + d), G.per_vertex(col, 2)))
        if o.feelers and f.feeler is not None and n:
            rows = np.flatnonzero(ai)
            tip = f.pos[rows] + f.feeler[rows]
            hit = f.felt[rows] >= 0 if f.felt is not None else np.zeros(len(rows), bool)
            col = np.where(hit[:, None], _rgba(C.FEELER_HIT), _rgba(C.FEELER)).astype(np.uint8)
            lines.append((G.segments(f.pos[rows], tip), G.per_vertex(col, 2)))
        if o.targets and f.target is not None and n:
            rows = np.flatnonzero(np.isfinite(f.target[:, 0]))
            if len(rows):
                col = target_colors(None if f.role is None else f.role[rows], len(rows))
                lines.append((G.segments(f.pos[rows], f.target[rows]), G.per_vertex(col, 2)))
                lines.append((G.crosses(f.target[rows], 5.0 * px), G.per_vertex(col, 4)))
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


def _legend_mark(kind: str, color, x0: float, y: float) -> list:
    """The swatch of a legend row (18 x 12 px left of the label at top ``y``) drawn as the
    thing it stands for: a wall bar, a building, a hollow slot, a route, a selection ring."""
    cx, cy = x0 + 9, y - 7
    if kind == "wall":
        return [(G.thick_segments([(x0 + 2, cy)], [(x0 + 16, cy)], 5.0), _rgba(color))]
    if kind == "building":
        return [
            (G.rect_triangles(x0 + 1, cy - 6, x0 + 17, cy + 6), _rgba(C.BUILDING_FILL)),
            (G.frame_triangles((x0 + 2, cy - 5), (x0 + 16, cy + 5), 1.5), _rgba(color)),
        ]
    if kind == "slot":
        return [(G.square_outlines([(cx, cy)], 5.0, 1.5), _rgba(color))]
    if kind == "route":
        a, b = [(x0, cy - 4), (x0 + 9, cy + 3)], [(x0 + 9, cy + 3), (x0 + 18, cy - 1)]
        return [(G.thick_segments(a, b, 2.0, extend=1.0), _rgba(color))]
    if kind == "selected":
        return [(G.ring_triangles([(cx, cy)], 5.0, 7.0, 24), _rgba(color))]
    return [(G.rect_triangles(x0, y - 11, x0 + 18, y - 2), _rgba(color))]


class HudLayer:
    """The side panel (status, legend), the key help; screen pixels."""

    PAD = 14

    def __init__(self, prog):
        self.batch = pyglet.graphics.Batch()  # panel shapes
        self.text = pyglet.graphics.Batch()
        self.shapes = Mesh(prog, self.batch, 0, gl.GL_TRIANGLES)
        self.edges = Mesh(prog, self.batch, 1, gl.GL_LINES)
        self._labels: list = []
        self._status = None
        self._key = None

    def _label(self, text, x, y, *, size=10.0, color=C.TEXT, mono=False, bold=False, **kw):
        lab = pyglet.text.Label(
            text,
            font_name="DejaVu Sans Mono" if mono else "DejaVu Sans",
            font_size=size,
            weight="bold" if bold else "normal",
            x=int(x),
            y=int(y),
            anchor_x=kw.pop("anchor_x", "left"),
            anchor_y=kw.pop("anchor_y", "top"),
            color=tuple(int(c) for c in color),
            batch=self.text,
            **kw,
        )
        self._labels.append(lab)
        return lab

    def update(self, hud: Hud | None, overlays: Overlays, width: int, height: int, notes=()):
        key = (
            None
            if hud is None
            else (
                hud.title,
                hud.subtitle,
                len(hud.status),
                tuple(hud.legend),
                hud.obstacles,
                tuple(hud.marks),
            ),
            tuple(notes),
            tuple(overlay_legend(overlays)),
            overlays.help,
            width,
            height,
        )
        if key != self._key:
            self._key = key
            self._rebuild(hud, overlays, width, height, notes)
        elif hud is not None and self._status is not None:
            text = hud.status_text()
            if self._status.text != text:
                self._status.text = text

    def _rebuild(self, hud, overlays, width, height, notes) -> None:
        for lab in self._labels:
            lab.delete()
        self._labels = []
        self._status = None
        shapes, edges = [], []
        if hud is not None:
            pw = side_panel_width(width)
            x0 = self.PAD
            y = height - self.PAD
            top = y
            self._label(hud.title, x0, y, size=15, bold=True)
            y -= 24
            if hud.subtitle:
                self._label(hud.subtitle, x0, y, size=10.5, color=C.TEXT_DIM)
                y -= 22
            y -= 6
            self._status = self._label(
                hud.status_text(), x0, y, size=9.5, mono=True, multiline=True, width=236
            )
            y -= self._status.content_height + 14
            rows = list(hud.legend)
            for color, text in rows:
                sw = (x0, y - 11, x0 + 18, y - 2)
                shapes.append((G.rect_triangles(*sw), _rgba(color)))
                self._label(text, x0 + 26, y, size=10)
                y -= 19
            if hud.obstacles:
                mark = [(x0 + 9, y - 7)]
                shapes.append((G.disc_triangles(mark, [7.0], 24), _rgba(C.OBSTACLE_RIM)))
                shapes.append((G.disc_triangles(mark, [5.0], 24), _rgba(C.OBSTACLE_FILL)))
                self._label("obstacle", x0 + 26, y, size=10)
                y -= 19
            for kind, color, text in hud.marks:
                shapes += _legend_mark(kind, color, x0, y)
                self._label(text, x0 + 26, y, size=10)
                y -= 19
            y -= 3
            for text in notes:
                lab = self._label(
                    text, x0, y, size=8.5, color=C.TEXT_DIM, multiline=True, width=225
                )
                y -= lab.content_height + 4
            extra = overlay_legend(overlays)
            if extra:
                y -= 8
                for color, text in extra:
                    edges.append((G.segments([(x0, y - 7)], [(x0 + 18, y - 7)]), _rgba(color)))
                    edges.append((G.segments([(x0, y - 8)], [(x0 + 18, y - 8)]), _rgba(color)))
                    self._label(text, x0 + 26, y, size=10)
                    y -= 18
            hint = self._label(
                "H  key help",
                x0,
                self.PAD if pw else y - 8,
                size=9,
                color=C.TEXT_DIM,
                anchor_y="bottom" if pw else "top",
            )
            if pw:
                solid = (*C.PANEL[:3], 255)  # a column of its own: opaque
                shapes.insert(0, (G.rect_triangles(0, 0, pw, height), _rgba(solid)))
                edges.append(
                    (G.segments([(pw - 0.5, 0)], [(pw - 0.5, height)]), _rgba(C.PANEL_EDGE))
                )
            else:
                bottom = hint.y - 20
                shapes.insert(0, (G.rect_triangles(0, bottom, 250, height), _rgba(C.PANEL)))
            del top
        if overlays.help:
            text = help_text()
            lab = self._label(
                text,
                width / 2,
                height / 2,
                size=10.5,
                mono=True,
                multiline=True,
                width=620,
                anchor_x="center",
                anchor_y="center",
            )
            w2, h2 = 660 / 2, lab.content_height / 2 + 40
            cx, cy = width / 2, height / 2
            shapes.append((G.rect_triangles(cx - w2, cy - h2, cx + w2, cy + h2), _rgba(C.PANEL)))
            self._label("keys", cx - w2 + 20, cy + h2 - 14, size=12, bold=True)
            edges += [
                (
                    G.segments(
                        [
                            (cx - w2, cy - h2),
                            (cx + w2, cy - h2),
                            (cx + w2, cy + h2),
                            (cx - w2, cy + h2),
                        ],
                        [
                            (cx + w2, cy - h2),
                            (cx + w2, cy + h2),
                            (cx - w2, cy + h2),
                            (cx - w2, cy - h2),
                        ],
                    ),
                    _rgba(C.PANEL_EDGE),
                ),
            ]
        self.shapes.set(shapes)
        self.edges.set(edges)

    def draw(self) -> None:
        self.batch.draw()
        self.text.draw()


class Renderer:
    """Draws frames into whatever framebuffer is bound, through ``window``'s matrices."""

    def __init__(self, window):
        self.window = window
        self.program = program()
        self.world = WorldLayers(self.program)
        self.hud = HudLayer(self.program)
        self.min_hull_px = MIN_HULL_PX

    def draw(
        self,
        frame: Frame,
        camera: Camera,
        overlays: Overlays | None = None,
        hud: Hud | None = None,
        selected: int | None = None,
        marquee=None,
    ) -> None:
        """``selected``: the unit under the cursor; ``marquee``: the drag rectangle (world
        x0, y0, x1, y1) while the left button selects."""
        overlays = overlays or Overlays()
        self.world.update(frame, camera, overlays, selected, self.min_hull_px, marquee)
        notes = list(hud.notes) if hud is not None else []
        if self.world.hull_scale > 1.001:
            notes.append(
                f"hulls drawn x{self.world.hull_scale:.1f} (at least {self.min_hull_px:g} px "
                "long); positions exact"
            )
        if self.world.vector_note:
            notes.append(self.world.vector_note)
        self.hud.update(hud, overlays, camera.width, camera.height, notes)
        w, h = camera.width, camera.height
        win = self.window
        win.projection = Mat4.orthogonal_projection(0, w, 0, h, -1, 1)
        bg = C.BACKGROUND
        gl.glClearColor(bg[0] / 255, bg[1] / 255, bg[2] / 255, 1.0)
        gl.glClear(gl.GL_COLOR_BUFFER_BIT)
        win.view = Mat4(*camera.view_matrix())
        self.world.draw()
        win.view = Mat4()
        self.hud.draw()
