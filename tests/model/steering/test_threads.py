"""The thread policy: measured choice, stall fallback, one thread when told."""

import numba
import pytest

from rigidflock.model.steering.threads import PROBE, STALLS, ThreadPolicy

# the policy sets numba's thread count; numba refuses more than NUMBA_NUM_THREADS
two_threads = pytest.mark.skipif(
    numba.config.NUMBA_NUM_THREADS < 2, reason="needs NUMBA_NUM_THREADS >= 2"
)


def run(policy, times, ticks):
    """Drive the policy: ``times[threads]`` is the pass time for each thread count."""
    for _ in range(ticks):
        policy.begin()
        kind = policy.probe_kind
        n = 1 if kind == "1" else (policy.max_threads if kind == "N" else policy.threads)
        policy.end(times[n])


@two_threads
def test_picks_threads_when_they_pay():
    p = ThreadPolicy(max_threads=2)
    run(p, {1: 4e-3, 2: 2e-3}, len(PROBE) + 5)
    assert p.threads == 2 and p.probes == 1


@two_threads
def test_keeps_one_thread_when_threads_stall():
    p = ThreadPolicy(max_threads=2)
    run(p, {1: 1e-3, 2: 20e-3}, 20)
    assert p.threads == 1
    assert p.probe_kind is None  # the probe stopped at the first stalled parallel tick


@two_threads
def test_stalls_while_running_drop_to_one_thread():
    p = ThreadPolicy(max_threads=2)
    run(p, {1: 4e-3, 2: 2e-3}, len(PROBE))
    assert p.threads == 2
    for _ in range(STALLS):
        assert p.threads == 2
        p.begin()
        p.end(50e-3)  # the machine got busy
    assert p.threads == 1


@two_threads
def test_a_single_slow_tick_keeps_the_threads():
    """One slow parallel tick between normal ones (a hiccup) is no reason to drop to one
    thread until the next probe."""
    p = ThreadPolicy(max_threads=2)
    run(p, {1: 4e-3, 2: 2e-3}, len(PROBE))
    for _ in range(5):
        p.begin()
        p.end(50e-3)
        run(p, {1: 4e-3, 2: 2e-3}, 3)
    assert p.threads == 2 and p.probes == 1


@two_threads
def test_probes_again_less_often_when_the_answer_holds():
    p = ThreadPolicy(max_threads=2, period=10, max_period=40)
    run(p, {1: 4e-3, 2: 2e-3}, 200)
    assert p.probes >= 3 and p.period == 40 and p.threads == 2


def test_one_configured_thread_means_no_probe():
    p = ThreadPolicy(max_threads=1)
    run(p, {1: 1e-3}, 50)
    assert p.threads == 1 and p.probes == 0
