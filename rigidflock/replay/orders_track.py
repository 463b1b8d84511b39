"""Move orders rebuilt for a replay: the groups (routes, goals, formation slots) at any stored
tick, so a replay draws what the live viewer drew.

A file stores every unit's state and every input, not the orders' inner state. That state is a
function of the inputs and the states alone (orders are given from a state, and each tick's
control reads the state and the rules' ``gap``), so :class:`OrderTrack` runs the orders' logic
(:class:`~rigidflock.rts.orders.Orders`) over the stored states, no physics: tick ``k``'s
buildings and orders, then its control, exactly as ``Simulation.step`` does them. This was
chosen over recording the groups in the file: old files (format 1) keep working unchanged and
show their orders too, and files stay small. An exact file rebuilds the live groups bit for bit;
a compact one from states rounded to 1/1024 unit, so a slot re-deal or an arrival can differ by a
tick. A recording started mid-run with orders given before its first stored tick is first
re-simulated (physics) up to that tick, from the recorded scene, seed and inputs. With
``world.reaction_ticks = 1`` each tick's control reads the ``gap`` of the decision on the state
before (made after that tick's orders, as the simulation makes it beside the step), and a
recording that starts after tick 0 with an order at its first tick is re-simulated up to it
for that decision. ``world.neighbour_ticks`` changes nothing here: while a group is under orders
the simulation finds the neighbours on the state it decides on.

Seeking back restarts from the nearest checkpoint (one every ``CHECKPOINT`` ticks).
"""

from __future__ import annotations

import copy
from collections import defaultdict

import numpy as np

from rigidflock.rts.orders import Orders

CHECKPOINT = 256


class OrderTrack:
    """``track.at(tick)``: the :class:`Orders` as they stood in the state of ``tick`` (None when
    the run has no orders)."""

    def __init__(self, playback):
        self.pb = playback
        sc = playback.scene
        self.orders_at: dict[int, list] = defaultdict(list)
        self.buildings_at: dict[int, list] = defaultdict(list)
        for o in sc.orders:
            self.orders_at[o.tick].append(o)
        for e in sc.events:
            self.buildings_at[e.tick].append(e.add_building)
        for tick, cmd in playback.inputs.items():
            self.orders_at[tick] += list(getattr(cmd, "orders", ()) or ())
            self.buildings_at[tick] += list(getattr(cmd, "add_buildings", ()) or ())
        ticks = [t for t, v in self.orders_at.items() if v]
        self.first_order = min(ticks) if ticks else None
        # tick -> (orders, the gap its next control reads with reaction_ticks = 1)
        self._checkpoints: dict[int, tuple[Orders, np.ndarray | None]] = {}
        self._tick = None  # the tick self._orders stands at
        self._orders: Orders | None = None
        self._beside = playback.scene.world.reaction_ticks == 1
        # reaction_ticks = 1: the gap of the decision on the state before self._tick's
        self._gap: np.ndarray | None = None

    @property
    def active(self) -> bool:
        return self.first_order is not None

    def _fresh(self) -> tuple[int, Orders, np.ndarray | None]:
        """The orders at the first stored tick (and the gap the next control reads)."""
        pb = self.pb
        first = pb.first_tick
        # given before the recording began, or at its first tick while deciding beside the
        # step (its control reads the decision on the state before, not stored): re-simulate
        if self.first_order < first or (self._beside and 0 < first == self.first_order):
            from rigidflock.replay.behaviours import check_allowed
            from rigidflock.sim import Simulation

            check_allowed(pb.reader.path, pb.scene, pb.allow_behaviours)
            sim = Simulation(pb.scene, seed=pb.reader.header["seed"])
            while sim.tick < first:
                sim.step(pb.inputs.get(sim.tick))
            return first, sim.orders, sim.steering.gap
        orders = Orders(pb.scene, pb.units, pb.obstacles)
        gap = None
        if self._beside:  # tick 0 acts on the decision made on state 0 at the start
            gap = self.steering(orders, pb.reader.state(first), pb.rules_at(first)).gap
        return first, orders, gap

    def _copy(self, orders: Orders) -> Orders:
        pb = self.pb
        memo = {id(pb.scene): pb.scene, id(pb.units): pb.units, id(pb.obstacles): pb.obstacles}
        return copy.deepcopy(orders, memo)

    def steering(self, orders: Orders, st, rules):
        """The rules' output for ``st`` with ordered units flocking in their group, leading
        nobody and feeling the world's walls close up only (as ``Simulation._analyse``)."""
        return self.pb.steerer(st, rules, *orders.steering_keys())

    def _step(self, orders: Orders, k: int) -> None:
        """What ``Simulation.step`` does to the orders at tick ``k`` (state k -> k + 1)."""
        pb = self.pb
        st = pb.reader.state(k)
        for b in self.buildings_at.get(k, ()):
            orders.add_building(b, st, k)
        for o in self.orders_at.get(k, ()):
            orders.give(o, st, k)
        if not self._beside:
            if orders.groups:
                orders.control(st, self.steering(orders, st, pb.rules_at(k + 1)).gap, k, pb.dt)
            return
        if orders.groups:
            orders.control(st, self._gap, k, pb.dt)
        self._gap = None
        if orders.groups or self.orders_at.get(k + 1):  # read at the next control
            self._gap = self.steering(orders, st, pb.rules_at(k + 1)).gap

    def at(self, tick: int) -> Orders | None:
        if not self.active:
            return None
        if self._tick is None or tick < self._tick:
            done = [t for t in self._checkpoints if t <= tick]
            if done:
                t = max(done)
                orders, self._gap = self._checkpoints[t]
                self._tick, self._orders = t, self._copy(orders)
            else:
                self._tick, self._orders, self._gap = self._fresh()
                self._checkpoints[self._tick] = (self._copy(self._orders), self._gap)
        while self._tick < tick:
            self._step(self._orders, self._tick)
            self._tick += 1
            if self._tick % CHECKPOINT == 0 and self._tick not in self._checkpoints:
                self._checkpoints[self._tick] = (self._copy(self._orders), self._gap)
        return self._orders
