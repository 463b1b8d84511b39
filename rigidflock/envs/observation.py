"""The evader's observation: a fixed-size float32 vector in [-1, 1], computed by one compiled
kernel per step (:mod:`rigidflock.envs.observation_kernel`); the numpy functions here
(:meth:`Observer.reference`, :func:`ray_circles`, :func:`ray_segments`) are its reference
definition (no Python loop over units, obstacles or walls either way).

Everything is in the player's body frame: x along its bow (the direction it faces), y to port (its
left), so a policy does not have to learn rotations. The vector, for ``k`` pursuers and ``rays``
feelers (``size = 5 + 6 k + rays``):

=========================  =====================================================================
slice                      meaning
=========================  =====================================================================
``[0]``, ``[1]``           the player's velocity, forward and to port, / ``speed_scale``
``[2]``                    the player's turn rate (rad/s, + counter-clockwise) / ``omega_scale``
``[3]``, ``[4]``           cos and sin of the player's heading in the world frame (walled worlds)
``[5 + 6 j + 0..1]``       pursuer j's offset from the player (forward, port) / ``sense_range``
``[5 + 6 j + 2..3]``       pursuer j's velocity relative to the player's / ``speed_scale``
``[5 + 6 j + 4]``          1 if pursuer j is a flock leader (leaders chase), else 0
``[5 + 6 j + 5]``          1 if slot j holds a pursuer, 0 for padding (then the slot is all 0)
``[5 + 6 k + r]``          feeler r: free distance along ray r / ``ray_range`` (1: nothing felt)
=========================  =====================================================================

Pursuers (every AI unit) are sorted nearest first; offsets are minimum-image offsets in a
wrap-around world. Ray r points at angle ``2 pi r / rays`` from the bow, counter-clockwise (ray 0
straight ahead), from the player's centre, and stops at the first obstacle circle, world wall
(``bounds = "walls"``), scene wall or building edge. Values beyond the scales are clipped to
[-1, 1].
"""

from __future__ import annotations

import numpy as np

from rigidflock.envs import observation_kernel as kernel
from rigidflock.model.torus import min_image

OWN = 5  # own-state entries
PER_PURSUER = 6  # entries per pursuer slot
OMEGA_SCALE = 2 * np.pi  # rad/s: one turn a second reads 1
# the default speed scale, in fastest cruise speeds: a pursuer's velocity relative to the
# player's reaches 1.5 of them (head-on, interceptors); at 1 it clipped in 15% of the slots
SPEED_FACTOR = 2.0


def observation_size(k: int, rays: int) -> int:
    """Length of the observation vector for ``k`` pursuer slots and ``rays`` feelers."""
    return OWN + PER_PURSUER * k + rays


def _box_segments(size) -> np.ndarray:
    """The four edges of [0, w] x [0, h] as (4, 5) rows x0, y0, x1, y1, half-thickness 0."""
    w, h = float(size[0]), float(size[1])
    return np.array(
        [[0, 0, w, 0, 0], [w, 0, w, h, 0], [w, h, 0, h, 0], [0, h, 0, 0, 0]], dtype=float
    )


def _polygon_segments(poly) -> np.ndarray:
    """A closed polygon (P, 2) as (P, 5) edge rows with half-thickness 0."""
    p = np.asarray(poly, dtype=float).reshape(-1, 2)
    q = np.roll(p, -1, axis=0)
    return np.column_stack([p, q, np.zeros(len(p))])


def sim_segments(sim) -> np.ndarray:
    """Every straight wall of ``sim`` as (S, 5) rows x0, y0, x1, y1, half-thickness (world units):
    the world's edges when ``bounds = "walls"``, the scene's walls, the buildings standing now."""
    parts = [np.zeros((0, 5))]
    if sim.scene.world.bounds == "walls":
        parts.append(_box_segments(sim.scene.world.size))
    parts += [np.array([[*w.start, *w.end, 0.5 * w.thickness]]) for w in sim.scene.walls]
    parts += [_polygon_segments(b) for b in sim.orders.buildings]
    return np.concatenate(parts)


def ray_circles(p, dirs, circles, box=None, reach=np.inf) -> np.ndarray:
    """Distance along each ray to the first circle: (R,), inf where none.

    ``p``: (2,) ray origin; ``dirs``: (R, 2) unit directions; ``circles``: (M, 3) x, y, r; ``box``:
    (2,) world size for minimum-image centres, or None; ``reach``: circles whose surface is
    farther than this from ``p`` are skipped. 0 when the origin is inside a circle."""
    a = circles[:, :2] - p
    a = min_image(a, box)
    aa = np.einsum("ij,ij->i", a, a)
    near = aa < (circles[:, 2] + reach) ** 2
    if not near.any():
        return np.full(len(dirs), np.inf)
    a, aa, r = a[near], aa[near], circles[near, 2]
    along = dirs @ a.T  # (R, M)
    h2 = r**2 - aa + along**2
    root = np.sqrt(np.maximum(h2, 0.0))
    t = np.where((h2 >= 0.0) & (along + root >= 0.0), np.maximum(along - root, 0.0), np.inf)
    return t.min(axis=1)


