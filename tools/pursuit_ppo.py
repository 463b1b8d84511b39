"""Independent-PPO self-play on rigidflock.envs.pursuit_v0 (not run in CI): one PPO learner for
the pursuer team, one for the evader, trained in alternation against each other for a stated
wall-time budget, then every pairing of learned, scripted and random sides on held-out seeds,
before and after training.

Needs stable-baselines3 and torch, which are not rigidflock dependencies: ``pip install
torch stable-baselines3`` (a CPU build of torch is enough: ``pip install torch --index-url
https://download.pytorch.org/whl/cpu`` first). One process, one numba thread, one
torch thread.

The game: :data:`ARENA` of ``tools/pursuit_baselines.py`` (400 x 300, wrap-around, no obstacle,
flocking off), 4 pursuers (2 chase, 2 intercept, 10 and 15 N) keeping the rules' avoidance
under their own steer (``pursuer_rules=True``, the scene's chase off) against 1 evader of
``--evader-thrust`` newtons (4: the baselines page's, slower than the pursuers), 4 ticks a
step, at most ``--max-ticks`` (2400: 40 s). Rewards are the environment's zero-sum ones
(survival 1 a second, capture 10).

Learners: Stable-Baselines3's PPO, an MLP policy each, its defaults but for the rollout
(``--n-steps`` per row) and the minibatch (1,024). The pursuer learner is parameter-shared:
each pursuer of each of ``--games`` games is one row of its VecEnv, the team's reward on every
row; the evader learner's VecEnv has one row per game of its own ``--games`` games. Training
alternates phases of ``--phase-minutes``: the pursuers learn while the evader's policy, frozen,
samples the evader's actions in the pursuers' games; then the other way round. Every learner
keeps its own games between its phases (autoreset, each game's seeds from its own generator,
seeded from ``--seed``).

Evaluation: one episode per held-out seed (10000 + i, never drawn in training) for every
pairing (pursuers, evader) of ``ppo`` (deterministic), ``scripted``
(:class:`~rigidflock.envs.policies.ScriptedPursuer` and
:class:`~rigidflock.envs.policies.ScriptedEvader`) and ``random``; the learned policies both
before training (the initial networks) and after. Figures: captures within the limit, and the
mean episode length (a capture ends it; otherwise the limit).

Writes docs/results/pursuit_ppo.json and docs/images/pursuit_ppo.png.

Usage: PYTHONPATH=. python tools/pursuit_ppo.py [--minutes 10] [--games 16] [--eval-seeds 20]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from evade_ppo import rows_vec_env  # noqa: E402
from pursuit_baselines import ARENA, evader_view  # noqa: E402

from rigidflock.envs import pursuit_v0  # noqa: E402
from rigidflock.envs.observation import OWN, PER_PURSUER  # noqa: E402
from rigidflock.envs.policies import RandomPolicy, ScriptedEvader, ScriptedPursuer  # noqa: E402
from rigidflock.envs.pursuit_v0 import OPPONENTS, pursuit_scene  # noqa: E402

EVADER, SIDES = "evader_0", ("pursuer", "evader")


def make_game(max_ticks: int, thrust: float):
    """One pursuit_v0 game of the tool's setting (the module's docstring)."""
    scene = pursuit_scene(pursuers=4, flocking=False, chase=False, evader_thrust=thrust,
                          size=ARENA, obstacles=0)  # fmt: skip
    return pursuit_v0.parallel_env(scene=scene, max_ticks=max_ticks, frame_skip=4,
                                   pursuer_rules=True)  # fmt: skip


def side_agents(env, side: str) -> list[str]:
    return [a for a in env.possible_agents if a.startswith(side)]


def side_obs(games, obs, side: str) -> np.ndarray:
    """The rows of ``side`` (every game's agents of that side, in order): (rows, size)."""
    return np.stack([o[a] for g, o in zip(games, obs, strict=True) for a in side_agents(g, side)])


def side_vec_env(games, side: str, opponent, seed: int):
    """``games`` as a Stable-Baselines3 VecEnv of ``side``'s agents, one row per agent; the
    other side acts by ``opponent(obs rows) -> actions rows``. Same-step autoreset, the last
    observation in ``terminal_observation``, as SB3's own vector environments give it."""
    from gymnasium import spaces

    other = SIDES[1 - SIDES.index(side)]
    per = len(side_agents(games[0], side))

    class SideVecEnv(rows_vec_env()):
        def __init__(self):
            space = games[0].observation_space(EVADER)
            super().__init__(per * len(games), space, spaces.Box(-1.0, 1.0, (2,), np.float32))
            self.seed_ = seed
            self.obs = None
            self.actions = None
            self.opponent = opponent

        def reset(self):
            self.obs = [g.reset(seed=self.seed_ * 1000 + i)[0] for i, g in enumerate(games)]
            return side_obs(games, self.obs, side)

        def step_async(self, actions):
            self.actions = np.asarray(actions).reshape(len(games), per, 2)

        def step_wait(self):
            theirs = self.opponent(side_obs(games, self.obs, other)).reshape(len(games), -1, 2)
            rewards, dones, infos = [], [], []
            for i, g in enumerate(games):
                act = dict(zip(side_agents(g, side), self.actions[i], strict=True))
                act.update(zip(side_agents(g, other), theirs[i], strict=True))
                obs, rew, term, trunc, info = g.step(act)
                done = not g.agents
                for a in side_agents(g, side):
                    rewards.append(rew[a])
                    dones.append(done)
                    row = {}
                    if done:
                        row["terminal_observation"] = obs[a]
                        row["TimeLimit.truncated"] = bool(trunc[a] and not term[a])
                        row["pursuit_episode"] = {
                            "ticks": info[a]["tick"],
                            "captured": bool(term[a]),
                        }
                    infos.append(row)
                if done:
                    obs, _ = g.reset()
                self.obs[i] = obs
            return side_obs(games, self.obs, side), np.float32(rewards), np.array(dones), infos

        def close(self):
            pass

        def get_attr(self, name, indices=None):
            return [None] * len(self._indices(indices))

        def set_attr(self, name, value, indices=None):
            pass

        def env_method(self, name, *args, indices=None, **kwargs):
            return [None] * len(self._indices(indices))

    return SideVecEnv()


def scripted_side(env, side: str, rows: int):
    """The scripted policy of ``side`` for ``rows`` rows (games x that side's agents)."""
    ks = env.observer.ks
    if side == "pursuer":
        base = OWN + PER_PURSUER * ks[0]
        roles = [env.role[a] for a in side_agents(env, side)]
        pol = [ScriptedPursuer(base, roles[r % len(roles)]) for r in range(rows)]
        return lambda obs: np.stack([p(o) for p, o in zip(pol, obs, strict=True)])
    ev = ScriptedEvader(ks[OPPONENTS], env.observer.rays)
    return lambda obs: np.stack([ev(evader_view(env, o)) for o in obs])


def random_side(rows: int, seed: int):
    pol = [RandomPolicy(seed * 100 + r) for r in range(rows)]
    return lambda obs: np.stack([p(None) for p in pol])


def ppo_side(model):
    return lambda obs: model.predict(obs, deterministic=True)[0]


def play(games, seeds, pursuers, evader) -> tuple[np.ndarray, np.ndarray]:
    """One episode per seed, every seed a game of ``games``: (ticks, captured) per seed."""
    obs = [g.reset(seed=int(s))[0] for g, s in zip(games, seeds, strict=True)]
    ticks = np.zeros(len(seeds), np.int64)
    caught = np.zeros(len(seeds), bool)
    live = np.ones(len(seeds), bool)
    while live.any():
        # every game's rows, the ended ones' last observations too (a policy's rows are fixed)
        pa = pursuers(side_obs(games, obs, "pursuer")).reshape(len(games), -1, 2)
        ea = evader(side_obs(games, obs, "evader")).reshape(len(games), -1, 2)
        for i in np.flatnonzero(live):
            g = games[i]
            act = dict(zip(side_agents(g, "pursuer"), pa[i], strict=True))
            act.update(zip(side_agents(g, "evader"), ea[i], strict=True))
            obs[i], _, term, _, info = g.step(act)
            if not g.agents:
                ticks[i], caught[i], live[i] = info[EVADER]["tick"], term[EVADER], False
    return ticks, caught


def evaluate(games, seeds, models, dt: float, baselines: bool) -> dict:
    """Every pairing's captures and mean episode length on ``seeds`` (the scripted and random
    ones only if ``baselines``: they do not change in training)."""
    env, n = games[0], len(seeds)
    per = len(side_agents(env, "pursuer"))
    sides = {
        "pursuer": {"scripted": scripted_side(env, "pursuer", n * per),
                    "random": random_side(n * per, 1)},
        "evader": {"scripted": scripted_side(env, "evader", n), "random": random_side(n, 2)},
    }  # fmt: skip
    for stage, (pm, em) in models.items():
        sides["pursuer"][f"ppo_{stage}"] = ppo_side(pm)
        sides["evader"][f"ppo_{stage}"] = ppo_side(em)
    pairs = [("scripted", "scripted"), ("random", "scripted"), ("scripted", "random")]
    pairs = pairs if baselines else []
    for stage in models:
        p = f"ppo_{stage}"
        pairs += [(p, "scripted"), ("scripted", p), (p, p)]
    out = {}
    for p, e in pairs:
        t0 = time.perf_counter()
        ticks, caught = play(games, seeds, sides["pursuer"][p], sides["evader"][e])
        out[f"{p} vs {e}"] = {
            "pursuers": p, "evader": e, "captures": int(caught.sum()), "episodes": n,
            "mean_length_s": float(ticks.mean() * dt), "ticks": ticks.tolist(),
            "captured": caught.tolist(),
        }  # fmt: skip
        took = time.perf_counter() - t0
        print(f"{p:>12} vs {e:<12} captures {caught.sum():2d}/{n}, mean length "
              f"{ticks.mean() * dt:5.1f} s ({took:.0f} s)", flush=True)  # fmt: skip
    return out


def train(models: dict, minutes: float, phase_minutes: float, games: int, dt: float):
    """Alternate the learners' phases for ``minutes`` of wall time; returns the training curve
    (wall s, side, the learner's env steps, capture rate, mean length s, games ended in the
    rollout) and the number of phases."""
    from stable_baselines3.common.callbacks import BaseCallback

    curve = []  # (wall s, side, learner's env steps, capture rate, mean length s, episodes)
    t0 = time.perf_counter()
    budget = 60.0 * minutes

    class Phase(BaseCallback):
        def __init__(self, side, until):
            super().__init__()
            self.side, self.until, self.ended = side, until, []

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                if "pursuit_episode" in info:
                    self.ended.append(info["pursuit_episode"])
            return time.perf_counter() < self.until

        def _on_rollout_end(self) -> None:
            # one record per game: every row of a game ends together
            per = self.training_env.num_envs // games
            ended = self.ended[::per]
            if ended:
                cap = float(np.mean([e["captured"] for e in ended]))
                length = float(np.mean([e["ticks"] for e in ended])) * dt
                curve.append((time.perf_counter() - t0, self.side, int(self.num_timesteps),
                              cap, length, len(ended)))  # fmt: skip
                print(f"{curve[-1][0]:6.0f} s {self.side:>7} {self.num_timesteps:8d} steps "
                      f"captured {cap:.2f} length {length:5.1f} s ({len(ended)})",
                      flush=True)  # fmt: skip
            self.ended = []

    phase = 0
    while time.perf_counter() - t0 < budget:
        side = SIDES[phase % 2]
        until = min(time.perf_counter() + 60.0 * phase_minutes, t0 + budget)
        models[side].learn(total_timesteps=10**10, callback=Phase(side, until),
                           reset_num_timesteps=False)  # fmt: skip
        phase += 1
    return curve, phase


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0, help="training wall time, both sides")
    ap.add_argument("--phase-minutes", type=float, default=1.25)
    ap.add_argument("--games", type=int, default=16, help="games per learner")
    ap.add_argument("--n-steps", type=int, default=128, help="rollout steps per row")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-seeds", type=int, default=20)
    ap.add_argument("--max-ticks", type=int, default=2400)
    ap.add_argument("--evader-thrust", type=float, default=4.0)
    ap.add_argument("--out", default=str(ROOT / "docs" / "results" / "pursuit_ppo.json"))
    ap.add_argument("--plot", default=str(ROOT / "docs" / "images" / "pursuit_ppo.png"))
    a = ap.parse_args(argv)

    import numba
    import torch
    from stable_baselines3 import PPO

    numba.set_num_threads(1)
    torch.set_num_threads(1)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=False,
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    t_start = time.perf_counter()
    dt = make_game(a.max_ticks, a.evader_thrust).dt
    games = {s: [make_game(a.max_ticks, a.evader_thrust) for _ in range(a.games)] for s in SIDES}
    eval_games = [make_game(a.max_ticks, a.evader_thrust) for _ in range(a.eval_seeds)]
    models: dict = {}
    opp = dict.fromkeys(SIDES)  # the other learner, frozen, acting in a side's games
    envs = {}
    for k, s in enumerate(SIDES):
        other = SIDES[1 - k]
        envs[s] = side_vec_env(games[s], s, lambda obs, o=other: opp[o](obs), a.seed + k)
        models[s] = PPO("MlpPolicy", envs[s], n_steps=a.n_steps, batch_size=1024,
                        seed=a.seed + k, verbose=0, device="cpu")  # fmt: skip

    def sample(model):
        return lambda obs: model.predict(obs, deterministic=False)[0]

    opp["pursuer"], opp["evader"] = sample(models["pursuer"]), sample(models["evader"])
    seeds = 10000 + np.arange(a.eval_seeds)
    print("before training", flush=True)
    before = evaluate(
        eval_games, seeds, {"before": (models["pursuer"], models["evader"])}, dt, True
    )

    t0 = time.perf_counter()
    curve, phase = train(models, a.minutes, a.phase_minutes, a.games, dt)
    trained_s = time.perf_counter() - t0
    print("after training", flush=True)
    after = evaluate(eval_games, seeds, {"after": (models["pursuer"], models["evader"])}, dt, False)
    result = {
        "command": "PYTHONPATH=. python tools/pursuit_ppo.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "commit": commit, "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "minutes": a.minutes, "phase_minutes": a.phase_minutes, "phases": phase,
        "games": a.games, "n_steps": a.n_steps, "max_ticks": a.max_ticks,
        "evader_thrust": a.evader_thrust, "trained_seconds": trained_s,
        "env_steps": {s: int(models[s].num_timesteps) for s in SIDES},
        "wall_seconds": time.perf_counter() - t_start,
        "eval_seeds": [int(seeds[0]), int(seeds[-1])], "curve": curve,
        "evaluation": {**before, **after}, "machine": platform.processor(),
        "load_after": list(os.getloadavg()),
    }  # fmt: skip
    Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
    plot(result, a.plot)
    return 0


