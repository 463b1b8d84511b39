"""The pymunk side: a Space built from unit and obstacle arrays, read and written in batches.

This is the only module that imports pymunk. Per tick it makes a fixed number of calls whatever the
unit count: one batch read of every body, one batch write of forces and torques, ``substeps`` calls
to ``Space.step``, and (wrap-around worlds, when units crossed an edge) their new positions: one
body at a time for a few, one batch write of every position for many. Batch rows are mapped to
unit rows through ``BODY_ID``: the batch order is pymunk's, not the insertion order, and it
includes static bodies.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import pymunk
import pymunk.batch as pb

from rigidflock.model import torus
from rigidflock.model.contacts import Contacts
from rigidflock.model.state import State, Units
from rigidflock.scene import PhysicsSpec

UNIT, PLAYER, OBSTACLE, WALL = 1, 2, 3, 4  # walls: the bounds, [[walls]] and buildings
WALL_RADIUS = 2.0  # half-thickness of the boundary walls; their inner face is the world edge
# Up to this many units crossing a wrap-around edge in one tick are moved one body at a time
# (~1 us each); more go in one batch write of every body's position.
WRAP_ONE_BY_ONE = 32

_READ = (
    pb.BodyFields.BODY_ID
    | pb.BodyFields.POSITION
    | pb.BodyFields.ANGLE
    | pb.BodyFields.VELOCITY
    | pb.BodyFields.ANGULAR_VELOCITY
)
_FORCES = pb.BodyFields.FORCE | pb.BodyFields.TORQUE
CONTACT_COLUMNS = ("unit", "obstacle", "wall", "player")  # keep_counts_in's order


def unit_shape(body: pymunk.Body, length: float, width: float, corners: float) -> pymunk.Poly:
    """A unit's collision box, ``length`` x ``width`` world units, its corners rounded with a
    radius of ``corners`` x the shorter side: the inner box shrinks by the radius on every side,
    so the outline keeps the unit's size."""
    r = corners * min(length, width)
    return pymunk.Poly.create_box(body, (length - 2.0 * r, width - 2.0 * r), radius=r)


