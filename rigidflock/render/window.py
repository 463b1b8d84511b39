"""The interactive viewer: a pyglet window onto a running Simulation.

The simulation advances at its fixed ``dt`` through an accumulator fed by real time (times the
speed factor), decoupled from the frame rate; each frame draws the units interpolated between the
last two ticks. When ticks cannot keep up, the viewer runs fewer (at most ~30 ms of ticks per
frame) and the HUD's ticks/s shows it, rather than freezing. Every tick's input is a
:class:`~rigidflock.sim.Command` built by :class:`~rigidflock.render.input.Controls` (rule switches
included); ``on_command(tick, command)`` sees each one (a recorder can hook in there).

RTS input: the selection (sorted AI unit rows, :attr:`Viewer.selection`) is viewer state; a left
click picks the unit under the cursor, a left drag the units inside the rectangle, shift adds.
A right click queues a move order for the selection (``OrderSpec(select=SelectSpec(ids=...),
goal=...)``) and ``B`` a square building at the cursor; both go into the next tick's command,
like the rule switches, so ``on_command`` and the recorder see them. A goal on a wall or in a
building moves to the nearest free cell; a building that would overlap another, a wall or a unit
is refused. Both say so in the side panel for a few seconds.

Recording: ``R`` (or :meth:`start_recording`) writes a replay from the current tick on into a
timestamped file; every command since the viewer started is kept (only the non-default ones, a
few bytes each) and goes into the file's header, so a recording started mid-run still re-simulates
from tick 0 (``rigidflock verify``). ``R`` again, Esc or closing the window ends the file.
"""

from __future__ import annotations

import datetime
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

import numpy as np

from rigidflock.render import geometry as G
from rigidflock.render import selection as S
from rigidflock.render.backend import key, make_window, mouse, pyglet
from rigidflock.render.camera import Camera, fit_camera, side_panel_width
from rigidflock.render.clock import FixedStepClock
from rigidflock.render.frame import Frame, Overlays, frame_from_sim, interpolate
from rigidflock.render.hud import sim_hud
from rigidflock.render.input import Controls
from rigidflock.render.layers import Renderer
from rigidflock.render.offscreen import draw_to_array
from rigidflock.render.png import save_png
from rigidflock.replay import command_matters
from rigidflock.scene import BuildingSpec, OrderSpec, SelectSpec
from rigidflock.sim import Command, Simulation

TICK_BUDGET = 0.030  # seconds of ticking per frame at most
PICK_PIXELS = 20.0  # the unit under the cursor: the nearest within this many pixels
HUD_INTERVAL = 0.25  # seconds between HUD text updates
SELECT_PIXELS = 10.0  # a click selects the nearest AI unit within this (or its drawn hull)
BUILDING_LENGTHS = 8.0  # side of the B key's square building, in unit lengths
MESSAGE_SECONDS = 4.0  # how long a message stays in the side panel


class _Rate:
    """Events per second over the last second."""

    def __init__(self):
        self.times: deque[float] = deque()

    def add(self, t: float, n: int = 1) -> None:
        for _ in range(n):
            self.times.append(t)
        while self.times and t - self.times[0] > 1.0:
            self.times.popleft()

    def value(self, t: float) -> float:
        while self.times and t - self.times[0] > 1.0:
            self.times.popleft()
        return float(len(self.times))


