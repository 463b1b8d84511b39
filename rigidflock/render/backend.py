"""pyglet, set up once: headless (EGL) when there is no display (or an unreachable one), no
per-call GL error checks.

Every module of this package that needs pyglet's window or GL imports it from here, so the options
are set before ``pyglet.window`` and ``pyglet.gl`` are first imported (pyglet reads them then).
Set ``RIGIDFLOCK_HEADLESS=1`` to force headless mode on a machine with a display.
"""

from __future__ import annotations

import os
import sys

import pyglet


def _x_display_reachable(display: str) -> bool:
    """Whether the X server of ``display`` (``:0``, ``host:1.0``, ``unix:2``) accepts a
    connection within half a second: a stale DISPLAY (an SSH session gone, a bogus ``:99``) must
    not stop offscreen rendering, which needs no display."""
    import socket

    host, _, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if not number.isdigit():
        return False
    try:
        if host in ("", "unix") or host.startswith("/"):
            path = host if host.startswith("/") else f"/tmp/.X11-unix/X{number}"
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(0.5)
                s.connect(path)
        else:
            with socket.create_connection((host, 6000 + int(number)), timeout=0.5):
                pass
    except OSError:
        return False
    return True


def no_display_reason() -> str | None:
    """Why no window can open here ("DISPLAY is not set", "DISPLAY :99 cannot be reached"), or
    None when one can (or when not on Linux, where there is nothing to check)."""
    if not sys.platform.startswith("linux"):
        return None
    display = os.environ.get("DISPLAY", "")
    if not display:
        return "DISPLAY is not set"
    if not display.startswith("/private/") and not _x_display_reachable(display):
        return f"DISPLAY {display[:40]} cannot be reached"
    return None


def wants_headless() -> bool:
    """True when no window system is reachable (Linux without a ``DISPLAY``, or with one that
    cannot be reached) or when forced."""
    if os.environ.get("RIGIDFLOCK_HEADLESS", "") not in ("", "0"):
        return True
    return no_display_reason() is not None


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
