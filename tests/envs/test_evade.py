"""rigidflock/Evade-v0: the Gymnasium contract (check_env), determinism, reward and episode
ends, overrides, replays, rendering and registration."""

import subprocess
import sys

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from rigidflock.envs import EVADE_ID  # noqa: E402
from rigidflock.envs.evade import EvadeEnv  # noqa: E402
from rigidflock.envs.scenes import bundled_scene  # noqa: E402
from rigidflock.replay import ReplayReader, verify  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

# Two chasers spawned right on top of the player's path: a capture within a second.
CLOSE = """
[world]
size = [400.0, 300.0]
bounds = "wrap"
[[groups]]
role = "chase"
count = 2
spawn = { positions = [[230.0, 150.0], [240.0, 160.0]] }
[player]
position = [200.0, 150.0]
"""


def actions(n, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, (n, 2)).astype(np.float32)


@pytest.mark.filterwarnings("ignore:.*alternative render modes")
def test_check_env_passes():
    """Gymnasium's own checker on the class made directly: spaces, seeding, step/reset types,
    rgb_array rendering (tests/envs/test_checkers.py runs it through gym.make, every mode)."""
    env = EvadeEnv(render_mode="rgb_array", max_ticks=200)
    check_env(env, skip_render_check=False)
    env.close()


def test_same_seed_same_actions_same_observations_bit_for_bit():
    """Two environments, one seed, one action sequence: identical observations, rewards and ends;
    another seed gives another episode."""
    runs = []
    for seed in (7, 7, 8):
        env = EvadeEnv(max_ticks=300, frame_skip=2)
        obs, _ = env.reset(seed=seed)
        seen = [obs.tobytes()]
        for a in actions(150):
            obs, r, term, trunc, _ = env.step(a)
            seen.append((obs.tobytes(), r, term, trunc))
            if term or trunc:
                break
        runs.append(seen)
    assert runs[0] == runs[1]
    assert runs[0][0] != runs[2][0]


def test_reset_without_seed_follows_the_first_seed():
    """Seeded once, later unseeded resets draw their simulation seeds from the environment's
    generator: the same sequence of episodes again."""
    seeds = []
    for _ in range(2):
        env = EvadeEnv(max_ticks=10)
        env.reset(seed=3)
        seeds.append([env.reset()[1]["seed"] for _ in range(3)])
    assert seeds[0] == seeds[1] and len(set(seeds[0])) == 3


def test_capture_terminates_with_the_penalty_and_parts_add_up(scene_from):
    """Sitting still next to two chasers: caught, terminated (not truncated), reward = survival
    + capture, both in info."""
    env = EvadeEnv(scene_from(CLOSE), max_ticks=2000, capture_penalty=5.0)
    env.reset(seed=1)
    for _ in range(2000):
        _, r, term, trunc, info = env.step(np.zeros(2, np.float32))
        assert r == pytest.approx(info["reward_survival"] + info["reward_capture"])
        if term or trunc:
            break
    assert term and not trunc
    assert info["player_contacts"] > 0 and info["reward_capture"] == -5.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, np.float32))


def test_truncation_at_max_ticks_and_frame_skip():
    """frame_skip ticks per step (the last step stops at max_ticks); survival is seconds."""
    env = EvadeEnv(max_ticks=25, frame_skip=4, survive_reward=2.0)
    env.reset(seed=2)
    steps, total = 0, 0.0
    while True:
        _, r, term, trunc, info = env.step(np.array([1.0, 0.0], np.float32))
        steps, total = steps + 1, total + r
        if term or trunc:
            break
    assert trunc and not term and info["tick"] == 25 and steps == 7
    assert total == pytest.approx(2.0 * 25 * env.dt)


def test_overrides_change_the_scene_and_its_text():
    """Rule overrides go through scene.overrides: the scene text (what replays store) has them."""
    env = EvadeEnv(overrides={"rules.weights.chase": 3, "rules.view": "narrow"})
    assert env.sim.rules.weights.chase == 3.0 and env.sim.rules.view == "narrow"
    assert "narrow" in env.scene.text


def test_a_recorded_episode_verifies(tmp_path):
    """record_to writes one replay per episode ({episode} in the name) that re-simulates."""
    env = EvadeEnv(max_ticks=90, frame_skip=3, record_to=tmp_path / "ep{episode}.rfr")
    for seed in (4, 5):
        env.reset(seed=seed)
        for a in actions(40, seed):
            *_, term, trunc, info = env.step(a)
            if term or trunc:
                break
        assert info["replay"].endswith(f"ep{seed - 4}.rfr")
    env.close()
    for k in (0, 1):
        reader = ReplayReader(tmp_path / f"ep{k}.rfr")
        assert reader.header["seed"] == 4 + k
        assert verify(reader).ok


