"""Progress along the route, stuck detection and backing off: a group's members as arrays.

A unit on the way makes progress when its distance left (:func:`left_to_go`) beats the best it
has had by half a cell (:func:`track_progress`); one without progress for ``stuck_seconds``,
standing still and not queued close behind another (:func:`find_stuck`) backs off for a second
and then follows the distance field for a while (:func:`start_backing`, :func:`back_off`). The
simulation's run metrics count stuck time from the same clock.

Units: world units, seconds, ticks as integers, throttle in [-1, 1]. m: the group's members.
"""

from __future__ import annotations

import numpy as np

from rigidflock.rts.groups import Group

BACK_THROTTLE = -0.6  # throttle of a unit backing off
BACK_SECONDS = 1.0  # how long a stuck unit backs off
SLOW_STUCK = 0.2  # below this share of the group's speed a unit without progress is stuck
CROWDED = 1.5  # unit lengths: a unit without progress this close behind another is not stuck


def back_off(
    backing: np.ndarray, throttle: np.ndarray, force: np.ndarray, seek_force: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Units ``backing`` (m,) bool reverse at ``BACK_THROTTLE`` with the bow force of seeking
    their target (``seek_force`` (m,), N): it turns the hull whichever way it moves, so backing
    with the bow swung toward the target comes out of the corner pointing the right way. The
    others keep ``throttle`` (m,) and ``force`` (m,)."""
    return np.where(backing, BACK_THROTTLE, throttle), np.where(backing, seek_force, force)


def track_progress(
    best: np.ndarray,
    progress_tick: np.ndarray,
    arrived: np.ndarray,
    progress: np.ndarray,
    cell: float,
    tick: int,
) -> tuple[np.ndarray, np.ndarray]:
    """New (best (m,), progress_tick (m,)): a unit whose distance to go ``progress`` (m,)
    beats its ``best`` (m,) by half a ``cell`` (world units), or that has ``arrived`` (m,),
    made progress at ``tick``; ``best`` keeps the smallest distance seen."""
    better = progress < best - 0.5 * cell
    best = np.where(better, progress, np.minimum(best, progress))
    return best, np.where(better | arrived, tick, progress_tick)


def left_to_go(to_go: np.ndarray, d_slot: np.ndarray, close: np.ndarray) -> np.ndarray:
    """(m,) the distance whose shrinking counts as progress, world units: ``to_go`` (m,), the
    route left to the goal, and for units ``close`` (m,) bool to the formation also ``d_slot``
    (m,), the straight distance to the slot, if less (there the route to the goal's centre no
    longer shrinks). Not the slot's distance on the way: the slots of units on the way are
    re-dealt every ``control.REASSIGN_TICKS`` ticks, and a new slot 10 world units closer
    reset the clock of a unit standing still (``hallway_one_way`` seed 54: one pushed
    another's back-out for 6 s before stuck detection took it back)."""
    return np.where(close, np.minimum(to_go, d_slot), to_go)


def find_stuck(
    arrived: np.ndarray,
    progress_tick: np.ndarray,
    speed: np.ndarray,
    group_speed: float,
    tick: int,
    stuck_ticks: int,
    gap: np.ndarray | None = None,
    length: np.ndarray | None = None,
) -> np.ndarray:
    """(m,) bool: units not ``arrived`` (m,) without progress for more than ``stuck_ticks``
    since ``progress_tick`` (m,) while standing still (``speed`` (m,) below ``SLOW_STUCK`` x
    ``group_speed``; one merely queueing still creeps along). With ``gap`` (m,), the distance
    to the nearest unit ahead, and ``length`` (m,): not one within ``CROWDED`` lengths behind
    another, which waits in a crowd (backing off, every few seconds all at once, the crowd
    opened a void in front of the gap it comes through and pressed its flanks into the wall)."""
    stuck = ~arrived & (tick - progress_tick > stuck_ticks)
    stuck &= speed < SLOW_STUCK * group_speed
    if gap is not None:
        stuck &= ~(gap < CROWDED * length)
    return stuck


def start_backing(g: Group, stuck: np.ndarray, tick: int, dt: float, stuck_ticks: int) -> None:
    """The ``stuck`` (m,) members of ``g`` back off for a second (out of a corner, off another
    unit's flank), then follow the distance field for ``stuck_ticks`` (the group keeps its
    path); their progress clock restarts when they stop backing."""
    one_second = int(round(BACK_SECONDS / dt))
    g.backing_until = np.where(stuck, tick + one_second, g.backing_until)
    g.detour_until = np.where(stuck, tick + stuck_ticks, g.detour_until)
    g.progress_tick = np.where(stuck, tick + one_second, g.progress_tick)
    g.backoffs += int(stuck.sum())
