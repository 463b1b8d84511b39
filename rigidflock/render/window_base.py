"""What the live viewer and the replay window share: the pyglet window, its renderer and camera
(fit, refit on ``Home``/``F``, follow resizes), the frame loop (real time into a
:class:`~rigidflock.render.clock.FixedStepClock`, then draw), the wheel zoom, screenshots and
closing.

A subclass supplies ``advance(elapsed)``, ``frame()``, ``hud(fresh)``, ``screenshot_path()``
and ``on_key_press``, and calls :meth:`WindowBase.listen` with its mouse handlers at the end of
its ``__init__``.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from rigidflock.render.backend import make_window, pyglet
from rigidflock.render.camera import Camera, fit_camera, side_panel_width
from rigidflock.render.clock import FixedStepClock
from rigidflock.render.frame import Frame, Overlays
from rigidflock.render.hud import Hud
from rigidflock.render.layers import Renderer
from rigidflock.render.offscreen import draw_to_array
from rigidflock.render.png import save_image

ZOOM_STEP = 1.15  # zoom factor per wheel notch


class WindowBase:
    """A window onto a world of ``world_size``, stepping at ``dt`` (``budget``: real seconds of
    stepping per frame at most, see :class:`FixedStepClock`). ``visible=False`` (or no display)
    gives a hidden window that tests drive with synthetic events and ``advance``."""

    def __init__(
        self,
        world_size,
        size: tuple[int, int],
        *,
        caption: str,
        dt: float,
        visible: bool = True,
        samples: int = 4,
        overlays: Overlays | None = None,
        screenshot_dir: str | Path = ".",
        budget: float | None = None,
    ):
        self.world_size = world_size
        self.window = make_window(size, visible=visible, samples=samples, caption=caption)
        self.overlays = overlays or Overlays()
        self.renderer = Renderer(self.window)
        self._right = 0  # the right margin the camera was fitted with
        self.camera: Camera = fit_camera(world_size, self.window.get_size())
        self.clock = FixedStepClock(dt, budget=budget)
        self.screenshot_dir = Path(screenshot_dir)
        self.cursor: tuple[float, float] | None = None
        self.closed = False

    def listen(self, **handlers) -> None:
        """Push the shared event handlers and ``handlers`` (one level of the window's stack)."""
        self.window.push_handlers(
            on_key_press=self.on_key_press,
            on_draw=self.on_draw,
            on_resize=self.on_resize,
            on_mouse_scroll=self.on_mouse_scroll,
            on_mouse_motion=self.on_mouse_motion,
            on_close=self.on_close,
            **handlers,
        )

    # -- what a subclass supplies -------------------------------------------------------------

    def advance(self, elapsed: float) -> int:
        """Feed ``elapsed`` real seconds; returns the steps taken."""
        raise NotImplementedError

    def frame(self) -> Frame:
        """The frame to draw now."""
        raise NotImplementedError

    def hud(self, fresh: bool = False) -> Hud:
        """The side panel's words (``fresh``: built now, not cached)."""
        raise NotImplementedError

    def screenshot_path(self) -> Path:
        """Where ``S`` saves a screenshot."""
        raise NotImplementedError

    def right_margin(self, width: int, height: int) -> int:
        """Pixels at the right that the world is fitted clear of (none here)."""
        return 0

    def picks(self, f: Frame) -> tuple[int | None, tuple[float, float, float, float] | None]:
        """The unit under the cursor and the drag rectangle in world units (none here)."""
        return None, None

    # -- drawing ------------------------------------------------------------------------------

    def draw(self) -> None:
        f = self.frame()
        hud = self.hud()
        selected, marquee = self.picks(f)
        self.renderer.draw(f, self.camera, self.overlays, hud, selected, marquee=marquee)

    def capture(self) -> np.ndarray:
        """The current view drawn offscreen (antialiased): (H, W, 4) uint8, top row first."""
        f = self.frame()
        hud = self.hud(fresh=True)  # the picture's HUD shows this tick
        selected, marquee = self.picks(f)
        return draw_to_array(
            self.renderer, f, self.camera, self.overlays, hud, selected, marquee=marquee
        )

    def save_screenshot(self, path: str | Path | None = None) -> Path:
        path = Path(path) if path is not None else self.screenshot_path()
        save_image(path, self.capture()[..., :3])
        print(f"rigidflock: saved {path}")
        return path

    def fit(self) -> None:
        """Show the whole world again."""
        size = self.window.get_size()
        self._right = self.right_margin(*size)
        self.camera = fit_camera(self.world_size, size, right=self._right)

    def perform(self, action: str | None) -> bool:
        """The window actions of both key maps: ``"fit"``, ``"screenshot"``, ``"quit"``."""
        if action == "fit":
            self.fit()
        elif action == "screenshot":
            self.save_screenshot()
        elif action == "quit":
            self.close()
        else:
            return False
        return True

    # -- events -------------------------------------------------------------------------------

    def on_draw(self) -> None:
        gap = self.clock.frame_gap(time.perf_counter())
        if gap is not None:
            self.advance(gap)
        self.draw()

    def on_resize(self, width: int, height: int) -> None:
        """Refit the world to the new size: the same world point stays in the middle and the
        zoom changes by as much as the whole-world fit does (so a fitted view stays fitted,
        and a zoomed-in one keeps its zoom relative to the fit)."""
        cam = self.camera
        before = fit_camera(self.world_size, (cam.width, cam.height), right=self._right).zoom
        self._right = right = self.right_margin(width, height)
        after = fit_camera(self.world_size, (width, height), right=right)
        panel = side_panel_width(width, height)
        cam.resize(width, height, (float(panel), 0.0, float(width - panel - right), float(height)))
        cam.zoom = cam.zoom * after.zoom / before if before > 0 else after.zoom

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y) -> None:
        self.camera.zoom_at((x, y), ZOOM_STEP**scroll_y)

    def on_mouse_motion(self, x, y, dx, dy) -> None:
        self.cursor = (x, y)

    def on_close(self):
        self.close()
        return pyglet.event.EVENT_HANDLED

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.window.close()
            pyglet.app.exit()

    def run(self) -> None:
        """Open the window and run until it is closed."""
        self.clock.mark(time.perf_counter())
        pyglet.app.run(1 / 60)