def test_rgb_array_render_draws_the_world_across_the_frame():
    """Offscreen drawing with no display: an (H, W, 3) uint8 picture, not blank, the world (its
    border and everything in it) spanning the frame: aidemo4's 4:3 world in a 4:3 frame leaves
    only the camera's margin, under 10% of either side (the side panel's empty band took 40%)."""
    env = EvadeEnv(render_mode="rgb_array", render_size=(160, 120))
    env.reset(seed=1)
    image = env.render()
    assert image.shape == (120, 160, 3) and image.dtype == np.uint8
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 3
    drawn = (image != image[0, 0]).any(axis=2)
    cols, rows = np.flatnonzero(drawn.any(axis=0)), np.flatnonzero(drawn.any(axis=1))
    assert cols[-1] - cols[0] > 0.9 * 160 and rows[-1] - rows[0] > 0.9 * 120
    env.close()


def test_human_mode_without_a_display_warns_once_and_skips_frames(monkeypatch):
    """No display: the environment is made and runs (the checkers make every declared mode);
    the first human frame warns once, pointing at rgb_array, and render() returns None."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("RIGIDFLOCK_HEADLESS", "1")
    env = EvadeEnv(render_mode="human")
    with pytest.warns(UserWarning, match="rgb_array") as caught:
        env.reset(seed=1)
        env.step(np.zeros(2, np.float32))
        assert env.render() is None
    assert len(caught) == 1
    env.close()


def test_registered_and_made_with_options():
    """gym.make passes scene, max_ticks and frame_skip through; the default scene is bundled."""
    env = gym.make(EVADE_ID, scene=ROOT / "scenes" / "walls.toml", max_ticks=50, frame_skip=5)
    assert env.unwrapped.scene.name == "walls"
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert bundled_scene().resolve() == (ROOT / "scenes" / "aidemo4.toml").resolve()


def test_scene_without_player_is_refused(scene_from):
    with pytest.raises(ValueError, match="no player"):
        EvadeEnv(scene_from("[[groups]]\ncount = 3\n"))


def test_importing_rigidflock_does_not_import_gymnasium():
    """gymnasium is an optional extra: the core package never loads it."""
    code = "import sys, rigidflock, rigidflock.sim; print('gymnasium' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert out.stdout.strip() == "False", out.stderr


def test_info_keys_and_action_forms():
    """info: the tick, the reward's parts and the contact counts, in that order; a list, a
    float64 array and out-of-range values act like the clipped float32 array."""
    from rigidflock.envs.evade import CONTACTS

    infos, observations = [], []
    for action in ([2.0, -0.5], np.array([2.0, -0.5]), np.array([1.0, -0.5], np.float32)):
        env = EvadeEnv(max_ticks=50, frame_skip=2)
        env.reset(seed=3)
        obs, _, _, _, info = env.step(action)
        infos.append(info)
        observations.append(obs.tobytes())
    assert list(infos[0]) == [
        "tick", "reward_survival", "reward_capture", "reward_shaping", *CONTACTS
    ]  # fmt: skip
    assert infos[0] == infos[1] == infos[2] and len(set(observations)) == 1


@pytest.mark.parametrize(
    "action", [[1.0, 0.0, 0.5], np.zeros((1, 2)), np.zeros(1), 0.5, "go", [np.nan, 0.0]]
)
def test_actions_of_the_wrong_shape_or_not_numbers_are_refused(action):
    """The action space is Box(-1, 1, (2,)): a third value, a (1, 2) batch, one number, text or
    NaN is a mistake in the caller's code, refused with the shape wanted, not half used."""
    env = EvadeEnv(max_ticks=50)
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"action: .*(want|finite)"):
        env.step(action)


def test_spec_limits_episodes_and_the_defaults_pose_the_task():
    """gym.make's spec carries the episode limit (900 steps of 4 ticks: 60 s); the direct class
    has no limit of its own unless max_ticks is given."""
    env = gym.make(EVADE_ID)
    assert env.spec.max_episode_steps == 900 and env.unwrapped.frame_skip == 4
    assert env.unwrapped.max_ticks is None
    assert env.metadata["render_fps"] == 15  # one frame a step: 60 ticks/s / 4
    env.close()


def test_shaped_reward_is_off_by_default_and_a_potential_difference_when_on():
    """shaping = 0: the reward is survival + capture only. shaping = w: the extra part of each
    step is w x (nearest pursuer distance now - at the step before), in sense ranges, so over an
    episode the parts telescope to w x (last - first)."""
    from rigidflock.envs.evade import nearest_distance

    plain = EvadeEnv(max_ticks=200)
    shaped = EvadeEnv(max_ticks=200, shaping=2.0)
    first = shaped.reset(seed=5)[0]
    plain.reset(seed=5)
    total = 0.0
    for a in actions(50, 5):
        o1, r1, *_, i1 = plain.step(a)
        o2, r2, *_, i2 = shaped.step(a)
        assert i1["reward_shaping"] == 0.0 and r1 == i1["reward_survival"]
        assert r2 == pytest.approx(r1 + i2["reward_shaping"])
        total += i2["reward_shaping"]
    np.testing.assert_array_equal(o1, o2)  # shaping changes rewards, never the run
    assert total == pytest.approx(2.0 * (nearest_distance(o2) - nearest_distance(first)))
    assert total != 0.0
    with pytest.raises(ValueError, match="shaping"):
        EvadeEnv(shaping=-1.0)
