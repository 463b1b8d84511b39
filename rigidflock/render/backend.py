"""pyglet, set up once: headless (EGL) when there is no display, no per-call GL error checks.

Every module of this package that needs pyglet's window or GL imports it from here, so the options
are set before ``pyglet.window`` and ``pyglet.gl`` are first imported (pyglet reads them then).
Set ``RIGIDFLOCK_HEADLESS=1`` to force headless mode on a machine with a display.
"""

from __future__ import annotations

import os
import sys

import pyglet


def wants_headless() -> bool:
    """True when no window system is reachable (Linux without ``DISPLAY``) or when forced."""
    if os.environ.get("RIGIDFLOCK_HEADLESS", "") not in ("", "0"):
        return True
    return sys.platform.startswith("linux") and not os.environ.get("DISPLAY")


if "pyglet.window" not in sys.modules:  # options only take effect before the first import
    pyglet.options["headless"] = wants_headless()
    pyglet.options["debug_gl"] = False  # glGetError after every call costs ~3 ms a frame

HEADLESS = bool(pyglet.options["headless"])

import pyglet.gl as gl  # noqa: E402
import pyglet.window  # noqa: E402
from pyglet.math import Mat4, Vec3  # noqa: E402
from pyglet.window import key, mouse  # noqa: E402

__all__ = ["HEADLESS", "Mat4", "Vec3", "gl", "key", "make_window", "mouse", "pyglet"]


def _config(samples: int) -> gl.Config:
    kw = {
        "major_version": 3,
        "minor_version": 3,
        "forward_compatible": True,
        "red_size": 8,  # explicit sizes, or EGL may pick RGB565
        "green_size": 8,
        "blue_size": 8,
        "alpha_size": 8,
        "double_buffer": True,
        "depth_size": 0,
    }
    if samples:
        kw.update(sample_buffers=1, samples=samples)
    return gl.Config(**kw)


def make_window(
    size: tuple[int, int], *, visible: bool = True, samples: int = 4, caption: str = "rigidflock"
) -> pyglet.window.Window:
    """A window of ``size`` (a hidden EGL pbuffer when headless: create it at its final size).

    ``samples``: multisampling of the window's own framebuffer, tried first and dropped when the
    driver refuses it (headless drawing antialiases through its own framebuffer object instead).
    """
    w, h = size
    kw = {"width": w, "height": h, "caption": caption, "visible": visible and not HEADLESS}
    if not HEADLESS:
        kw["resizable"] = True
    for s in (samples, 0) if samples and not HEADLESS else (0,):
        try:
            return pyglet.window.Window(config=_config(s), **kw)
        except pyglet.window.NoSuchConfigException:
            continue
    raise RuntimeError("no OpenGL 3.3 configuration available")
