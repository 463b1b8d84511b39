"""Many runs of one scene stepped together: :class:`SimulationBatch`.

``SimulationBatch(scene, n_worlds)`` holds ``n_worlds`` independent worlds of the scene, each
with its own seed, generator and pymunk space, their units in the same arrays (world w's are
rows ``w n .. (w + 1) n - 1``, ``n`` units a world, the player last), so each tick makes one call
of each compiled pass for every world (:mod:`rigidflock.model.steering.batch`) and only the
pymunk calls (one batch write, ``Space.step``, one batch read) world by world. Each world starts
(:meth:`SimulationBatch.reset`) as ``Simulation(scene).reset(seed)`` starts it, by that very
code (the :class:`~rigidflock.sim.Simulation` in ``sims[w]`` builds it, and its first decision is
taken over), and steps as ``Simulation.step(Command(throttle, steer))`` steps it: the same seeds
and player commands give each world, bit for bit, the states of the one-world run.

What a tick of the one-world simulation does beyond that is not here: the batch takes scenes
without orders or timed events (no order control, no buildings added), with
``world.reaction_ticks = 0`` and neighbours found on the snapshot decided on
(``world.neighbour_ticks`` 0, or "auto" below ``LATE_NEIGHBOURS_FROM`` AI units), and drives the
player by command only (the environments' case); it refuses others with a ValueError naming the
key. ``sims[w]`` holds world w's constants and pymunk world, not its state after the reset (the
batch's arrays do).
"""

from __future__ import annotations

import numpy as np

from rigidflock.model import torus, vehicle
from rigidflock.model.state import State
from rigidflock.model.steering.batch import (
    BatchSteerer,
    GiveWayRows,
    ThrottleRows,
    UnpinRows,
    throttles_worlds,
)
from rigidflock.model.steering.pair_pass import Box
from rigidflock.model.steering.unpin import back_out
from rigidflock.model.world import scatter_unit_rows
from rigidflock.scene import Scene
from rigidflock.sim.simulation import Simulation

__all__ = ["SimulationBatch"]


def _refuse(scene: Scene) -> None:
    """ValueError naming the first scene feature the batch does not step."""
    where = scene.source
    if scene.orders:
        raise ValueError(f"{where}: orders: a batch of worlds takes scenes without move orders")
    if scene.events:
        raise ValueError(f"{where}: events: a batch of worlds takes scenes without timed events")
    if scene.world.reaction_ticks != 0:
        raise ValueError(f"{where}: world.reaction_ticks: a batch of worlds needs 0")
    if scene.world.neighbour_ticks == 1:
        raise ValueError(f"{where}: world.neighbour_ticks: a batch of worlds needs 0 or auto")
    if scene.behaviours:
        raise ValueError(f"{where}: behaviours: a batch of worlds takes scenes without them")


