"""The simulation: a scene, a seeded generator, a pymunk world and the steering rules.

``Simulation(scene, seed)`` builds the run; ``reset(seed)`` starts it again; ``step(command)``
advances one fixed tick of ``scene.world.dt`` seconds. Each tick every unit's bow force is computed
from one snapshot of the world (the :class:`Steering` computed when that snapshot was read), then
forces go to pymunk in one batch write and pymunk steps. The simulation knows nothing of any
renderer. The same scene, seed and commands give bit-identical states on the same machine.
"""

from __future__ import annotations

import time
from collections import defaultdict

import numpy as np
from scipy.spatial import cKDTree

from rigidflock.model import vehicle
from rigidflock.model.state import (
    PLAYER_FAMILY,
    ROLE_CHASE,
    ROLE_INTERCEPT,
    ROLE_NONE,
    ROLE_PLAYER,
    State,
    Units,
)
from rigidflock.model.steering import flocking, pursuit
from rigidflock.model.steering.blend import Steerer
from rigidflock.model.steering.blend import World as SteeringWorld
from rigidflock.model.world import World
from rigidflock.rts.orders import Orders
from rigidflock.scene import BuildingSpec, OrderSpec, RulesSpec, Scene, place_obstacles
from rigidflock.sim.commands import Command, StepEvents, apply_toggles

__all__ = ["Simulation"]

_ROLE_CODES = {"none": ROLE_NONE, "chase": ROLE_CHASE, "intercept": ROLE_INTERCEPT}
WAYPOINT_REACH = 5.0  # autopilot: a waypoint counts as reached within this many player lengths


def _disc_points(rng, center, radius, count) -> np.ndarray:
    r = radius * np.sqrt(rng.random(count))
    t = rng.random(count) * 2 * np.pi
    return np.stack([center[0] + r * np.cos(t), center[1] + r * np.sin(t)], axis=1)


