"""The tuning panel (a column at the right: one ``pyglet.gui.Slider`` per setting of a
:class:`~rigidflock.render.tuning.Tuner`, its name and value above it, the selected row
framed) and :class:`TextBox`, a framed box of text (the scene list, a scene file's errors).
Both are drawn after the side panel, in screen pixels, and scale with the window like it
(:func:`~rigidflock.render.camera.panel_scale`).

A slider moved (dragged, clicked, the wheel over it) calls ``on_move(path, value)`` with the
value snapped to its setting's step; the viewer queues it as a change for the next tick.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rigidflock.render import colors as C
from rigidflock.render.backend import pyglet
from rigidflock.render.camera import panel_scale
from rigidflock.render.tuning import Tuner

TUNING_WIDTH = 240  # the panel's width at 1280 x 800 and larger
ROW = 31  # pixels per setting at that size
BAR = (60, 70, 92, 255)
KNOB = (235, 200, 90, 255)
FRAME = (120, 135, 170, 255)
SOLID = (*C.PANEL[:3], 255)  # the panel is a column of its own, like the side panel


def tuning_width(width: int, height: int) -> int:
    """The tuning panel's width in a window of ``width`` x ``height``, pixels."""
    return round(TUNING_WIDTH * panel_scale(width, height))


def _image(color, w: int, h: int):
    return pyglet.image.SolidColorImagePattern(tuple(color)).create_image(max(w, 1), max(h, 1))


class TuningPanel:
    """Draws ``tuner``'s settings with ``values(path) -> float`` and reports slider moves to
    ``on_move``. Call :meth:`update` before each draw (it lays the panel out again when the
    window's size changed), then :meth:`draw`."""

    def __init__(self, tuner: Tuner, values: Callable[[str], float], on_move):
        self.tuner, self.values, self.on_move = tuner, values, on_move
        self.batch = pyglet.graphics.Batch()
        self._size = None
        self._settings = None
        self.sliders: list = []
        self._texts: list = []
        self._shapes: list = []
        self._held = False  # a press inside the panel: its drags and release are ours
        self.rect = (0, 0, 0, 0)

    # -- layout -------------------------------------------------------------------------------

    def _layout(self, width: int, height: int) -> None:
        for item in (*self._texts, *self._shapes, *self.sliders):
            item.delete()
        self._texts, self._shapes, self.sliders = [], [], []
        k = self.k = panel_scale(width, height)
        pw, row, pad = tuning_width(width, height), ROW * k, round(12 * k)
        x0 = width - pw
        self.rect = (x0, 0, width, height)
        bg, fg = pyglet.graphics.Group(order=0), pyglet.graphics.Group(order=2)
        self._shapes.append(
            pyglet.shapes.Rectangle(x0, 0, pw, height, color=SOLID, batch=self.batch, group=bg)
        )
        self._shapes.append(
            pyglet.shapes.Line(
                x0 + 0.5, 0, x0 + 0.5, height, 1, color=C.PANEL_EDGE, batch=self.batch, group=bg
            )
        )
        y = height - pad
        self._text("tuning", x0 + pad, y, 13 * k, bold=True)
        y -= 20 * k
        self._text(
            "P hide  Tab select  [ ] step  Bksp reset",
            x0 + pad,
            y,
            7.5 * k,
            color=C.TEXT_DIM,
        )
        y -= 16 * k
        bar_w = pw - 2 * pad
        base, knob = (
            _image(BAR, bar_w, max(3, round(4 * k))),
            _image(KNOB, round(9 * k), round(14 * k)),
        )
        self.rows, self._value_texts = [], []
        self._frame = pyglet.shapes.Box(
            x0 + 3, 0, pw - 6, row, 1, color=FRAME, batch=self.batch, group=fg
        )
        self._shapes.append(self._frame)
        for s in self.tuner.settings:
            if y - row < 0:
                break  # no room for more at this size
            self._text(s.label, x0 + pad, y, 9 * k)
            self._value_texts.append(
                self._text("", width - pad, y, 9 * k, mono=True, anchor_x="right")
            )
            slider = pyglet.gui.Slider(
                x0 + pad,
                round(y - row + 7 * k),
                base,
                knob,
                batch=self.batch,
                group=pyglet.graphics.Group(order=1),
            )
            slider.set_handler("on_change", self._changed(len(self.sliders)))
            self.sliders.append(slider)
            self.rows.append((y - row + 2, y + 2))
            y -= row
        self._shown_values = [None] * len(self.sliders)

    def _text(self, text, x, y, size, *, color=C.TEXT, bold=False, mono=False, anchor_x="left"):
        lab = pyglet.text.Label(
            text,
            font_name="DejaVu Sans Mono" if mono else "DejaVu Sans",
            font_size=size,
            weight="bold" if bold else "normal",
            x=int(x),
            y=int(y),
            anchor_x=anchor_x,
            anchor_y="top",
            color=tuple(int(c) for c in color),
            batch=self.batch,
            group=pyglet.graphics.Group(order=3),
        )
        self._texts.append(lab)
        return lab

    def _changed(self, i: int):
        def moved(widget, value):
            self.tuner.selected = i
            s = self.tuner.settings[i]
            self.on_move(s.path, s.at(value / 100.0))

        return moved

    # -- each frame ---------------------------------------------------------------------------

    def update(self, width: int, height: int) -> None:
        """Lay out for ``width`` x ``height`` if needed; show the current values."""
        if (width, height) != self._size or self._settings is not self.tuner.settings:
            self._size, self._settings = (width, height), self.tuner.settings
            self._layout(width, height)
        for i, slider in enumerate(self.sliders):
            s = self.tuner.settings[i]
            v = self.values(s.path)
            if v != self._shown_values[i]:
                self._shown_values[i] = v
                self._value_texts[i].text = s.text(v)
                if not self._held:  # the knob follows the mouse while dragged
                    slider.value = 100.0 * s.fraction(v)
        sel = self.tuner.selected
        if sel < len(self.rows):
            lo, hi = self.rows[sel]
            self._frame.y, self._frame.height, self._frame.visible = lo, hi - lo, True
        else:
            self._frame.visible = False

    def draw(self) -> None:
        if self.tuner.shown:
            self.batch.draw()

    # -- mouse ----------------------------------------------------------------------------------

    def inside(self, x, y) -> bool:
        x0, y0, x1, y1 = self.rect
        return self.tuner.shown and x0 <= x <= x1 and y0 <= y <= y1

    def on_mouse_press(self, x, y, button, modifiers):
        if not self.inside(x, y):
            return None
        self._held = True
        for i, (lo, hi) in enumerate(self.rows):
            if lo <= y <= hi:
                self.tuner.selected = i
        for slider in self.sliders:
            slider.on_mouse_press(x, y, button, modifiers)
        return pyglet.event.EVENT_HANDLED

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers):
        if not self._held:
            return None
        for slider in self.sliders:
            slider.on_mouse_drag(x, y, dx, dy, buttons, modifiers)
        return pyglet.event.EVENT_HANDLED

    def on_mouse_release(self, x, y, button, modifiers):
        if not self._held:
            return None
        self._held = False
        self._shown_values = [None] * len(self.sliders)  # knobs back to the values taken
        for slider in self.sliders:
            slider.on_mouse_release(x, y, button, modifiers)
        return pyglet.event.EVENT_HANDLED

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y):
        if not self.inside(x, y):
            return None
        for i, (lo, hi) in enumerate(self.rows):
            if lo <= y <= hi:
                self.tuner.selected = i
                s = self.tuner.settings[i]
                self.on_move(*self.tuner.stepped(self.values(s.path), round(scroll_y) or 1))
        return pyglet.event.EVENT_HANDLED


