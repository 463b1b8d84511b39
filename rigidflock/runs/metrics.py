"""The run summary (the ``metrics`` of ``--metrics``), accumulated one tick at a time."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rigidflock.model.contacts import Contacts
from rigidflock.model.flock_metrics import pin_tick
from rigidflock.model.metrics import (
    elongation,
    flock_labels,
    nn_completed,
    nn_distances,
    polarization_fast,
)


def tick_nn(sim, box: np.ndarray | None) -> np.ndarray:
    """Nearest-neighbour distance of each AI unit (:func:`~rigidflock.model.metrics.nn_distances`)
    in the snapshot the simulation's steering found neighbours on (``sim.pairs_state``: with
    ``world.neighbour_ticks = 1`` the one before the state, else the state), from what its pair
    pass found (a compiled ring search over cells only for units with nobody within the search
    radius). Falls back to the full search when the steering carries no distances."""
    n_ai = sim.units.n_ai
    pos = getattr(sim, "pairs_state", sim.steering_state).pos[:n_ai]
    nn = getattr(sim.steering, "nn", None)
    if nn is None or len(nn) != n_ai:
        return nn_distances(pos, box)
    return nn_completed(nn, pos, box, sim.steering.nn_radius)


@dataclass
class RunMetrics:
    """Accumulates the run summary (the README's "Metrics"), one :meth:`add` per tick. The
    figures from the steering are of the snapshot it decided on (polarisation, leaders) or found
    neighbours on (nearest neighbours, the minimum separation; and the leaders' cone counts):
    with ``world.reaction_ticks = 1`` both the one before the state, with
    ``world.neighbour_ticks = 1`` (by default from 2,000 AI units) the neighbours' (ticks 0 to
    T - 1 of a T-tick run, not 1 to T); contacts, pins and the final flocks are of the state."""

    box: np.ndarray | None
    link: float  # flock link distance, world units
    ticks: int = 0
    polarization_sum: float = 0.0
    polarization_final: float = float("nan")
    nn_sum: float = 0.0
    nn_count: int = 0
    min_separation: float = float("inf")
    leader_sum: float = 0.0
    contacts: Contacts = field(default_factory=Contacts)  # running totals
    first_player_contact_tick: int | None = None
    flocks_final: int = 0
    elongation_final: float = float("nan")
    pinned_seconds: float = 0.0  # unit-seconds touching static geometry while slow
    longest_pin: float = 0.0  # seconds, the longest single pin of one unit
    stuck_seconds: float = 0.0  # unit-seconds of ordered units without progress, not arrived
    _last: dict = field(default_factory=dict)
    _pin_run: np.ndarray | None = None  # (N_ai,) seconds each unit has been pinned so far
    _cruise: np.ndarray | None = None  # (N_ai,) the units' cruise speeds (a property computes it)

    def _add_pins(self, sim) -> None:
        """Pinned: an AI unit touching an obstacle, wall or building (pymunk's contact state)
        while slower than ``PIN_SLOW`` x its cruise speed (``flock_metrics.pin_tick``)."""
        u, st = sim.units, sim.state
        n_ai = u.n_ai
        dt = sim.scene.world.dt
        if self._pin_run is None or len(self._pin_run) != n_ai:
            self._pin_run = np.zeros(n_ai)
            self._cruise = np.ascontiguousarray(u.cruise_speed[:n_ai])
        count, longest = pin_tick(
            st.vel[:n_ai], sim.world.touching[:n_ai], self._cruise, self._pin_run, dt
        )
        self.pinned_seconds += float(count) * dt
        self.longest_pin = max(self.longest_pin, longest)
        if sim.orders.groups:
            self.stuck_seconds += float(sim.orders.stuck_units(sim.tick, dt).sum()) * dt

    def add(self, sim, events=None) -> None:
        """Fold in the simulation's current state (and the contacts of the tick that made it)."""
        u = sim.units
        n_ai = u.n_ai
        st = sim.state
        h = sim.steering.heading[:n_ai]
        pos = st.pos[:n_ai]
        self.ticks += 1
        pol = polarization_fast(h)
        self.polarization_sum += pol
        self.polarization_final = pol
        nn = tick_nn(sim, self.box)
        if len(nn):
            # mean() as numpy computes it (the sum, then one division), without its wrapper
            self.nn_sum += float(np.add.reduce(nn)) / len(nn)
            self.nn_count += 1
            self.min_separation = min(self.min_separation, float(np.minimum.reduce(nn)))
        if n_ai:
            self.leader_sum += np.count_nonzero(st.leader[:n_ai]) / n_ai  # an exact count
        if events is not None:
            self.contacts += Contacts.of_events(events)
            if events.player_contacts and self.first_player_contact_tick is None:
                self.first_player_contact_tick = events.tick
        self._add_pins(sim)
        self._last = {"pos": pos, "family": u.family[:n_ai]}

    def finish(self) -> None:
        """Compute the end-of-run figures (flocks) from the last state added."""
        if self._last:
            labels = flock_labels(self._last["pos"], self._last["family"], self.link, self.box)
            self.flocks_final = len(np.unique(labels))
            self.elongation_final = elongation(self._last["pos"], labels, self.box)

    def summary(self, has_player: bool) -> dict:
        def num(x):
            return None if x is None or not np.isfinite(x) else float(x)

        return {
            "polarization_mean": num(self.polarization_sum / self.ticks) if self.ticks else None,
            "polarization_final": num(self.polarization_final),
            "nn_distance_mean": num(self.nn_sum / self.nn_count) if self.nn_count else None,
            "min_separation": num(self.min_separation),
            "unit_contacts": self.contacts.unit,
            "obstacle_contacts": self.contacts.obstacle,
            "wall_contacts": self.contacts.wall,
            "player_contacts": self.contacts.player if has_player else None,
            "first_player_contact_tick": self.first_player_contact_tick,
            "leader_fraction_mean": num(self.leader_sum / self.ticks) if self.ticks else None,
            "flocks_final": self.flocks_final,
            "elongation_final": num(self.elongation_final),
            "pinned_seconds": float(self.pinned_seconds),
            "longest_pin_seconds": float(self.longest_pin),
            "stuck_seconds": float(self.stuck_seconds),
        }
