"""Progress along the route, stuck detection and backing off (:mod:`rigidflock.rts.progress`)
on small hand-made arrays."""

import numpy as np

from rigidflock.rts import progress as P
from rigidflock.rts.groups import Group


def test_back_off_reverses_with_the_seeking_bow_force():
    thr, force = P.back_off(
        np.array([True, False]), np.array([0.7, 0.7]), np.array([1.0, 1.0]), np.array([5.0, 5.0])
    )
    np.testing.assert_array_equal(thr, [P.BACK_THROTTLE, 0.7])
    np.testing.assert_array_equal(force, [5.0, 1.0])


def test_progress_is_half_a_cell_closer_than_the_best_seen():
    """Creeping closer by less than half a cell is not progress (the clock keeps running) but
    the best distance still records it; an arrived unit always counts as progressing."""
    best, when = P.track_progress(
        best=np.array([10.0, 10.0, 10.0]),
        progress_tick=np.array([3, 3, 3]),
        arrived=np.array([False, False, True]),
        progress=np.array([8.0, 9.5, 12.0]),
        cell=2.0,
        tick=50,
    )
    np.testing.assert_array_equal(best, [8.0, 9.5, 10.0])
    np.testing.assert_array_equal(when, [50, 3, 50])


def test_progress_on_the_way_is_along_the_route_not_toward_a_re_dealt_slot():
    """On the way, only the route left counts: a slot re-dealt closer is no progress (it reset
    the stuck clock of a unit standing jammed). At the formation the route to the goal's centre
    no longer shrinks on the way to an outer slot, so the slot's distance counts there, if less."""
    left = P.left_to_go(
        to_go=np.array([250.0, 250.0, 30.0, 30.0]),
        d_slot=np.array([240.0, 260.0, 12.0, 40.0]),
        close=np.array([False, False, True, True]),
    )
    np.testing.assert_array_equal(left, [250.0, 250.0, 12.0, 30.0])


def test_stuck_detection_flags_a_unit_that_made_no_progress():
    """Stuck: on the way, no progress for more than stuck_ticks, and standing still. A unit
    crawling at the group's speed is merely queueing; an arrived one is where it should be;
    one whose last progress is recent is not stuck yet."""
    stuck = P.find_stuck(
        arrived=np.array([False, False, True, False]),
        progress_tick=np.array([0, 0, 0, 80]),
        speed=np.array([0.1, 4.0, 0.0, 0.0]),
        group_speed=5.0,
        tick=100,
        stuck_ticks=90,
    )
    np.testing.assert_array_equal(stuck, [True, False, False, False])


def test_a_unit_waiting_close_behind_another_is_not_stuck():
    """Without progress and standing still, but another unit within CROWDED lengths ahead: it
    waits in a crowd, it does not back off; one with the way ahead clear (or farther) does."""
    L = np.full(3, 4.0)
    stuck = P.find_stuck(
        arrived=np.zeros(3, dtype=bool),
        progress_tick=np.zeros(3, dtype=int),
        speed=np.zeros(3),
        group_speed=5.0,
        tick=100,
        stuck_ticks=90,
        gap=np.array([0.9 * P.CROWDED * 4.0, 1.1 * P.CROWDED * 4.0, np.inf]),
        length=L,
    )
    np.testing.assert_array_equal(stuck, [False, True, True])


def test_a_stuck_unit_backs_off_for_a_second_then_detours():
    """Backing for one second of ticks, the detour for stuck_ticks, and the progress clock
    restarted after the backing; the others untouched, the back-off counted."""
    g = Group(
        0, np.arange(2), np.zeros(2), np.array([1.0, 0.0]), None, np.zeros((2, 2)), 5.0, 0, 10.0
    )
    P.start_backing(g, np.array([True, False]), tick=100, dt=1 / 60, stuck_ticks=180)
    np.testing.assert_array_equal(g.backing_until, [160, -1])
    np.testing.assert_array_equal(g.detour_until, [280, -1])
    np.testing.assert_array_equal(g.progress_tick, [160, 0])
    assert g.backoffs == 1