class Simulation:
    """A running scene. Attributes after :meth:`reset`: ``units`` (constants), ``state`` (the
    current snapshot), ``steering`` (the rules' output for it), ``obstacles`` (M, 3), ``rules``
    (the current switches), ``tick``."""

    def __init__(self, scene: Scene, seed: int | None = None, neighbour_skin: float | None = None):
        self.scene = scene
        self.seed = scene.seed if seed is None else int(seed)
        # Neighbour reuse margin (world units); results do not depend on it, only speed does.
        self.neighbour_skin = neighbour_skin
        self.reset(self.seed)

    # -- building -----------------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> State:
        """Start the run again from the scene, with ``seed`` (default: the last one used)."""
        if seed is not None:
            self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)
        sc = self.scene
        self.rules: RulesSpec = sc.rules
        self.size = np.asarray(sc.world.size, dtype=float)
        self.box = self.size if sc.world.bounds == "wrap" else None
        self.obstacles = self._place_obstacles()
        self.units = self._build_units()
        self.orders = Orders(sc, self.units, self.obstacles)
        self._due_orders: dict[int, list[OrderSpec]] = defaultdict(list)
        for o in sc.orders:
            self._due_orders[o.tick].append(o)
        self._due_buildings: dict[int, list[BuildingSpec]] = defaultdict(list)
        for e in sc.events:
            self._due_buildings[e.tick].append(e.add_building)
        pos, angle = self._spawn()
        speed = self.units.cruise_speed
        vel = speed[:, None] * np.stack([np.cos(angle), np.sin(angle)], axis=1)
        self.world = World(
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
        n = self.units.n
        skin = self.neighbour_skin
        if skin is None:
            skin = float(self.units.length.max()) if n else 0.0
        # Seconds spent per phase of the tick since reset: read, neighbours, rules, forces,
        # write, physics (the ``bench`` split).
        self.timings: dict[str, float] = defaultdict(float)
        self._steerer = Steerer(
            self.units,
            SteeringWorld(self.obstacles, self.size, self.box, sc.world.bounds == "walls"),
            skin,
            self.timings,
        )
        self.state = State(0, np.zeros((n, 2)), np.zeros((n, 2)), np.zeros(n), np.zeros(n))
        self._force, self._torque = np.zeros((n, 2)), np.zeros(n)
        self.world.read(self.state)
        self.tick = 0
        self._waypoint = 0
        self._script_pos = 0
        self.player_command = (0.0, 0.0)
        self._analyse()
        return self.state

    def _analyse(self) -> None:
        """The rules' decision for the current snapshot. Ordered units flock with their group
        only and lead nobody."""
        key = role = None
        group = self.orders.group_of
        if (group >= 0).any():
            u = self.units
            key = np.where(group >= 0, len(u.family_names) + group, u.family)
            role = np.where(group >= 0, ROLE_NONE, u.role)
        self.steering = self._steerer(self.state, self.rules, key, role)
        self.state.leader = self.steering.leader

    def _build_units(self) -> Units:
        sc = self.scene
        ph = sc.physics
        families: list[str] = []
        cols: dict[str, list] = {k: [] for k in ("L", "W", "m", "T", "S", "fam", "role")}
        for g in sc.groups:
            if g.family not in families:
                families.append(g.family)
            c = g.count
            cols["L"] += [g.length] * c
            cols["W"] += [g.width] * c
            cols["m"] += [g.mass] * c
            cols["T"] += [g.thrust] * c
            cols["S"] += [g.max_steering_force] * c
            cols["fam"] += [families.index(g.family)] * c
            cols["role"] += [_ROLE_CODES[g.role]] * c
        p = sc.player
        if p is not None:
            families.append(PLAYER_FAMILY)
            for k, v in zip(
                ("L", "W", "m", "T", "S", "fam", "role"),
                (
                    p.length,
                    p.width,
                    p.mass,
                    p.thrust,
                    p.max_steering_force,
                    len(families) - 1,
                    ROLE_PLAYER,
                ),
                strict=True,
            ):
                cols[k].append(v)
        L, W, m, T = (np.asarray(cols[k], dtype=float) for k in ("L", "W", "m", "T"))
        drag_k = vehicle.drag_constant(L, W, ph.drag_coefficient, ph.air_density)
        if ph.angular_damping is None:
            kw = vehicle.auto_angular_damping(m, T, drag_k, L)
        else:
            kw = np.full(len(L), float(ph.angular_damping))
        return Units(
            length=L,
            width=W,
            mass=m,
            moment=m * (L * L + W * W) / 12.0,  # pymunk's box moment
            thrust=T,
            max_steer=np.asarray(cols["S"], dtype=float),
            drag_k=drag_k,
            angular_damping=kw,
            family=np.asarray(cols["fam"], dtype=np.intp),
            role=np.asarray(cols["role"], dtype=np.intp),
            family_names=tuple(families),
            has_player=p is not None,
        )

    def _spawn_discs(self) -> list[tuple[np.ndarray, float]]:
        discs = []
        for g in self.scene.groups:
            if g.spawn.positions is None:
                c = self.size / 2 if g.spawn.center is None else np.asarray(g.spawn.center)
                discs.append((c, g.spawn.radius))
        return discs

    def _place_obstacles(self) -> np.ndarray:
        """Scene obstacles plus the seeded obstacle field, (M, 3) (see
        :func:`rigidflock.scene.generation.place_obstacles`). Raises SceneError when the field does
        not fit."""
        return place_obstacles(self.scene, self.rng)

    def _spawn(self) -> tuple[np.ndarray, np.ndarray]:
        """Initial positions and angles. Disc spawns are uniform; points inside an obstacle or
        closer than one unit length to an earlier unit are drawn again (up to 50 rounds)."""
        sc, u = self.scene, self.units
        pos = np.zeros((u.n, 2))
        angle = np.zeros(u.n)
        disc_rows = []
        k = 0
        for g in sc.groups:
            rows = np.arange(k, k + g.count)
            if g.spawn.positions is not None:
                pos[rows] = np.asarray(g.spawn.positions, dtype=float)
            else:
                c = self.size / 2 if g.spawn.center is None else np.asarray(g.spawn.center)
                pos[rows] = _disc_points(self.rng, c, g.spawn.radius, g.count)
                disc_rows.append((rows, c, g.spawn.radius))
            if g.heading is None:
                angle[rows] = self.rng.random(g.count) * 2 * np.pi
            else:
                angle[rows] = g.heading
            k += g.count
        if sc.player is not None:
            pos[-1] = sc.player.position
            angle[-1] = sc.player.heading
        for _ in range(50):
            bad = self._bad_spawns(pos)
            redraw = [(rows[bad[rows]], c, r) for rows, c, r in disc_rows if bad[rows].any()]
            if not redraw:
                break
            for rows, c, r in redraw:
                pos[rows] = _disc_points(self.rng, c, r, len(rows))
        return pos, angle

    def _bad_spawns(self, pos: np.ndarray) -> np.ndarray:
        u = self.units
        bad = np.zeros(u.n, dtype=bool)
        obs = self.obstacles
        if len(obs):
            reach = float(obs[:, 2].max() + u.length.max())
            near = cKDTree(pos).sparse_distance_matrix(
                cKDTree(obs[:, :2]), reach, output_type="ndarray"
            )
            ui, oi = near["i"], near["j"]
            inside = near["v"] < obs[oi, 2] + u.length[ui]
            bad[ui[inside]] = True
        if self.scene.walls or self.scene.buildings:
            bad |= ~self.orders.grid.is_free(pos)
        pairs = cKDTree(pos).query_pairs(float(u.length.max()), output_type="ndarray")
        if len(pairs):
            bad[pairs.max(axis=1)] = True  # the later unit of a too-close pair moves
        if u.has_player:
            bad[-1] = False
        return bad

    # -- stepping -----------------------------------------------------------------------------

    def step(self, command: Command | None = None) -> StepEvents:
        """Advance one tick. ``command`` drives the player and may switch rules."""
        u, st = self.units, self.state
        changed = False
        if command is not None and command.toggles:
            self.rules = apply_toggles(self.rules, command.toggles)
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
        if changed:
            self._analyse()
        throttle = np.ones(u.n)
        fs = self.steering.force.copy()
        if self.orders.groups:
            ctl = self.orders.control(st, self.steering.gap, self.tick, self.scene.world.dt)
            fs = np.where(ctl.ordered, fs * ctl.flock_scale + ctl.force, fs)
            throttle = np.where(ctl.ordered, ctl.throttle, throttle)
        if u.has_player:
            t, s = self._player_input(command)
            self.player_command = (t, s)
            throttle[-1] = t
            fs[-1] = s * u.max_steer[-1]
        before = self.world.contacts.copy()
        dt = self.scene.world.dt / self.scene.world.substeps
        tm, clock = self.timings, time.perf_counter
        for k in range(self.scene.world.substeps):
            t0 = clock()
            if k:
                self.world.read(st)
            t1 = clock()
            vehicle.vehicle_forces_into(
                st.angle, st.vel, st.omega, throttle, fs, u.length, u.thrust, u.max_steer,
                u.drag_k, u.angular_damping, self._force, self._torque,
            )  # fmt: skip
            t2 = clock()
            self.world.apply(self._force, self._torque)
            t3 = clock()
            self.world.step(dt)
            t4 = clock()
            tm["read"] += t1 - t0
            tm["forces"] += t2 - t1
            tm["write"] += t3 - t2
            tm["physics"] += t4 - t3
        self.tick += 1
        st.tick = self.tick
        t0 = clock()
        self.world.read(st)
        self.world.wrap(st)
        tm["read"] += clock() - t0
        self._analyse()
        c = self.world.contacts - before
        return StepEvents(self.tick, c.unit, c.obstacle, c.wall, c.player, given)

    def _player_input(self, command: Command | None) -> tuple[float, float]:
        """The player's (throttle, steer) this tick: the command's, else the scene's control."""
        p = self.scene.player
        auto = (0.0, 0.0)
        if p.control == "script" and p.script:
            while (
                self._script_pos + 1 < len(p.script)
                and p.script[self._script_pos + 1].tick <= self.tick
            ):
                self._script_pos += 1
            e = p.script[self._script_pos]
            auto = (e.throttle, e.steer) if e.tick <= self.tick else (0.0, 0.0)
        elif p.control in ("waypoints", "keyboard") and p.waypoints:
            auto = self._autopilot(p)
        t = auto[0] if command is None or command.throttle is None else command.throttle
        s = auto[1] if command is None or command.steer is None else command.steer
        return float(np.clip(t, -1, 1)), float(np.clip(s, -1, 1))

    def _autopilot(self, p) -> tuple[float, float]:
        """Full throttle, proportional bow steering toward the next waypoint (no wrap shortcut)."""
        pos, ang = self.state.pos[-1], self.state.angle[-1]
        target = np.asarray(p.waypoints[self._waypoint], dtype=float)
        if np.hypot(*(target - pos)) < WAYPOINT_REACH * p.length:
            self._waypoint = (self._waypoint + 1) % len(p.waypoints)
            target = np.asarray(p.waypoints[self._waypoint], dtype=float)
        fwd, left = flocking.forward_left(np.array([ang]))
        steer = pursuit.seek_steer((target - pos)[None, :], fwd, left)
        return 1.0, float(steer[0])
