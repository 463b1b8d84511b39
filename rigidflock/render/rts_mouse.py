"""The live viewer's mouse: the unit under the cursor, the RTS selection and what it leads to.

A left click picks the AI unit under the cursor, a left drag the units inside the rectangle,
shift adds. A right click queues a move order for the selection (``OrderSpec(select=
SelectSpec(ids=...), goal=...)``) and ``B`` a square building at the cursor; both go into the
next tick's command (:class:`~rigidflock.render.input.Controls`), so ``on_command`` and the
recorder see them. A goal on a wall or in a building moves to the nearest free cell; a building
that would overlap another, a wall or a unit is refused. Both say so in the side panel. Right or
middle drag pans. The math is :mod:`.selection`'s; this class ties it to the viewer.
"""

from __future__ import annotations

import numpy as np

from rigidflock.render import selection as S
from rigidflock.render import vertices as G
from rigidflock.render.backend import key, mouse
from rigidflock.render.camera import side_panel_width
from rigidflock.render.frame import Frame
from rigidflock.scene import BuildingSpec, OrderSpec, SelectSpec

PICK_PIXELS = 20.0  # the unit under the cursor: the nearest within this many pixels
SELECT_PIXELS = 10.0  # a click selects the nearest AI unit within this (or its drawn hull)
BUILDING_LENGTHS = 8.0  # side of the B key's square building, in unit lengths


