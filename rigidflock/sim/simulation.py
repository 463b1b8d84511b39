"""The simulation: a scene, a seeded generator, a pymunk world and the steering rules.

``Simulation(scene, seed)`` builds the run; ``reset(seed)`` starts it again; ``step(command)``
advances one fixed tick of ``scene.world.dt`` seconds. Each tick every unit's bow force is computed
from one snapshot of the world (the :class:`Steering` computed when that snapshot was read), then
forces go to pymunk in one batch write and pymunk steps. The simulation knows nothing of any
renderer. The same scene, seed and commands give bit-identical states on the same machine.
``steering``'s arrays (and ``state.leader``, one of them) are reused: a decision stays whole
through the next step when that step decides once, and is written over by the decision after
(a step decides twice when it switches rules, gives orders or adds buildings with
``world.reaction_ticks = 0``). Keep ``steering.copy()`` of one you need later.

With ``world.neighbour_ticks = 1`` (the faster choice for large crowds; by default, "auto",
it follows ``world.reaction_ticks``) and no move order under way, the pair pass, which finds
each unit's neighbours and sums the flocking terms, runs beside the physics step on the
snapshot it starts from (in the background thread, one numba thread), and the decision after
the step reads those
sums with the new snapshot: headings, obstacles, walls, the chase and the blend are of the new
snapshot, the neighbour terms one tick older. ``pairs_state`` is the
snapshot they were found on. A step that switches rules, gives orders or adds buildings decides
afresh, neighbours included, on its own snapshot; so does the first decision, and every
decision while a group is under orders (the control's queues read the gap ahead: a tick-old gap
lost two-way doorway runs). ``world.neighbour_ticks = 0`` always finds them on the snapshot
decided on.

With ``world.reaction_ticks = 1`` the rules decide beside the physics step instead of before it:
tick ``t`` writes the forces of the decision made on snapshot ``t - 1`` (the vehicle's own terms,
thrust, drag and damping, still act on snapshot ``t``), then hands the decision on snapshot ``t``
to the background thread (:mod:`rigidflock.model.background`, one numba thread) while pymunk
steps on this one, and waits for it after the step. Units react one tick late; the tick costs
about the physics step plus the read and write instead of their sum with the rules. After a step
``steering`` (and ``state.leader``) is then the decision on the snapshot before ``state``
(``steering_state``, a copy kept for what reads the two together, such as the run metrics). The
first tick uses the decision on the first snapshot. In a process told to use one numba thread
(``NUMBA_NUM_THREADS=1``: sweeps, vector environments), and with ``world.substeps`` above 1
(the later substeps' force kernel would run in parallel beside the decision's, which numba's
workqueue threading layer does not allow), the decision runs in this thread after the step
instead, with the same results.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict

import numba as nb
import numpy as np

from rigidflock.bundled import resolve_scene
from rigidflock.model import background, vehicle
from rigidflock.model.behaviours import Behaviours, resolve
from rigidflock.model.player import PlayerControl
from rigidflock.model.spawning import build_units, spawn
from rigidflock.model.state import State
from rigidflock.model.steering.blend import Steerer
from rigidflock.model.steering.blend import World as SteeringWorld
from rigidflock.model.steering.give_way import give_way
from rigidflock.model.steering.unpin import back_out, unpin_throttle
from rigidflock.model.world import World
from rigidflock.rts.orders import Orders
from rigidflock.scene import BuildingSpec, OrderSpec, RulesSpec, Scene, load_scene, place_obstacles
from rigidflock.sim.behaviour_specs import with_behaviours
from rigidflock.sim.changes import ChangeError, Tuning
from rigidflock.sim.commands import (
    Command,
    CommandError,
    StepEvents,
    apply_toggles,
    check_command,
    unit_control,
)
from rigidflock.sim.inspection import Inspection
from rigidflock.sim.measurables import Measurables, ReadOnlyViews, measurables_of

__all__ = ["MODEL_VERSION", "Simulation"]

# The number of the simulation's behaviour, stored in every recording: bumped whenever a change
# alters any run's states (the same scene, seed and inputs then give others); ``verify``
# re-simulates only recordings of this number. docs/changelog.md lists what each one changed.
MODEL_VERSION = 22

# seconds a thread may hold the GIL while another waits, while the decision runs beside the step
# (Python's default: 0.005): pymunk's contact callbacks need the GIL, which the decision's Python
# holds between its kernels; at 10,000 units the default made the step ~1.5 ms slower beside it
BESIDE_SWITCH = 1e-4


class Simulation(Inspection):
    """A running scene. Attributes after :meth:`reset`: ``units`` (constants), ``state`` (the
    current snapshot), ``steering`` (the rules' output for it; with ``world.reaction_ticks = 1``
    for the snapshot before it, ``steering_state``; its arrays are reused, see the module's
    notes: ``steering.copy()`` to keep one), ``pairs_state`` (the snapshot its neighbour terms
    were found on), ``neighbour_ticks`` (the scene's, "auto" resolved for this run),
    ``obstacles`` (M, 3), ``rules`` (the current switches), ``tuning`` (the settings changed
    since :meth:`reset`: :class:`~rigidflock.sim.changes.Tuning`), ``tick``; and the properties of
    :class:`~rigidflock.sim.inspection.Inspection` (``steerer``, ``threaded``, ...).

    ``neighbour_skin`` and ``parallel`` are speed choices that change no result: the neighbour
    list's reuse margin (world units), and the steering's kernels, the parallel ones (True) or
    their one-thread twins, which compile several times faster (False; None, the default: by
    the world's size, parallel from ``rigidflock.model.steering.blend.PARALLEL_FROM`` AI
    units).

    ``behaviours``: users' steering behaviours added to the scene's ``[[behaviours]]``, each a
    :class:`~rigidflock.scene.BehaviourSpec`, a dict of its keys (``function``, ``weight``,
    ``families``, ``params``) or a function; a function is named by its module and name, so
    it must be defined at a module's top level (``self.scene`` then lists it: recordings name
    it). The behaviours' functions are imported here (a missing one: SceneError);
    ``behaviours_used`` lists them with their source hashes."""

    def __init__(
        self,
        scene: Scene | str | os.PathLike,
        seed: int | None = None,
        neighbour_skin: float | None = None,
        parallel: bool | None = None,
        behaviours=None,
    ):
        # a path (or a bundled scene's name) is read like `rigidflock run` reads it (SceneError
        # for a bad file)
        self.scene = scene if isinstance(scene, Scene) else load_scene(resolve_scene(scene))
        functions: dict = {}
        if behaviours:
            self.scene, functions = with_behaviours(self.scene, behaviours)
        # imported once: a user's module runs its code as a script would (SceneError if missing)
        self._resolved = resolve(self.scene, functions)
        self.seed = self.scene.seed if seed is None else int(seed)
        # Neighbour reuse margin (world units); results do not depend on it, only speed does.
        self.neighbour_skin = neighbour_skin
        # the steering's kernels: parallel or their one-thread twins (None: by the world's size,
        # blend.PARALLEL_FROM); a speed choice, the same bits either way
        self.parallel = parallel
        self._pending: background.Job | None = None  # a decision handed to the thread
        # the roles and wall feelers of the neighbour terms found beside the step (found there
        # only while no unit is ordered: both None)
        self._lag_keys = (None, None)
        self._afresh = False  # the decision beside the last step failed: decide anew
        self._views = ReadOnlyViews()  # what measurables() hands out, made once an array
        self.reset(self.seed)

    # -- building -----------------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> State:
        """Start the run again from the scene, with ``seed`` (default: the last one used)."""
        self._settle()
        self._afresh = False
        if seed is not None:
            self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)
        sc = self.scene
        self.rules: RulesSpec = sc.rules
        self.tuning = Tuning(sc)  # the settings changed since (Command.changes, toggles)
        self.size = np.asarray(sc.world.size, dtype=float)
        self.box = self.size if sc.world.bounds == "wrap" else None
        self.obstacles = place_obstacles(sc, self.rng)  # the scene generation: same draws
        self.units = build_units(sc)
        self.orders = Orders(sc, self.units, self.obstacles)
        self._due_orders: dict[int, list[OrderSpec]] = defaultdict(list)
        for o in sc.orders:
            self._due_orders[o.tick].append(o)
        self._due_buildings: dict[int, list[BuildingSpec]] = defaultdict(list)
        for e in sc.events:
            self._due_buildings[e.tick].append(e.add_building)
        self.world = self._spawn_world()
        self._behaviours = None
        if self._resolved:
            self._behaviours = Behaviours(
                self._resolved, self.units, self.size, sc.world.bounds, sc.world.dt
            )
            self._behaviours.reset(self.seed)
        n = self.units.n
        skin = self.neighbour_skin
        if skin is None:
            skin = float(self.units.length.max()) if n else 0.0
        # Seconds spent per phase of the tick since reset: read, neighbours, rules, forces,
        # write, physics (the ``bench`` split).
        self.timings: dict[str, float] = defaultdict(float)
        # the decision beside the step runs on one numba thread: the step has the other core
        self._beside = sc.world.reaction_ticks == 1
        self._steerer = Steerer(
            self.units,
            SteeringWorld(self.obstacles, self.size, self.box, sc.world.bounds == "walls"),
            skin,
            self.timings,
            max_threads=1 if self._beside else None,
            keep=2,  # a decision held stays whole through a step that decides once
            parallel=self.parallel,
        )
        # neighbours found beside the step on the snapshot before (the rest decided on this one)
        late = sc.world.neighbour_ticks
        if late is None:  # "auto": as the rules react, whatever the world's size
            late = sc.world.reaction_ticks
        self.neighbour_ticks = late  # "auto" resolved
        self._lag = late == 1 and not self._beside
        # the background thread only when this process may use two: same results either way
        self._may_thread = (
            (self._beside or self._lag)
            and nb.config.NUMBA_NUM_THREADS > 1
            and sc.world.substeps == 1
        )
        self._threaded = self._may_thread  # the public ``threaded`` may turn it off
        self.state = State(0, np.zeros((n, 2)), np.zeros((n, 2)), np.zeros(n), np.zeros(n))
        # the snapshot decided on (or whose neighbours were found) beside the step (the step goes
        # on reading into self.state)
        self._snapshot = self.state.copy() if self._beside or self._lag else None
        self.world.read(self.state)
        self.tick = 0
        self._pressed = np.zeros(n)  # seconds each unit has been pressed still on static geometry
        self._unpin_until = np.full(n, -1, dtype=np.int64)  # a pressed unit backs out until this
        self._cruise = np.ascontiguousarray(self.units.cruise_speed)
        u = self.units
        self._hull = vehicle.Hull(u.length, u.thrust, u.max_steer, u.drag_k, u.angular_damping)
        self._ones = np.ones(n)  # the throttle of units under no order (read only)
        self._throttle = np.empty(n)  # this tick's throttles
        self._spare_none = np.zeros(n, dtype=bool)  # no unit spared the unpin rule
        self._backing = np.zeros(n, dtype=bool)  # this tick's units backing out or off
        self._backing_none = np.zeros(n, dtype=bool)  # no unit backing off an order (read only)
        self._player = PlayerControl(sc.player) if sc.player is not None else None
        self.player_command = (0.0, 0.0)
        self._analyse()
        return self.state

    def _spawn_world(self) -> World:
        """The units spawned (from the run's generator, clear of walls and buildings) at their
        cruise speeds, and the pymunk world that holds them and the static geometry."""
        sc = self.scene
        free = self.orders.grid.is_roomy if sc.walls or sc.buildings else None
        pos, angle = spawn(sc, self.units, self.obstacles, self.rng, free)
        speed = self.units.cruise_speed
        vel = speed[:, None] * np.stack([np.cos(angle), np.sin(angle)], axis=1)
        return World(
            self.units,
            pos,
            angle,
            vel,
            self.obstacles,
            sc.world.size,
            sc.world.bounds,
            sc.physics,
            walls=[(w.start, w.end, w.thickness) for w in sc.walls],
            buildings=[b.polygon for b in sc.buildings],
        )

    def measurables(self) -> Measurables:
        """What the measures read now (positions, headings, neighbour distances, contacts with
        static geometry, the orders' progress): read-only views of this tick's arrays, no copies,
        valid until the next step (:class:`~rigidflock.sim.measurables.Measurables`)."""
        return measurables_of(self, self._cruise, self._views)

    def _keys(self) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """Who flocks with whom, the roles and the wall feelers' reach this tick, (N,) each
        (None: the units' own; :meth:`~rigidflock.rts.orders.Orders.steering_keys`)."""
        return self.orders.steering_keys()

    @property
    def behaviours_used(self) -> list[dict]:
        """The run's behaviours as recordings store them: ``function`` (the scene's name) and
        ``source_hash`` (:func:`~rigidflock.model.behaviours.source_hash`) of each."""
        return [{"function": r.name, "source_hash": r.source_hash} for r in self._resolved]

    def _decide(self, st: State, rules, flock_key=None, role=None, wall_feeler=None):
        """The behaviours' forces and throttles on ``st``, then the rules' decision with them
        (``Steering.throttle``: the behaviours' throttle caps)."""
        if flock_key is not False:  # False: the neighbour terms were found already
            self._steerer.pairs(st, rules, flock_key)
        t0 = time.perf_counter()
        force, throttle = self._behaviours(st, rules.steering_force, self._steerer.trig)
        self.timings["behaviours"] += time.perf_counter() - t0
        out = self._steerer.decide(st, rules, role, wall_feeler, force)
        out.throttle = throttle
        return out

    def _decision(self, st: State) -> background.Job:
        """The rules' decision for snapshot ``st``, to run (``job.run()``, or in the
        background)."""
        if self._behaviours is not None:
            return background.Job(self._decide, st, self.rules, *self._keys())
        return background.Job(self._steerer, st, self.rules, *self._keys())

    def _neighbours(self, st: State, key: np.ndarray | None) -> State:
        """Find the neighbour terms on a copy of ``st`` (the snapshot kept for them) beside the
        step (one numba thread: the step has the other core). Returns the copy."""
        snap = st.copy(self._snapshot)
        self._steerer.pairs(snap, self.rules, key, threads=1 if self._threaded else None)
        return snap

    def _wait(self, job: background.Job):
        """What ``job`` returned, once done (run here if no thread ran it: never handed to
        one, or its thread is gone, as in a forked child; what it raised, raised here)."""
        if not job.wait():
            self._run_here(job)
        self._pending = None
        if job.error is not None:
            raise job.error
        return job.result

    def _settle(self) -> None:
        """Wait for a decision left running by a step that raised (an error in pymunk's step,
        or Ctrl-C while waiting for it): the next decision must not share the steerer's
        buffers with it. What it decided is dropped."""
        job, self._pending = self._pending, None
        if job is not None:
            job.wait()

    def _run_here(self, job: background.Job) -> None:
        """Run ``job`` in this thread, keeping this thread's numba thread count (a decision
        beside the step sets it to 1 for its own passes)."""
        threads = nb.get_num_threads()
        job.run()
        if nb.get_num_threads() != threads:
            nb.set_num_threads(threads)

    def _adopt(self, job: background.Job) -> None:
        """Take the decision ``job`` made (see :meth:`_wait`)."""
        self.steering = self._wait(job)
        self.steering_state = self.pairs_state = job.args[0]
        self.state.leader = self.steering.leader

    def _analyse(self) -> None:
        """The rules' decision for the current snapshot, made now."""
        self._adopt(self._decision(self.state))

    def _unpin(self, throttle: np.ndarray, spared: np.ndarray) -> np.ndarray:
        """The unpin rule (:mod:`~rigidflock.model.steering.unpin`): an AI unit pressed still
        against an obstacle, wall or building (pymunk's contact state) backs out for a while.
        Units ``spared`` (N,) bool (ordered units lying side-on against a wall) keep
        ``throttle``. Returns the tick's throttles (N,) (a reused array; compiled, one pass)."""
        dt = self.scene.world.dt
        return unpin_throttle(
            self.state.vel, self.world.touching, self._cruise, self._pressed, self._unpin_until,
            self.tick, dt, back_out(dt), self.units.has_player, throttle, self._throttle,
            spared,
        )  # fmt: skip

    def _give_way(self, st: State, throttle: np.ndarray, backing: np.ndarray) -> None:
        """AI units close behind one backing out (pressed, :meth:`_unpin`) or backing off
        (``backing`` (N,) bool: stuck on an order) do not thrust forward: ``throttle`` (N,)
        capped at 0 in place (:mod:`~rigidflock.model.steering.give_way`)."""
        n = self.units.n_ai
        back = self._backing
        np.logical_or(self._unpin_until > self.tick, backing, out=back)
        w, h = self.size
        give_way(
            st.pos[:n], st.angle[:n], self.units.length[:n], back[:n], float(w), float(h),
            self.box is not None, throttle[:n],
        )  # fmt: skip

    def tuned_scene(self) -> Scene:
        """The scene as tuned by the commands so far (changes and rule switches since the last
        :meth:`reset`): a valid scene whose ``text`` runs those settings from tick zero."""
        return self.tuning.scene()

    def _propose(self, command: Command | None):
        """(changes, scene) after ``command``'s changes, validated; None without any."""
        if command is None or not command.changes:
            return None
        try:
            return self.tuning.propose(command.changes)
        except ChangeError as e:
            raise CommandError(f"Command.changes: {e}") from None

    def _retune(self, changes: dict, scene: Scene) -> None:
        """Take the changes: the rules, and, when a group's, the player's or the physics' keys
        changed, the per-unit thrust, steering force, drag and turn damping in place (everything
        that reads them reads the same arrays)."""
        was = self.tuning.scene()
        self.tuning.take(changes, scene)
        self.rules = scene.rules
        self.orders.scene = scene  # orders read the rules' steering force from it
        if (was.groups, was.player, was.physics) != (scene.groups, scene.player, scene.physics):
            new, u = build_units(scene), self.units
            for name in ("thrust", "max_steer", "drag_k", "angular_damping"):
                np.copyto(getattr(u, name), getattr(new, name))
            np.copyto(self._cruise, u.cruise_speed)

    # -- stepping -----------------------------------------------------------------------------

    def _physics(self, st: State, throttle: np.ndarray, fs: np.ndarray) -> background.Job | None:
        """The tick's substeps: vehicle forces on ``st`` with the bow forces ``fs`` (N,) and
        ``throttle`` (N,), one batch write, pymunk's step. Returns the decision on ``st`` when it
        is made beside the step, or the neighbour terms on ``st`` when they are found beside it
        (handed to the background thread if threaded, else to run)."""
        substeps = self.scene.world.substeps
        dt = self.scene.world.dt / substeps
        tm, clock = self.timings, time.perf_counter
        decision = None
        for k in range(substeps):
            inline = 0.0  # a pair pass run here before the step (timed as the wait)
            t0 = clock()
            if k:
                self.world.read(st)
            t1 = clock()
            buf, rows = self.world.force_buffer()
            vehicle.vehicle_forces_rows(
                st.angle, st.vel, st.omega, throttle, fs, self._hull, self._steerer.trig, rows, buf
            )
            t2 = clock()
            self.world.write_forces()
            if k == 0 and self._beside:
                decision = self._decision(st.copy(self._snapshot))
                if self._threaded:
                    self._pending = background.submit(decision)
            elif k == 0 and self._lag and not self.orders.groups:
                key, *self._lag_keys = self._keys()
                decision = background.Job(self._neighbours, st, key)
                if self._threaded:
                    self._pending = background.submit(decision)
                elif substeps > 1:  # now, before the later substeps read into st
                    t = clock()
                    self._run_here(decision)
                    inline = clock() - t
                    tm["wait"] += inline
                # else after the step, in this thread, when it is waited for
            elif k == 0:
                self._steerer.build_ahead()  # beside the physics step, on the idle core
            t3 = clock()
            self.world.step(dt)
            t4 = clock()
            tm["read"] += t1 - t0
            tm["forces"] += t2 - t1
            tm["write"] += t3 - t2 - inline
            tm["physics"] += t4 - t3
        return decision

    def _advance(self, st: State) -> None:
        """The tick after pymunk's step: ``st`` read from it."""
        self.tick += 1
        st.tick = self.tick
        t0 = time.perf_counter()
        self.world.read(st)
        self.world.wrap(st)
        self.timings["read"] += time.perf_counter() - t0

    def step(self, command: Command | None = None) -> StepEvents:
        """Advance one tick. ``command`` drives the player and may switch rules or change
        settings (``changes``, taken at the start of the tick); a bad one raises
        :class:`~rigidflock.sim.commands.CommandError` before anything changes."""
        check_command(command)
        control = unit_control(command, self.units.n_ai)  # checked before anything changes
        tuned = self._propose(command)
        self._settle()
        u, st = self.units, self.state
        changed = tuned is not None
        if changed:
            self._retune(*tuned)
        if command is not None and command.toggles:
            self.rules = apply_toggles(self.rules, command.toggles)
            self.tuning.switches(command.toggles)
            changed = True
        buildings = self._due_buildings.pop(self.tick, [])
        orders = self._due_orders.pop(self.tick, [])
        if command is not None:
            buildings = [*buildings, *command.add_buildings]
            orders = [*orders, *command.orders]
        for b in buildings:
            self.world.add_building(b.polygon)
            self.orders.add_building(b, st, self.tick)
            changed = True
        given = 0
        for o in orders:
            given += self.orders.give(o, st, self.tick) is not None
            changed = True
        if (changed and not self._beside) or self._afresh:  # beside: the next one reacts
            self._afresh = False
            self._analyse()
        throttle = self._ones if self.steering.throttle is None else self.steering.throttle
        spared = self._spare_none
        backing = self._backing_none
        fs = self.steering.force  # copied before any write
        if self.orders.groups:
            ctl = self.orders.control(st, self.steering.gap, self.tick, self.scene.world.dt)
            fs = np.where(ctl.ordered, fs * ctl.flock_scale + ctl.force, fs)
            throttle = np.where(ctl.ordered, ctl.throttle, throttle)
            spared = ctl.side_on
            backing = ctl.backing
        if control is not None and control[3].any():  # rules on: their throttle under the rules
            throttle = throttle.copy()
            throttle[control[0][control[3]]] = control[1][control[3]]
        throttle = self._unpin(throttle, spared)
        self._give_way(st, throttle, backing)
        if control is not None:
            fs = fs.copy() if fs is self.steering.force else fs
            idx, t, s, on = control
            throttle[idx[~on]] = t[~on]
            fs[idx] = np.where(on, fs[idx], 0.0) + s * u.max_steer[idx]
        if u.has_player:
            cmd = command or Command()
            t, s = self._player(self.tick, st.pos[-1], st.angle[-1], cmd.throttle, cmd.steer)
            self.player_command = (t, s)
            throttle[-1] = t
            if fs is self.steering.force:
                fs = fs.copy()
            fs[-1] = s * u.max_steer[-1]
        before = self.world.contacts.copy()
        with background.switching(BESIDE_SWITCH if self._threaded else None):
            decision = self._physics(st, throttle, fs)
            if decision is not None:
                t0 = time.perf_counter()
                try:
                    if self._lag:
                        self.pairs_state = self._wait(decision)
                    else:
                        self._adopt(decision)
                except BaseException:
                    # pymunk has stepped: the state follows it, and the next step decides
                    # afresh (the decision beside the step is lost)
                    self._advance(st)
                    self._afresh = True
                    raise
                self.timings["wait"] += time.perf_counter() - t0
        self._advance(st)
        if decision is None:
            self._analyse()
        elif self._lag:  # on this snapshot, with the neighbour terms of the one before
            if self._behaviours is not None:
                self.steering = self._decide(st, self.rules, False, *self._lag_keys)
            else:
                self.steering = self._steerer.decide(st, self.rules, *self._lag_keys)
            self.steering_state = st
            st.leader = self.steering.leader
        c = self.world.contacts - before
        events = StepEvents(self.tick, c.unit, c.obstacle, c.wall, c.player, given)
        events.unit_pairs = self.world.take_pairs()
        return events
