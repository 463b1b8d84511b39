"""What a caller gives :meth:`Simulation.step` (:class:`Command`) and what a step reports
(:class:`StepEvents`), and the one reading of rule switches (:func:`apply_toggles`)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from rigidflock.scene import VIEWS, BuildingSpec, OrderSpec, RulesSpec, SelectSpec

# Rule switches a command may change at run time (viewer keys, replays).
TOGGLES = ("flocking", "chase", "avoidance", "view")


class CommandError(ValueError):
    """A command the simulation cannot take: a value that is not finite or out of its range, or
    a field of the wrong type. Raised by :meth:`Simulation.step` before anything changes."""


@dataclass(frozen=True)
class Command:
    """Input for one tick. ``throttle``/``steer`` in [-1, 1] drive the player (None: the
    scene's own control decides); ``changes`` set scene keys that can change mid-run, by the
    path ``--set`` takes (``{"rules.weights.cohesion": 1.5, "groups[0].thrust": 12}``:
    :mod:`rigidflock.sim.changes`); ``toggles`` switch rules, e.g.
    ``(("flocking", False), ("view", "narrow"))``, the same as changes of ``rules.flocking``
    and ``rules.view`` (applied after ``changes``).

    Per-unit control: ``units`` (K,) AI unit indices (rows of ``sim.units``, the player excluded:
    it has ``throttle``/``steer``) take ``unit_throttle`` (K,) and ``unit_steer`` (K,), each in
    [-1, 1] as the player's (steer x the unit's largest steering force is its bow force, + to
    port), for this tick. ``unit_rules`` (one bool, or (K,) bools) keeps the rules on for them:
    the unit's throttle replaces the default 1 (or its order's throttle) under the unpin and
    give-way rules, and its steer force is added to the rules' bow force; off (the default), the
    unit is driven as the player is, by its throttle and steer alone. Tuples or numpy arrays.
    """

    throttle: float | None = None
    steer: float | None = None
    toggles: tuple[tuple[str, object], ...] = ()
    orders: tuple[OrderSpec, ...] = ()  # move orders given this tick (their ``tick`` is ignored)
    add_buildings: tuple[BuildingSpec, ...] = ()  # buildings placed this tick
    units: tuple[int, ...] | np.ndarray = ()  # per-unit control (see above)
    unit_throttle: tuple[float, ...] | np.ndarray = ()
    unit_steer: tuple[float, ...] | np.ndarray = ()
    unit_rules: bool | tuple[bool, ...] | np.ndarray = False
    changes: Mapping[str, object] = field(default_factory=dict)  # key path -> value

    def __post_init__(self):
        if isinstance(self.changes, Mapping):  # a copy: the caller's dict may change later
            object.__setattr__(self, "changes", dict(self.changes))


@dataclass
class StepEvents:
    """Contact begins during one tick (each pymunk begin callback counted once).

    ``unit_pairs``: (P, 2) int64, the unit indices (lower first) of each AI-AI and AI-player
    contact begun this tick, in pymunk's order. Not a field: replays do not store it (it follows
    from the states) and a re-simulation gives it again."""

    unit_pairs: ClassVar[np.ndarray] = np.zeros((0, 2), np.int64)  # set on each step's events

    tick: int
    unit_contacts: int = 0
    obstacle_contacts: int = 0
    wall_contacts: int = 0
    player_contacts: int = 0
    orders_given: int = 0  # groups formed this tick (an order selecting nobody forms none)


def _number(name: str, value, low: float, high: float) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CommandError(f"Command.{name} must be a number or None, got {type(value).__name__}")
    if not (math.isfinite(value) and low <= value <= high):
        raise CommandError(f"Command.{name} must be a finite number in [{low:g}, {high:g}], "
                           f"got {value!r}")  # fmt: skip


def _point(name: str, value) -> None:
    ok = isinstance(value, tuple | list) and len(value) == 2
    ok = ok and all(not isinstance(v, bool) and isinstance(v, int | float) for v in value)
    if not (ok and all(math.isfinite(v) for v in value)):
        raise CommandError(f"{name} must be 2 finite numbers (x, y), got {value!r:.60}")


def check_command(command) -> None:
    """Raise :class:`CommandError` unless ``command`` is a :class:`Command` (or None) whose
    throttle and steer are finite and in [-1, 1], whose toggles are known switches, whose
    changes map paths to values (the simulation checks them against its scene), whose orders
    are OrderSpec with a finite goal (off the grid: the nearest cell) and whose buildings
    are BuildingSpec of at least 3 finite corners."""
    if command is None:
        return
    if not isinstance(command, Command):
        raise CommandError(f"expected a Command or None, got {type(command).__name__}")
    _number("throttle", command.throttle, -1.0, 1.0)
    _number("steer", command.steer, -1.0, 1.0)
    if not isinstance(command.toggles, tuple | list):
        raise CommandError("Command.toggles must be a tuple of (name, value) pairs")
    for item in command.toggles:
        if not (isinstance(item, tuple | list) and len(item) == 2):
            raise CommandError(f"Command.toggles: expected (name, value) pairs, got {item!r:.60}")
    try:
        apply_toggles(RulesSpec(), command.toggles)
    except (ValueError, TypeError) as e:
        raise CommandError(f"Command.toggles: {e}") from None
    if not isinstance(command.changes, Mapping) or not all(
        isinstance(p, str) for p in command.changes
    ):
        raise CommandError("Command.changes must map key paths (strings) to values")
    for o in _items("orders", command.orders, OrderSpec):
        _point("Command.orders[].goal", o.goal)
        if not isinstance(o.select, SelectSpec):
            raise CommandError("Command.orders[].select must be a SelectSpec")
    for b in _items("add_buildings", command.add_buildings, BuildingSpec):
        if not isinstance(b.polygon, tuple | list) or len(b.polygon) < 3:
            raise CommandError("Command.add_buildings[].polygon needs at least 3 corners")
        for corner in b.polygon:
            _point("Command.add_buildings[].polygon corner", corner)
    _check_unit_control(command)


def _vector(name: str, value, kind: str) -> np.ndarray:
    """``value`` (a tuple, list or 1-D numpy array) as a 1-D array of ``kind`` ("i", "f", "b")."""
    if not isinstance(value, tuple | list | np.ndarray):
        raise CommandError(f"Command.{name} must be a tuple or 1-D numpy array")
    a = np.asarray(value)
    if a.ndim != 1:
        raise CommandError(f"Command.{name} must be 1-D, got shape {a.shape}")
    if len(a) == 0:
        return a.astype({"i": np.int64, "f": float, "b": bool}[kind])
    ok = {"i": a.dtype.kind in "iu", "f": a.dtype.kind in "iuf", "b": a.dtype.kind == "b"}[kind]
    if not ok:
        raise CommandError(f"Command.{name} has values of the wrong type ({a.dtype})")
    return a


def _check_unit_control(command: Command) -> None:
    """The per-unit fields: K distinct indices >= 0, K throttles and steers in [-1, 1], rules
    one bool or K bools (the indices' upper bound is checked by the simulation)."""
    idx = _vector("units", command.units, "i")
    k = len(idx)
    for name in ("unit_throttle", "unit_steer"):
        v = _vector(name, getattr(command, name), "f")
        if len(v) != k:
            raise CommandError(f"Command.{name} has {len(v)} values for {k} units")
        if k and not (np.isfinite(v).all() and np.abs(v).max() <= 1.0):
            raise CommandError(f"Command.{name} must be finite numbers in [-1, 1]")
    rules = command.unit_rules
    if not isinstance(rules, bool | np.bool_):
        r = _vector("unit_rules", rules, "b")
        if len(r) != k:
            raise CommandError(f"Command.unit_rules has {len(r)} values for {k} units")
    if k and (idx.min() < 0 or len(np.unique(idx)) != k):
        raise CommandError("Command.units must be distinct unit indices >= 0")


def _items(name: str, value, cls) -> tuple:
    if not isinstance(value, tuple | list) or not all(isinstance(v, cls) for v in value):
        raise CommandError(f"Command.{name} must be a tuple of {cls.__name__}")
    return tuple(value)


def apply_toggles(rules: RulesSpec, toggles) -> RulesSpec:
    """``rules`` with the switches of ``toggles`` (``(name, value)`` pairs) applied.

    >>> from rigidflock.scene import RulesSpec
    >>> apply_toggles(RulesSpec(), [("flocking", 0), ("view", "narrow")]).flocking
    False
    """
    changes = {}
    for name, value in toggles:
        if name not in TOGGLES:
            raise ValueError(f"unknown toggle {name!r}; expected one of {', '.join(TOGGLES)}")
        if name == "view" and value not in VIEWS:
            raise ValueError(f"unknown view {value!r}")
        changes[name] = value if name == "view" else bool(value)
    return dataclasses.replace(rules, **changes) if changes else rules


def unit_control(command: Command | None, n_ai: int) -> tuple | None:
    """A command's per-unit control as arrays: indices (K,) int, throttles (K,), steers (K,),
    rules on (K,) bool; None when it controls no unit. Raises CommandError for an index that is
    not one of the ``n_ai`` AI units' (the command's other checks: :func:`check_command`)."""
    if command is None or len(command.units) == 0:
        return None
    idx = np.asarray(command.units, dtype=np.int64)
    if idx.max() >= n_ai:
        raise CommandError(
            f"Command.units: {int(idx.max())} is not an AI unit's index (0..{n_ai - 1}; "
            "the player takes Command.throttle and steer)"
        )
    on = np.broadcast_to(np.asarray(command.unit_rules, dtype=bool), idx.shape)
    t = np.asarray(command.unit_throttle, dtype=float)
    return idx, t, np.asarray(command.unit_steer, dtype=float), on