class RtsMouse:
    """Mouse state and actions of a :class:`~rigidflock.render.window.Viewer` (``viewer``: its
    sim, camera, controls, cursor and status)."""

    def __init__(self, viewer):
        self.viewer = viewer
        self.selection = np.zeros(0, np.intp)  # selected AI unit rows (viewer state, not input)
        self.marquee: tuple[float, float, float, float] | None = None  # screen x0, y0, x1, y1
        self._press: dict[int, tuple[float, float, bool]] = {}  # button -> (x, y, dragged)

    def hovered(self, f: Frame) -> int | None:
        """The unit under the cursor (nearest within PICK_PIXELS), if any."""
        cursor, camera = self.viewer.cursor, self.viewer.camera
        if cursor is None or f.n == 0:
            return None
        p = camera.screen_to_world(cursor)
        d = np.hypot(f.pos[:, 0] - p[0], f.pos[:, 1] - p[1])
        i = int(np.argmin(d))
        return i if d[i] * camera.zoom <= PICK_PIXELS else None

    def marquee_world(self) -> tuple[float, float, float, float] | None:
        """The drag rectangle in world units, while the left button selects."""
        if self.marquee is None:
            return None
        x0, y0, x1, y1 = self.marquee
        a = self.viewer.camera.screen_to_world((x0, y0))
        b = self.viewer.camera.screen_to_world((x1, y1))
        return (float(a[0]), float(a[1]), float(b[0]), float(b[1]))

    # -- selection, orders, buildings ---------------------------------------------------------

    def _selectable(self) -> np.ndarray:
        """(N,) bool: the AI units (the player takes no orders)."""
        units = self.viewer.sim.units
        ok = np.zeros(units.n, bool)
        ok[: units.n_ai] = True
        return ok

    def select_at(self, screen_xy, add: bool = False) -> int | None:
        """A left click: select the AI unit nearest ``screen_xy`` (within SELECT_PIXELS or its
        drawn hull), alone or (``add``) with the current selection; nothing there clears the
        selection unless ``add``. Returns the unit picked."""
        v = self.viewer
        st, u, camera = v.sim.state, v.sim.units, v.camera
        p = camera.screen_to_world(screen_xy)
        scale = G.hull_scale(u.length, camera.zoom, v.renderer.min_hull_px)
        radius = np.maximum(SELECT_PIXELS / camera.zoom, 0.6 * u.length * scale)
        i = S.pick(st.pos, self._selectable(), p, radius)
        if i is not None or not add:
            self.selection = S.combine(self.selection, [] if i is None else [i], add)
            v.status.invalidate()
        return i

    def select_rect(self, a_screen, b_screen, add: bool = False) -> np.ndarray:
        """A left drag: select the AI units whose centre is inside the rectangle with screen
        corners ``a_screen`` and ``b_screen`` (with the current selection when ``add``)."""
        v = self.viewer
        a = v.camera.screen_to_world(a_screen)
        b = v.camera.screen_to_world(b_screen)
        picked = S.in_rect(v.sim.state.pos, self._selectable(), a, b)
        self.selection = S.combine(self.selection, picked, add)
        v.status.invalidate()
        return picked

    def order_at(self, screen_xy) -> OrderSpec | None:
        """A right click: queue an order moving the selection to the world point under
        ``screen_xy`` (moved to the nearest free cell when it is on a wall or in a building)
        for the next tick. None (and a message) when nothing is selected."""
        v = self.viewer
        if not len(self.selection):
            v.status.say("nothing selected: left-click or drag over units first")
            return None
        sim = v.sim
        goal = v.camera.screen_to_world(screen_xy)
        goal, moved = S.free_goal(sim.orders.grid, goal, sim.scene.world.size)
        if moved:
            v.status.say("goal moved to the nearest free spot")
        spec = OrderSpec(
            select=SelectSpec(ids=tuple(int(i) for i in self.selection)),
            goal=(float(goal[0]), float(goal[1])),
        )
        v.controls.order(spec)
        v.status.invalidate()
        return spec

    def building_at(self, screen_xy=None) -> BuildingSpec | None:
        """The ``B`` key: queue a square building BUILDING_LENGTHS unit lengths wide centred on
        ``screen_xy`` (default: the cursor) for the next tick; refused, with a message, when it
        would leave the world or overlap a building, a wall or a unit."""
        v = self.viewer
        screen_xy = screen_xy if screen_xy is not None else v.cursor
        if screen_xy is None:
            v.status.say("building: point at the world with the mouse first")
            return None
        sim, u = v.sim, v.sim.units
        L = float(np.median(u.length[: u.n_ai])) if u.n_ai else float(np.median(u.length))
        centre = v.camera.screen_to_world(screen_xy)
        poly = S.square(centre, BUILDING_LENGTHS * L)
        others = [*sim.orders.buildings, *(b.polygon for b in v.controls.queued_buildings)]
        walls = [(w.start, w.end, w.thickness) for w in sim.scene.walls]
        margin = 0.6 * float(u.length.max()) if u.n else 0.0
        problem = S.placement_problem(
            poly, others, sim.state.pos, sim.scene.world.size, margin, walls
        )
        if problem is not None:
            v.status.say(f"no building here: {problem}")
            return None
        spec = BuildingSpec(polygon=tuple((float(x), float(y)) for x, y in poly))
        v.controls.add_building(spec)
        v.status.invalidate()
        return spec

    # -- events -------------------------------------------------------------------------------

    def on_mouse_press(self, x, y, button, modifiers) -> None:
        self.viewer.cursor = (x, y)
        if button != mouse.MIDDLE and x < side_panel_width(*self.viewer.window.get_size()):
            return  # on the side panel: neither selects nor orders
        self._press[button] = (x, y, False)

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers) -> None:
        self.viewer.cursor = (x, y)
        for button, (px, py, dragged) in list(self._press.items()):
            if buttons & button and not dragged and not S.is_click((px, py), (x, y)):
                self._press[button] = (px, py, True)
        left = self._press.get(mouse.LEFT)
        if buttons & mouse.LEFT and left is not None and left[2]:
            self.marquee = (left[0], left[1], x, y)
        if buttons & (mouse.RIGHT | mouse.MIDDLE):
            self.viewer.camera.pan(dx, dy)

    def on_mouse_release(self, x, y, button, modifiers) -> None:
        self.viewer.cursor = (x, y)
        press = self._press.pop(button, None)
        if press is None:
            return
        px, py, dragged = press
        click = not dragged and S.is_click((px, py), (x, y))
        add = bool(modifiers & key.MOD_SHIFT)
        if button == mouse.LEFT:
            self.marquee = None
            if click:
                self.select_at((px, py), add)
            else:
                self.select_rect((px, py), (x, y), add)
        elif button == mouse.RIGHT and click:
            self.order_at((px, py))

    def on_mouse_leave(self, x, y) -> None:
        self.viewer.cursor = None
