"""Move orders: groups of units that follow one route and arrive in formation (*Steering
Behaviours: Flocking*, *Group Movement in RTS*).

An order selects AI units and gives a goal. The selected units leave any earlier group and form a
new one, which gets one route (a distance field from the goal, :mod:`.navigation`) and one
formation slot per unit around the goal, facing the direction of travel (:mod:`.slots`). Each
tick, for every ordered unit (arrays over the group, no loop over units; :mod:`.control`):

- target: the cell ``lookahead`` steps down the route, or its own slot once within
  ``arrive_radius`` unit lengths of it; the bow force seeks it (proportional to the bearing);
- speed: the group moves at its slowest member's cruise speed (throttle (v_group / v_cruise)^2),
  slows linearly inside ``arrive_radius`` and brakes to a stop on its slot (arrived);
- flocking: cohesion and alignment only within the group, separation with everyone, faded out
  near the slot so neighbours in formation do not push each other off their slots;
- progress: a unit whose distance to go has not shrunk for ``stuck_seconds`` makes its group
  re-route, with the cells under stopped units made costly (one search per re-route).

Adding a building rebuilds the walkable grid and re-routes every group (one search per group).
"""

from __future__ import annotations

import time

import numpy as np

from rigidflock.model.state import ROLE_NONE, State, Units
from rigidflock.rts import navigation
from rigidflock.rts.control import control_group, oncoming_ahead
from rigidflock.rts.doors import foresee_doors
from rigidflock.rts.groups import Group, OrderControl
from rigidflock.rts.progress import SLOW_STUCK
from rigidflock.rts.right_of_way import DOOR_REACH, door_taken, settle_standoffs
from rigidflock.rts.rules.crossing import crossing_yields
from rigidflock.rts.slots import deal_by_route, formation_slots, has_room
from rigidflock.rts.turn_speed import order_turn_rate, path_speed
from rigidflock.rts.wall_slide import Walls, slide_along_walls, wall_contact
from rigidflock.scene import BuildingSpec, OrderSpec, Scene

HALF_WIDTH_MARGIN = 1.25  # auto clearance: this many half-widths of the widest unit
STUCK_AFTER = 1.0  # seconds without progress along the route before a unit counts as stuck


