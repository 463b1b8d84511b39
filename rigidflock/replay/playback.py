"""Stored states as something to draw: the bridge from a replay file to the renderer.

:class:`Playback` rebuilds the recorded scene from the header (a :class:`~rigidflock.sim.Simulation`
made and never stepped: it is deterministic and gives the units' sizes, roles, families and the
obstacle field), follows the recorded rule switches, and, for a tick, offers a read-only view with
the attributes :func:`~rigidflock.render.frame.frame_from_sim` reads, so a replay frame is drawn by
the same code as a live one. The steering overlays (feelers, neighbour links, aim points, the bow
force) are recomputed from the stored state by the steering rules; no physics runs. For compact
files that state is the fixed-point one, so those overlays can differ from the live run's in the
last digits; with ``world.reaction_ticks = 1`` the live viewer draws the decision made on the
tick before, a replay the one on the tick shown, and with ``world.neighbour_ticks = 1`` the
live viewer's neighbour links and bow forces come from the neighbours found on the tick
before, a replay's from those on the tick shown (the leaders drawn are the stored flags).
numpy only: no pyglet here.

The static world is the scene's: walls, and the buildings standing at a tick, those of the scene
plus those its ``[[events]]`` and the recorded commands (``add_buildings``) placed on earlier
ticks. Move orders (groups, routes, goals, slots) are rebuilt by running the orders' logic over
the stored states (:mod:`.orders_track`); the view's steering then treats ordered units as the
live run did. Contacts are running totals from the first stored tick (:meth:`contacts_at`), as
the live viewer counts them from tick 0.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from rigidflock.model.state import State
from rigidflock.model.steering.blend import Steerer, Steering
from rigidflock.model.steering.blend import World as SteeringWorld
from rigidflock.replay.errors import ReplayError
from rigidflock.replay.orders_track import OrderTrack
from rigidflock.replay.reader import ReplayReader
from rigidflock.sim import Simulation
from rigidflock.sim.behaviour_specs import without_behaviours
from rigidflock.sim.changes import ChangeError, Tuning
from rigidflock.sim.commands import apply_toggles


@dataclass
class TickView:
    """What one stored tick offers the renderer (the attributes ``frame_from_sim`` reads)."""

    scene: object
    units: object
    obstacles: np.ndarray
    state: State
    steering: Steering
    rules: object
    player_command: tuple[float, float]
    tick: int
    events: dict | None
    buildings: tuple[np.ndarray, ...] = ()  # (K, 2) convex polygons standing at this tick
    orders: object = None  # the move orders at this tick (rebuilt), None when the run has none

    @property
    def box(self):
        return self.scene.world.size if self.scene.world.bounds == "wrap" else None


class Playback:
    """A replay file ready to draw tick by tick: ``view(tick)`` (the renderer draws it with
    ``frame_from_sim(playback.view(tick))``)."""

    def __init__(self, reader: ReplayReader, allow_behaviours: bool = False):
        self.reader = reader
        self.scene = reader.scene()
        # the stored states are drawn: the behaviours are not run (nor imported) for that, only
        # to re-simulate (``allow_behaviours``: see :mod:`~rigidflock.replay.behaviours`)
        self.allow_behaviours = allow_behaviours
        template = Simulation(without_behaviours(self.scene), seed=reader.header["seed"])
        if template.units.n != reader.units:
            raise ReplayError(
                f"{reader.path}: the recorded scene has {template.units.n} units, "
                f"the file {reader.units}"
            )
        self.units = template.units
        self.obstacles = template.obstacles
        self.inputs = reader.inputs()
        self._switches = self._rule_switches(self.scene.rules)
        self._placed = self._buildings_placed()
        sc = self.scene
        size = np.asarray(sc.world.size, float)
        world = SteeringWorld(
            self.obstacles, size, size if sc.world.bounds == "wrap" else None,
            sc.world.bounds == "walls",
        )  # fmt: skip
        skin = float(self.units.length.max()) if self.units.n else 0.0
        self.steerer = Steerer(self.units, world, skin, defaultdict(float))
        self.track = OrderTrack(self)
        self._contacts: dict[int, np.ndarray] = {}  # chunk index -> totals before it

    @property
    def first_tick(self) -> int:
        return self.reader.first_tick

    @property
    def last_tick(self) -> int:
        return self.reader.last_tick

    @property
    def dt(self) -> float:
        return self.reader.dt

    def _rule_switches(self, rules) -> list[tuple[int, object]]:
        """(tick, rules in force from that tick on): a switch in the command of tick t changes
        the rules the state of tick t + 1 was steered with."""
        out = [(0, rules)]
        tuning = Tuning(self.scene)
        for tick in sorted(self.inputs):
            toggles = getattr(self.inputs[tick], "toggles", ()) or ()
            changes = getattr(self.inputs[tick], "changes", None)
            if changes:  # as the run took them (a change it refused did not run either)
                with contextlib.suppress(ChangeError):
                    tuning.take(*tuning.propose(changes))
                    rules = tuning.scene().rules
            if toggles:
                rules = apply_toggles(rules, toggles)
                tuning.switches(toggles)
            if toggles or changes:
                out.append((tick + 1, rules))
        return out

    def _buildings_placed(self) -> list[tuple[int, np.ndarray]]:
        """(tick, polygon) of every building placed during the run: the scene's events and the
        recorded commands. A building placed at tick t stands in the state of tick t + 1."""
        out = [(e.tick, e.add_building.polygon) for e in self.scene.events]
        out += [
            (tick, b.polygon)
            for tick in sorted(self.inputs)
            for b in getattr(self.inputs[tick], "add_buildings", ()) or ()
        ]
        return [(t, np.asarray(p, dtype=float)) for t, p in sorted(out, key=lambda tp: tp[0])]

    def buildings_at(self, tick: int) -> tuple[np.ndarray, ...]:
        """The buildings standing in the state of ``tick``: (K, 2) polygons."""
        fixed = [np.asarray(b.polygon, dtype=float) for b in self.scene.buildings]
        return tuple(fixed + [p for t, p in self._placed if t < tick])

    def rules_at(self, tick: int):
        rules = self._switches[0][1]
        for t, r in self._switches:
            if t > tick:
                break
            rules = r
        return rules

    def view(self, tick: int) -> TickView:
        """The stored state of ``tick`` (clamped to the readable range) with its steering."""
        tick = min(max(int(tick), self.first_tick), self.last_tick)
        st = self.reader.state(tick)
        rules = self.rules_at(tick)
        orders = self.track.at(tick)
        if orders is not None:
            steering = self.track.steering(orders, st, rules)
            buildings = tuple(np.asarray(b, float) for b in orders.buildings)
        else:
            steering = self.steerer(st, rules)
            buildings = self.buildings_at(tick)
        return TickView(
            self.scene, self.units, self.obstacles, st, steering, rules,
            self.reader.player_command(tick), tick, self.reader.events(tick), buildings, orders,
        )  # fmt: skip

    KINDS = ("unit", "obstacle", "wall", "player")

    def _tick_contacts(self, tick: int) -> np.ndarray:
        e = self.reader.events(tick) or {}
        return np.array([int(e.get(f"{k}_contacts", 0) or 0) for k in self.KINDS], np.int64)

    def contacts_at(self, tick: int) -> tuple[int, int, int, int]:
        """Running contact totals (unit, obstacle, wall, player) from the first stored tick up to
        ``tick``: the live viewer's figures (counted from tick 0) when the file starts there."""
        r = self.reader
        tick = min(max(int(tick), self.first_tick), self.last_tick)
        index = r.chunk_index(tick)
        for i in range(index + 1):
            if i in self._contacts:
                continue
            before = (
                self._contacts.get(i - 1, np.zeros(4, np.int64)) if i else np.zeros(4, np.int64)
            )
            if i:
                c = r.chunk(i - 1)
                for t in range(c.first_tick, c.first_tick + c.ticks):
                    before = before + self._tick_contacts(t)
            self._contacts[i] = before
        total = self._contacts[index].copy()
        for t in range(r.chunk(index).first_tick, tick + 1):
            total += self._tick_contacts(t)
        return tuple(int(v) for v in total)