class TextBox:
    """A framed box of text lines in the window's middle (``top``: under the top edge
    instead), scaled like the side panel; empty lines hide it."""

    def __init__(self, color=C.TEXT, top: bool = False):
        self.batch = pyglet.graphics.Batch()
        self.color, self.top = color, top
        self._key = None
        self._items: list = []
        self.lines: Sequence[str] = ()

    def update(self, lines: Sequence[str], width: int, height: int) -> None:
        self.lines = tuple(lines)
        if (self.lines, width, height) == self._key:
            return
        self._key = (self.lines, width, height)
        for item in self._items:
            item.delete()
        self._items = []
        if not self.lines:
            return
        k = panel_scale(width, height)
        w = min(width - 40 * k, 720 * k)
        lab = pyglet.text.Label(
            "\n".join(self.lines),
            font_name="DejaVu Sans Mono",
            font_size=9.5 * k,
            x=int((width - w) / 2 + 16 * k),
            y=0,
            anchor_y="bottom",
            multiline=True,
            width=int(w - 32 * k),
            color=tuple(int(c) for c in self.color),
            batch=self.batch,
            group=pyglet.graphics.Group(order=2),
        )
        h = lab.content_height + 24 * k
        y0 = height - h - 12 * k if self.top else (height - h) / 2
        lab.y = int(y0 + 12 * k)
        self._items.append(lab)
        self._items.append(
            pyglet.shapes.Rectangle(
                (width - w) / 2,
                y0,
                w,
                h,
                color=C.PANEL,
                batch=self.batch,
                group=pyglet.graphics.Group(order=0),
            )
        )
        self._items.append(
            pyglet.shapes.Box(
                (width - w) / 2,
                y0,
                w,
                h,
                1,
                color=FRAME,
                batch=self.batch,
                group=pyglet.graphics.Group(order=1),
            )
        )

    def draw(self) -> None:
        if self.lines:
            self.batch.draw()
