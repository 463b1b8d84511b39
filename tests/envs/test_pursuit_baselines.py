"""tools/pursuit_baselines.py on a small budget: the scripted evader sees Evade-v0's layout, and
both pursuer modes run the same episodes' setup (the 50-seed figures are the tool's)."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from rigidflock.envs.observation import observation_size
from rigidflock.envs.pursuit_v0 import parallel_env
from tests.conftest import load_tool

tool = load_tool("pursuit_baselines")


def test_the_evaders_view_is_evade_v0s_layout():
    env = parallel_env(k_team=2, k_opponents=4, k_flockers=3, rays=8, flockers=3)
    obs, _ = env.reset(seed=1)
    view = tool.evader_view(env, obs["evader_0"])
    assert view.shape == (observation_size(4, 8),)
    # the four pursuers fill the opponent slots, entry 4 (agent or not) zeroed
    slots = view[5 : 5 + 24].reshape(4, 6)
    assert (slots[:, 5] == 1.0).all() and (slots[:, 4] == 0.0).all()


def test_both_modes_play_and_summarise():
    ticks = {m: tool.capture_episodes(m, [0], 90, 12.0) for m in tool.MODES}
    # 1.5 s from ~180 units apart at ~7 units/s: nobody is caught yet in either mode
    assert ticks == {"rules": [None], "control": [None]}
    s = tool.capture_summary([None, 300, 500, None])
    assert s["captures"] == 2 and s["capture_rate"] == 0.5
    assert s["mean_ticks_to_capture"] == 400 and s["capture_rate_se"] == pytest.approx(0.25)
    assert np.isfinite(s["capture_rate_se"])
