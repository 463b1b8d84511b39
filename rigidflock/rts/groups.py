"""A group: the units of one move order, with its route, slots and per-member progress."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from rigidflock.rts import navigation

# the Group arrays with one row per member
PER_MEMBER = (
    "members",
    "slots",
    "arrived",
    "best",
    "progress_tick",
    "backing_until",
    "detour_until",
    "path_index",
)


@dataclass
class Group:
    """One order in progress."""

    id: int
    members: np.ndarray  # (m,) unit rows
    goal: np.ndarray  # (2,)
    facing: np.ndarray  # (2,) unit vector, the direction of travel
    field: navigation.Field
    slots: np.ndarray  # (m, 2) each member's slot
    speed: float  # the group's speed: its slowest member's cruise speed
    tick: int  # when it was ordered
    route_length: float  # route distance from the group's centre to the goal, world units
    path: np.ndarray = None  # (K, 2) the group's route: cell centres from its centre to the goal
    path_index: np.ndarray = None  # (m,) each member's place along the path
    # (K,) the fastest a member may go at each point of the path: slow enough to make its
    # turns, braking in time (:func:`~.turn_speed.path_speed`); set with the path
    path_speed: np.ndarray = None
    arrived: np.ndarray = None  # (m,) bool
    best: np.ndarray = None  # (m,) smallest distance to go seen
    progress_tick: np.ndarray = None  # (m,) tick of the last progress
    backing_until: np.ndarray = None  # (m,) a stuck unit reverses until this tick
    detour_until: np.ndarray = None  # (m,) a stuck unit follows the distance field until then
    reroutes: int = 0
    backoffs: int = 0  # times a stuck unit backed off
    last_reroute: int = -(10**9)
    arrival_tick: int | None = None  # when the last member first stood on its slot
    # right of way (:mod:`.right_of_way`): the group this one waits for (-1: none), the meeting
    # point (2,) it waits short of, and the tick the yield began
    yield_to: int = -1
    yield_point: np.ndarray | None = None
    yield_tick: int = 0
    yield_ahead: bool = False  # the yield was begun before the groups met (:mod:`.doors`)
    # the route's field without the congestion costs of re-routes (distances along the route
    # that stay put while the group waits); the field it was ordered with when None
    plain: navigation.Field | None = None
    # doors seen ahead (:mod:`.doors`): the groups taken turns with already; the narrow points
    # of the route (the path and unit length they were found for, their indices, the route's
    # directions there); per other group, the door the two routes share (both paths, both
    # lengths, the indices into each)
    foreseen: set = dataclasses.field(default_factory=set)
    narrow: tuple | None = None
    doors: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        m = len(self.members)
        if self.plain is None:
            self.plain = self.field
        self.arrived = np.zeros(m, dtype=bool)
        self.best = np.full(m, np.inf)
        self.progress_tick = np.full(m, self.tick)
        self.backing_until = np.full(m, -1)
        self.detour_until = np.full(m, -1)
        self.path_index = np.zeros(m, dtype=np.intp)

    def drop(self, leaving: np.ndarray) -> None:
        """Remove the members among the unit rows ``leaving`` (every per-member array)."""
        keep = ~np.isin(self.members, leaving)
        for name in PER_MEMBER:
            setattr(self, name, getattr(self, name)[keep])


@dataclass
class OrderControl:
    """What orders add to one tick: per-unit bow force, throttle, and which units they drive."""

    force: np.ndarray  # (N,) newtons, added to the rules' force for ordered units
    throttle: np.ndarray  # (N,)
    ordered: np.ndarray  # (N,) bool
    flock_scale: np.ndarray  # (N,) factor on the rules' force (fades near the slot)
    # (N,) bool: on the way (not arrived) and against a scene wall or building, side-on (the bow
    # not into it; :mod:`.wall_slide`): not backed out when pressed still
    # (``model/steering/unpin.py``), whatever else it touches. Reversing along a wall pushes the
    # units queued behind back down the lane, and there is nothing ahead of the bow to back
    # away from
    side_on: np.ndarray
    # (N,) bool: backing off this tick, stuck (``progress.start_backing``): the units close
    # behind give way (``model/steering/give_way.py``)
    backing: np.ndarray