class Orders:
    """The move orders of one run. ``group_of`` (N,) gives each unit's group id, -1 if none."""

    def __init__(self, scene: Scene, units: Units, obstacles: np.ndarray):
        self.scene, self.units = scene, units
        nav = scene.navigation
        # the least clearance a unit needs: half its width and a margin (every gap the widest
        # unit fits through is routable); routes prefer 0.6 L where there is room
        self.preferred = 0.6 * float(units.length.max()) if units.n else 0.0
        self.clearance = (
            nav.clearance
            if nav.clearance is not None
            else HALF_WIDTH_MARGIN * 0.5 * float(units.width.max())
            if units.n
            else 0.0
        )
        self.obstacles = obstacles
        self.buildings = [np.asarray(b.polygon, dtype=float) for b in scene.buildings]
        self.groups: dict[int, Group] = {}
        self.group_of = np.full(units.n, -1, dtype=np.intp)
        self.next_id = 0
        self.search_seconds = 0.0  # time spent in route searches (bench reports it)
        self.searches = 0
        self._grid: navigation.Grid | None = None
        # the grid before the buildings added since (its clearances are reused): (grid, polygons)
        self._base: tuple[navigation.Grid, list] | None = None
        self._walls: Walls | None = None

    @property
    def grid(self) -> navigation.Grid:
        if self._grid is None:
            sc = self.scene
            self._grid = navigation.build_grid(
                sc.world.size,
                sc.navigation.cell,
                self.clearance,
                walls=[(w.start, w.end, w.thickness) for w in sc.walls],
                buildings=self.buildings,
                obstacles=self.obstacles,
                walled=sc.world.bounds == "walls",
                preferred=self.preferred,
                base=None if self._base is None else self._base[0],
                added=() if self._base is None else self._base[1],
            )
            self._base = None
            # the route search's step table with the grid: the scene's first grid is built
            # at setup, so an order's tick does not make it
            navigation.search_steps(self._grid)
        return self._grid

    @property
    def walls(self) -> Walls:
        """The scene's walls and buildings as segments (:mod:`.wall_slide`)."""
        if self._walls is None:
            sc = self.scene
            self._walls = Walls.of_scene(
                [(w.start, w.end, w.thickness) for w in sc.walls], self.buildings
            )
        return self._walls

    def _field(self, goal, extra_cost=None) -> navigation.Field:
        t0 = time.perf_counter()
        f = navigation.distance_field(self.grid, goal, extra_cost)
        self.search_seconds += time.perf_counter() - t0
        self.searches += 1
        return f

    # -- giving orders ------------------------------------------------------------------------

    def select(self, order: OrderSpec, state: State) -> np.ndarray:
        """AI unit rows an order selects at this state."""
        u, sel = self.units, order.select
        n_ai = u.n_ai
        if sel.family is not None:
            names = u.family_names
            fam = names.index(sel.family) if sel.family in names else -2
            return np.flatnonzero(u.family[:n_ai] == fam)
        if sel.ids is not None:
            ids = np.asarray(sel.ids, dtype=np.intp)
            return ids[(ids >= 0) & (ids < n_ai)]
        x0, y0, x1, y1 = sel.rect
        p = state.pos[:n_ai]
        return np.flatnonzero((p[:, 0] >= x0) & (p[:, 0] <= x1) & (p[:, 1] >= y0) & (p[:, 1] <= y1))

    def give(self, order: OrderSpec, state: State, tick: int) -> Group | None:
        """Form a group for ``order``; None when it selects nobody."""
        members = self.select(order, state)
        if len(members) == 0:
            return None
        for gid in np.unique(self.group_of[members]):
            if gid >= 0:
                self._drop(int(gid), members)
        goal = np.asarray(order.goal, dtype=float)
        fld = self._field(goal)
        centre = state.pos[members].mean(axis=0)
        facing = goal - centre
        path = navigation.path_from(self.grid, fld, centre)
        spacing, reach = self._slot_sizes(members)
        slots = formation_slots(self.grid, fld, goal, facing, len(members), spacing, path, reach)
        unit = facing / max(np.hypot(*facing), 1e-9)
        # the first deal sorts (the units with least route to go the deepest slots); the units
        # at the formation share theirs by distance over the deal's next ticks (:mod:`.slots`)
        to_go = fld.dist[self.grid.cell_of(state.pos[members])]
        slots = deal_by_route(slots, goal, unit, to_go)
        route = float(fld.dist[self.grid.cell_of(centre[None, :])[0]])
        g = Group(
            id=self.next_id,
            members=members,
            goal=goal,
            facing=unit,
            field=fld,
            slots=slots,
            speed=float(self.units.cruise_speed[members].min()),
            tick=tick,
            route_length=route,
            path=path,
            path_speed=self._path_speed(members, path),
        )
        self.groups[g.id] = g
        self.group_of[members] = g.id
        self.next_id += 1
        return g

    def _slot_sizes(self, members: np.ndarray) -> tuple[float, float]:
        """(spacing, reach) of the formation slots of a group of ``members``, world units:
        ``slot_spacing`` lengths of its longest unit apart, each with room for half that length
        around it (:func:`~rigidflock.rts.slots.formation_slots`)."""
        longest = float(self.units.length[members].max())
        return self.scene.navigation.slot_spacing * longest, 0.5 * longest

    def _drop(self, gid: int, leaving: np.ndarray) -> None:
        g = self.groups[gid]
        g.drop(leaving)
        if len(g.members) == 0:
            del self.groups[gid]

    def add_building(self, building: BuildingSpec, state: State, tick: int) -> None:
        """A new building: rebuild the grid, re-route every group, move slots it covers."""
        poly = np.asarray(building.polygon, dtype=float)
        self.buildings.append(poly)
        if self._grid is not None:
            self._base = (self._grid, [poly])
        elif self._base is not None:
            self._base[1].append(poly)
        self._grid = None
        self._walls = None
        for g in self.groups.values():
            g.field = g.plain = self._field(g.goal)
            self._new_path(g, state)
            spacing, reach = self._slot_sizes(g.members)
            if not has_room(self.grid, g.slots, g.facing, reach).all():
                g.slots = formation_slots(
                    self.grid, g.field, g.goal, g.facing, len(g.members), spacing, g.path, reach
                )
                g.arrived[:] = False
            g.best[:] = np.inf
            g.progress_tick[:] = tick

    # -- each tick ----------------------------------------------------------------------------

    def steering_keys(self) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """What the rules take from the orders, (N,) each, None while no unit is ordered: who
        flocks with whom (ordered units with their group only), the roles (ordered units lead
        nobody) and how far the feelers reach for the world's walls, world units (ordered units
        only ``navigation.wall_feeler`` lengths: their route keeps off those walls, and a
        25-length feeler across a small world turned units away from a gap beside them against
        their order)."""
        group = self.group_of
        ordered = group >= 0
        if not ordered.any():
            return None, None, None
        u = self.units
        key = np.where(ordered, len(u.family_names) + group, u.family)
        role = np.where(ordered, ROLE_NONE, u.role)
        reach = self.scene.navigation.wall_feeler * u.length
        return key, role, np.where(ordered, reach, np.inf)

    def control(self, state: State, gap: np.ndarray, tick: int, dt: float) -> OrderControl:
        """Steering and throttle for every ordered unit from the snapshot ``state``; ``gap``
        (N,): distance to the nearest unit ahead (the rules' :attr:`Steering.gap`)."""
        n = self.units.n
        out = OrderControl(
            np.zeros(n), np.ones(n), self.group_of >= 0, np.ones(n), np.zeros(n, dtype=bool),
            np.zeros(n, dtype=bool),
        )  # fmt: skip
        S = self.scene.rules.steering_force
        several = len(self.groups) > 1
        if several:
            settle_standoffs(
                self.groups, state, self.units.length, self.group_of, self.grid, tick, dt
            )
            foresee_doors(self.groups, state.pos, self.units.length, self.grid, tick)
            on_way = self.group_of >= 0
            for g in self.groups.values():
                on_way[g.members[g.arrived]] = False
            yields = crossing_yields(
                state.pos, state.vel, state.angle, self.units.length, self.group_of, on_way
            )
        for g in list(self.groups.values()):
            oncoming = wait = crossing = None
            if several:
                L = self.units.length[g.members]
                oncoming = oncoming_ahead(state.pos, state.angle, self.group_of, g.members, L)
                yielding = [y for y in self.groups.values() if y.yield_to == g.id]
                if yielding:  # near where they met, a group waiting for g is not met head on
                    oncoming = self._passing(g, state, yielding, oncoming)
                    wait = door_taken(g, yielding, state.pos, self.units.length, self.grid)
                crossing = yields[g.members]
            contact = wall_contact(self.walls, state.pos[g.members], self.units.length[g.members])
            # stuck back-offs under way (back_off's mask; a held unit's throttle overrides it)
            out.backing[g.members] = g.backing_until > tick
            c = control_group(
                g, state, self.units, self.scene.navigation, S, self.grid, gap, tick, dt,
                oncoming, wait, crossing,
            )  # fmt: skip
            c = slide_along_walls(
                c, g, state, self.units, self.scene.navigation, contact, self.grid, S
            )
            out.force[g.members] = c.force
            out.throttle[g.members] = c.throttle
            out.flock_scale[g.members] = c.flock_scale
            if c.side_on is not None:
                out.side_on[g.members] = c.side_on
            if c.reroute:
                self._reroute(g, state, tick)
        return out

    def _passing(self, g: Group, state: State, yielding: list, oncoming: np.ndarray):
        """(m,) bool: ``g``'s members meeting a unit of another group head on, not counting
        within ``DOOR_REACH`` of their lengths of where they met the units of the groups
        ``yielding`` to ``g``: those back out of the door, and ``g``'s units follow them in
        (queueing behind, not keeping right: beside a unit in a door is the jamb)."""
        L = self.units.length[g.members]
        pos = state.pos[g.members]
        off = np.min([np.hypot(*(pos - y.yield_point).T) for y in yielding], axis=0)
        ids = [y.id for y in yielding]
        others = oncoming_ahead(state.pos, state.angle, self.group_of, g.members, L, ids)
        return np.where(off > DOOR_REACH * L, oncoming, others)

    def _new_path(self, g: Group, state: State) -> None:
        """Route the group again from the centre of its members still on the way."""
        on_way = ~g.arrived
        pts = state.pos[g.members[on_way]] if on_way.any() else state.pos[g.members]
        g.path = navigation.path_from(self.grid, g.field, pts.mean(axis=0))
        g.path_speed = self._path_speed(g.members, g.path)
        g.path_index[:] = 0

    def _path_speed(self, members: np.ndarray, path: np.ndarray) -> np.ndarray:
        """(K,) speed limits along ``path`` (:func:`~.turn_speed.path_speed`) for its slowest
        turning and braking unit among ``members``, the turn judged over the lookahead."""
        u = self.units
        force = self.scene.navigation.seek * self.scene.rules.steering_force
        rate = float(order_turn_rate(u, members, force).min())
        brake = float((u.thrust[members] / u.mass[members]).min())
        top = float(u.cruise_speed[members].min())
        return path_speed(path, self.scene.navigation.lookahead, top, rate, brake)

    def _reroute(self, g: Group, state: State, tick: int) -> None:
        """Search the distance field again with the cells under stopped units made costly
        (the way round for units that are stuck; the group path stays)."""
        speed = np.hypot(*state.vel[: self.units.n_ai].T)
        stopped = np.flatnonzero(speed < SLOW_STUCK * g.speed)
        g.field = self._field(g.goal, navigation.congestion_cost(self.grid, state.pos[stopped]))
        g.reroutes += 1
        g.last_reroute = tick

    def stuck_units(self, tick: int, dt: float, after: float = STUCK_AFTER) -> np.ndarray:
        """(N,) bool: ordered units not on their slot whose distance to go has not shrunk (by
        half a cell) for more than ``after`` seconds: the stuck time of the run metrics."""
        out = np.zeros(self.units.n, dtype=bool)
        limit = int(round(after / dt))
        for g in self.groups.values():
            out[g.members] = ~g.arrived & (tick - g.progress_tick > limit)
        return out

    def summary(self) -> list[dict]:
        """Per group: units, arrived, arrival tick, route length, re-routes."""
        return [
            {
                "group": g.id,
                "tick": g.tick,
                "units": len(g.members),
                "arrived": int(g.arrived.sum()),
                "arrival_tick": g.arrival_tick,
                # None: no route reaches the goal (it is walled off)
                "route_length": float(g.route_length) if np.isfinite(g.route_length) else None,
                "speed": g.speed,
                "reroutes": g.reroutes,
                "backoffs": g.backoffs,
            }
            for g in self.groups.values()
        ]
