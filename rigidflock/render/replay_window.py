"""Replays on screen: a pyglet window that plays stored states (no physics), and the headless
picture of one stored tick.

Keys: ``space`` pause/play; left/right one tick (pauses); shift+left/right one second; ``[`` / ``]``
playback speed; ``Home`` / ``End`` first / last tick; ``F`` fit the world; the overlay keys of the
live viewer (``V``, ``A``/shift+``A``, ``E``, ``N``, ``T``); ``S`` screenshot; ``Esc`` quit. The
timeline bar along the bottom seeks where it is clicked (or dragged). Overlays are drawn from
the stored state (see :mod:`rigidflock.playback`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from rigidflock.render.backend import key, make_window, mouse, pyglet
from rigidflock.render.camera import Camera, fit_camera, side_panel_width
from rigidflock.render.clock import FixedStepClock
from rigidflock.render.frame import Frame, Overlays, frame_from_sim, interpolate
from rigidflock.render.hud import REPLAY_KEYS, Hud, replay_hud
from rigidflock.render.input import SPEEDS, toggle_overlay
from rigidflock.render.layers import Renderer
from rigidflock.render.offscreen import draw_to_array, render_frame
from rigidflock.render.png import save_png
from rigidflock.replay.playback import Playback

__all__ = [
    "REPLAY_KEYS",
    "ReplayViewer",
    "replay_hud",
    "replay_screenshot",
    "timeline_rect",
    "timeline_tick",
]

TIMELINE_HEIGHT = 10
TIMELINE_MARGIN = 18


def replay_screenshot(
    playback: Playback, tick: int, path, size=(1280, 800), overlays: Overlays | None = None
) -> np.ndarray:
    """Draw stored tick ``tick`` with the HUD, save it as PNG at ``path``, return it."""
    view = playback.view(tick)
    vectors = bool(overlays is not None and overlays.vectors)
    image = render_frame(
        frame_from_sim(view, vectors=vectors), size, overlays=overlays,
        hud=replay_hud(playback, view),
    )  # fmt: skip
    save_png(path, image[..., :3])
    return image


def timeline_rect(width: int, height: int) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of the timeline bar in window pixels (right of the side panel)."""
    x0 = side_panel_width(width) + TIMELINE_MARGIN
    return (float(x0), float(TIMELINE_MARGIN), float(width - TIMELINE_MARGIN),
            float(TIMELINE_MARGIN + TIMELINE_HEIGHT))  # fmt: skip


def timeline_tick(x: float, rect, first: int, last: int) -> int:
    """The tick under window x on the timeline ``rect``."""
    x0, _, x1, _ = rect
    f = 0.0 if x1 <= x0 else min(max((x - x0) / (x1 - x0), 0.0), 1.0)
    return int(round(first + f * (last - first)))


