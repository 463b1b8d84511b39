"""The HUD layer: the side panel (title, status, legend, notes) and the key help, in screen
pixels."""

from __future__ import annotations

import numpy as np

from rigidflock.render import colors as C
from rigidflock.render import vertices as G
from rigidflock.render.backend import gl, pyglet
from rigidflock.render.camera import panel_scale, side_panel_width
from rigidflock.render.frame import Overlays
from rigidflock.render.hud import Hud, help_text, overlay_legend
from rigidflock.render.mesh import Mesh
from rigidflock.render.mesh import rgba as _rgba


def _legend_mark(kind: str, color, x0: float, y: float, k: float = 1.0) -> list:
    """The swatch of a legend row (18 x 12 px left of the label at top ``y``, times the panel's
    scale ``k``) drawn as the thing it stands for: a wall bar, a building, a hollow slot, a
    route, a selection ring."""
    cx, cy = x0 + 9 * k, y - 7 * k

    def px(dx, dy):
        return (x0 + dx * k, cy + dy * k)

    if kind == "wall":
        return [(G.thick_segments([px(2, 0)], [px(16, 0)], 5.0 * k), _rgba(color))]
    if kind == "building":
        return [
            (G.rect_triangles(*px(1, -6), *px(17, 6)), _rgba(C.BUILDING_FILL)),
            (G.frame_triangles(px(2, -5), px(16, 5), 1.5 * k), _rgba(color)),
        ]
    if kind == "slot":
        return [(G.square_outlines([(cx, cy)], 5.0 * k, 1.5 * k), _rgba(color))]
    if kind == "route":
        a, b = [px(0, -4), px(9, 3)], [px(9, 3), px(18, -1)]
        return [(G.thick_segments(a, b, 2.0 * k, extend=1.0 * k), _rgba(color))]
    if kind == "selected":
        return [(G.ring_triangles([(cx, cy)], 5.0 * k, 7.0 * k, 24), _rgba(color))]
    return [(G.rect_triangles(x0, y - 11 * k, x0 + 18 * k, y - 2 * k), _rgba(color))]


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
        self.k = 1.0  # the panel's scale (panel_scale of the window)

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
                hud.hints,
            ),
            tuple(notes),
            tuple(overlay_legend(overlays, hud)),
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
            self._panel(hud, overlays, width, height, notes, shapes, edges)
        if overlays.help:
            self._help(width, height, shapes, edges)
        self.shapes.set(shapes)
        self.edges.set(edges)

    def _panel(self, hud: Hud, overlays, width, height, notes, shapes, edges) -> None:
        """The side panel, top to bottom, everything scaled with the window
        (:func:`~rigidflock.render.camera.panel_scale`); its background goes first in
        ``shapes``."""
        k = self.k = panel_scale(width, height)
        pw = side_panel_width(width, height)
        x0 = self.PAD * k
        y = self._heading(hud, x0, height - self.PAD * k, pw)
        y = self._legend(hud, x0, y, shapes)
        y -= 3 * k
        for text in notes:
            lab = self._label(
                text, x0, y, size=8.5 * k, color=C.TEXT_DIM, multiline=True, width=pw - 2 * x0
            )
            y -= lab.content_height + 4 * k
        extra = overlay_legend(overlays, hud)
        if extra:
            y -= 8 * k
            for color, text in extra:
                for dy in (7, 8):
                    a, b = [(x0, y - dy * k)], [(x0 + 18 * k, y - dy * k)]
                    edges.append((G.segments(a, b), _rgba(color)))
                self._label(text, x0 + 26 * k, y, size=10 * k)
                y -= 18 * k
        if hud.hints:
            self._label(
                "H  key help", x0, self.PAD * k, size=9 * k, color=C.TEXT_DIM, anchor_y="bottom"
            )
        solid = (*C.PANEL[:3], 255)  # a column of its own: opaque
        shapes.insert(0, (G.rect_triangles(0, 0, pw, height), _rgba(solid)))
        edges.append((G.segments([(pw - 0.5, 0)], [(pw - 0.5, height)]), _rgba(C.PANEL_EDGE)))

    def _heading(self, hud: Hud, x0: float, y: float, pw: float) -> float:
        """Title, subtitle and the status rows from ``y`` down; returns the y below them."""
        k = self.k
        self._label(hud.title, x0, y, size=15 * k, bold=True)
        y -= 24 * k
        if hud.subtitle:
            self._label(hud.subtitle, x0, y, size=10.5 * k, color=C.TEXT_DIM)
            y -= 22 * k
        y -= 6 * k
        self._status = self._label(
            hud.status_text(), x0, y, size=9.5 * k, mono=True, multiline=True, width=pw - x0
        )
        return y - (self._status.content_height + 14 * k)

    def _legend(self, hud: Hud, x0: float, y: float, shapes: list) -> float:
        """The colour legend, the obstacle row and the world marks; returns the y below."""
        k = self.k
        for color, text in hud.legend:
            sw = (x0, y - 11 * k, x0 + 18 * k, y - 2 * k)
            shapes.append((G.rect_triangles(*sw), _rgba(color)))
            self._label(text, x0 + 26 * k, y, size=10 * k)
            y -= 19 * k
        if hud.obstacles:
            mark = [(x0 + 9 * k, y - 7 * k)]
            shapes.append((G.disc_triangles(mark, [7.0 * k], 24), _rgba(C.OBSTACLE_RIM)))
            shapes.append((G.disc_triangles(mark, [5.0 * k], 24), _rgba(C.OBSTACLE_FILL)))
            self._label("obstacle", x0 + 26 * k, y, size=10 * k)
            y -= 19 * k
        for kind, color, text in hud.marks:
            shapes += _legend_mark(kind, color, x0, y, k)
            self._label(text, x0 + 26 * k, y, size=10 * k)
            y -= 19 * k
        return y

    def _help(self, width, height, shapes: list, edges: list) -> None:
        """The key help, a framed box in the middle of the window (scaled like the panel)."""
        k = panel_scale(width, height)
        lab = self._label(
            help_text(),
            width / 2,
            height / 2,
            size=10.5 * k,
            mono=True,
            multiline=True,
            width=620 * k,
            anchor_x="center",
            anchor_y="center",
        )
        w2, h2 = 660 * k / 2, lab.content_height / 2 + 40 * k
        cx, cy = width / 2, height / 2
        shapes.append((G.rect_triangles(cx - w2, cy - h2, cx + w2, cy + h2), _rgba(C.PANEL)))
        self._label("keys", cx - w2 + 20 * k, cy + h2 - 14 * k, size=12 * k, bold=True)
        corners = np.array(
            [(cx - w2, cy - h2), (cx + w2, cy - h2), (cx + w2, cy + h2), (cx - w2, cy + h2)]
        )
        edges.append((G.segments(corners, np.roll(corners, -1, axis=0)), _rgba(C.PANEL_EDGE)))

    def draw(self) -> None:
        self.batch.draw()
        self.text.draw()
