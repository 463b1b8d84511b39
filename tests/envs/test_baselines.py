"""The scripted evader survives longer than the random policy: the observation carries what an
evader needs (a small sample of ``tools/evade_baselines.py``'s 50-seed figures). max_ticks 2400
(40 s) keeps it short: the random policy is caught after 1595-2203 ticks on these seeds, the
scripted evader is not caught before the end."""

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from rigidflock.envs.policies import evade_episode_lengths as episode_lengths

SEEDS, MAX_TICKS = range(6), 2400


def test_scripted_evader_outlives_random_policy():
    kw = {"max_ticks": MAX_TICKS, "frame_skip": 4}
    rnd = episode_lengths("random", SEEDS, **kw)
    scripted = episode_lengths("scripted", SEEDS, **kw)
    assert np.all(scripted >= rnd), (rnd, scripted)
    assert scripted.mean() > 1.15 * rnd.mean(), (rnd, scripted)
