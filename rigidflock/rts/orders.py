"""Move orders: groups of units that follow one route and arrive in formation (seeds 000, 001).

An order selects AI units and gives a goal. The selected units leave any earlier group and form a
new one, which gets one route (a distance field from the goal, :mod:`.steering.navigation`) and
one formation slot per unit around the goal, facing the direction of travel, assigned by the
Hungarian method (``scipy.optimize.linear_sum_assignment``) so that paths cross little. Each tick,
for every ordered unit (arrays over the group, no loop over units):

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
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from rigidflock.model.state import State, Units
from rigidflock.model.steering.pursuit import seek_steer
from rigidflock.rts import navigation
from rigidflock.scene import BuildingSpec, OrderSpec, Scene

ARRIVED_WITHIN = 0.75  # unit lengths from the slot: arrived (when slow)
ARRIVE_TIME = 2.0  # seconds: near its slot a unit wants to close the distance at e / this
VELOCITY_TIME = 0.5  # seconds in which thrust and bow force close the velocity error
LEAVE_SLOT = 2.0  # an arrived unit pushed this many lengths away drives back
BRAKE_GAIN = 2.0  # throttle per (speed error / cruise speed), on the way
QUEUE_GAP = 1.0  # unit lengths: full stop behind a unit this close ahead, full speed at twice
REASSIGN_TICKS = 30  # slots of units still on the way are re-dealt this often
PATH_WINDOW = 24  # cells of the group's path searched ahead of a unit's place each tick
PATH_LEASH = 20.0  # unit lengths: farther from the path a unit follows the distance field
FLOCK_EN_ROUTE = 0.5  # share of the rules' force (cohesion, alignment, separation) on the way


# the Group arrays with one row per member
PER_MEMBER = (
    "members",
    "slots",
    "arrived",
    "best",
    "progress_tick",
    "backing_until",
    "detour_until",
    "path_index",
)


@dataclass
class Group:
    """One order in progress."""

    id: int
    members: np.ndarray  # (m,) unit rows
    goal: np.ndarray  # (2,)
    facing: np.ndarray  # (2,) unit vector, the direction of travel
    field: navigation.Field
    slots: np.ndarray  # (m, 2) each member's slot
    speed: float  # the group's speed: its slowest member's cruise speed
    tick: int  # when it was ordered
    route_length: float  # route distance from the group's centre to the goal, world units
    path: np.ndarray = None  # (K, 2) the group's route: cell centres from its centre to the goal
    path_index: np.ndarray = None  # (m,) each member's place along the path
    arrived: np.ndarray = None  # (m,) bool
    best: np.ndarray = None  # (m,) smallest distance to go seen
    progress_tick: np.ndarray = None  # (m,) tick of the last progress
    backing_until: np.ndarray = None  # (m,) a stuck unit reverses until this tick
    detour_until: np.ndarray = None  # (m,) a stuck unit follows the distance field until then
    reroutes: int = 0
    backoffs: int = 0  # times a stuck unit backed off
    last_reroute: int = -(10**9)
    arrival_tick: int | None = None  # when the last member first stood on its slot

    def __post_init__(self):
        m = len(self.members)
        self.arrived = np.zeros(m, dtype=bool)
        self.best = np.full(m, np.inf)
        self.progress_tick = np.full(m, self.tick)
        self.backing_until = np.full(m, -1)
        self.detour_until = np.full(m, -1)
        self.path_index = np.zeros(m, dtype=np.intp)


@dataclass
class OrderControl:
    """What orders add to one tick: per-unit bow force, throttle, and which units they drive."""

    force: np.ndarray  # (N,) newtons, added to the rules' force for ordered units
    throttle: np.ndarray  # (N,)
    ordered: np.ndarray  # (N,) bool
    flock_scale: np.ndarray  # (N,) factor on the rules' force (fades near the slot)


class Orders:
    """The move orders of one run. ``group_of`` (N,) gives each unit's group id, -1 if none."""

    def __init__(self, scene: Scene, units: Units, obstacles: np.ndarray):
        self.scene, self.units = scene, units
        nav = scene.navigation
        self.clearance = (
            nav.clearance if nav.clearance is not None else 0.6 * float(units.length.max())
        )
        self.obstacles = obstacles
        self.buildings = [np.asarray(b.polygon, dtype=float) for b in scene.buildings]
        self.groups: dict[int, Group] = {}
        self.group_of = np.full(units.n, -1, dtype=np.intp)
        self.next_id = 0
        self.search_seconds = 0.0  # time spent in route searches (bench reports it)
        self.searches = 0
        self._grid: navigation.Grid | None = None

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
            )
        return self._grid

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

    def _path(self, fld: navigation.Field, start: np.ndarray) -> np.ndarray:
        """The route from ``start`` down the field to the goal, as cell centres (K, 2)."""
        grid = self.grid
        cell = int(grid.cell_of(start[None, :])[0])
        cells = [cell]
        for _ in range(grid.n):
            nxt = int(fld.next_cell[cells[-1]])
            if nxt == cells[-1]:
                break
            cells.append(nxt)
        return grid.centre(np.asarray(cells))

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
        nav = self.scene.navigation
        spacing = nav.slot_spacing * float(self.units.length[members].max())
        slots = navigation.formation_slots(self.grid, fld, goal, facing, len(members), spacing)
        rows, cols = linear_sum_assignment(
            np.hypot(*(state.pos[members][:, None, :] - slots[None, :, :]).transpose(2, 0, 1))
        )
        slots = slots[cols[np.argsort(rows)]]
        route = float(fld.dist[self.grid.cell_of(centre[None, :])[0]])
        g = Group(
            id=self.next_id,
            members=members,
            goal=goal,
            facing=facing / max(np.hypot(*facing), 1e-9),
            field=fld,
            slots=slots,
            speed=float(self.units.cruise_speed[members].min()),
            tick=tick,
            route_length=route,
            path=self._path(fld, centre),
        )
        self.groups[g.id] = g
        self.group_of[members] = g.id
        self.next_id += 1
        return g

    def _drop(self, gid: int, leaving: np.ndarray) -> None:
        g = self.groups[gid]
        keep = ~np.isin(g.members, leaving)
        for name in PER_MEMBER:
            setattr(g, name, getattr(g, name)[keep])
        if len(g.members) == 0:
            del self.groups[gid]

    def add_building(self, building: BuildingSpec, state: State, tick: int) -> None:
        """A new building: rebuild the grid, re-route every group, move slots it covers."""
        self.buildings.append(np.asarray(building.polygon, dtype=float))
        self._grid = None
        for g in self.groups.values():
            g.field = self._field(g.goal)
            self._new_path(g, state)
            blocked = ~self.grid.is_free(g.slots)
            if blocked.any():
                spacing = self.scene.navigation.slot_spacing * float(self.units.length.max())
                g.slots = navigation.formation_slots(
                    self.grid, g.field, g.goal, g.facing, len(g.members), spacing
                )
                g.arrived[:] = False
            g.best[:] = np.inf
            g.progress_tick[:] = tick

    # -- each tick ----------------------------------------------------------------------------

    def control(self, state: State, gap: np.ndarray, tick: int, dt: float) -> OrderControl:
        """Steering and throttle for every ordered unit from the snapshot ``state``; ``gap``
        (N,): distance to the nearest unit ahead (the rules' :attr:`Steering.gap`)."""
        u = self.units
        n = u.n
        out = OrderControl(np.zeros(n), np.ones(n), self.group_of >= 0, np.ones(n))
        nav = self.scene.navigation
        S = self.scene.rules.steering_force
        grid = self.grid
        stuck_ticks = int(round(nav.stuck_seconds / dt))
        for g in list(self.groups.values()):
            idx = g.members
            L = u.length[idx]
            pos, vel, ang = state.pos[idx], state.vel[idx], state.angle[idx]
            fwd = np.stack([np.cos(ang), np.sin(ang)], axis=1)
            left = np.stack([-fwd[:, 1], fwd[:, 0]], axis=1)
            cells = grid.cell_of(pos)
            to_go = g.field.dist[cells]
            arrive_r = nav.arrive_radius * L
            # at the formation's edge a unit heads for its own slot instead of the goal itself
            form_r = float(np.hypot(*(g.slots - g.goal).T).max())
            close = to_go < 2.0 * form_r + arrive_r  # at the formation, by route
            if (tick - g.tick) % REASSIGN_TICKS == 0:
                self._deal_slots(g, pos, ang, to_go, close)
            to_slot = g.slots - pos
            d_slot = np.hypot(*to_slot.T)
            near = d_slot < arrive_r
            approach = near | close
            # Follow the group's one path (seed 001: a group does not split around a wall): each
            # unit tracks its place along it, looking a few cells ahead; one pushed far off the
            # path goes down the distance field instead.
            K = len(g.path)
            window = g.path_index[:, None] + np.arange(PATH_WINDOW)[None, :]
            window = np.minimum(window, K - 1)
            d_path = np.hypot(*(g.path[window] - pos[:, None, :]).transpose(2, 0, 1))
            g.path_index = window[np.arange(len(idx)), np.argmin(d_path, axis=1)]
            on_path = (d_path.min(axis=1) < PATH_LEASH * L) & (g.detour_until <= tick)
            follow = g.path[np.minimum(g.path_index + nav.lookahead, K - 1)]
            descend = grid.centre(g.field.ahead(cells, nav.lookahead))
            ahead = np.where(on_path[:, None], follow, descend)
            target = np.where(approach[:, None], g.slots, ahead)
            steer = seek_steer(target - pos, fwd, left)

            vc = u.cruise_speed[idx]
            v_fwd = np.einsum("ij,ij->i", vel, fwd)
            v_lat = np.einsum("ij,ij->i", vel, left)
            speed = np.hypot(*vel.T)
            g.arrived |= (d_slot < ARRIVED_WITHIN * L) & (speed < 0.3 * g.speed)
            g.arrived &= d_slot < LEAVE_SLOT * L

            # On the way: seek the route at the group's speed, queueing behind slower units.
            # (only units already pointing their way queue; one still turning keeps its speed)
            queue = np.clip((gap[idx] - QUEUE_GAP * L) / (QUEUE_GAP * L), 0.0, 1.0)
            queue = np.where(np.abs(steer) < 1.0, queue, 1.0)
            desired = g.speed * np.where(approach, 1.0, queue)
            throttle = (desired / vc) ** 2 + BRAKE_GAIN * (desired - v_fwd) / vc
            force = nav.seek * S * steer

            # Near the slot (and on it): "arrive". The wanted velocity points at the slot and
            # shrinks with the distance (e / ARRIVE_TIME, at most the group's speed); thrust and
            # the bow force close the velocity error in the body frame, so a unit brakes, backs
            # and side-steps onto its slot instead of circling it.
            e_f = np.einsum("ij,ij->i", to_slot, fwd)
            e_l = np.einsum("ij,ij->i", to_slot, left)
            scale = np.minimum(1.0, g.speed * ARRIVE_TIME / np.maximum(d_slot, 1e-9))
            want_f, want_l = e_f * scale / ARRIVE_TIME, e_l * scale / ARRIVE_TIME
            mass = u.mass[idx]
            f_fwd = mass * (want_f - v_fwd) / VELOCITY_TIME + u.drag_k[idx] * v_fwd * np.abs(v_fwd)
            f_lat = mass * (want_l - v_lat) / VELOCITY_TIME
            throttle = np.where(near, f_fwd / u.thrust[idx], throttle)
            force = np.where(near, f_lat, force)

            # a unit that made no progress for a while backs off for a second (out of a corner,
            # off another unit's flank) before trying again
            backing = g.backing_until > tick
            throttle = np.where(backing, -0.6, throttle)
            # the bow force turns the hull whichever way it moves: backing with the bow swung
            # toward the target comes out of the corner pointing the right way
            force = np.where(backing, nav.seek * S * steer, force)

            out.force[idx] = force
            out.throttle[idx] = np.clip(throttle, -1.0, 1.0)
            # near the slot only the order steers: the flock's pull and push would fight it
            out.flock_scale[idx] = np.where(near, 0.0, FLOCK_EN_ROUTE)

            progress = np.minimum(to_go, d_slot)
            better = progress < g.best - 0.5 * grid.cell
            g.best = np.where(better, progress, np.minimum(g.best, progress))
            g.progress_tick = np.where(better | g.arrived, tick, g.progress_tick)
            if g.arrived.all() and g.arrival_tick is None:
                g.arrival_tick = tick
            # Stuck: no progress for stuck_seconds while standing still (not merely queueing).
            # The unit backs off for a second, then takes the distance field, re-searched with
            # the cells under stopped units made costly, for a while; the group keeps its path.
            stuck = ~g.arrived & (tick - g.progress_tick > stuck_ticks)
            stuck &= speed < 0.2 * g.speed
            if stuck.any():
                one_second = int(round(1.0 / dt))
                g.backing_until = np.where(stuck, tick + one_second, g.backing_until)
                g.detour_until = np.where(stuck, tick + stuck_ticks, g.detour_until)
                g.progress_tick = np.where(stuck, tick + one_second, g.progress_tick)
                g.backoffs += int(stuck.sum())
                if tick - g.last_reroute > stuck_ticks:
                    self._reroute(g, state, tick)
        return out

    def _new_path(self, g: Group, state: State) -> None:
        """Route the group again from the centre of its members still on the way."""
        on_way = ~g.arrived
        pts = state.pos[g.members[on_way]] if on_way.any() else state.pos[g.members]
        g.path = self._path(g.field, pts.mean(axis=0))
        g.path_index[:] = 0

    def _deal_slots(
        self, g: Group, pos: np.ndarray, angle: np.ndarray, to_go: np.ndarray, close: np.ndarray
    ) -> None:
        """Re-deal the slots of the members not yet on theirs. Those still far from the
        formation get the deepest slots (farthest along the direction of travel) in order of
        route left, so the first to arrive do not block the way of the rest; those ``close``
        (at the formation) share theirs by distance (Hungarian), preferring slots ahead."""
        L = self.units.length[g.members]
        far = ~g.arrived & ~close
        if far.sum() >= 2:
            who = np.flatnonzero(far)
            slots = g.slots[who]
            depth = (slots - g.goal) @ g.facing
            by_depth = np.lexsort((slots[:, 1], slots[:, 0], -depth))
            by_route = who[np.lexsort((who, to_go[who]))]
            g.slots[by_route] = slots[by_depth]
        near = ~g.arrived & close
        if near.sum() >= 2:
            who = np.flatnonzero(near)
            slots = g.slots[who]
            off = slots[None, :, :] - pos[who][:, None, :]
            cost = np.hypot(off[..., 0], off[..., 1])
            ang = angle[who]
            ahead = off[..., 0] * np.cos(ang)[:, None] + off[..., 1] * np.sin(ang)[:, None]
            cost = cost + np.where(ahead < 0, 2.0 * L[who][:, None], 0.0)
            rows, cols = linear_sum_assignment(cost)
            g.slots[who[rows]] = slots[cols]

    def _reroute(self, g: Group, state: State, tick: int) -> None:
        """Search the distance field again with the cells under stopped units made costly
        (the way round for units that are stuck; the group path stays)."""
        grid = self.grid
        speed = np.hypot(*state.vel[: self.units.n_ai].T)
        stopped = np.flatnonzero(speed < 0.2 * g.speed)
        cost = np.zeros(grid.n)
        np.add.at(cost, grid.cell_of(state.pos[stopped]), 4.0 * grid.cell)
        g.field = self._field(g.goal, cost)
        g.reroutes += 1
        g.last_reroute = tick

    def summary(self) -> list[dict]:
        """Per group: units, arrived, arrival tick, route length, re-routes."""
        return [
            {
                "group": g.id,
                "tick": g.tick,
                "units": len(g.members),
                "arrived": int(g.arrived.sum()),
                "arrival_tick": g.arrival_tick,
                "route_length": float(g.route_length),
                "speed": g.speed,
                "reroutes": g.reroutes,
                "backoffs": g.backoffs,
            }
            for g in self.groups.values()
        ]
