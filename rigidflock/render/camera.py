"""The world <-> screen transform: pan, zoom around a point, fit the world.

Screen coordinates are pyglet's: pixels from the bottom-left corner, y up (as in the world).
Image coordinates (:meth:`Camera.world_to_pixel`) are (column, row) with row 0 at the top, the
layout of a saved screenshot array. The transform is ``screen = (world - center) * zoom +
(viewport centre)``; ``view_matrix`` is the same as a column-major 4x4 for pyglet's ``window.view``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MIN_ZOOM, MAX_ZOOM = 1e-3, 1e3


@dataclass
class Camera:
    width: int  # screen size in pixels
    height: int
    center: tuple[float, float] = (0.0, 0.0)  # world point drawn at the viewport centre
    zoom: float = 1.0  # pixels per world unit
    # The part of the screen the world is fitted into (x, y, w, h); the rest holds the side panel.
    viewport: tuple[float, float, float, float] | None = None

    def _anchor(self) -> tuple[float, float]:
        x, y, w, h = self.viewport or (0.0, 0.0, self.width, self.height)
        return x + w / 2, y + h / 2

    def world_to_screen(self, xy) -> np.ndarray:
        """World points (..., 2) -> screen pixels (..., 2), origin bottom-left, y up."""
        ax, ay = self._anchor()
        p = np.asarray(xy, dtype=float)
        return (p - np.asarray(self.center)) * self.zoom + np.array([ax, ay])

    def screen_to_world(self, xy) -> np.ndarray:
        ax, ay = self._anchor()
        p = np.asarray(xy, dtype=float)
        return (p - np.array([ax, ay])) / self.zoom + np.asarray(self.center)

    def world_to_pixel(self, xy) -> np.ndarray:
        """World points (..., 2) -> image (column, row) floats, row 0 at the top of the image."""
        s = self.world_to_screen(xy)
        return np.stack([s[..., 0], self.height - s[..., 1]], axis=-1)

    def view_matrix(self) -> tuple[float, ...]:
        """Column-major 4x4: translate(anchor) @ scale(zoom) @ translate(-center)."""
        ax, ay = self._anchor()
        z = self.zoom
        cx, cy = self.center
        return (z, 0, 0, 0, 0, z, 0, 0, 0, 0, 1, 0, ax - z * cx, ay - z * cy, 0, 1)

    def zoom_at(self, screen_xy, factor: float) -> None:
        """Zoom by ``factor`` keeping the world point under ``screen_xy`` fixed (mouse wheel)."""
        before = self.screen_to_world(screen_xy)
        self.zoom = float(np.clip(self.zoom * factor, MIN_ZOOM, MAX_ZOOM))
        after = self.screen_to_world(screen_xy)
        self.center = tuple(float(v) for v in np.asarray(self.center) + before - after)

    def pan(self, dx: float, dy: float) -> None:
        """Move the picture by (dx, dy) screen pixels (a drag)."""
        self.center = (self.center[0] - dx / self.zoom, self.center[1] - dy / self.zoom)

    def fit(self, lo, hi, margin: float = 0.04) -> None:
        """Show the world box [lo, hi] whole in the viewport, with ``margin`` of it spare."""
        lo, hi = np.asarray(lo, float), np.asarray(hi, float)
        _, _, w, h = self.viewport or (0.0, 0.0, self.width, self.height)
        span = np.maximum(hi - lo, 1e-9)
        self.zoom = float(min(w / span[0], h / span[1]) * (1.0 - 2 * margin))
        self.center = tuple(float(v) for v in (lo + hi) / 2)

    def resize(self, width: int, height: int, viewport=None) -> None:
        self.width, self.height = int(width), int(height)
        self.viewport = viewport


PANEL_WIDTH = 250  # the side panel's width at 1280 x 800 and larger
MIN_PANEL_SCALE = 0.6  # smaller text than this is not legible


def panel_scale(width: int, height: int | None = None) -> float:
    """The side panel's size factor for a window or picture of ``width`` x ``height``: 1 from
    1280 x 800 up, in proportion below (text and all), never below MIN_PANEL_SCALE.

    >>> panel_scale(1280, 800), panel_scale(640, 400), panel_scale(960, 600)
    (1.0, 0.6, 0.75)
    """
    height = width * 0.625 if height is None else height
    return float(min(max(min(width / 1280, height / 800), MIN_PANEL_SCALE), 1.0))


def side_panel_width(width: int, height: int | None = None, panel: bool = True) -> int:
    """Width of the HUD/legend column at the left (0 with ``panel=False``: no panel), scaled
    with the window (:func:`panel_scale`)."""
    return round(PANEL_WIDTH * panel_scale(width, height)) if panel else 0


def fit_camera(world_size, screen_size, panel: bool = True, right: int = 0) -> Camera:
    """The camera a viewer or screenshot starts with: the whole world, right of the side panel
    (the whole picture with ``panel=False``) and left of a column ``right`` pixels wide (the
    viewer's tuning panel)."""
    w, h = int(screen_size[0]), int(screen_size[1])
    panel = side_panel_width(w, h, panel)
    cam = Camera(w, h, viewport=(float(panel), 0.0, float(w - panel - right), float(h)))
    cam.fit((0.0, 0.0), world_size)
    return cam
