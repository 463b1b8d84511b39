"""Learning benchmark for rigidflock/Evade-v0 (not run in CI): Stable-Baselines3's PPO on the
native vector environment for a stated wall-time budget, then the learned policy against the
random policy and the scripted evader on held-out seeds.

Needs stable-baselines3 and torch, which are not rigidflock dependencies (``pip install
torch stable-baselines3``). Trains PPO (an MLP policy, SB3's defaults but for the rollout and
batch sizes, which suit many environments) on ``gym.make_vec("rigidflock/Evade-v0",
num_envs=N)`` (one process, one numba thread, one torch thread) until ``--minutes`` of wall time
have passed; the training curve is the mean survival of the episodes ended in each rollout.
Evaluation: one episode per held-out seed (10000 + i, never used in training: training draws
its seeds from seed ``--seed``'s generators) for each policy, PPO acting deterministically, up
to ``--eval-steps`` steps (the registered 900: 60 s), all seeds at once in one native vector
environment.

Writes docs/results/evade_ppo.json and the curve docs/images/evade_ppo.png.

Usage: python tools/evade_ppo.py [--minutes 20] [--envs 64] [--eval-seeds 32]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gymnasium as gym  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

import rigidflock.envs  # noqa: E402, F401
from rigidflock.envs import EVADE_ID  # noqa: E402
from rigidflock.envs.native import EvadeVectorEnv  # noqa: E402
from rigidflock.envs.policies import RandomPolicy, ScriptedEvader  # noqa: E402


def rows_vec_env():
    """Stable-Baselines3's ``VecEnv`` with what the tools' adapters share (this tool's and
    ``pursuit_ppo.py``'s): the rows a call's ``indices`` name, no wrappers, and ``seed()``
    kept in ``seed_`` for the next reset."""
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv

    class RowsVecEnv(VecEnv):
        def env_is_wrapped(self, wrapper_class, indices=None):
            return [False] * len(self._indices(indices))

        def _indices(self, indices):
            if indices is None:
                return range(self.num_envs)
            return [indices] if isinstance(indices, int) else indices

        def seed(self, seed=None):
            self.seed_ = seed
            return [seed] * self.num_envs

    return RowsVecEnv


def sb3_vec_env(num_envs: int, seed: int, **kw):
    """The native vector environment as a Stable-Baselines3 VecEnv (same-step autoreset, the
    last observation in ``terminal_observation``, as SB3's own vector environments give it)."""

    class NativeVecEnv(rows_vec_env()):
        def __init__(self):
            self.env = EvadeVectorEnv(num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **kw)
            super().__init__(num_envs, self.env.single_observation_space,
                             self.env.single_action_space)  # fmt: skip
            self.seed_ = seed
            self._actions = None

        def reset(self):
            obs, _ = self.env.reset(seed=self.seed_)
            self.seed_ = None  # later resets are the autoresets' own draws
            return obs

        def step_async(self, actions):
            self._actions = actions

        def step_wait(self):
            obs, r, term, trunc, info = self.env.step(self._actions)
            done = term | trunc
            infos = [{} for _ in range(self.num_envs)]
            for w in np.flatnonzero(done):
                infos[w]["terminal_observation"] = info["final_obs"][w]
                infos[w]["TimeLimit.truncated"] = bool(trunc[w] and not term[w])
                infos[w]["episode_ticks"] = int(info["final_info"]["tick"][w])
            return obs, r.astype(np.float32), done, infos

        def close(self):
            self.env.close()

        def get_attr(self, name, indices=None):
            return [getattr(self.env, name)] * len(self._indices(indices))

        def set_attr(self, name, value, indices=None):
            setattr(self.env, name, value)

        def env_method(self, name, *args, indices=None, **kwargs):
            return [getattr(self.env, name)(*args, **kwargs)] * len(self._indices(indices))

    return NativeVecEnv()


def evaluate(act, seeds, max_steps: int, **kw) -> np.ndarray:
    """Ticks survived in one episode per seed, every seed a world of one native vector
    environment; ``act(obs (W, size)) -> actions (W, 2)``."""
    env = EvadeVectorEnv(len(seeds), max_episode_steps=max_steps, **kw)
    obs, _ = env.reset(seed=[int(s) for s in seeds])
    ticks = np.zeros(len(seeds), np.int64)
    done = np.zeros(len(seeds), dtype=bool)
    while not done.all():
        obs, _, term, trunc, info = env.step(act(obs))
        ended = (term | trunc) & ~done
        ticks[ended] = info["tick"][ended]
        done |= ended
    env.close()
    return ticks


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=20.0)
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--n-steps", type=int, default=64, help="rollout steps per environment")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-seeds", type=int, default=32)
    ap.add_argument("--eval-steps", type=int, default=900)
    ap.add_argument("--out", default=str(ROOT / "docs" / "results" / "evade_ppo.json"))
    ap.add_argument("--plot", default=str(ROOT / "docs" / "images" / "evade_ppo.png"))
    a = ap.parse_args(argv)

    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(1)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=False,
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    budget = 60.0 * a.minutes
    curve = []  # (wall seconds, env steps, mean survival s of episodes ended in the rollout)
    dt = gym.make(EVADE_ID).unwrapped.dt
    train_steps = 900  # the registered episode limit

    class Budget(BaseCallback):
        def __init__(self):
            super().__init__()
            self.t0 = time.perf_counter()
            self.ended: list[int] = []

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                if "episode_ticks" in info:
                    self.ended.append(info["episode_ticks"])
            return time.perf_counter() - self.t0 < budget

        def _on_rollout_end(self) -> None:
            if self.ended:
                curve.append((time.perf_counter() - self.t0, int(self.num_timesteps),
                              float(np.mean(self.ended)) * dt, len(self.ended)))  # fmt: skip
                t, n, s, k = curve[-1]
                print(f"{t:7.0f} s {n:9d} steps survival {s:6.1f} s ({k} episodes)", flush=True)
            self.ended = []

    env = sb3_vec_env(a.envs, a.seed, max_episode_steps=train_steps)
    model = PPO("MlpPolicy", env, n_steps=a.n_steps, batch_size=1024, seed=a.seed, verbose=0,
                device="cpu")  # fmt: skip
    t0 = time.perf_counter()
    model.learn(total_timesteps=10**10, callback=Budget())
    trained_s = time.perf_counter() - t0
    steps = int(model.num_timesteps)
    env.close()

    seeds = 10000 + np.arange(a.eval_seeds)
    probe = EvadeVectorEnv(1)
    k, rays, skip = probe.single.k, probe.single.rays, probe.single.frame_skip
    probe.close()
    rng = {"r": [RandomPolicy(int(s)) for s in seeds]}
    scripted = ScriptedEvader(k, rays)
    policies = {
        "ppo": lambda obs: model.predict(obs, deterministic=True)[0],
        "random": lambda obs: np.stack([p(o) for p, o in zip(rng["r"], obs, strict=True)]),
        "scripted": lambda obs: np.stack([scripted(o) for o in obs]),
    }
    evaluation = {}
    for name, act in policies.items():
        ticks = evaluate(act, seeds, a.eval_steps)
        evaluation[name] = {"mean_s": float(ticks.mean() * dt), "ticks": ticks.tolist(),
                            "reached_limit": int((ticks >= a.eval_steps * skip).sum())}  # fmt: skip
        print(name, f"{evaluation[name]['mean_s']:.1f} s", flush=True)

    result = {
        "command": "python tools/evade_ppo.py " + " ".join(argv if argv else sys.argv[1:]),
        "commit": commit, "minutes": a.minutes, "envs": a.envs, "n_steps": a.n_steps,
        "trained_seconds": trained_s, "env_steps": steps, "steps_per_second": steps / trained_s,
        "eval_seeds": [int(seeds[0]), int(seeds[-1])], "eval_steps": a.eval_steps,
        "curve": curve, "evaluation": evaluation, "machine": platform.processor(),
        "load_after": list(os.getloadavg()),
    }  # fmt: skip
    Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
    plot(result, a.plot)
    return 0


def plot(result: dict, path: str) -> None:
    """The training curve with the two baselines' held-out means as lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = np.array([c[0] for c in result["curve"]]) / 60.0
    s = np.array([c[2] for c in result["curve"]])
    ev = result["evaluation"]
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    ax.plot(t, s, label="PPO, episodes ended in each rollout")
    for name, style in (("random", ":"), ("scripted", "--"), ("ppo", "-.")):
        ax.axhline(ev[name]["mean_s"], ls=style, color="grey" if name != "ppo" else "C0",
                   label=f"{name}, held-out seeds ({ev[name]['mean_s']:.1f} s)")  # fmt: skip
    ax.set_xlabel("wall time, minutes")
    ax.set_ylabel("survival, simulated s")
    ax.set_title(f"PPO on Evade-v0, {result['envs']} worlds in one process")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)


if __name__ == "__main__":
    raise SystemExit(main())
