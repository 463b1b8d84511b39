"""The interactive viewer: a pyglet window onto a running Simulation.

The simulation advances at its fixed ``dt`` through a
:class:`~rigidflock.render.clock.FixedStepClock` fed by real time (times the speed factor),
decoupled from the frame rate; each frame draws the units interpolated between the last two
ticks. When ticks cannot keep up, the viewer runs fewer (at most ~30 ms of ticks per frame) and
the HUD's ticks/s shows it, rather than freezing. Every tick's input is a
:class:`~rigidflock.sim.Command` built by :class:`~rigidflock.render.input.Controls` (rule switches
included); ``on_command(tick, command)`` sees each one (a recorder can hook in there).

RTS input (:class:`~rigidflock.render.rts_mouse.RtsMouse`): the selection (sorted AI unit rows,
:attr:`Viewer.selection`) is viewer state; a left click picks the unit under the cursor, a left
drag the units inside the rectangle, shift adds. A right click queues a move order for the
selection and ``B`` a square building at the cursor; both go into the next tick's command, like
the rule switches, so ``on_command`` and the recorder see them.

Tuning (:mod:`.tuning`, :mod:`.tuning_panel`): the panel's sliders and keys queue changes of
scene keys (``Command.changes``) for the next tick, like the rule switches; ``W``
(:meth:`Viewer.save_tuned`) writes the scene as tuned. :meth:`Viewer.watch` reads the scene
file again when it is saved (:mod:`.watch`): settings that can change mid-run become changes,
other edits :meth:`Viewer.restart` the scene at tick 0 with the same camera, and a file with
errors shows them over the world while the last good scene runs on. ``L`` lists scenes to open
(:mod:`.scene_list`, :meth:`Viewer.open_scene`).

Recording (:class:`~rigidflock.render.live_recording.LiveRecording`): ``R`` (or
:meth:`Viewer.start_recording`) writes a replay from the current tick on into a timestamped file;
every command since the viewer started is kept (only the non-default ones, a few bytes each) and
goes into the file's header, so a recording started mid-run still re-simulates from tick 0
(``rigidflock verify``). ``R`` again, Esc or closing the window ends the file.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

from rigidflock.render import colors as C
from rigidflock.render.backend import key, pyglet
from rigidflock.render.frame import Frame, Overlays, frame_from_sim, interpolate
from rigidflock.render.hud import Hud, sim_hud
from rigidflock.render.input import Controls
from rigidflock.render.live_recording import LiveRecording
from rigidflock.render.live_status import LiveStatus
from rigidflock.render.rts_mouse import RtsMouse
from rigidflock.render.scene_list import SceneList
from rigidflock.render.tuning import Tuner
from rigidflock.render.tuning_panel import TextBox, TuningPanel, tuning_width
from rigidflock.render.watch import SceneWatch
from rigidflock.render.window_base import WindowBase
from rigidflock.scene import SceneError, load_scene
from rigidflock.scene.budget import check_runs
from rigidflock.sim import Command, Simulation, save_scene
from rigidflock.sim.changes import ChangeError

TICK_BUDGET = 0.030  # seconds of ticking per frame at most


def viewer_title(scene) -> str:
    """The viewer window's title: ``rigidflock: SCENE NAME`` (the file's stem when the scene has
    no ``name``)."""
    return f"rigidflock: {scene.name or Path(str(scene.source)).stem}"


class Viewer(WindowBase):
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
        tuning: bool = False,
        tuned_path: str | Path | None = None,
    ):
        self.sim = sim
        super().__init__(
            sim.scene.world.size, size, caption=viewer_title(sim.scene), dt=sim.scene.world.dt,
            visible=visible, samples=samples, overlays=overlays, screenshot_dir=screenshot_dir,
            budget=TICK_BUDGET,
        )  # fmt: skip
        player = sim.scene.player
        self.tuner = Tuner(sim.scene, shown=tuning)
        self.controls = Controls(
            player.control if player is not None else None,
            self.overlays,
            self.tuner,
            self._tuned_scene,
        )
        self.tuned_path = Path(tuned_path) if tuned_path is not None else None
        self.panel = TuningPanel(self.tuner, self.controls.value, self.controls.change)
        self.notice = TextBox(C.ERROR_TEXT, top=True)  # a scene file's errors, until fixed
        self.notice_lines: list[str] = []
        self.scenes = SceneList()  # L: the bundled scenes and the current folder's
        self.scene_box = TextBox()
        self.renderer.extras += [self.panel, self.notice, self.scene_box]
        self.fit()  # clear of the tuning panel when it shows
        self.on_command = on_command
        self.pause_at = pause_at
        self.status = LiveStatus()
        self.mouse = RtsMouse(self)
        self.recording = LiveRecording(sim, on_change=self.status.invalidate)
        self.record_precision = "compact"
        self.keys = key.KeyStateHandler()
        # Our handlers first, the key-state handler on top: it sees every press and passes it
        # on; ours then stops it (so Esc does not also reach pyglet's default close).
        m = self.mouse
        self.listen(
            on_mouse_press=m.on_mouse_press,
            on_mouse_drag=m.on_mouse_drag,
            on_mouse_release=m.on_mouse_release,
            on_mouse_leave=m.on_mouse_leave,
        )
        p = self.panel  # above the world's mouse: what it takes, the world does not see
        self.window.push_handlers(
            on_mouse_press=p.on_mouse_press,
            on_mouse_drag=p.on_mouse_drag,
            on_mouse_release=p.on_mouse_release,
            on_mouse_scroll=p.on_mouse_scroll,
        )
        self.window.push_handlers(self.keys)
        self._prev = (sim.state.pos.copy(), sim.state.angle.copy())
        self.frame_ms = 0.0  # time to build and draw the last frame
        self.tick_budget = TICK_BUDGET

    # -- state kept by the parts --------------------------------------------------------------

    @property
    def selection(self):
        """Selected AI unit rows, sorted (viewer state, not simulation input)."""
        return self.mouse.selection

    @selection.setter
    def selection(self, rows) -> None:
        self.mouse.selection = rows

    @property
    def marquee(self) -> tuple[float, float, float, float] | None:
        """The drag rectangle in screen pixels while the left button selects."""
        return self.mouse.marquee

    @property
    def message(self) -> str | None:
        return self.status.message

    @property
    def recorder(self):
        """The :class:`~rigidflock.replay.Recorder` while recording, else None."""
        return self.recording.recorder

    @property
    def input_log(self) -> list[tuple[int, Command]]:
        return self.recording.input_log

    # -- simulation ---------------------------------------------------------------------------

    def tick(self) -> None:
        """One simulation tick with the command from the keys held now."""
        command = self.controls.command(self.keys)
        if command.changes:
            try:  # a change the run would refuse is dropped and said, never raised
                self.sim.tuning.propose(command.changes)
            except ChangeError as e:
                self.status.say(f"not changed: {e}")
                command = dataclasses.replace(command, changes={})
        st = self.sim.state
        self._prev = (st.pos.copy(), st.angle.copy())
        if self.on_command is not None:
            self.on_command(self.sim.tick, command)
        tick = self.sim.tick
        events = self.sim.step(command)
        self.recording.log(tick, command, events)
        self.status.tps.add(time.perf_counter())
        if self.pause_at is not None and self.sim.tick >= self.pause_at:
            self.controls.paused = True
            self.pause_at = None

    def advance(self, elapsed: float) -> int:
        """Feed ``elapsed`` real seconds to the clock; run the ticks that are due (after
        taking a saved scene file, with ``--watch``)."""
        self.poll_watch()
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
        part of a tick the clock has not run yet."""
        f = frame_from_sim(
            self.sim, vectors=self.controls.overlays.vectors, selected=self.selection
        )
        alpha = 1.0 if self.controls.paused else self.clock.fraction
        if alpha < 1.0 and len(self._prev[0]) == f.n:
            box = f.size if f.bounds == "wrap" else None
            pos, ang = interpolate(*self._prev, f.pos, f.angle, alpha, box)
            f = f.moved(pos, ang)
        return f

    def right_margin(self, width: int, height: int) -> int:
        """The tuning panel's width while it shows (the world is fitted left of it)."""
        return tuning_width(width, height) if self.tuner.shown else 0

    def picks(self, f: Frame):
        return self.mouse.hovered(f), self.mouse.marquee_world()

    def hud(self, fresh: bool = False) -> Hud:
        st = self.status
        if fresh:
            st.invalidate()
        now = time.perf_counter()
        if st.due(now):
            c = self.controls
            hud = sim_hud(
                self.sim,
                fps=st.fps.value(now),
                tps=st.tps.value(now),
                speed=c.speed,
                paused=c.paused,
                pending=c.pending,
                driving=c.driving,
                selection=len(self.selection),
                queued=len(c.queued_orders) + len(c.queued_buildings),
                interactive=True,
            )
            rec = self.recorder
            st.show(hud, now, rec.path.name if rec is not None else None)
        return st.hud

    def _panels(self) -> None:
        """The tuning panel and the notice laid out for the window's size, with this tick's
        values."""
        w, h = self.camera.width, self.camera.height
        self.panel.update(w, h)
        self.notice.update(self.notice_lines, w, h)
        self.scene_box.update(self.scenes.lines(str(self.sim.scene.source)), w, h)

    def capture(self):
        self._panels()
        return super().capture()

    def draw(self) -> None:
        t0 = time.perf_counter()
        self._panels()
        super().draw()
        self.frame_ms = (time.perf_counter() - t0) * 1e3
        self.status.fps.add(time.perf_counter())

    def screenshot_path(self) -> Path:
        stem = Path(str(self.sim.scene.source)).stem or "rigidflock"
        return self.screenshot_dir / f"rigidflock-{stem}-{self.sim.tick:06d}.png"

    # -- another scene, --watch --------------------------------------------------------------

    def restart(self, scene, seed: int | None = None, why: str = "restarted") -> None:
        """Run ``scene`` from tick 0 (``seed``: default the scene's) in this window, with the
        same camera (fitted again only when the world's size changed); a recording ends."""
        sim = Simulation(scene, seed=seed)  # may raise: the old run goes on then
        if self.recorder is not None:
            self.stop_recording()
            why += "; the recording ended with the old scene"
        self.sim = sim
        self.recording = LiveRecording(sim, on_change=self.status.invalidate)
        self.tuner.load(scene)
        self.controls.drop_changes()
        self.selection = self.selection[:0]
        self._prev = (sim.state.pos.copy(), sim.state.angle.copy())
        self.clock.dt = scene.world.dt
        self.clock.reset()
        self.window.set_caption(viewer_title(scene))
        if tuple(scene.world.size) != tuple(self.world_size):
            self.world_size = scene.world.size
            self.fit()
        self.status.say(f"{why}: {Path(str(scene.source)).name} at tick 0")

    def watch(self, path, overrides=(), seed: int | None = None) -> None:
        """Read ``path`` again whenever it is saved (``overrides``: the ``--set`` of the command
        line): changed settings go into the next tick's command, other changes restart the
        scene (:meth:`restart`); a file with errors shows them and the run goes on."""
        self.watcher = SceneWatch(path, self.sim.scene, overrides, seed)
        self._watch_seed = seed

    def poll_watch(self, now: float | None = None):
        """Look at the watched file (at most every few tenths of a second); returns what it
        asked for (:class:`~rigidflock.render.watch.Reload`) or None."""
        w = getattr(self, "watcher", None)
        got = w.poll(now) if w is not None else None
        if got is None:
            return None
        name = w.path.name
        if got.kind == "error":
            self.notice_lines = [*got.errors[:8], f"{name}: the last good scene keeps running"]
            self.status.say(f"{name}: {len(got.errors)} error(s), not reloaded")
            return got
        self.notice_lines = []
        if got.kind == "restart":
            shown = ", ".join(got.fixed[:3]) + (" ..." if len(got.fixed) > 3 else "")
            try:
                self.restart(got.scene, self._watch_seed, why=f"{name}: {shown} changed")
            except Exception as e:  # the scene passed check, yet did not build: keep the old
                self.notice_lines = [f"{name}: cannot start: {e}", "the last scene keeps running"]
        else:
            self.tuner.load(got.scene)  # reset goes back to the file's values now
            for path, value in got.changes.items():
                self.controls.change(path, value)
            said = ", ".join(f"{p} = {v}" for p, v in list(got.changes.items())[:3])
            self.status.say(f"{name}: {said or 'nothing to change'} (live)")
        return got

    # -- the tuned scene ------------------------------------------------------------------------

    def _tuned_scene(self):
        return self.sim.tuned_scene()  # of the run now (a reload starts another)

    def save_tuned(self, path: str | Path | None = None) -> Path:
        """Write the scene as tuned (:meth:`Simulation.tuned_scene`: a TOML file ``check``
        accepts, the tuned settings from tick zero) to ``path`` (default: ``tuned_path``, else
        ``STEM-tuned.toml`` in ``screenshot_dir``); said on screen."""
        if path is None:
            stem = Path(str(self.sim.scene.source)).stem or "scene"
            path = self.tuned_path or self.screenshot_dir / f"{stem}-tuned.toml"
        path = save_scene(self.sim.tuned_scene(), path)
        n = len(self.sim.tuning.changes)
        self.status.say(f"wrote {path.name}: the scene with {n} setting(s) as tuned")
        return path

    # -- recording ----------------------------------------------------------------------------

    def start_recording(self, path: str | Path | None = None) -> Path:
        """Record a replay from now on (default: a timestamped file in ``screenshot_dir``)."""
        return self.recording.start(path, self.record_precision, self.screenshot_dir)

    def stop_recording(self) -> Path | None:
        """End the recording, if one runs; returns its file."""
        return self.recording.stop()

    # -- events -------------------------------------------------------------------------------

    def open_scene(self, path) -> bool:
        """Run the scene file ``path`` from tick 0 in this window (checked as ``view`` checks
        it; errors shown and the current scene kept). Watched, it is the file watched now."""
        try:
            scene = load_scene(path)
            check_runs(scene)
            self.restart(scene, why="opened")
        except SceneError as e:
            self.notice_lines = [*e.errors[:8], "the current scene keeps running"]
            return False
        self.notice_lines = []
        if getattr(self, "watcher", None) is not None:
            self.watch(path, (), None)
        return True

    def _scene_key(self, symbol: int) -> None:
        """A key while the scene list shows: its own (the rest do nothing meanwhile)."""
        lst = self.scenes
        if symbol in (key.ESCAPE, key.L):
            lst.close()
        elif symbol in (key.UP, key.DOWN):
            lst.move(-1 if symbol == key.UP else 1)
        elif symbol in (key.ENTER, key.RETURN):
            path = lst.pick()
            if path is not None:
                self.open_scene(path)
        elif 48 <= symbol <= 57 or 97 <= symbol <= 122:  # 0-9, a-z
            path = lst.pick(chr(symbol))
            if path is not None:
                self.open_scene(path)

    def on_key_press(self, symbol: int, modifiers: int):
        if self.scenes.shown:
            self._scene_key(symbol)
            return pyglet.event.EVENT_HANDLED
        was_driving, shown = self.controls.driving, self.tuner.shown
        action = self.controls.key_press(symbol, modifiers, self.sim.rules)
        if self.tuner.shown != shown:  # the world makes room for the panel, or takes it back
            self.on_resize(*self.window.get_size())
        if self.controls.driving and not was_driving:
            self.status.say("arrow keys drive the player now (the scene's control let go)")
        if action == "step":
            self.tick()
        elif action == "record":
            if self.recorder is not None:
                self.stop_recording()
            else:
                self.start_recording()
        elif action == "building":
            self.mouse.building_at()
        elif action == "scenes":
            self.scenes.open()
        elif action == "save-tuned":
            try:
                self.save_tuned()
            except OSError as e:
                self.status.say(f"could not write the tuned scene: {e}")
        else:
            self.perform(action)
        return pyglet.event.EVENT_HANDLED

    def close(self) -> None:
        if not self.closed:
            self.stop_recording()
        super().close()
