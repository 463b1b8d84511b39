"""Drawing without a visible window: frames rendered into an antialiased framebuffer object and
read back as arrays (screenshots, tests, replay export).

Multisampling of a window's own framebuffer does not resolve on readback with some drivers
(llvmpipe under EGL), so frames are drawn into a 4x multisampled framebuffer object of their own
and blitted into a single-sampled one, which is then read.
"""

from __future__ import annotations

import ctypes

import numpy as np

from rigidflock.render.backend import gl, make_window
from rigidflock.render.camera import Camera, fit_camera
from rigidflock.render.frame import Frame, Overlays, frame_from_sim
from rigidflock.render.hud import Hud, sim_hud
from rigidflock.render.layers import Renderer
from rigidflock.render.png import save_image


class Target:
    """A (multisampled) colour framebuffer of ``size`` plus a single-sampled one to read from."""

    def __init__(self, size: tuple[int, int], samples: int = 4):
        self.w, self.h = int(size[0]), int(size[1])
        self._names: list[tuple[gl.GLuint, gl.GLuint]] = []
        mx = gl.GLint()
        gl.glGetIntegerv(gl.GL_MAX_SAMPLES, ctypes.byref(mx))
        self.samples = min(int(samples), int(mx.value))
        self.resolve = self._fbo(0)
        self.ms = self._fbo(self.samples) if self.samples > 1 else None
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)

    def _fbo(self, samples: int) -> int:
        fbo, rb = gl.GLuint(), gl.GLuint()
        gl.glGenFramebuffers(1, ctypes.byref(fbo))
        gl.glGenRenderbuffers(1, ctypes.byref(rb))
        gl.glBindRenderbuffer(gl.GL_RENDERBUFFER, rb)
        if samples:
            gl.glRenderbufferStorageMultisample(
                gl.GL_RENDERBUFFER, samples, gl.GL_RGBA8, self.w, self.h
            )
        else:
            gl.glRenderbufferStorage(gl.GL_RENDERBUFFER, gl.GL_RGBA8, self.w, self.h)
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, fbo)
        gl.glFramebufferRenderbuffer(
            gl.GL_FRAMEBUFFER, gl.GL_COLOR_ATTACHMENT0, gl.GL_RENDERBUFFER, rb
        )
        status = gl.glCheckFramebufferStatus(gl.GL_FRAMEBUFFER)
        if status != gl.GL_FRAMEBUFFER_COMPLETE:
            raise RuntimeError(f"framebuffer incomplete (status 0x{status:x})")
        self._names.append((fbo, rb))
        return fbo.value

    def bind(self) -> None:
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, self.ms or self.resolve)
        gl.glViewport(0, 0, self.w, self.h)

    def read(self) -> np.ndarray:
        """Resolve and read: (H, W, 4) uint8, row 0 at the top."""
        if self.ms:
            gl.glBindFramebuffer(gl.GL_READ_FRAMEBUFFER, self.ms)
            gl.glBindFramebuffer(gl.GL_DRAW_FRAMEBUFFER, self.resolve)
            gl.glBlitFramebuffer(
                0, 0, self.w, self.h, 0, 0, self.w, self.h, gl.GL_COLOR_BUFFER_BIT, gl.GL_NEAREST
            )
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, self.resolve)
        buf = np.empty((self.h, self.w, 4), np.uint8)
        gl.glPixelStorei(gl.GL_PACK_ALIGNMENT, 1)
        gl.glReadPixels(
            0,
            0,
            self.w,
            self.h,
            gl.GL_RGBA,
            gl.GL_UNSIGNED_BYTE,
            buf.ctypes.data_as(ctypes.c_void_p),
        )
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)
        return buf[::-1].copy()

    def delete(self) -> None:
        for fbo, rb in self._names:
            gl.glDeleteFramebuffers(1, ctypes.byref(fbo))
            gl.glDeleteRenderbuffers(1, ctypes.byref(rb))
        self._names = []


def draw_to_array(
    renderer: Renderer,
    frame: Frame,
    camera: Camera,
    overlays: Overlays | None = None,
    hud: Hud | None = None,
    selected: int | None = None,
    samples: int = 4,
    marquee=None,
) -> np.ndarray:
    """Draw one frame with ``renderer`` into a fresh offscreen target of the camera's size
    (``marquee``: a drag rectangle in world units, as :meth:`Renderer.draw`)."""
    renderer.window.switch_to()
    target = Target((camera.width, camera.height), samples)
    try:
        target.bind()
        renderer.draw(frame, camera, overlays, hud, selected, marquee=marquee)
        image = target.read()
    finally:
        target.delete()
        fw, fh = renderer.window.get_framebuffer_size()
        gl.glViewport(0, 0, fw, fh)
    return image


_shared: dict[str, object] = {}


def _renderer() -> Renderer:
    """One hidden window (an EGL pbuffer when headless) and renderer, made on first use."""
    if "renderer" not in _shared:
        window = make_window((64, 64), visible=False, samples=0)
        _shared["renderer"] = Renderer(window)
    return _shared["renderer"]


def render_frame(
    frame: Frame,
    size: tuple[int, int] = (1280, 800),
    *,
    camera: Camera | None = None,
    overlays: Overlays | None = None,
    hud: Hud | None = None,
    selected: int | None = None,
    samples: int = 4,
) -> np.ndarray:
    """Draw ``frame`` offscreen at ``size`` (W, H): (H, W, 4) uint8 RGBA, row 0 at the top.

    The camera defaults to :func:`~rigidflock.render.camera.fit_camera` (the whole world,
    right of the side panel); with no ``hud`` there is no panel text, only the world."""
    camera = camera or fit_camera(frame.size, size)
    return draw_to_array(_renderer(), frame, camera, overlays, hud, selected, samples)


def screenshot(
    sim,
    path,
    size: tuple[int, int] = (1280, 800),
    overlays: Overlays | None = None,
) -> np.ndarray:
    """Draw a Simulation's current state with the HUD, save it as PNG at ``path``, return it."""
    image = render_frame(frame_from_sim(sim), size, overlays=overlays, hud=sim_hud(sim))
    save_image(path, image[..., :3])
    return image
