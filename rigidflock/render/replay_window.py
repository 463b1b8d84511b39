"""Replays on screen: a pyglet window that plays stored states (no physics), and the headless
picture of one stored tick.

Keys: ``space`` pause/play; left/right one tick (pauses); shift+left/right one second; ``[`` / ``]``
playback speed; ``Home`` / ``End`` first / last tick; ``F`` fit the world; the overlay keys of the
live viewer (``V``, ``A``/shift+``A``, ``E``, ``N``, ``T``); ``S`` screenshot; ``Esc`` quit. The
timeline bar along the bottom seeks where it is clicked (or dragged). Overlays are drawn from
the stored state (see :mod:`rigidflock.replay.playback`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rigidflock.render.backend import key, mouse, pyglet
from rigidflock.render.camera import side_panel_width
from rigidflock.render.frame import Frame, Overlays, frame_from_sim, interpolate
from rigidflock.render.hud import REPLAY_KEYS, Hud, replay_hud
from rigidflock.render.input import SPEEDS, toggle_overlay
from rigidflock.render.offscreen import render_frame
from rigidflock.render.png import save_image
from rigidflock.render.window_base import WindowBase
from rigidflock.replay.playback import Playback

__all__ = [
    "REPLAY_KEYS",
    "ReplayViewer",
    "replay_hud",
    "replay_screenshot",
    "replay_title",
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
    save_image(path, image[..., :3])
    return image


def timeline_rect(width: int, height: int) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of the timeline bar in window pixels (right of the side panel)."""
    x0 = side_panel_width(width, height) + TIMELINE_MARGIN
    return (float(x0), float(TIMELINE_MARGIN), float(width - TIMELINE_MARGIN),
            float(TIMELINE_MARGIN + TIMELINE_HEIGHT))  # fmt: skip


def timeline_tick(x: float, rect, first: int, last: int) -> int:
    """The tick under window x on the timeline ``rect``."""
    x0, _, x1, _ = rect
    f = 0.0 if x1 <= x0 else min(max((x - x0) / (x1 - x0), 0.0), 1.0)
    return int(round(first + f * (last - first)))


REPLAY_ACTIONS = {key.F: "fit", key.S: "screenshot", key.ESCAPE: "quit"}


def replay_title(path) -> str:
    """The replay window's title: ``rigidflock replay: FILE`` (the file's name)."""
    return f"rigidflock replay: {Path(str(path)).name}"


class ReplayViewer(WindowBase):
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
        super().__init__(
            playback.scene.world.size, size, dt=playback.dt,
            caption=replay_title(playback.reader.path),
            visible=visible, samples=samples, overlays=overlays, screenshot_dir=screenshot_dir,
        )  # fmt: skip
        self.tick = playback.first_tick
        self.paused = False
        self.speed_index = SPEEDS.index(1.0)
        self._seeking = False
        self._bar = pyglet.graphics.Batch()
        self._bar_shapes: list = []
        self.listen(
            on_mouse_press=self.on_mouse_press,
            on_mouse_drag=self.on_mouse_drag,
            on_mouse_release=self.on_mouse_release,
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

    def hud(self, fresh: bool = False) -> Hud:
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
        super().draw()
        self._timeline()

    def screenshot_path(self) -> Path:
        stem = Path(str(self.playback.reader.path)).stem
        return self.screenshot_dir / f"rigidflock-replay-{stem}-{self.tick:06d}.png"

    # -- events -------------------------------------------------------------------------------

    def on_key_press(self, symbol: int, modifiers: int):
        shift = bool(modifiers & key.MOD_SHIFT)
        if not self._playhead_key(symbol, shift) and not toggle_overlay(
            self.overlays, symbol, shift
        ):
            self.perform(REPLAY_ACTIONS.get(symbol))
        return pyglet.event.EVENT_HANDLED

    def _playhead_key(self, symbol: int, shift: bool) -> bool:
        """Play/pause, step, jump and speed keys; whether ``symbol`` was one of them."""
        pb = self.playback
        if symbol == key.SPACE:
            if self.paused and self.tick >= pb.last_tick:
                self.seek(pb.first_tick)
            self.paused = not self.paused
        elif symbol in (key.LEFT, key.RIGHT):
            step = self.second if shift else 1
            self.paused = True
            self.seek(self.tick + (step if symbol == key.RIGHT else -step))
        elif symbol == key.BRACKETLEFT:
            self.speed_index = max(self.speed_index - 1, 0)
        elif symbol == key.BRACKETRIGHT:
            self.speed_index = min(self.speed_index + 1, len(SPEEDS) - 1)
        elif symbol in (key.HOME, key.END):
            self.seek(pb.first_tick if symbol == key.HOME else pb.last_tick)
        else:
            return False
        return True

    def _on_timeline(self, x, y) -> bool:
        x0, y0, x1, y1 = timeline_rect(*self.window.get_size())
        return x0 - 4 <= x <= x1 + 4 and y0 - 8 <= y <= y1 + 8

    def _seek_to(self, x) -> None:
        """Seek to the tick under window x on the timeline."""
        pb = self.playback
        self.seek(timeline_tick(x, timeline_rect(*self.window.get_size()), pb.first_tick,
                                pb.last_tick))  # fmt: skip

    def on_mouse_press(self, x, y, button, modifiers):
        if button == mouse.LEFT and self._on_timeline(x, y):
            self._seeking = True
            self._seek_to(x)
            return pyglet.event.EVENT_HANDLED
        return None

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers) -> None:
        self.cursor = (x, y)
        if self._seeking and buttons & mouse.LEFT:
            self._seek_to(x)
        elif buttons & (mouse.RIGHT | mouse.MIDDLE):
            self.camera.pan(dx, dy)

    def on_mouse_release(self, x, y, button, modifiers) -> None:
        self._seeking = False