def ray_segments(p, dirs, segs) -> np.ndarray:
    """Distance along each ray to the first thick segment: (R,), inf where none.

    ``segs``: (S, 5) x0, y0, x1, y1, half-thickness. A thick wall is taken as a slab: the centre
    line's hit distance less half the thickness over the sine of the incidence angle (exact away
    from the wall's ends), never below 0."""
    if len(segs) == 0:
        return np.full(len(dirs), np.inf)
    e = segs[:, 2:4] - segs[:, 0:2]  # (S, 2)
    w = segs[:, 0:2] - p
    denom = np.outer(dirs[:, 0], e[:, 1]) - np.outer(dirs[:, 1], e[:, 0])  # d x e, (R, S)
    ok = np.abs(denom) > 1e-12
    safe = np.where(ok, denom, 1.0)
    t = (w[:, 0] * e[:, 1] - w[:, 1] * e[:, 0]) / safe  # (w x e) / (d x e)
    u = (np.outer(dirs[:, 1], w[:, 0]) - np.outer(dirs[:, 0], w[:, 1])) / safe  # (w x d) / (d x e)
    hit = ok & (t >= 0.0) & (u >= 0.0) & (u <= 1.0)
    sine = np.abs(safe) / np.maximum(np.hypot(e[:, 0], e[:, 1]), 1e-12)
    t = np.maximum(t - segs[:, 4] / np.maximum(sine, 1e-6), 0.0)
    return np.where(hit, t, np.inf).min(axis=1)


class Observer:
    """Builds observations of one Simulation; call :meth:`reset` after every ``sim.reset``.

    ``k``: pursuer slots; ``rays``: feelers; ``sense_range`` (world units, default: half the
    world's diagonal, the farthest minimum-image offset in a wrap-around world), ``speed_scale``
    (world units/s, default: :data:`SPEED_FACTOR` x the fastest unit's cruise speed) and
    ``ray_range`` (world units, default: the player's feeler length, length x
    ``rules.feeler_factor``) normalise the fields.
    """

    def __init__(self, sim, k=5, rays=8, sense_range=None, speed_scale=None, ray_range=None):
        if not sim.units.has_player:
            raise ValueError(f"{sim.scene.source}: the scene has no player to control")
        if k < 0 or rays < 0:
            raise ValueError("k and rays must be >= 0")
        self.k, self.rays = int(k), int(rays)
        self.size = observation_size(self.k, self.rays)
        self._sense = sense_range
        self._speed = speed_scale
        self._ray = ray_range
        angles = 2 * np.pi * np.arange(self.rays) / max(self.rays, 1)
        self._ray_local = np.column_stack([np.cos(angles), np.sin(angles)])  # (R, 2) body frame
        self._out = np.zeros(self.size, dtype=np.float32)
        self.reset(sim)

    def reset(self, sim) -> None:
        """Read the run's constants (scales, obstacles, walls) after ``sim.reset``."""
        u = sim.units
        world = np.asarray(sim.scene.world.size, dtype=float)
        self.sense_range = float(self._sense or 0.5 * np.hypot(*world))
        self.speed_scale = float(self._speed or SPEED_FACTOR * u.cruise_speed.max())
        feeler = float(u.length[-1] * sim.rules.feeler_factor)
        self.ray_range = float(self._ray or feeler)
        self._inv_sense, self._inv_speed = 1.0 / self.sense_range, 1.0 / self.speed_scale
        self.box = None if sim.box is None else np.asarray(sim.box, dtype=float)
        self.circles = np.ascontiguousarray(np.asarray(sim.obstacles, dtype=float).reshape(-1, 3))
        self._buildings = -1
        self._segments(sim)
        # the kernel's arguments that do not change during a run
        n = sim.units.n
        self._player = n - 1  # the player is the last row; every other unit pursues
        self._ai = np.arange(n) != self._player
        self._box = np.zeros(2) if self.box is None else self.box.copy()
        scales = np.zeros(kernel.N_SCALES)
        scales[kernel.SPEED], scales[kernel.OMEGA] = self.speed_scale, OMEGA_SCALE
        scales[kernel.INV_SENSE], scales[kernel.INV_SPEED] = self._inv_sense, self._inv_speed
        scales[kernel.RAY_RANGE] = self.ray_range
        self._scales = scales
        self._senses = kernel.Senses(self._ray_local, scales)

    def _segments(self, sim) -> np.ndarray:
        """The walls, rebuilt only when the number of buildings changed (buildings are only
        ever added)."""
        count = len(sim.orders.buildings)
        if count != self._buildings:
            self.segments = np.ascontiguousarray(sim_segments(sim), dtype=float)
            self._buildings = count
        return self.segments

    def __call__(self, sim) -> np.ndarray:
        """The observation of ``sim``'s current state: (size,) float32 in [-1, 1] (a fresh
        array), by the compiled kernel."""
        st, out = sim.state, self._out
        kernel.observe(
            out, kernel.Motion(st.pos, st.vel, st.angle, st.omega), st.leader, self._ai,
            self._player, kernel.Walls(self._box, self.circles, self._segments(sim)),
            self._senses,
        )  # fmt: skip
        return out.copy()

    def reference(self, sim) -> np.ndarray:
        """:meth:`__call__` in numpy: the definition the kernel is tested against."""
        return self._reference(sim, len(sim.state.pos) - 1, ((self._ai, self.k),), None)

    def _reference(self, sim, me: int, groups, flag) -> np.ndarray:
        """The observation of unit ``me`` in numpy: own state, then per ``(mask, k)`` of
        ``groups`` k slots of the nearest ``mask`` rows (``me`` left out), then the feelers;
        ``flag`` (N,) fills the slots' entry 4 (None: ``state.leader``)."""
        st = sim.state
        flag = st.leader if flag is None else flag
        out = self._out
        out[:] = 0.0
        p, v = st.pos[me], st.vel[me]
        c, s = np.cos(st.angle[me]), np.sin(st.angle[me])
        to_body = np.array([[c, -s], [s, c]])  # row vector @ to_body = (forward, port)
        out[0:2] = (v @ to_body) / self.speed_scale
        out[2] = st.omega[me] / OMEGA_SCALE
        out[3], out[4] = c, s
        base = OWN
        for mask, k in groups:
            self._slots(st, me, mask, k, flag, p, v, to_body, out[base : base + PER_PURSUER * k])
            base += PER_PURSUER * k
        if self.rays:
            dirs = self._ray_local @ to_body.T  # body -> world
            t = ray_circles(p, dirs, self.circles, self.box, self.ray_range)
            segments = self._segments(sim)
            if len(segments):
                t = np.minimum(t, ray_segments(p, dirs, segments))
            out[base:] = np.minimum(t, self.ray_range) / self.ray_range
        return np.clip(out, -1.0, 1.0)

    def _slots(self, st, me, mask, k, flag, p, v, to_body, out) -> None:
        """Fill the k slots ``out`` (6 k,) with the ``mask`` rows nearest unit ``me``."""
        rows = np.flatnonzero(mask & (np.arange(len(mask)) != me))
        k = min(k, len(rows))
        if k == 0:
            return
        rel = st.pos[rows] - p
        rel = min_image(rel, self.box)
        d2 = np.einsum("ij,ij->i", rel, rel)
        if len(rows) > 64:  # partial selection first when there are many
            near = np.argpartition(d2, k - 1)[:k]
            near = near[np.argsort(d2[near], kind="stable")]
        else:
            near = np.argsort(d2, kind="stable")[:k]
        slots = out[: PER_PURSUER * k].reshape(k, PER_PURSUER)
        slots[:, 0:2] = rel[near] @ to_body
        slots[:, 0:2] *= self._inv_sense
        slots[:, 2:4] = (st.vel[rows[near]] - v) @ to_body
        slots[:, 2:4] *= self._inv_speed
        slots[:, 4] = flag[rows[near]] if len(flag) == len(st.pos) else 0.0
        slots[:, 5] = 1.0