class World:
    """A pymunk Space holding one dynamic box body per unit, static obstacles and the bounds.

    ``units``: per-unit constants (player last); ``pos`` (N, 2), ``angle`` (N,), ``vel`` (N, 2):
    the initial state; ``obstacles``: (M, 3) rows of centre x, centre y, radius; ``size``: the world
    (width, height); ``bounds``: "wrap" | "walls" | "open".
    """

    def __init__(
        self,
        units: Units,
        pos: np.ndarray,
        angle: np.ndarray,
        vel: np.ndarray,
        obstacles: np.ndarray,
        size: tuple[float, float],
        bounds: str,
        physics: PhysicsSpec,
        walls=(),
        buildings=(),
    ):
        self.n = units.n
        self.size = np.asarray(size, dtype=float)
        self.bounds = bounds
        self.contacts = Contacts()
        self._counts: np.ndarray | None = None  # a second count of contact begins, if kept
        space = pymunk.Space()
        space.gravity = (0.0, 0.0)
        self.space = space

        self._physics = physics
        self._add_static(obstacles, walls, buildings)
        self._add_units(units, pos, angle, vel)
        self._count_contacts()

        self._unit_ids = np.array([b.id for b in self.bodies], dtype=np.uintp)
        self._buf = pb.Buffer()
        self._out = pb.Buffer()  # for writes: it points at our numpy buffers
        self._ids: np.ndarray | None = None
        self._id_bytes = b""  # the same ids as bytes, for the quick comparison
        self._rows: np.ndarray | slice | None = None  # batch row of each unit
        self._row_index = np.zeros(0, np.int64)  # the same rows as an array (N,)
        self._force_buf: np.ndarray | None = None
        self._pos_buf: np.ndarray | None = None
        self._floats = np.zeros((0, 6))

    def _add_static(self, obstacles: np.ndarray, walls, buildings) -> None:
        """Obstacles (M, 3), the bounding walls (bounds "walls"), scene walls and buildings."""
        space, physics = self.space, self._physics
        # Static obstacles on the space's own static body: no extra bodies in the batch.
        static = space.static_body
        for cx, cy, r in obstacles:
            shape = pymunk.Circle(static, float(r), (float(cx), float(cy)))
            shape.collision_type = OBSTACLE
            shape.elasticity, shape.friction = physics.elasticity, physics.friction
            space.add(shape)
        if self.bounds == "walls":
            w, h = self.size
            r = WALL_RADIUS
            corners = [(-r, -r), (w + r, -r), (w + r, h + r), (-r, h + r)]
            for a, b in zip(corners, corners[1:] + corners[:1], strict=True):
                seg = pymunk.Segment(static, a, b, r)
                seg.collision_type = WALL
                seg.elasticity, seg.friction = physics.elasticity, physics.friction
                space.add(seg)

        for start, end, thickness in walls:
            seg = pymunk.Segment(static, tuple(start), tuple(end), thickness / 2)
            seg.collision_type = WALL
            seg.elasticity, seg.friction = physics.elasticity, physics.friction
            space.add(seg)
        for poly in buildings:
            self.add_building(poly)

    def _add_units(self, units: Units, pos, angle, vel) -> None:
        """One dynamic box body per unit, in unit order (the player last)."""
        space, physics = self.space, self._physics
        # Units in one group pass through each other when collisions are off.
        unit_filter = pymunk.ShapeFilter(group=1) if not physics.collisions else None
        self.bodies: list[pymunk.Body] = []
        self._index_of_body: dict[int, int] = {}
        for k in range(self.n):
            body = pymunk.Body(float(units.mass[k]), float(units.moment[k]))
            body.position = (float(pos[k, 0]), float(pos[k, 1]))
            body.angle = float(angle[k])
            body.velocity = (float(vel[k, 0]), float(vel[k, 1]))
            shape = unit_shape(body, float(units.length[k]), float(units.width[k]), physics.corners)
            is_player = units.has_player and k == self.n - 1
            shape.collision_type = PLAYER if is_player else UNIT
            shape.elasticity, shape.friction = physics.elasticity, physics.friction
            if unit_filter is not None:
                shape.filter = unit_filter
            space.add(body, shape)
            self.bodies.append(body)
            self._index_of_body[body.id] = k

    def _count_contacts(self) -> None:
        """Contact begins by kind, and the static shapes each unit touches now (obstacles,
        walls, buildings): kept by the begin and separate callbacks, which run only when a
        contact starts or ends."""
        space = self.space
        self.touching = np.zeros(self.n, dtype=np.int64)
        self._pairs: list[tuple[int, int]] = []  # body ids of the unit contacts begun
        self._keep_pairs = True
        space.on_collision(UNIT, UNIT, begin=self._pair("unit"))
        space.on_collision(UNIT, PLAYER, begin=self._pair("player"))
        for kind in (UNIT, PLAYER):
            for other, field in ((OBSTACLE, "obstacle"), (WALL, "wall")):
                space.on_collision(
                    kind, other, begin=self._touch(field, 1), separate=self._touch(None, -1)
                )

    def keep_touching_in(self, out: np.ndarray) -> None:
        """Keep the touching counts (``touching``) in ``out`` (N,) int64 from now on, e.g. a
        view into one array for many worlds: the counts so far are copied there and the contact
        callbacks write there."""
        out[:] = self.touching
        self.touching = out

    def add_building(self, polygon) -> None:
        """A static convex polygon (K, 2), counted as a wall in contacts."""
        shape = pymunk.Poly(self.space.static_body, [tuple(map(float, p)) for p in polygon])
        shape.collision_type = WALL
        shape.elasticity, shape.friction = self._physics.elasticity, self._physics.friction
        self.space.add(shape)

    def _count(self, field: str):
        column = CONTACT_COLUMNS.index(field)

        def begin(arbiter, space, data):
            setattr(self.contacts, field, getattr(self.contacts, field) + 1)
            if self._counts is not None:
                self._counts[column] += 1

        return begin

    def keep_counts_in(self, out: np.ndarray) -> None:
        """Count contact begins in ``out`` (4,) int64 too (unit, obstacle, wall, player, as
        :data:`CONTACT_COLUMNS`), e.g. a row of one array for many worlds, read in one go: the
        counts so far are copied there."""
        c = self.contacts
        out[:] = (c.unit, c.obstacle, c.wall, c.player)
        self._counts = out

    def bind_batch_forces(self, buffer: np.ndarray) -> None:
        """Point the batch write of :meth:`write_bound_forces` at ``buffer`` (B, 3), laid out as
        :meth:`force_buffer` (C contiguous; kept alive here): the forces written there are sent
        at each call without setting the buffer again."""
        self._bound = pb.Buffer()
        self._bound.set_float_buf(buffer.reshape(-1))
        self._bound_array = buffer

    def write_bound_forces(self) -> None:
        """Send the buffer bound by :meth:`bind_batch_forces` to pymunk in one batch write."""
        pb.set_space_bodies(self.space, _FORCES, self._bound)

    def _pair(self, field: str):
        """A begin callback counting a unit-unit contact of kind ``field`` and keeping the two
        bodies' ids (:meth:`take_pairs`)."""
        pairs = self._pairs
        contacts = self.contacts
        column = CONTACT_COLUMNS.index(field)

        def begin(arbiter, space, data):
            setattr(contacts, field, getattr(contacts, field) + 1)
            if self._counts is not None:
                self._counts[column] += 1
            if self._keep_pairs:
                a, b = arbiter.shapes
                pairs.append((a.body.id, b.body.id))

        return begin

    def keep_pairs(self, on: bool) -> None:
        """Whether the unit contacts' pairs are kept for :meth:`take_pairs` (default on); a
        caller that never takes them (a batch of worlds) turns them off, else they pile up."""
        self._keep_pairs = bool(on)
        if not on:
            self._pairs.clear()

    def take_pairs(self) -> np.ndarray:
        """The unit pairs whose contact began since the last call: (P, 2) int64 unit indices,
        the lower first, in the order pymunk began them (AI-AI and AI-player)."""
        if not self._pairs:
            return np.zeros((0, 2), np.int64)
        ids = np.array(self._pairs, np.uintp)
        self._pairs.clear()
        order = np.argsort(self._unit_ids)
        out = order[np.searchsorted(self._unit_ids, ids, sorter=order)].astype(np.int64)
        out.sort(axis=1)
        return out

    def _touch(self, field: str | None, step: int):
        """A callback adding ``step`` to the touching count of the unit in the contact (and,
        with ``field``, counting a contact begin of that kind)."""
        count = self._count(field) if field is not None else None
        index = self._index_of_body

        def callback(arbiter, space, data):
            body = arbiter.shapes[0].body  # None once the space is being torn down
            k = index.get(body.id) if body is not None else None
            if k is not None:
                self.touching[k] = max(self.touching[k] + step, 0)
            if count is not None:
                count(arbiter, space, data)

        return callback

    def _map_rows(self, ids: np.ndarray) -> None:
        """Find each unit's row in the batch order (only when that order changed: compared as
        bytes, a few times quicker than ``np.array_equal`` on ~20 ids)."""
        raw = ids.tobytes()
        if raw == self._id_bytes:
            return
        self._id_bytes = raw
        self._ids = ids.copy()
        order = np.argsort(ids)
        where = np.searchsorted(ids, self._unit_ids, sorter=order)
        rows = order[where]
        self._row_index = np.ascontiguousarray(rows, dtype=np.int64)
        # pymunk usually keeps insertion order: then a slice avoids gathers and scatters
        if len(rows) and np.array_equal(rows, np.arange(rows[0], rows[0] + len(rows))):
            rows = slice(int(rows[0]), int(rows[0]) + len(rows))
        self._rows = rows
        nb = len(ids)
        self._force_buf = np.zeros((nb, 3))
        self._pos_buf = np.zeros((nb, 2))

    def read(self, state: State) -> None:
        """Fill ``state.pos``, ``vel``, ``angle``, ``omega`` from pymunk in one batch call."""
        floats = self.read_rows()
        _scatter_rows(floats, self._row_index, state.pos, state.angle, state.vel, state.omega)

    def read_rows(self) -> np.ndarray:
        """Read every body from pymunk in one batch call: the batch rows (B, 6) x, y, angle,
        vx, vy, omega (a view of the batch buffer, valid until the next read), unit u's in row
        :attr:`row_index` ``[u]``; :meth:`read` then scatters them into a state (several
        worlds' rows can be scattered in one call: :mod:`rigidflock.sim.batch`)."""
        self._buf.clear()
        pb.get_space_bodies(self.space, _READ, self._buf)
        self._map_rows(np.frombuffer(self._buf.int_buf(), dtype=np.uintp))
        floats = np.frombuffer(self._buf.float_buf(), dtype=np.float64).reshape(-1, 6)
        self._floats = floats
        return floats

    @property
    def row_index(self) -> np.ndarray:
        """Each unit's row in the batch order (N,) int64 as of the last read (a new array
        whenever that order changes)."""
        return self._row_index

    def force_buffer(self) -> tuple[np.ndarray, np.ndarray]:
        """The batch write's buffer (B, 3): force x, force y, torque per batch row (static
        bodies' rows stay 0), and each unit's row in it (N,): fill the units' rows, then
        :meth:`write_forces`. Valid until the next :meth:`read` (the batch order may change)."""
        if self._rows is None:
            n = self.n
            self.read(State(0, np.zeros((n, 2)), np.zeros((n, 2)), np.zeros(n), np.zeros(n)))
        return self._force_buf, self._row_index

    def write_forces(self) -> None:
        """Send :meth:`force_buffer` to pymunk in one batch write (pymunk clears forces and
        torques after each step)."""
        self._out.set_float_buf(self._force_buf.reshape(-1))
        pb.set_space_bodies(self.space, _FORCES, self._out)

    def write_batch_forces(self, buffer: np.ndarray) -> None:
        """Send ``buffer`` (B, 3) (force x, force y, torque per batch row, laid out as
        :meth:`force_buffer`; C contiguous) to pymunk in one batch write, without a copy:
        several worlds' forces can be computed in one call into one array
        (:mod:`rigidflock.sim.batch`)."""
        self._out.set_float_buf(buffer.reshape(-1))
        pb.set_space_bodies(self.space, _FORCES, self._out)

    def step(self, dt: float) -> None:
        self.space.step(dt)

    def wrap(self, state: State) -> bool:
        """Move units that left a wrap-around world to the opposite edge. ``state`` must hold the
        positions just read. Returns True when some unit was moved."""
        if self.bounds != "wrap":
            return False
        w, h = float(self.size[0]), float(self.size[1])
        out = torus.outside(state.pos, w, h)
        if len(out) == 0:
            return False
        moved = torus.fold(state.pos[out], self.size)
        state.pos[out] = moved
        if len(out) <= WRAP_ONE_BY_ONE:
            # the few units that crossed this tick, each set alone: a batch write walks every body
            for k, u in enumerate(out.tolist()):
                self.bodies[u].position = (float(moved[k, 0]), float(moved[k, 1]))
            return True
        buf = self._pos_buf
        buf[:] = self._floats[:, 0:2]  # static bodies keep their positions
        buf[self._rows] = state.pos
        self._out.set_float_buf(buf.reshape(-1))
        pb.set_space_bodies(self.space, pb.BodyFields.POSITION, self._out)
        return True


