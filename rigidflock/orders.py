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

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from .scene import BuildingSpec, OrderSpec, Scene
from .state import State, Units
from .steering import navigation
from .steering.pursuit import seek_steer

ARRIVED_WITHIN = 0.75  # unit lengths from the slot: arrived (when slow)
BACK_UP = 3.0  # unit lengths: a slot closer than this and behind is reached in reverse
LEAVE_SLOT = 2.0  # an arrived unit pushed this many lengths away drives back
BRAKE_GAIN = 2.0  # throttle per (speed error / cruise speed)
QUEUE_GAP = 1.5  # unit lengths: full stop behind a unit this close ahead, full speed at twice
REASSIGN_TICKS = 30  # slots of units still on the way are re-dealt this often


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
    arrived: np.ndarray = None  # (m,) bool
    best: np.ndarray = None  # (m,) smallest distance to go seen
    progress_tick: np.ndarray = None  # (m,) tick of the last progress
    backing_until: np.ndarray = None  # (m,) a stuck unit reverses until this tick
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
        import time

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
        )
        self.groups[g.id] = g
        self.group_of[members] = g.id
        self.next_id += 1
        return g

    def _drop(self, gid: int, leaving: np.ndarray) -> None:
        g = self.groups[gid]
        keep = ~np.isin(g.members, leaving)
        for name in ("members", "slots", "arrived", "best", "progress_tick", "backing_until"):
            setattr(g, name, getattr(g, name)[keep])
        if len(g.members) == 0:
            del self.groups[gid]

    def add_building(self, building: BuildingSpec, state: State, tick: int) -> None:
        """A new building: rebuild the grid, re-route every group, move slots it covers."""
        self.buildings.append(np.asarray(building.polygon, dtype=float))
        self._grid = None
        for g in self.groups.values():
            g.field = self._field(g.goal)
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
            if (tick - g.tick) % REASSIGN_TICKS == 0:
                self._fill_from_the_front(g, pos, ang, to_go)
            to_slot = g.slots - pos
            d_slot = np.hypot(*to_slot.T)
            arrive_r = nav.arrive_radius * L
            near = d_slot < arrive_r
            # at the formation's edge a unit heads for its own slot instead of the goal itself
            form_r = float(np.hypot(*(g.slots - g.goal).T).max())
            approach = near | (to_go < 2.0 * form_r + arrive_r)
            ahead = grid.centre(g.field.ahead(cells, nav.lookahead))
            target = np.where(approach[:, None], g.slots, ahead)
            steer = seek_steer(target - pos, fwd, left)

            vc = u.cruise_speed[idx]
            v_fwd = np.einsum("ij,ij->i", vel, fwd)
            speed = np.hypot(*vel.T)
            g.arrived |= (d_slot < ARRIVED_WITHIN * L) & (speed < 0.3 * g.speed)
            g.arrived &= d_slot < LEAVE_SLOT * L
            # close to a slot that lies behind: back onto it instead of circling round
            behind = near & (np.einsum("ij,ij->i", to_slot, fwd) < 0) & (d_slot < BACK_UP * L)
            reverse_steer = seek_steer(to_slot, -fwd, -left)
            steer = np.where(behind, reverse_steer, steer)
            # slow down near the slot, and more when it is off the bow: at low speed the bow
            # force turns the hull on the spot
            bearing_cos = np.einsum("ij,ij->i", to_slot, fwd) / np.maximum(d_slot, 1e-9)
            slow = np.where(
                near, np.clip(np.where(behind, -bearing_cos, bearing_cos), 0.15, 1.0), 1.0
            )
            desired = g.speed * np.clip(d_slot / arrive_r, 0.0, 1.0) * slow
            # queue: slow down behind a unit close ahead instead of ramming it
            queue = np.clip((gap[idx] - QUEUE_GAP * L) / (QUEUE_GAP * L), 0.0, 1.0)
            desired = np.where(approach, desired, np.minimum(desired, g.speed * queue))
            desired = np.where(behind, -desired, desired)
            desired = np.where(g.arrived, 0.0, desired)
            throttle = np.sign(desired) * (desired / vc) ** 2 + BRAKE_GAIN * (desired - v_fwd) / vc
            # slow units turn gently: at low speed the bow force mostly shoves the hull sideways
            steer = steer * np.where(near, np.clip(2.0 * speed / g.speed, 0.3, 1.0), 1.0)
            steer = np.where(g.arrived, 0.0, steer)  # on the slot: hold still
            # a unit that made no progress for a while backs off for a second (out of a corner,
            # off another unit's flank) before trying again
            backing = g.backing_until > tick
            throttle = np.where(backing, -0.6, throttle)
            steer = np.where(backing, seek_steer(target - pos, -fwd, -left), steer)

            out.force[idx] = nav.seek * S * steer
            out.throttle[idx] = np.clip(throttle, -1.0, 1.0)
            # near the slot only the order steers: the flock's pull and push would fight it
            out.flock_scale[idx] = np.where(near | g.arrived, 0.0, 1.0)

            progress = np.minimum(to_go, d_slot)
            better = progress < g.best - 0.5 * grid.cell
            g.best = np.where(better, progress, np.minimum(g.best, progress))
            g.progress_tick = np.where(better | g.arrived, tick, g.progress_tick)
            if g.arrived.all() and g.arrival_tick is None:
                g.arrival_tick = tick
            stuck = ~g.arrived & (tick - g.progress_tick > stuck_ticks)
            if stuck.any():
                g.backing_until = np.where(stuck, tick + int(round(1.0 / dt)), g.backing_until)
                g.progress_tick = np.where(stuck, tick + int(round(1.0 / dt)), g.progress_tick)
                g.backoffs += int(stuck.sum())
                if tick - g.last_reroute > stuck_ticks:
                    self._reroute(g, state, tick)
        return out

    def _fill_from_the_front(
        self, g: Group, pos: np.ndarray, angle: np.ndarray, to_go: np.ndarray
    ) -> None:
        """Give the deepest free slots (farthest along the direction of travel) to the units
        with the least route left, so the first to arrive do not block the way of the rest.
        Units already near or on their slot keep it."""
        nav = self.scene.navigation
        L = self.units.length[g.members]
        d_slot = np.hypot(*(g.slots - pos).T)
        far = ~g.arrived & (d_slot > nav.arrive_radius * L)
        if far.sum() >= 2:
            who = np.flatnonzero(far)
            slots = g.slots[who]
            depth = (slots - g.goal) @ g.facing
            by_depth = np.lexsort((slots[:, 1], slots[:, 0], -depth))
            by_route = who[np.lexsort((who, to_go[who]))]
            g.slots[by_route] = slots[by_depth]
        # units nearly there share the slots still free by distance (ahead of them preferred)
        near = ~g.arrived & ~far
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
        """Make the cells under stopped units costly and search the group's route again."""
        grid = self.grid
        speed = np.hypot(*state.vel[: self.units.n_ai].T)
        stopped = np.flatnonzero(speed < 0.2 * g.speed)
        cost = np.zeros(grid.n)
        np.add.at(cost, grid.cell_of(state.pos[stopped]), 4.0 * grid.cell)
        g.field = self._field(g.goal, cost)
        g.reroutes += 1
        g.last_reroute = tick
        g.best[:] = np.inf
        g.progress_tick = np.maximum(g.progress_tick, tick)

    def summary(self) -> list[dict]:
        """Per group: units, arrived, arrival tick, route length, re-routes."""
        return [
            {
                "group": g.id,
                "tick": g.tick,
                "units": int(len(g.members)),
                "arrived": int(g.arrived.sum()),
                "arrival_tick": g.arrival_tick,
                "route_length": float(g.route_length),
                "speed": g.speed,
                "reroutes": g.reroutes,
                "backoffs": g.backoffs,
            }
            for g in self.groups.values()
        ]
