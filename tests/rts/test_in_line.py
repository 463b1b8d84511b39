"""Another unit ahead in line (:mod:`rigidflock.rts.in_line`): the geometry the head-on tests
between groups share, and the reach that bounds their k-d tree search."""

import numpy as np

from rigidflock.rts.in_line import ahead_in_line, in_line_reach


def test_ahead_in_line_is_ahead_closer_than_the_range_and_near_the_bow_line():
    """A unit facing +x, length 2, looking 3 lengths ahead: inside up to 6 along and under 2
    to the side; behind, beyond, or a length off the line is out (strict at both edges)."""
    d = np.array([[5.9, 1.9], [0.1, 0.0], [6.0, 0.0], [3.0, 2.0], [-1.0, 0.0], [3.0, -1.9]])
    fwd = np.tile([1.0, 0.0], (len(d), 1))
    got = ahead_in_line(d, fwd, np.full(len(d), 2.0), 3.0)
    np.testing.assert_array_equal(got, [True, True, False, False, False, True])


def test_every_accepted_offset_lies_within_the_reach():
    """Random headings, lengths 1-6 and offsets: every offset accepted is shorter than the
    reach computed from the longest unit, and some come within 5% of it (the bound is tight)."""
    rng = np.random.default_rng(1)
    n = 200_000
    length = rng.uniform(1.0, 6.0, n)
    a = rng.uniform(-np.pi, np.pi, n)
    fwd = np.stack([np.cos(a), np.sin(a)], axis=1)
    d = rng.uniform(-20.0, 20.0, (n, 2))
    ok = ahead_in_line(d, fwd, length, 3.0)
    reach = in_line_reach(length, 3.0)
    dist = np.hypot(*d.T)
    assert ok.sum() > 1000
    assert (dist[ok] < reach).all()
    assert (dist[ok] / (length[ok] * np.hypot(3.0, 1.0))).max() > 0.95
