"""The one collector of a run's measures: the run summary (``--metrics``) and the series rows
(``--series``), from one reading of the simulation a tick.

:class:`Collector` reads the simulation's read-only view
(:meth:`~rigidflock.sim.Simulation.measurables`) and nothing else of it, hands its arrays to the
pure measures of :mod:`rigidflock.model.measures`, and does the accumulating: sums over ticks,
running totals, the pinned time of each unit, the rows. :mod:`rigidflock.runs.series` names the
series' columns and writes and reads its files.

Timing: the figures from the steering are of the snapshot it decided on (polarization, leaders)
or found neighbours on (nearest neighbours, the minimum separation): with
``world.reaction_ticks = 1`` both the one before the state, with ``world.neighbour_ticks = 1``
the neighbours' (ticks 0 to T - 1 of a T-tick run, not 1 to T;
a series row's ``nn_mean`` then is of the tick before its ``tick``); contacts, pins, flocks,
milling and arrivals are of the state. In use::

    collector = Collector(sim, link=2.0)
    collector.sample()  # tick 0, the spawned state
    for _ in range(600):
        collector.add(sim.step())
    collector.finish()
    collector.summary(sim.units.has_player)["polarization_mean"], collector.rows[-1]
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.contacts import KINDS, Contacts
from rigidflock.model.measures.alignment import milling, polarization_fast
from rigidflock.model.measures.flocks import elongation, flock_count, flock_labels
from rigidflock.model.measures.locks import pressed_pairs
from rigidflock.model.measures.pins import pin_tick, pinned
from rigidflock.model.measures.spacing import nearest_distance, nn_completed
from rigidflock.model.state import ROLE_CHASE, ROLE_INTERCEPT
from rigidflock.sim.measurables import Measurables


def nearest_neighbours(view: Measurables) -> np.ndarray:
    """Nearest-neighbour distance (N_ai,) of each AI unit in the snapshot the steering found
    neighbours on (``view.pairs_pos``), from what its pair pass found (a compiled ring search
    over cells only for units with nobody within its search radius); the values of a k-d tree
    search (:func:`~rigidflock.model.measures.reference.nn_distances`). Empty below 2 units."""
    return nn_completed(view.nn_within, view.pairs_pos, view.box, view.nn_radius)


class _Tick:
    """The figures of one tick both the summary and a series row use, measured once."""

    __slots__ = ("leaders", "nn_mean", "nn_min", "polarization", "view")

    def __init__(self, view: Measurables):
        self.view = view
        self.polarization = polarization_fast(view.heading)
        nn = nearest_neighbours(view)
        # mean() as numpy computes it (the sum, then one division), without its wrapper
        self.nn_mean = float(np.add.reduce(nn)) / len(nn) if len(nn) else None
        self.nn_min = float(np.minimum.reduce(nn)) if len(nn) else None
        self.leaders = int(np.count_nonzero(view.leader))  # an exact count


class Collector:
    """Gathers one run's measures: :meth:`add` once per step (the summary's sums and the
    contact totals), :meth:`sample` at the ticks the series records (``rows``), :meth:`finish`
    at the end (the final flocks), then :meth:`summary`. ``link`` is the flock graph's link
    distance (world units)."""

    def __init__(self, sim, link: float):
        self.sim, self.link = sim, float(link)
        view = sim.measurables()
        self.n_orders = len(sim.scene.orders)  # the series' arrived_K columns
        self.rows: list[dict] = []
        self.ticks = 0
        self.polarization_sum = self.nn_sum = self.leader_sum = 0.0
        self.polarization_final = self.elongation_final = float("nan")
        self.nn_count = 0
        self.min_separation = float("inf")
        self.contacts = Contacts()  # running totals of contact begins
        self.last = Contacts()  # the last step's
        self.first_player_contact_tick: int | None = None
        self.flocks_final = 0
        self.pinned_seconds = 0.0  # unit-seconds touching static geometry while slow
        self.longest_pin = 0.0  # seconds, the longest single pin of one unit
        self.stuck_seconds = 0.0  # unit-seconds of ordered units without progress, not arrived
        self._pin_run = np.zeros(view.n_ai)  # (N_ai,) seconds each unit has been pinned so far
        # units of different orders pressed together: pair -> the tick its spell began
        self._locks: dict[tuple[int, int], int] = {}
        self.longest_lock = 0.0  # seconds, the longest unbroken spell of one pair
        self._chasers = np.flatnonzero(np.isin(view.role, (ROLE_CHASE, ROLE_INTERCEPT)))
        self._tick: _Tick | None = None  # the last tick measured
        self._added: Measurables | None = None  # the last tick added

    def _measured(self) -> _Tick:
        """This tick's shared figures, measured at its first :meth:`add` or :meth:`sample`."""
        if self._tick is None or self._tick.view.tick != self.sim.tick:
            self._tick = _Tick(self.sim.measurables())
        return self._tick

    def add(self, events=None) -> None:
        """Fold in the simulation's current state and ``events``, the
        :class:`~rigidflock.sim.StepEvents` of the step that made it (None: no contacts)."""
        t = self._measured()
        view = t.view
        self.ticks += 1
        self.polarization_sum += t.polarization
        self.polarization_final = t.polarization
        if t.nn_mean is not None:
            self.nn_sum += t.nn_mean
            self.nn_count += 1
            self.min_separation = min(self.min_separation, t.nn_min)
        if view.n_ai:
            self.leader_sum += t.leaders / view.n_ai
        if events is not None:
            self.last = Contacts.of_events(events)
            self.contacts = self.contacts + self.last
            if events.player_contacts and self.first_player_contact_tick is None:
                self.first_player_contact_tick = events.tick
        self._add_pins(view)
        self._added = view

    def _add_pins(self, view: Measurables) -> None:
        """Pinned: an AI unit touching an obstacle, wall or building while slower than
        ``PIN_SLOW`` x its cruise speed (:func:`~rigidflock.model.measures.pins.pin_tick`);
        stuck: an ordered unit without progress."""
        count, longest = pin_tick(view.vel, view.touching, view.cruise, self._pin_run, view.dt)
        self.pinned_seconds += float(count) * view.dt
        self.longest_pin = max(self.longest_pin, longest)
        if view.stuck is not None:
            self.stuck_seconds += float(view.stuck.sum()) * view.dt
        if view.group is not None:
            self._add_locks(view)

    def _add_locks(self, view: Measurables) -> None:
        """Locked pairs: units of different orders pressed together
        (:func:`~rigidflock.model.measures.locks.pressed_pairs`), each pair's unbroken spell
        timed from the tick it began."""
        a, b = pressed_pairs(view.pos, view.length, view.group, ~view.on_slot)
        since = self._locks
        self._locks = now = {
            (i, j): since.get((i, j), view.tick)
            for i, j in zip(a.tolist(), b.tolist(), strict=True)
        }
        for t0 in now.values():
            self.longest_lock = max(self.longest_lock, (view.tick - t0) * view.dt)

    def sample(self) -> dict:
        """Measure the simulation's current state into a series row (columns:
        :mod:`rigidflock.runs.series`); appends and returns it. NaN (e.g. the milling of a still
        flock) is None, an empty cell."""
        t = self._measured()
        view = t.view
        labels = flock_labels(view.pos, view.family, self.link, view.box)
        row = {
            "tick": view.tick,
            "time": view.tick * view.dt,
            "polarization": t.polarization,
            "milling": milling(view.pos, view.vel, view.box),
            "nn_mean": t.nn_mean,
            "min_separation": t.nn_min,
            "flocks": flock_count(labels),
            "leaders": t.leaders,
        }
        for k in KINDS:
            row[f"{k}_contacts"] = getattr(self.last, k)
        for k in KINDS:
            row[f"{k}_contacts_total"] = getattr(self.contacts, k)
        speed = np.hypot(view.vel[:, 0], view.vel[:, 1])
        row["pinned"] = pinned(view.touching > 0, speed, view.cruise)
        row["chaser_distance"] = (
            None
            if view.player_pos is None
            else nearest_distance(view.player_pos, view.pos[self._chasers], view.box)
        )
        for k in range(self.n_orders):
            arrived = view.arrived.get(k)
            row[f"arrived_{k}"] = int(arrived.sum()) if arrived is not None else None
        for key, value in row.items():
            if isinstance(value, float) and not np.isfinite(value):
                row[key] = None
        self.rows.append(row)
        return row

    def finish(self) -> None:
        """The end-of-run figures (the flocks) of the last state added."""
        view = self._added
        if view is not None:
            labels = flock_labels(view.pos, view.family, self.link, view.box)
            self.flocks_final = flock_count(labels)
            self.elongation_final = elongation(view.pos, labels, view.box)

    def summary(self, has_player: bool) -> dict:
        """The run summary (every field is defined on the docs' Metrics page);
        ``player_contacts`` None without a player."""

        def num(x):
            return None if x is None or not np.isfinite(x) else float(x)

        ticks = self.ticks
        return {
            "polarization_mean": num(self.polarization_sum / ticks) if ticks else None,
            "polarization_final": num(self.polarization_final),
            "nn_distance_mean": num(self.nn_sum / self.nn_count) if self.nn_count else None,
            "min_separation": num(self.min_separation),
            "unit_contacts": self.contacts.unit,
            "obstacle_contacts": self.contacts.obstacle,
            "wall_contacts": self.contacts.wall,
            "player_contacts": self.contacts.player if has_player else None,
            "first_player_contact_tick": self.first_player_contact_tick,
            "leader_fraction_mean": num(self.leader_sum / ticks) if ticks else None,
            "flocks_final": self.flocks_final,
            "elongation_final": num(self.elongation_final),
            "pinned_seconds": float(self.pinned_seconds),
            "longest_pin_seconds": float(self.longest_pin),
            "stuck_seconds": float(self.stuck_seconds),
            "longest_lock_seconds": float(self.longest_lock),
        }
