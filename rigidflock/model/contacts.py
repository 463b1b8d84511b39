"""Contact counts by kind: the one record for running totals, one tick's begins and replays."""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("unit", "obstacle", "wall", "player")


@dataclass
class Contacts:
    """Contact begins counted by pymunk's collision callbacks.

    ``unit``: AI unit - AI unit; ``obstacle``: any unit (player included) - obstacle;
    ``wall``: any unit - boundary wall or building; ``player``: AI unit - player.

    >>> total = Contacts(unit=3, wall=1)
    >>> total - Contacts(unit=1)
    Contacts(unit=2, obstacle=0, wall=1, player=0)
    >>> Contacts.of_events({"tick": 5, "unit_contacts": 2, "player_contacts": 1})
    Contacts(unit=2, obstacle=0, wall=0, player=1)
    """

    unit: int = 0
    obstacle: int = 0
    wall: int = 0
    player: int = 0

    # Field by field, not dataclasses.astuple: that deep-copies, ~100 us a tick in Simulation.step.
    def __add__(self, other: Contacts) -> Contacts:
        return Contacts(
            self.unit + other.unit,
            self.obstacle + other.obstacle,
            self.wall + other.wall,
            self.player + other.player,
        )

    def __sub__(self, other: Contacts) -> Contacts:
        return Contacts(
            self.unit - other.unit,
            self.obstacle - other.obstacle,
            self.wall - other.wall,
            self.player - other.player,
        )

    def copy(self) -> Contacts:
        return Contacts(self.unit, self.obstacle, self.wall, self.player)

    @classmethod
    def of_events(cls, events) -> Contacts:
        """One tick's counts from a step's events (``StepEvents`` or its recorded JSON form)."""
        if events is None:
            return cls()
        if isinstance(events, dict):
            return cls(*(int(events.get(f"{k}_contacts", 0)) for k in KINDS))
        # a step's events, once a tick in a run: no generator
        return cls(
            int(getattr(events, "unit_contacts", 0)),
            int(getattr(events, "obstacle_contacts", 0)),
            int(getattr(events, "wall_contacts", 0)),
            int(getattr(events, "player_contacts", 0)),
        )