class Viewer:
    """``Viewer(sim).run()`` opens the window and runs until Esc or the window is closed.

    ``pause_at``: pause when the simulation reaches this tick. ``visible=False`` (or no display)
    gives a hidden window that tests drive with synthetic events and :meth:`advance`.
    """

    def __init__(
        self,
        sim: Simulation,
        size: tuple[int, int] = (1280, 800),
        *,
        visible: bool = True,
        overlays: Overlays | None = None,
        on_command: Callable[[int, Command], None] | None = None,
        pause_at: int | None = None,
        samples: int = 4,
        screenshot_dir: str | Path = ".",
    ):
        self.sim = sim
        name = sim.scene.name or Path(str(sim.scene.source)).stem
        self.window = make_window(
            size, visible=visible, samples=samples, caption=f"rigidflock - {name}"
        )
        player = sim.scene.player
        self.controls = Controls(player.control if player is not None else None, overlays)
        self.on_command = on_command
        self.pause_at = pause_at
        self.screenshot_dir = Path(screenshot_dir)
        self.renderer = Renderer(self.window)
        w, h = self.window.get_size()
        self.camera: Camera = fit_camera(sim.scene.world.size, (w, h))
        self.cursor: tuple[float, float] | None = None
        self.keys = key.KeyStateHandler()
        # Our handlers first, the key-state handler on top: it sees every press and passes it
        # on; ours then stops it (so Esc does not also reach pyglet's default close).
        self.window.push_handlers(
            on_key_press=self.on_key_press,
            on_draw=self.on_draw,
            on_resize=self.on_resize,
            on_mouse_scroll=self.on_mouse_scroll,
            on_mouse_press=self.on_mouse_press,
            on_mouse_drag=self.on_mouse_drag,
            on_mouse_release=self.on_mouse_release,
            on_mouse_motion=self.on_mouse_motion,
            on_mouse_leave=self.on_mouse_leave,
            on_close=self.on_close,
        )
        self.window.push_handlers(self.keys)
        self._prev = (sim.state.pos.copy(), sim.state.angle.copy())
        self.clock = FixedStepClock(sim.scene.world.dt, budget=TICK_BUDGET)
        self._fps, self._tps = _Rate(), _Rate()
        self._hud = None
        self._hud_time = -1.0
        self.closed = False
        self.frame_ms = 0.0  # time to build and draw the last frame
        self.tick_budget = TICK_BUDGET
        self.recorder = None  # a rigidflock.replay.Recorder while recording
        self.record_precision = "compact"
        self.input_log: list[tuple[int, Command]] = []  # non-default commands since the start
        self.selection = np.zeros(0, np.intp)  # selected AI unit rows (viewer state, not input)
        self._press: dict[int, tuple[float, float, bool]] = {}  # button -> (x, y, dragged)
        self.marquee: tuple[float, float, float, float] | None = None  # screen x0, y0, x1, y1
        self.message: str | None = None  # shown in the side panel until message_until
        self.message_until = 0.0

    # -- simulation ---------------------------------------------------------------------------

    def tick(self) -> None:
        """One simulation tick with the command from the keys held now."""
        command = self.controls.command(self.keys)
        st = self.sim.state
        self._prev = (st.pos.copy(), st.angle.copy())
        if self.on_command is not None:
            self.on_command(self.sim.tick, command)
        tick = self.sim.tick
        events = self.sim.step(command)
        if command_matters(command):
            self.input_log.append((tick, command))
        if self.recorder is not None:
            self.recorder.record(command, events)
        self._tps.add(time.perf_counter())
        if self.pause_at is not None and self.sim.tick >= self.pause_at:
            self.controls.paused = True
            self.pause_at = None

    def advance(self, elapsed: float) -> int:
        """Feed ``elapsed`` real seconds to the clock; run the ticks that are due."""
        c = self.clock
        c.speed, c.budget = self.controls.speed, self.tick_budget
        # a tick may pause the run (pause_at): the rest of the backlog is then dropped
        return c.advance(elapsed, lambda: self.tick() or self.controls.paused,
                         paused=self.controls.paused)  # fmt: skip

    def step_ticks(self, n: int) -> None:
        """Run ``n`` ticks now, whatever the clock says (tests, scripts)."""
        for _ in range(n):
            self.tick()

    # -- drawing ------------------------------------------------------------------------------

    def frame(self) -> Frame:
        """The frame to draw now: the current state, moved back toward the previous tick by the
        part of a tick the accumulator has not run yet."""
        f = frame_from_sim(
            self.sim, vectors=self.controls.overlays.vectors, selected=self.selection
        )
        alpha = 1.0 if self.controls.paused else self.clock.fraction
        if alpha < 1.0 and len(self._prev[0]) == f.n:
            box = f.size if f.bounds == "wrap" else None
            pos, ang = interpolate(*self._prev, f.pos, f.angle, alpha, box)
            f = f.moved(pos, ang)
        return f

    def selected(self, f: Frame) -> int | None:
        """The unit under the cursor (nearest within PICK_PIXELS), if any."""
        if self.cursor is None or f.n == 0:
            return None
        p = self.camera.screen_to_world(self.cursor)
        d = np.hypot(f.pos[:, 0] - p[0], f.pos[:, 1] - p[1])
        i = int(np.argmin(d))
        return i if d[i] * self.camera.zoom <= PICK_PIXELS else None

    def hud(self):
        now = time.perf_counter()
        if self._hud is None or now - self._hud_time >= HUD_INTERVAL:
            c = self.controls
            self._hud = sim_hud(
                self.sim,
                fps=self._fps.value(now),
                tps=self._tps.value(now),
                speed=c.speed,
                paused=c.paused,
                pending=c.pending,
                driving=c.driving,
                selection=len(self.selection),
                queued=len(c.queued_orders) + len(c.queued_buildings),
            )
            if self.recorder is not None:
                self._hud.status.append(("REC", self.recorder.path.name))
            if self.message is not None and now < self.message_until:
                self._hud.notes.append(self.message)
            self._hud_time = now
        return self._hud

    def say(self, text: str) -> None:
        """Show ``text`` in the side panel for a few seconds (and on stdout)."""
        self.message = text
        self.message_until = time.perf_counter() + MESSAGE_SECONDS
        self._hud = None
        print(f"rigidflock: {text}")

    def marquee_world(self) -> tuple[float, float, float, float] | None:
        """The drag rectangle in world units, while the left button selects."""
        if self.marquee is None:
            return None
        x0, y0, x1, y1 = self.marquee
        a = self.camera.screen_to_world((x0, y0))
        b = self.camera.screen_to_world((x1, y1))
        return (float(a[0]), float(a[1]), float(b[0]), float(b[1]))

    def draw(self) -> None:
        t0 = time.perf_counter()
        f = self.frame()
        self.renderer.draw(
            f, self.camera, self.controls.overlays, self.hud(), self.selected(f),
            marquee=self.marquee_world(),
        )  # fmt: skip
        self.frame_ms = (time.perf_counter() - t0) * 1e3
        self._fps.add(time.perf_counter())

    def capture(self) -> np.ndarray:
        """The current view drawn offscreen (antialiased): (H, W, 4) uint8, top row first."""
        f = self.frame()
        self._hud = None  # the picture's HUD shows this tick
        return draw_to_array(
            self.renderer, f, self.camera, self.controls.overlays, self.hud(), self.selected(f),
            marquee=self.marquee_world(),
        )  # fmt: skip

    def save_screenshot(self, path: str | Path | None = None) -> Path:
        if path is None:
            stem = Path(str(self.sim.scene.source)).stem or "rigidflock"
            path = self.screenshot_dir / f"rigidflock-{stem}-{self.sim.tick:06d}.png"
        path = Path(path)
        save_png(path, self.capture()[..., :3])
        print(f"rigidflock: saved {path}")
        return path

    # -- recording ----------------------------------------------------------------------------

    def start_recording(self, path: str | Path | None = None) -> Path:
        """Record a replay from now on (default: a timestamped file in ``screenshot_dir``)."""
        from rigidflock.replay import Recorder

        self.stop_recording()
        if path is None:
            stem = Path(str(self.sim.scene.source)).stem or "rigidflock"
            stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
            path = self.screenshot_dir / f"rigidflock-{stem}-{stamp}.rfr"
        self.recorder = Recorder(
            path, self.sim, precision=self.record_precision, prelude=self.input_log
        )
        self._hud = None
        print(f"rigidflock: recording to {path}")
        return Path(path)

    def stop_recording(self) -> Path | None:
        """End the recording, if one runs; returns its file."""
        rec, self.recorder = self.recorder, None
        if rec is None:
            return None
        rec.close()
        self._hud = None
        print(f"rigidflock: saved replay {rec.path} ({rec.ticks} ticks)")
        return rec.path

    def toggle_recording(self) -> Path | None:
        if self.recorder is not None:
            return self.stop_recording()
        return self.start_recording()

    # -- RTS: selection, orders, buildings ----------------------------------------------------

    def _selectable(self) -> np.ndarray:
        """(N,) bool: the AI units (the player takes no orders)."""
        ok = np.zeros(self.sim.units.n, bool)
        ok[: self.sim.units.n_ai] = True
        return ok

    def select_at(self, screen_xy, add: bool = False) -> int | None:
        """A left click: select the AI unit nearest ``screen_xy`` (within SELECT_PIXELS or its
        drawn hull), alone or (``add``) with the current selection; nothing there clears the
        selection unless ``add``. Returns the unit picked."""
        st, u = self.sim.state, self.sim.units
        p = self.camera.screen_to_world(screen_xy)
        scale = G.hull_scale(u.length, self.camera.zoom, self.renderer.min_hull_px)
        radius = np.maximum(SELECT_PIXELS / self.camera.zoom, 0.6 * u.length * scale)
        i = S.pick(st.pos, self._selectable(), p, radius)
        if i is not None or not add:
            self.selection = S.combine(self.selection, [] if i is None else [i], add)
            self._hud = None
        return i

    def select_rect(self, a_screen, b_screen, add: bool = False) -> np.ndarray:
        """A left drag: select the AI units whose centre is inside the rectangle with screen
        corners ``a_screen`` and ``b_screen`` (with the current selection when ``add``)."""
        a = self.camera.screen_to_world(a_screen)
        b = self.camera.screen_to_world(b_screen)
        picked = S.in_rect(self.sim.state.pos, self._selectable(), a, b)
        self.selection = S.combine(self.selection, picked, add)
        self._hud = None
        return picked

    def order_at(self, screen_xy) -> OrderSpec | None:
        """A right click: queue an order moving the selection to the world point under
        ``screen_xy`` (moved to the nearest free cell when it is on a wall or in a building)
        for the next tick. None (and a message) when nothing is selected."""
        if not len(self.selection):
            self.say("nothing selected: left-click or drag over units first")
            return None
        sim = self.sim
        goal = self.camera.screen_to_world(screen_xy)
        goal, moved = S.free_goal(sim.orders.grid, goal, sim.scene.world.size)
        if moved:
            self.say("goal moved to the nearest free spot")
        spec = OrderSpec(
            select=SelectSpec(ids=tuple(int(i) for i in self.selection)),
            goal=(float(goal[0]), float(goal[1])),
        )
        self.controls.order(spec)
        self._hud = None
        return spec

    def building_at(self, screen_xy=None) -> BuildingSpec | None:
        """The ``B`` key: queue a square building BUILDING_LENGTHS unit lengths wide centred on
        ``screen_xy`` (default: the cursor) for the next tick; refused, with a message, when it
        would leave the world or overlap a building, a wall or a unit."""
        screen_xy = screen_xy if screen_xy is not None else self.cursor
        if screen_xy is None:
            self.say("building: point at the world with the mouse first")
            return None
        sim, u = self.sim, self.sim.units
        L = float(np.median(u.length[: u.n_ai])) if u.n_ai else float(np.median(u.length))
        centre = self.camera.screen_to_world(screen_xy)
        poly = S.square(centre, BUILDING_LENGTHS * L)
        others = [*sim.orders.buildings, *(b.polygon for b in self.controls.queued_buildings)]
        walls = [(w.start, w.end, w.thickness) for w in sim.scene.walls]
        margin = 0.6 * float(u.length.max()) if u.n else 0.0
        problem = S.placement_problem(
            poly, others, sim.state.pos, sim.scene.world.size, margin, walls
        )
        if problem is not None:
            self.say(f"no building here: {problem}")
            return None
        spec = BuildingSpec(polygon=tuple((float(x), float(y)) for x, y in poly))
        self.controls.add_building(spec)
        self._hud = None
        return spec

    def fit(self) -> None:
        self.camera = fit_camera(self.sim.scene.world.size, self.window.get_size())

    # -- events -------------------------------------------------------------------------------

    def on_draw(self) -> None:
        gap = self.clock.frame_gap(time.perf_counter())
        if gap is not None:
            self.advance(gap)
        self.draw()

    def on_key_press(self, symbol: int, modifiers: int):
        action = self.controls.key_press(symbol, modifiers, self.sim.rules)
        if action == "step":
            self.tick()
        elif action == "fit":
            self.fit()
        elif action == "screenshot":
            self.save_screenshot()
        elif action == "record":
            self.toggle_recording()
        elif action == "building":
            self.building_at()
        elif action == "quit":
            self.close()
        return pyglet.event.EVENT_HANDLED

    def on_resize(self, width: int, height: int) -> None:
        panel = side_panel_width(width)
        self.camera.resize(width, height, (float(panel), 0.0, float(width - panel), float(height)))

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y) -> None:
        self.camera.zoom_at((x, y), 1.15**scroll_y)

    def on_mouse_press(self, x, y, button, modifiers) -> None:
        self.cursor = (x, y)
        if button != mouse.MIDDLE and x < side_panel_width(self.window.get_size()[0]):
            return  # on the side panel: neither selects nor orders
        self._press[button] = (x, y, False)

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers) -> None:
        self.cursor = (x, y)
        for button, (px, py, dragged) in list(self._press.items()):
            if buttons & button and not dragged and not S.is_click((px, py), (x, y)):
                self._press[button] = (px, py, True)
        left = self._press.get(mouse.LEFT)
        if buttons & mouse.LEFT and left is not None and left[2]:
            self.marquee = (left[0], left[1], x, y)
        if buttons & (mouse.RIGHT | mouse.MIDDLE):
            self.camera.pan(dx, dy)

    def on_mouse_release(self, x, y, button, modifiers) -> None:
        self.cursor = (x, y)
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

    def on_mouse_motion(self, x, y, dx, dy) -> None:
        self.cursor = (x, y)

    def on_mouse_leave(self, x, y) -> None:
        self.cursor = None

    def on_close(self) -> None:
        self.close()
        return pyglet.event.EVENT_HANDLED

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.stop_recording()
            self.window.close()
            pyglet.app.exit()

    def run(self) -> None:
        """Open the window and run until it is closed."""
        self.clock.mark(time.perf_counter())
        pyglet.app.run(1 / 60)