class UnitObserver(Observer):
    """Observations of any unit of one Simulation, the evader's (:class:`Observer`) layout
    generalised: own state (5 entries, as the player's), then for each group g ``ks[g]`` slots
    of the nearest units of that group (e.g. teammates, opponents, rule-driven flockers), 6
    entries each as a pursuer slot, then ``rays`` feelers; everything in the observer's own
    body frame, with the :class:`Observer`'s scales. ``size = 5 + 6 sum(ks) + rays``. The
    player's observation with one group, every AI unit, is the :class:`Observer`'s."""

    def __init__(self, sim, ks=(3, 5), rays=8, **scales):
        ks = tuple(int(k) for k in ks)
        if any(k < 0 for k in ks):
            raise ValueError("slot counts must be >= 0")
        self.ks = ks
        self._ks = np.asarray(ks, dtype=np.int64)
        super().__init__(sim, k=sum(ks), rays=rays, **scales)

    def __call__(self, sim, me: int, group: np.ndarray, flag: np.ndarray | None = None):
        """The observation of unit ``me`` (a row of ``sim.units``): slots for the units of each
        group, ``group`` (N,) int (g: in group g, -1: in none; ``me`` is left out), entry 4 of
        a slot ``flag`` (N,) (default: ``state.leader``): (size,) float32 in [-1, 1], a fresh
        array, by the compiled kernel."""
        st, out = sim.state, self._out
        flag = st.leader if flag is None else flag
        kernel.observe_unit(
            out, kernel.Motion(st.pos, st.vel, st.angle, st.omega), flag, int(me), group,
            self._ks, kernel.Walls(self._box, self.circles, self._segments(sim)), self._senses,
        )  # fmt: skip
        return out.copy()

    def reference_of(self, sim, me: int, group: np.ndarray, flag=None) -> np.ndarray:
        """:meth:`__call__` in numpy (the kernel's reference)."""
        groups = tuple((group == g, k) for g, k in enumerate(self.ks))
        return self._reference(sim, me, groups, flag)
