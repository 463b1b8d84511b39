"""The native vector environment (rigidflock.envs.native): N worlds in one process give, world
for world and bit for bit, what N single environments give for the same seeds and actions, through
episode ends and autoresets, in both autoreset modes; and it refuses what it cannot step."""

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.vector import AutoresetMode  # noqa: E402

from rigidflock.envs import EVADE_ID  # noqa: E402
from rigidflock.envs.evade import EvadeEnv  # noqa: E402
from rigidflock.envs.native import EvadeVectorEnv  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

# Two chasers spawned next to the player's path: captures (terminations) within seconds.
CLOSE = """
[world]
size = [400.0, 300.0]
bounds = "wrap"
[[groups]]
role = "chase"
count = 2
spawn = { positions = [[230.0, 150.0], [240.0, 160.0]] }
[obstacle_field]
count = 3
radius = 20.0
margin = 30.0
[player]
position = [200.0, 150.0]
"""

PARTS = ("reward_survival", "reward_capture", "reward_shaping", "player_contacts",
         "unit_contacts", "obstacle_contacts", "wall_contacts")  # fmt: skip


def run(env, seed, acts):
    """Everything a vector environment returns for ``acts`` (T, W, 2) after reset(seed)."""
    obs, _ = env.reset(seed=seed)
    out = [("reset", obs.copy())]
    for a in acts:
        obs, r, term, trunc, info = env.step(a)
        parts = {k: np.where(info["_" + k], info[k], 0) for k in PARTS if k in info}
        out.append((obs.copy(), r.copy(), term.copy(), trunc.copy(), parts))
        if "final_obs" in info:
            done = info["_final_obs"]
            out.append(("final", done.copy(), np.stack(info["final_obs"][done])))
    env.close()
    return out


def same(a, b):
    """Two runs' returns equal bit for bit (arrays by bytes and dtype)."""
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        for p, q in zip(x, y, strict=True):
            if isinstance(p, dict):
                assert p.keys() == q.keys()
                for k in p:
                    np.testing.assert_array_equal(p[k], q[k], err_msg=k)
            elif isinstance(p, np.ndarray):
                assert p.dtype == q.dtype and p.tobytes() == q.tobytes()
            else:
                assert p == q


@pytest.mark.parametrize(
    ("scene", "kw"),
    [
        (None, {"max_episode_steps": 15}),  # aidemo4: truncations every 15 steps
        # captures, shaping, and a last step cut short by max_ticks (250 = 83 x 3 + 1)
        ("close", {"frame_skip": 3, "shaping": 1.5, "max_ticks": 250}),
        (ROOT / "scenes" / "walls.toml", {"frame_skip": 2, "max_episode_steps": 12}),
    ],
)
def test_worlds_match_single_environments_bit_for_bit(scene, kw, scene_from):
    """make_vec's native mode and SyncVectorEnv of gym.make (N single environments): the same
    observations, rewards, ends and reward parts at every step, through several episodes each
    (autoreset draws each next seed from the world's own generator, as a single env does)."""
    W, T = 3, 40
    acts = np.random.default_rng(7).uniform(-1.2, 1.2, (T, W, 2)).astype(np.float32)
    if scene == "close":
        scene, T = scene_from(CLOSE), 100
        acts = np.random.default_rng(7).uniform(-0.1, 0.1, (T, W, 2)).astype(np.float32)
    native = gym.make_vec(EVADE_ID, num_envs=W, vectorization_mode="vector_entry_point",
                          scene=scene, **kw)  # fmt: skip
    assert isinstance(native.unwrapped, EvadeVectorEnv)
    assert native.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    sync = gym.make_vec(EVADE_ID, num_envs=W, vectorization_mode="sync", scene=scene, **kw)
    a, b = run(native, 3, acts), run(sync, 3, acts)
    ends = sum(int(np.sum(x[2] | x[3])) for x in a[1:])
    assert ends >= W  # every world ended at least one episode on average: autoresets ran
    if kw.get("shaping"):
        assert any(x[2].any() for x in a[1:])  # captures too
    same(a, b)


