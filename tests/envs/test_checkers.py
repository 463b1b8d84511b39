"""Every standard way into rigidflock/Evade-v0 works on a headless machine (no display, no Xvfb):
Gymnasium's check_env with its defaults (every declared render mode), AsyncVectorEnv with its
default context and gym.make_vec in each mode, and, when Stable-Baselines3 is installed (it is
not a dependency), its check_env, DummyVecEnv and SubprocVecEnv.

The process-based ones run in a fresh interpreter: the test process itself has run the compiled
kernels (numba's OpenMP threads), and a process that has must not fork, which is what
AsyncVectorEnv's default context does. What is checked is that a user's script, which makes the
vector environment before stepping any, works."""

import os
import subprocess
import sys
import textwrap

import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from rigidflock.envs import EVADE_ID  # noqa: E402
from tests.conftest import ROOT  # noqa: E402


@pytest.fixture
def headless(monkeypatch):
    """No display at all, as on a server."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("RIGIDFLOCK_HEADLESS", "1")


def run_script(code: str, tmp_path, timeout: float = 300) -> str:
    """Run ``code`` as a script file (what users run: the workers of the forkserver and spawn
    start methods import its ``__main__``) in a fresh interpreter with no display; its stdout
    (fails on a nonzero exit, which an OpenMP abort after fork gives)."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["RIGIDFLOCK_HEADLESS"] = "1"
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, env=env,
        timeout=timeout, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_default_check_env_passes_headless(headless, recwarn):
    """check_env(env) as documented: it makes the environment in each declared render mode
    through the spec, "human" included, resets it and draws a frame; with no display the human
    frame is skipped with a warning instead of failing."""
    env = gym.make(EVADE_ID)
    check_env(env.unwrapped)
    env.close()
    messages = [str(w.message) for w in recwarn]
    assert any("no display" in m for m in messages), messages


ASYNC = """
import gymnasium as gym
import numpy as np
import rigidflock.envs
from rigidflock.envs import EVADE_ID

if __name__ == "__main__":
    env = gym.vector.AsyncVectorEnv([lambda: gym.make(EVADE_ID) for _ in range(2)])
    obs, _ = env.reset(seed=3)
    for _ in range(3):
        obs, r, term, trunc, info = env.step(env.action_space.sample())
    env.close()
    print("async", obs.shape, r.tolist())
    for mode in ("async", "sync"):
        env = gym.make_vec(EVADE_ID, num_envs=2, vectorization_mode=mode)
        obs, _ = env.reset(seed=3)
        obs, r, term, trunc, info = env.step(np.zeros((2, 2), np.float32))
        env.close()
        print(mode, obs.shape, r.tolist())
"""


def test_async_vector_env_with_its_default_context_and_make_vec_modes(tmp_path):
    """AsyncVectorEnv([...]) (fork on Linux) and gym.make_vec in the async and sync modes:
    each steps, giving (2, 43) observations and the survival reward of a full step
    (4 ticks x 1/60 s)."""
    lines = run_script(ASYNC, tmp_path).splitlines()
    assert [line.split()[0] for line in lines] == ["async", "async", "sync"]
    for line in lines:
        assert "(2, 43)" in line and "0.0666" in line, line


def test_stable_baselines3_checkers_and_vector_envs(tmp_path):
    """SB3's env checker, DummyVecEnv and SubprocVecEnv (its default start method) step the
    environment (skipped unless stable-baselines3 is installed: it is not a dependency)."""
    pytest.importorskip("stable_baselines3")
    code = """
    import gymnasium as gym
    import numpy as np
    import rigidflock.envs
    from rigidflock.envs import EVADE_ID
    from stable_baselines3.common.env_checker import check_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if __name__ == "__main__":
        check_env(gym.make(EVADE_ID).unwrapped, warn=True)
        for cls in (DummyVecEnv, SubprocVecEnv):
            env = cls([lambda: gym.make(EVADE_ID) for _ in range(2)])
            env.seed(4)
            obs = env.reset()
            for _ in range(3):
                obs, r, done, info = env.step(np.zeros((2, 2), np.float32))
            env.close()
            print(cls.__name__, obs.shape, r.tolist())
    """
    lines = run_script(code, tmp_path).splitlines()
    assert [line.split()[0] for line in lines] == ["DummyVecEnv", "SubprocVecEnv"]
    assert all("(2, 43)" in line for line in lines), lines
