"""What the measures read from a simulation at one tick: a small read-only view.

:meth:`Simulation.measurables() <rigidflock.sim.Simulation.measurables>` returns a
:class:`Measurables` after each step, for the run's collector (:mod:`rigidflock.runs.collector`)
and anything else that measures a run: views of the simulation's own arrays, not copies, flagged
read-only, and valid until the next step writes over them (copy what you keep). A call costs
~10 us whatever the number of units (measured on a busy 2-core machine: ~5 us building the
frozen record, ~0.5 us each cached view). Positions are world units, velocities world units
/ s; arrays of AI units only (N_ai rows) unless said otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from rigidflock.model.state import read_only


class ReadOnlyViews:
    """Read-only views of the first rows of arrays, each made once and handed out again while
    the array is the same object (the simulation writes its arrays in place, and a view shows
    what is written): ~0.2 us a view instead of ~1 us. Forgets them all past ``LIMIT``."""

    LIMIT = 64

    def __init__(self):
        self._views: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def __call__(self, a: np.ndarray, n: int) -> np.ndarray:
        """A read-only view of ``a[:n]``."""
        key = (id(a), n)
        hit = self._views.get(key)
        if hit is not None and hit[0] is a:
            return hit[1]
        if len(self._views) >= self.LIMIT:
            self._views.clear()
        v = read_only(a[:n])
        self._views[key] = (a, v)  # holding ``a`` keeps its id from being reused
        return v


@dataclass(frozen=True, eq=False, slots=True)
class Measurables:
    """One tick's figures for measuring, read-only (see the module).

    ``tick``, ``dt`` (seconds a tick), ``box`` (the world size (2,) of a wrap-around world, else
    None); the state's ``pos``, ``vel`` (N_ai, 2) and the player's position ``player_pos`` (2,)
    (None without one); the steering's ``heading`` (N_ai, 2, unit vectors) and ``leader``
    (N_ai,) bool, of the snapshot it decided on; the units' ``family``, ``role`` (N_ai,) codes
    and ``cruise`` (N_ai,) speeds; the neighbour search as the steering saw it this tick:
    ``pairs_pos`` (N_ai, 2), the snapshot its neighbours were found on, and ``nn_within``
    (N_ai,), each unit's nearest-neighbour distance there when closer than ``nn_radius``, inf
    otherwise; ``touching`` (N_ai,) the number of static shapes (obstacles, walls, buildings)
    each unit touches (pymunk's contact state); the move orders' ``stuck`` (N,) bool, ordered
    units without progress (None while no group is under orders), and ``arrived``, by order
    group id, (members,) bool: which members are on their slots; the units' ``length`` (N_ai,),
    world units; while a group is under orders, ``group`` (N_ai,), each unit's order group id
    (-1: none), and ``on_slot`` (N_ai,) bool, the ordered units on their slots (both None
    otherwise)."""

    tick: int
    dt: float
    box: np.ndarray | None
    pos: np.ndarray
    vel: np.ndarray
    player_pos: np.ndarray | None
    heading: np.ndarray
    leader: np.ndarray
    family: np.ndarray
    role: np.ndarray
    cruise: np.ndarray
    pairs_pos: np.ndarray
    nn_within: np.ndarray
    nn_radius: float
    touching: np.ndarray
    stuck: np.ndarray | None
    arrived: Mapping[int, np.ndarray]
    length: np.ndarray | None = None
    group: np.ndarray | None = None
    on_slot: np.ndarray | None = None

    @property
    def n_ai(self) -> int:
        return len(self.pos)


def measurables_of(sim, cruise: np.ndarray, views: ReadOnlyViews) -> Measurables:
    """The :class:`Measurables` of ``sim`` (a :class:`~rigidflock.sim.Simulation`) now, its
    units' cruise speeds ``cruise`` (N,) given (the simulation keeps them contiguous), the
    arrays' read-only views from ``views``."""
    n = sim.units.n_ai
    st, steering, orders, units = sim.state, sim.steering, sim.orders, sim.units
    dt = sim.scene.world.dt
    groups = orders.groups
    return Measurables(
        sim.tick, dt, None if sim.box is None else views(sim.box, 2),
        views(st.pos, n), views(st.vel, n), read_only(st.pos[-1]) if units.has_player else None,
        views(steering.heading, n), views(st.leader, n), views(units.family, n),
        views(units.role, n), views(cruise, n), views(sim.pairs_state.pos, n),
        views(steering.nn, n), steering.nn_radius, views(sim.world.touching, n),
        read_only(orders.stuck_units(sim.tick, dt)) if groups else None,
        MappingProxyType({k: read_only(g.arrived) for k, g in groups.items()}),
        views(units.length, n), views(orders.group_of, n) if groups else None,
        read_only(_on_slot(groups, n)) if groups else None,
    )  # fmt: skip


def _on_slot(groups, n: int) -> np.ndarray:
    """(n,) bool: the units on their slots of the order ``groups`` (id -> Group)."""
    out = np.zeros(n, dtype=bool)
    for g in groups.values():
        rows = g.members < n
        out[g.members[rows]] = g.arrived[rows]
    return out
