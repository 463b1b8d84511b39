"""Drawing and the interactive viewer: the only package that imports pyglet, and only lazily.

The pure modules (``camera``, ``clock``, ``colors``, ``geometry``, ``frame``, ``png``,
``recording``, ``selection``, ``tuning``, ``watch``, ``scene_list``) use numpy, Pillow and the
standard library; ``input`` (and so ``hud`` and ``live_status``, for the key help) imports only
pyglet's key-symbol table. The modules that need an OpenGL context (``backend``, ``mesh``,
``world_layers``, ``hud_layer``, ``layers``, ``offscreen``, ``window_base``, ``window``,
``rts_mouse``, ``replay_window``, ``tuning_panel``) load
pyglet when first imported, and ``backend`` chooses pyglet's headless (EGL) mode first when
there is no display.

Entry points, loaded on first use::

    from rigidflock.render import Viewer, render_frame, screenshot
    Viewer(sim).run()                                  # a window onto a running simulation
    image = render_frame(frame_from_sim(sim), (1280, 800))   # (H, W, 4) uint8, top row first

Drawing takes plain arrays (:class:`~rigidflock.render.frame.Frame`), never the Simulation: a
thin adapter, :func:`~rigidflock.render.frame.frame_from_sim`, maps a Simulation to them, so stored
states (replays) draw the same way.
"""

from __future__ import annotations

_LAZY = {
    "Viewer": "window",
    "render_frame": "offscreen",
    "screenshot": "offscreen",
    "Frame": "frame",
    "Overlays": "frame",
    "frame_from_sim": "frame",
    "Camera": "camera",
    "save_png": "png",
    "save_image": "png",
}

__all__ = sorted(_LAZY)  # noqa: PLE0605 (the lazily imported names)


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module = importlib.import_module(f".{_LAZY[name]}", __name__)
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