@nb.njit(cache=True)
def _scatter_rows(floats, rows, pos, angle, vel, omega):
    """Batch rows ``floats`` (B, 6) (x, y, angle, vx, vy, omega) of the units' ``rows`` (N,)
    into the state's arrays: one pass instead of four strided numpy copies."""
    for u in range(rows.shape[0]):
        r = rows[u]
        pos[u, 0] = floats[r, 0]
        pos[u, 1] = floats[r, 1]
        angle[u] = floats[r, 2]
        vel[u, 0] = floats[r, 3]
        vel[u, 1] = floats[r, 4]
        omega[u] = floats[r, 5]


@nb.njit(cache=True)
def scatter_unit_rows(floats, rows, units, pos, angle, vel, omega):
    """Batch rows ``floats`` (B, 6) (x, y, angle, vx, vy, omega; several worlds' reads end to
    end) into the state arrays: row ``rows[j]`` into unit ``units[j]`` (J,), as
    :meth:`World.read` scatters one world's."""
    for j in range(units.shape[0]):
        r, u = rows[j], units[j]
        pos[u, 0] = floats[r, 0]
        pos[u, 1] = floats[r, 1]
        angle[u] = floats[r, 2]
        vel[u, 0] = floats[r, 3]
        vel[u, 1] = floats[r, 4]
        omega[u] = floats[r, 5]
