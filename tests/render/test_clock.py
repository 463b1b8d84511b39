"""The fixed-step clock alone: no window, no GL."""

import pytest

from rigidflock.render.clock import MAX_GAP, FixedStepClock

DT = 1 / 60


def test_whole_steps_are_taken_and_the_rest_is_the_fraction():
    c = FixedStepClock(DT)
    assert c.advance(10.5 * DT) == 10
    assert c.fraction == pytest.approx(0.5)
    assert c.advance(0.25 * DT) == 0
    assert c.fraction == pytest.approx(0.75)
    assert c.advance(0.5 * DT) == 1
    assert c.fraction == pytest.approx(0.25)


def test_speed_scales_real_time():
    c = FixedStepClock(DT, speed=2.0)
    assert c.advance(10 * DT) in (19, 20, 21)
    c.speed = 0.5
    c.reset()
    assert c.advance(1.0) in (29, 30)


def test_paused_takes_no_step_and_empties_the_accumulator():
    c = FixedStepClock(DT)
    c.advance(0.5 * DT)
    assert c.advance(10 * DT, paused=True) == 0
    assert c.acc == 0.0 and c.fraction == 0.0


def test_step_runs_once_per_step_and_can_stop_the_rest():
    calls = []

    def step():
        calls.append(len(calls))
        return len(calls) == 3  # e.g. the run paused at its third tick

    c = FixedStepClock(DT)
    assert c.advance(10 * DT, step) == 3
    assert calls == [0, 1, 2] and c.acc == 0.0


def test_a_spent_budget_drops_the_backlog_but_one_step():
    c = FixedStepClock(DT, budget=0.0)
    n = c.advance(100 * DT, lambda: False)
    assert n == 1  # any stepping at all exceeds a zero budget
    assert c.acc == DT  # one step kept for the next frame, not 98
    assert c.fraction == 1.0


def test_no_budget_catches_up_fully():
    c = FixedStepClock(DT, budget=None)
    assert c.advance(100.25 * DT) == 100


def test_frame_gap_is_capped_and_none_at_first():
    c = FixedStepClock(DT)
    assert c.frame_gap(10.0) is None
    assert c.frame_gap(10.01) == pytest.approx(0.01)
    assert c.frame_gap(20.0) == MAX_GAP  # a long stall feeds at most max_gap
    c.mark(30.0)
    assert c.frame_gap(30.1) == pytest.approx(0.1)