def plot(result: dict, path: str) -> None:
    """Left: the training games' capture rate per rollout, each learner's phases; right: the
    held-out mean episode length of every pairing, before and after training, its captures
    written at the bar's end."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(9.6, 3.8), dpi=100)
    for side, color in (("pursuer", "C3"), ("evader", "C0")):
        c = [r for r in result["curve"] if r[1] == side]
        ax.scatter([r[0] / 60 for r in c], [r[3] for r in c], s=[4 + 2 * r[5] for r in c],
                   color=color, label=f"{side}s learning")  # fmt: skip
    ax.set_xlabel("wall time, minutes")
    ax.set_ylabel("capture rate, training games per rollout")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(fontsize=7)
    ev = result["evaluation"]
    names = list(ev)
    n = ev[names[0]]["episodes"]
    colors = ["C2" if "after" in k else "C7" if "before" in k else "C1" for k in names]
    lengths = [ev[k]["mean_length_s"] for k in names]
    bx.barh(range(len(names)), lengths, color=colors)
    for i, k in enumerate(names):
        bx.text(lengths[i] + 0.5, i, f"{ev[k]['captures']}/{n} caught", va="center", fontsize=7)
    bx.set_yticks(range(len(names)), [k.replace("_", " ") for k in names], fontsize=7)
    bx.set_title("pursuers vs evader", fontsize=8)
    bx.invert_yaxis()
    bx.set_xlim(0, result["max_ticks"] / 60 * 1.3)
    bx.set_xlabel(f"mean episode length, s, {n} held-out seeds")
    fig.suptitle("Independent PPO on pursuit_v0, one process", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)


if __name__ == "__main__":
    raise SystemExit(main())