def test_same_step_autoreset_matches_sync_vector_env(scene_from):
    """autoreset_mode SAME_STEP: the new episode's first observation at once, the last one in
    info["final_obs"], as gymnasium's SyncVectorEnv in that mode."""
    W, T = 2, 30
    kw = {"scene": scene_from(CLOSE), "frame_skip": 4}
    acts = np.random.default_rng(3).uniform(-1, 1, (T, W, 2)).astype(np.float32)
    native = EvadeVectorEnv(W, autoreset_mode=AutoresetMode.SAME_STEP, **kw)
    sync = gym.vector.SyncVectorEnv([lambda: gym.make(EVADE_ID, **kw) for _ in range(W)],
                                    autoreset_mode=AutoresetMode.SAME_STEP)  # fmt: skip
    a, b = run(native, 5, acts), run(sync, 5, acts)
    assert any(x[0] == "final" for x in a if isinstance(x[0], str))
    same(a, b)


def test_seeds_partial_resets_and_spaces():
    """reset(seed=s) seeds world i with s + i (a list: one each); reset_mask resets only the
    worlds given; the spaces are the single environment's, batched."""
    env = EvadeVectorEnv(3, max_episode_steps=50)
    obs, info = env.reset(seed=[4, 9, 4])
    assert info["seed"].tolist() == [4, 9, 4]
    assert obs.shape == (3, 43) and env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs[0], obs[2])
    assert not np.array_equal(obs[0], obs[1])
    env.step(np.zeros((3, 2), np.float32))
    moved = env.step(np.zeros((3, 2), np.float32))[0]
    again, info = env.reset(seed=[1, 9, 1], options={"reset_mask": np.array([False, True, False])})
    assert info["_seed"].tolist() == [False, True, False]
    np.testing.assert_array_equal(again[0], moved[0])
    np.testing.assert_array_equal(again[1], obs[1])
    env.close()


def test_wrong_actions_and_unsupported_scenes_are_refused(scene_from):
    """Actions must be (W, 2) finite numbers; scenes with orders (or the options a batch
    does not step) are refused with the key named."""
    env = EvadeVectorEnv(2)
    env.reset(seed=1)
    for bad in (np.zeros((2, 3)), np.zeros(2), np.full((2, 2), np.nan), "go"):
        with pytest.raises(ValueError, match="actions"):
            env.step(bad)
    env.close()
    orders = CLOSE + "[[orders]]\ntick = 5\nselect = { ids = [0] }\ngoal = [100.0, 100.0]\n"
    with pytest.raises(ValueError, match="orders"):
        EvadeVectorEnv(2, scene=scene_from(orders))
    reacting = CLOSE.replace('bounds = "wrap"', 'bounds = "wrap"\nreaction_ticks = 1')
    with pytest.raises(ValueError, match="reaction_ticks"):
        EvadeVectorEnv(2, scene=scene_from(reacting))
    wandering = CLOSE + '[[behaviours]]\nfunction = "rigidflock.behaviours.examples:wander"\n'
    with pytest.raises(ValueError, match="behaviours"):
        EvadeVectorEnv(2, scene=scene_from(wandering))


def test_task_options_are_evade_envs_and_others_refused():
    """The task's keywords reach the one environment that holds the spaces (k, rays change the
    observation's size as EvadeEnv's do); an output option of EvadeEnv (record_to,
    render_size) or a misspelt one is refused, naming it, not dropped."""
    env = EvadeVectorEnv(2, k=3, rays=4, frame_skip=2)
    assert env.single_observation_space.shape == EvadeEnv(k=3, rays=4).observation_space.shape
    assert env.frame_skip == 2
    env.close()
    for bad in ({"record_to": "x.rfr"}, {"render_size": (64, 48)}, {"ray": 4}):
        with pytest.raises(TypeError, match=next(iter(bad))):
            EvadeVectorEnv(2, **bad)
