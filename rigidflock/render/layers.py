"""The renderer: the world's layers, then the HUD, drawn through a window's matrices.

Every layer is one pyglet vertex list (position float32, colour uint8) of one shader program; a
frame's vertices are computed by :mod:`.geometry` and written straight into the list's client
buffer through ``numpy.ctypeslib.as_array`` (the attribute getter also marks the range for
upload). Layers, back to front: the world's floor and edge, obstacles, buildings and walls;
view arcs; RTS marks (selection rings, formation slots, routes, the drag rectangle's fill);
links / feelers / aim lines; hulls; vectors and the drag rectangle's edge. The HUD (side panel,
legend, key help) is drawn last in screen pixels.

Hulls are drawn at least ``min_hull_px`` long on screen (scaled about their centres); positions
are exact. The legend says by how much they are enlarged.
"""

from __future__ import annotations

from rigidflock.render import colors as C
from rigidflock.render.backend import Mat4, gl
from rigidflock.render.camera import Camera
from rigidflock.render.frame import Frame, Overlays
from rigidflock.render.hud import Hud
from rigidflock.render.hud_layer import HudLayer
from rigidflock.render.mesh import Mesh, program
from rigidflock.render.world_layers import MIN_HULL_PX, WorldLayers

__all__ = ["MIN_HULL_PX", "HudLayer", "Mesh", "Renderer", "WorldLayers", "program"]


class Renderer:
    """Draws frames into whatever framebuffer is bound, through ``window``'s matrices."""

    def __init__(self, window):
        self.window = window
        self.program = program()
        self.world = WorldLayers(self.program)
        self.hud = HudLayer(self.program)
        self.min_hull_px = MIN_HULL_PX
        self.extras: list = []  # drawn last, in screen pixels: anything with draw()

    def draw(
        self,
        frame: Frame,
        camera: Camera,
        overlays: Overlays | None = None,
        hud: Hud | None = None,
        selected: int | None = None,
        marquee=None,
    ) -> None:
        """``selected``: the unit under the cursor; ``marquee``: the drag rectangle (world
        x0, y0, x1, y1) while the left button selects."""
        overlays = overlays or Overlays()
        self.world.update(frame, camera, overlays, selected, self.min_hull_px, marquee)
        notes = list(hud.notes) if hud is not None else []
        if self.world.hull_scale > 1.001:
            notes.append(
                f"hulls drawn x{self.world.hull_scale:.1f} (at least {self.min_hull_px:g} px "
                "long); positions exact"
            )
        if self.world.vector_note:
            notes.append(self.world.vector_note)
        self.hud.update(hud, overlays, camera.width, camera.height, notes)
        w, h = camera.width, camera.height
        win = self.window
        win.projection = Mat4.orthogonal_projection(0, w, 0, h, -1, 1)
        bg = C.BACKGROUND
        gl.glClearColor(bg[0] / 255, bg[1] / 255, bg[2] / 255, 1.0)
        gl.glClear(gl.GL_COLOR_BUFFER_BIT)
        win.view = Mat4(*camera.view_matrix())
        self.world.draw()
        win.view = Mat4()
        self.hud.draw()
        for extra in self.extras:
            extra.draw()
