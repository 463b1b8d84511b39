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

The work beside the physics step (``world.neighbour_ticks`` and ``world.reaction_ticks`` at 1)
is :mod:`rigidflock.sim.physics_step`'s.
"""

from __future__ import annotations

import os
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
from rigidflock.sim.physics_step import PhysicsStep

__all__ = ["MODEL_VERSION", "Simulation"]

# The number of the simulation's behaviour, stored in every recording: bumped whenever a change
# alters any run's states (the same scene, seed and inputs then give others); ``verify``
# re-simulates only recordings of this number. docs/changelog.md lists what each one changed.
MODEL_VERSION = 22


class Simulation(Inspection, PhysicsStep):
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

    def step(self, command: Command | None = None) -> StepEvents:
        """Advance one tick. ``command`` drives the player and may switch rules or change
        settings (``changes``, taken at the start of the tick); a bad one raises
        :class:`~rigidflock.sim.commands.CommandError` before anything changes."""
        check_command(command)
        control = unit_control(command, self.units.n_ai)  # checked before anything changes
        tuned = self._propose(command)
        self._settle()
        st = self.state
        changed, given = self._take(command, tuned, st)
        if (changed and not self._beside) or self._afresh:  # beside: the next one reacts
            self._afresh = False
            self._analyse()
        throttle, fs = self._drive(st, command, control)
        before = self.world.contacts.copy()
        self._step_and_decide(st, throttle, fs)
        c = self.world.contacts - before
        events = StepEvents(self.tick, c.unit, c.obstacle, c.wall, c.player, given)
        events.unit_pairs = self.world.take_pairs()
        return events

    def _take(self, command: Command | None, tuned, st: State) -> tuple[bool, int]:
        """What changes at the start of the tick: the settings (``tuned``, validated), the rule
        switches, and the buildings and orders due (the scene's and ``command``'s). Returns
        whether anything the rules read changed, and how many orders were given."""
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
        return changed, given

    def _drive(self, st: State, command: Command | None, control) -> tuple[np.ndarray, np.ndarray]:
        """The tick's throttles and bow forces (N,) and (N, 2): the rules' decision, then, in
        this order, the move orders' control, the per-unit control's throttles under the rules,
        the unpin and give-way rules, the per-unit control's own throttles and steer, and the
        player's command. ``self.steering.force`` is never written (copied first)."""
        u = self.units
        throttle = self._ones if self.steering.throttle is None else self.steering.throttle
        spared = self._spare_none
        backing = self._backing_none
        fs = self.steering.force
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
        return throttle, fs