class ReplayViewer:
    """``ReplayViewer(playback).run()``; ``visible=False`` gives a hidden window that tests
    drive with synthetic events and :meth:`advance`."""

    def __init__(
        self,
        playback: Playback,
        size: tuple[int, int] = (1280, 800),
        *,
        visible: bool = True,
        overlays: Overlays | None = None,
        samples: int = 4,
        screenshot_dir: str | Path = ".",
    ):
        self.playback = playback
        self.window = make_window(
            size, visible=visible, samples=samples,
            caption=f"rigidflock replay - {Path(str(playback.reader.path)).name}",
        )  # fmt: skip
        self.overlays = overlays or Overlays()
        self.renderer = Renderer(self.window)
        self.camera: Camera = fit_camera(playback.scene.world.size, self.window.get_size())
        self.tick = playback.first_tick
        self.paused = False
        self.speed_index = SPEEDS.index(1.0)
        self.screenshot_dir = Path(screenshot_dir)
        self.cursor = None
        self.clock = FixedStepClock(playback.dt)
        self._seeking = False
        self.closed = False
        self._bar = pyglet.graphics.Batch()
        self._bar_shapes: list = []
        self.window.push_handlers(
            on_key_press=self.on_key_press,
            on_draw=self.on_draw,
            on_resize=self.on_resize,
            on_mouse_press=self.on_mouse_press,
            on_mouse_drag=self.on_mouse_drag,
            on_mouse_release=self.on_mouse_release,
            on_mouse_scroll=self.on_mouse_scroll,
            on_mouse_motion=self.on_mouse_motion,
            on_close=self.on_close,
        )

    @property
    def speed(self) -> float:
        return SPEEDS[self.speed_index]

    @property
    def second(self) -> int:
        return max(1, round(1.0 / self.playback.dt))

    def seek(self, tick: int) -> None:
        pb = self.playback
        self.tick = min(max(int(tick), pb.first_tick), pb.last_tick)
        self.clock.reset()

    def advance(self, elapsed: float) -> int:
        """Move the playhead by ``elapsed`` real seconds times the speed; stops at the end."""
        self.clock.speed = self.speed
        before = self.tick
        self.clock.advance(elapsed, self._step, paused=self.paused)
        return self.tick - before

    def _step(self) -> bool:
        """The playhead one tick on; at the last tick it pauses (True: stop there)."""
        self.tick = min(self.tick + 1, self.playback.last_tick)
        if self.tick == self.playback.last_tick:
            self.paused = True
        return self.paused

    # -- drawing ------------------------------------------------------------------------------

    def frame(self) -> Frame:
        view = self.playback.view(self.tick)
        f = frame_from_sim(view, vectors=self.overlays.vectors)
        alpha = 0.0 if self.paused else self.clock.fraction
        if alpha > 0.0 and self.tick < self.playback.last_tick:
            nxt = self.playback.reader.state(self.tick + 1)
            box = f.size if f.bounds == "wrap" else None
            pos, ang = interpolate(f.pos, f.angle, nxt.pos, nxt.angle, alpha, box)
            f = f.moved(pos, ang)
        return f

    def hud(self) -> Hud:
        return replay_hud(
            self.playback, self.playback.view(self.tick), speed=self.speed, paused=self.paused,
            keys=True,
        )  # fmt: skip

    def _timeline(self) -> None:
        w, h = self.window.get_size()
        x0, y0, x1, y1 = timeline_rect(w, h)
        pb = self.playback
        span = max(pb.last_tick - pb.first_tick, 1)
        xp = x0 + (self.tick - pb.first_tick) / span * (x1 - x0)
        b = self._bar
        self._bar_shapes = [
            pyglet.shapes.Rectangle(x0, y0, x1 - x0, y1 - y0, color=(60, 66, 80, 230), batch=b),
            pyglet.shapes.Rectangle(x0, y0, xp - x0, y1 - y0, color=(120, 150, 210, 255), batch=b),
            pyglet.shapes.Rectangle(xp - 2, y0 - 4, 4, y1 - y0 + 8, color=(235, 235, 240), batch=b),
        ]
        b.draw()

    def draw(self) -> None:
        self.renderer.draw(self.frame(), self.camera, self.overlays, self.hud(), None)
        self._timeline()

    def capture(self) -> np.ndarray:
        """The current view drawn offscreen: (H, W, 4) uint8, top row first."""
        return draw_to_array(self.renderer, self.frame(), self.camera, self.overlays, self.hud())

    def save_screenshot(self, path=None) -> Path:
        if path is None:
            stem = Path(str(self.playback.reader.path)).stem
            path = self.screenshot_dir / f"rigidflock-replay-{stem}-{self.tick:06d}.png"
        save_png(path, self.capture()[..., :3])
        print(f"rigidflock: saved {path}")
        return Path(path)

    # -- events -------------------------------------------------------------------------------

    def on_draw(self) -> None:
        gap = self.clock.frame_gap(time.perf_counter())
        if gap is not None:
            self.advance(gap)
        self.draw()

    def on_key_press(self, symbol: int, modifiers: int):
        shift = bool(modifiers & key.MOD_SHIFT)
        o = self.overlays
        if symbol == key.SPACE:
            if self.paused and self.tick >= self.playback.last_tick:
                self.seek(self.playback.first_tick)
            self.paused = not self.paused
        elif symbol in (key.LEFT, key.RIGHT):
            step = self.second if shift else 1
            self.paused = True
            self.seek(self.tick + (step if symbol == key.RIGHT else -step))
        elif symbol == key.BRACKETLEFT:
            self.speed_index = max(self.speed_index - 1, 0)
        elif symbol == key.BRACKETRIGHT:
            self.speed_index = min(self.speed_index + 1, len(SPEEDS) - 1)
        elif symbol == key.HOME:
            self.seek(self.playback.first_tick)
        elif symbol == key.END:
            self.seek(self.playback.last_tick)
        elif symbol == key.F:
            self.camera = fit_camera(self.playback.scene.world.size, self.window.get_size())
        elif toggle_overlay(o, symbol, shift):
            pass
        elif symbol == key.S:
            self.save_screenshot()
        elif symbol == key.ESCAPE:
            self.close()
        return pyglet.event.EVENT_HANDLED

    def _on_timeline(self, x, y) -> bool:
        x0, y0, x1, y1 = timeline_rect(*self.window.get_size())
        return x0 - 4 <= x <= x1 + 4 and y0 - 8 <= y <= y1 + 8

    def on_mouse_press(self, x, y, button, modifiers):
        if button == mouse.LEFT and self._on_timeline(x, y):
            self._seeking = True
            pb = self.playback
            self.seek(timeline_tick(x, timeline_rect(*self.window.get_size()), pb.first_tick,
                                    pb.last_tick))  # fmt: skip
            return pyglet.event.EVENT_HANDLED
        return None

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers) -> None:
        self.cursor = (x, y)
        if self._seeking and buttons & mouse.LEFT:
            pb = self.playback
            self.seek(timeline_tick(x, timeline_rect(*self.window.get_size()), pb.first_tick,
                                    pb.last_tick))  # fmt: skip
        elif buttons & (mouse.RIGHT | mouse.MIDDLE):
            self.camera.pan(dx, dy)

    def on_mouse_release(self, x, y, button, modifiers) -> None:
        self._seeking = False

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y) -> None:
        self.camera.zoom_at((x, y), 1.15**scroll_y)

    def on_mouse_motion(self, x, y, dx, dy) -> None:
        self.cursor = (x, y)

    def on_resize(self, width: int, height: int) -> None:
        panel = side_panel_width(width)
        self.camera.resize(width, height, (float(panel), 0.0, float(width - panel), float(height)))

    def on_close(self):
        self.close()
        return pyglet.event.EVENT_HANDLED

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.window.close()
            pyglet.app.exit()

    def run(self) -> None:
        self.clock.mark(time.perf_counter())
        pyglet.app.run(1 / 60)
