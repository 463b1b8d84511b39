"""Drawing an environment's simulation through the render package's public entry points, loaded
only when a render mode asks for them (the environment itself never needs OpenGL)."""

from __future__ import annotations

import os
import sys

import numpy as np


def rgb_array(sim, size: tuple[int, int]) -> np.ndarray:
    """``sim``'s current state drawn offscreen at ``size`` (W, H): (H, W, 3) uint8, top row
    first, the world fitted to the whole frame (no side panel: an environment's frame has no
    HUD to put there). Needs no display (EGL when headless)."""
    from rigidflock.render import frame_from_sim, render_frame
    from rigidflock.render.camera import fit_camera

    frame = frame_from_sim(sim)
    camera = fit_camera(frame.size, size, panel=False)
    return np.ascontiguousarray(render_frame(frame, size, camera=camera)[..., :3])


def has_display() -> bool:
    """False on Linux without an X11 or Wayland display, or when ``RIGIDFLOCK_HEADLESS`` is set."""
    if os.environ.get("RIGIDFLOCK_HEADLESS", "") not in ("", "0"):
        return False
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def require_display() -> None:
    """Raise RuntimeError, saying what to do instead, when no window can be opened."""
    if not has_display():
        raise RuntimeError(
            "render_mode='human' needs a display (no DISPLAY or WAYLAND_DISPLAY is set, or "
            "RIGIDFLOCK_HEADLESS is); use render_mode='rgb_array' to draw offscreen"
        )


class HumanView:
    """The viewer window onto ``sim``, redrawn by :meth:`show` (the environment steps the
    simulation; the window only shows it). Raises RuntimeError when there is no display."""

    def __init__(self, sim, size: tuple[int, int]):
        require_display()
        from rigidflock.render import Viewer

        self.viewer = Viewer(sim, size, visible=True)

    def show(self) -> None:
        """Process window events and draw the current state once."""
        window = self.viewer.window
        window.switch_to()
        window.dispatch_events()
        if self.viewer.closed:
            return
        self.viewer.draw()
        window.flip()

    def close(self) -> None:
        self.viewer.close()
