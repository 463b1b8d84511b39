"""gymnasium.vector: sync and async (worker processes) vector environments step, autoreset, and
give what single environments give for the same seeds and actions."""

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from rigidflock.envs.evade import EvadeEnv  # noqa: E402
from rigidflock.envs.vector import make_vector  # noqa: E402

TICKS, SKIP = 40, 4  # 10 steps an episode: the 14 steps below cross an autoreset


def single_run(seed, acts):
    env = EvadeEnv(max_ticks=TICKS, frame_skip=SKIP)
    first = env.reset(seed=seed)[0]
    return np.array([first, *(env.step(a)[0] for a in acts[: TICKS // SKIP])])


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_env_matches_single_envs(mode):
    """Each sub-environment i is seeded seed + i and sees the same observations as a single
    environment given that seed and its actions; episodes end and restart (autoreset)."""
    acts = np.random.default_rng(1).uniform(-1, 1, (14, 2, 2)).astype(np.float32)
    env = make_vector(2, mode=mode, max_ticks=TICKS, frame_skip=SKIP)
    try:
        obs, _ = env.reset(seed=10)
        seen, ends = [obs], 0
        for a in acts:
            obs, _, term, trunc, info = env.step(a)
            seen.append(obs)
            ends += int(np.sum(term | trunc))
        assert ends >= 2
        assert set(info) >= {"reward_survival", "reward_capture", "tick"}
    finally:
        env.close()
    seen = np.array(seen)  # (steps + 1, 2, obs)
    for i in range(2):
        expect = single_run(10 + i, acts[:, i])
        np.testing.assert_array_equal(seen[: len(expect), i], expect)
