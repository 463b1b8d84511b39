"""What a caller gives :meth:`Simulation.step` (:class:`Command`) and what a step reports
(:class:`StepEvents`), and the one reading of rule switches (:func:`apply_toggles`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rigidflock.scene import VIEWS, BuildingSpec, OrderSpec, RulesSpec

# Rule switches a command may change at run time (viewer keys, replays).
TOGGLES = ("flocking", "chase", "avoidance", "view")


@dataclass(frozen=True)
class Command:
    """Input for one tick. ``throttle``/``steer`` in [-1, 1] drive the player (None: the
    scene's own control decides); ``toggles`` switch rules, e.g.
    ``(("flocking", False), ("view", "narrow"))``.
    """

    throttle: float | None = None
    steer: float | None = None
    toggles: tuple[tuple[str, object], ...] = ()
    orders: tuple[OrderSpec, ...] = ()  # move orders given this tick (their ``tick`` is ignored)
    add_buildings: tuple[BuildingSpec, ...] = ()  # buildings placed this tick


@dataclass
class StepEvents:
    """Contact begins during one tick (each pymunk begin callback counted once)."""

    tick: int
    unit_contacts: int = 0
    obstacle_contacts: int = 0
    wall_contacts: int = 0
    player_contacts: int = 0
    orders_given: int = 0  # groups formed this tick (an order selecting nobody forms none)


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