class SimulationBatch:
    """``n_worlds`` runs of ``scene`` in the same arrays (see the module's notes).

    Attributes: ``n_worlds``, ``n`` (units a world), ``units`` (one world's constants), ``sims``
    (each world's :class:`~rigidflock.sim.Simulation`, which built it), ``ticks`` (W,) each
    world's tick, ``pos`` (W n, 2), ``vel`` (W n, 2), ``angle`` (W n,), ``omega`` (W n,),
    ``leader`` (W n,) bool: every world's current state; :meth:`world_state` views one world's.
    """

    def __init__(self, scene: Scene, n_worlds: int):
        if n_worlds < 1:
            raise ValueError(f"n_worlds must be >= 1, got {n_worlds}")
        _refuse(scene)
        self.scene, self.n_worlds = scene, int(n_worlds)
        self.sims = [Simulation(scene) for _ in range(self.n_worlds)]
        first = self.sims[0]
        if first.neighbour_ticks != 0:
            raise ValueError(
                f"{scene.source}: world.neighbour_ticks: 'auto' finds neighbours a tick late "
                f"with this many AI units ({first.units.n_ai}); a batch of worlds needs 0"
            )
        u = self.units = first.units
        W, n = self.n_worlds, u.n
        self.n = n
        total = W * n
        self.pos, self.vel = np.zeros((total, 2)), np.zeros((total, 2))
        self.angle, self.omega = np.zeros(total), np.zeros(total)
        self.leader = np.zeros(total, dtype=bool)
        self.ticks = np.zeros(W, np.int64)
        self._states = [self.world_state(w) for w in range(W)]

        def tile(a, dtype=np.float64):
            return np.ascontiguousarray(np.tile(np.asarray(a, dtype), W))

        self._length, self._thrust = tile(u.length), tile(u.thrust)
        self._max_steer, self._drag = tile(u.max_steer), tile(u.drag_k)
        self._damping, self._cruise = tile(u.angular_damping), tile(u.cruise_speed)
        self._hull = vehicle.Hull(self._length, self._thrust, self._max_steer, self._drag,
                                  self._damping)  # fmt: skip
        self._touching = np.zeros(total, np.int64)
        self._pressed = np.zeros(total)
        self._until = np.full(total, -1, np.int64)
        self._ones = np.ones(total)
        self._throttle = np.empty(total)
        self._none = np.zeros(total, dtype=bool)  # no unit spared or backing off an order
        self._back = np.zeros(total, dtype=bool)
        self._fs = np.empty(total)
        # every world's batch write, world w's rows w S .. (w + 1) S - 1 in pymunk's batch
        # order, S its rows (the units, then the static body); the vehicle kernel fills the
        # units' rows, the others stay 0 as in one world's buffer
        self._stride = len(first.world.force_buffer()[0])
        self._forces = np.zeros((W * self._stride, 3))
        self._rows = ((np.arange(W) * self._stride)[:, None] + np.arange(n)[None, :]).reshape(-1)
        self._unit_rows = [np.arange(w * n, (w + 1) * n, dtype=np.int64) for w in range(W)]
        S = self._stride
        self._views = [self._forces[w * S : (w + 1) * S] for w in range(W)]  # batch writes
        self._worlds = [sim.world for sim in self.sims]  # each world's pymunk side, now
        self._plain_rows: list[np.ndarray | None] = [None] * W  # row_index last checked
        self._plain_ok = [False] * W  # whether that batch order is the unit order
        self._read_key: list | None = None  # the worlds of the last combined read
        self._read_units = self._read_rows = np.zeros(0, np.int64)
        self._counts = np.zeros((W, 4), np.int64)  # contact begins, per world (the callbacks')
        self._totals = np.zeros((W, 4), np.int64)  # the counts as of the last step
        self._player_rows = np.arange(W) * n + (n - 1) if u.has_player else None
        world = scene.world
        self.dt = float(world.dt)
        self._w, self._h = float(world.size[0]), float(world.size[1])
        self._wrap = world.bounds == "wrap"
        self._back_out = back_out(self.dt)
        box = Box(self._w, self._h, self._wrap)
        self.steerer = BatchSteerer(u, first.rules, W, box, world.bounds == "walls")
        # the unpin and give-way rules' rows (throttles_worlds), the same arrays every tick
        self._rule_rows = (
            UnpinRows(self.vel, self._touching, self._cruise, self._pressed, self._until),
            GiveWayRows(self.pos, self.angle, self._length),
            box,
            ThrottleRows(self._ones, self._throttle, self._none, self._none, self._back),
        )
        for w in range(W):
            self._adopt(w)

    def world_state(self, w: int) -> State:
        """World w's current state: a :class:`~rigidflock.model.state.State` of views into the
        batch's arrays (valid as long as the batch), its ``tick`` as of now."""
        s = slice(w * self.n, (w + 1) * self.n)
        return State(int(self.ticks[w]), self.pos[s], self.vel[s], self.angle[s], self.omega[s],
                     self.leader[s])  # fmt: skip

    def obstacles(self, w: int) -> np.ndarray:
        """World w's obstacles (M, 3) (placed from its generator at its last reset)."""
        return self.sims[w].obstacles

    def reset(self, w: int, seed: int) -> None:
        """Start world w again with ``seed`` (as ``Simulation(scene).reset(seed)``)."""
        self.sims[w].reset(int(seed))
        self._adopt(w)

    def _adopt(self, w: int) -> None:
        """Take world w's freshly reset run from ``sims[w]``: its state, its first decision, its
        obstacle grid, its pymunk world's touching counts; its unpin state starts afresh."""
        sim = self.sims[w]
        s = slice(w * self.n, (w + 1) * self.n)
        st = sim.state
        self.pos[s], self.vel[s], self.angle[s], self.omega[s] = st.pos, st.vel, st.angle, st.omega
        self.leader[s] = sim.steering.leader
        steer = self.steerer
        steer.force[s] = sim.steering.force
        steer.leader[s] = sim.steering.leader
        steer.set_grid(w, sim.steerer.obstacle_grid(sim.rules))
        world = self._worlds[w] = sim.world
        world.keep_touching_in(self._touching[s])
        buf, index = world.force_buffer()  # the batch order of its last read
        self._plain_rows[w] = index
        self._plain_ok[w] = len(buf) == self._stride and np.array_equal(index, np.arange(self.n))
        self._pressed[s] = 0.0
        self._until[s] = -1
        self.ticks[w] = sim.tick
        world.keep_counts_in(self._counts[w])
        world.keep_pairs(False)  # a batch never takes them
        self._totals[w] = self._counts[w]
        if self._plain_ok[w]:
            world.bind_batch_forces(self._views[w])

    def _read(self, worlds: list[int], step_dt: float | None = None) -> None:
        """Read the ``worlds`` from pymunk into the batch's arrays: one batch read each, their
        rows scattered in one call when each world's batch order is its unit order (the usual
        case), else world by world. With ``step_dt``, each world first gets its forces (one
        batch write from the vehicle kernel's rows) and steps ``step_dt`` seconds: one pass
        over the worlds for the whole pymunk side of a tick."""
        n = self.n
        worlds_of, plain_ok = self._worlds, self._plain_ok
        plain = []
        for w in worlds:
            world = worlds_of[w]
            if step_dt is not None:
                if plain_ok[w]:
                    world.write_bound_forces()  # bound to views[w] when adopted
                else:  # another batch order: through the world's own buffer
                    buf, rows = world.force_buffer()
                    buf[rows] = self._forces[self._rows[w * n : (w + 1) * n]]
                    world.write_forces()
                world.step(step_dt)
            rows = world.read_rows()
            index = world.row_index
            if self._plain_rows[w] is not index:
                ok = len(rows) == self._stride and np.array_equal(index, np.arange(n))
                self._plain_rows[w], plain_ok[w] = index, ok
                if ok:
                    world.bind_batch_forces(self._views[w])
            if plain_ok[w]:
                plain.append(rows[:n])
            else:
                scatter_unit_rows(rows, index, self._unit_rows[w], self.pos, self.angle,
                                  self.vel, self.omega)  # fmt: skip
        if not plain:
            return
        if len(plain) != len(worlds):
            worlds = [w for w in worlds if plain_ok[w]]
        if self._read_key != worlds:
            self._read_key = list(worlds)
            self._read_units = np.concatenate([self._unit_rows[w] for w in worlds])
            self._read_rows = np.arange(len(self._read_units), dtype=np.int64)
        scatter_unit_rows(np.concatenate(plain), self._read_rows, self._read_units, self.pos,
                          self.angle, self.vel, self.omega)  # fmt: skip

    def step(self, throttle: np.ndarray, steer: np.ndarray, active: np.ndarray) -> np.ndarray:
        """Advance each world w with ``active[w]`` one tick, its player driven by
        ``throttle[w]`` and ``steer[w]`` (floats in [-1, 1], as ``Command``'s); the others stay
        as they are. Returns the tick's contact begins per world (W, 4) int64: unit, obstacle,
        wall, player (0 for worlds not stepped)."""
        u, n = self.units, self.n
        worlds = np.flatnonzero(active)
        sims = self.sims
        throttles_worlds(active, n, self.ticks, u.has_player, self.dt, self._back_out,
                         *self._rule_rows)  # fmt: skip
        fs = self._fs
        np.copyto(fs, self.steerer.force)
        if self._player_rows is not None:
            p = self._player_rows
            self._throttle[p] = throttle
            fs[p] = steer * self._max_steer[p]
        substeps = self.scene.world.substeps
        dt = self.dt / substeps
        wl = worlds.tolist()
        for _ in range(substeps):
            # forces on the state read last, then each world's write, step and read (one
            # world's tick: a substep after the first reads the state the one before left)
            vehicle.vehicle_forces_rows(
                self.angle, self.vel, self.omega, self._throttle, fs, self._hull,
                self.steerer.trig, self._rows, self._forces,
            )  # fmt: skip
            self._read(wl, step_dt=dt)
        self.ticks[worlds] += 1
        if self._wrap:
            out = torus.outside(self.pos, self._w, self._h)
            if len(out):
                for w in np.unique(out // n):
                    if active[w]:  # (a world not stepped has folded its positions already)
                        sims[w].world.wrap(self._states[w])
        events = self._counts - self._totals  # (W, 4): the worlds not stepped counted none
        np.copyto(self._totals, self._counts)
        steering = self.steerer
        steering.decide(self.pos, self.vel, self.angle, active)
        np.copyto(self.leader, steering.leader)
        return events
