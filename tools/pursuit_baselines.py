"""Baselines for rigidflock.envs.pursuit_v0: scripted pursuers against the scripted evader, and
the environment's speed against Evade-v0's, measured in one command.

Captures: one episode per seed 0..N-1 in a 400 x 300 wrap-around arena and no obstacle
(``ARENA``) and 4 pursuers (2 chase, 2 intercept) and 1 evader, flocking off (every pursuer
leads, as the book's leaders), one tick per step. The evader is
:class:`~rigidflock.envs.policies.ScriptedEvader` on its observation (the opponent slots and
feelers: Evade-v0's layout). The pursuers are either

- ``rules``: left to the rules (``rule_pursuers=True``): the chase and intercept leaders,
  obstacle avoidance, throttle 1; or
- ``control``: agents under per-unit control keeping the rules (``pursuer_rules=True``) with
  the scene's chase switched off, steered by
  :class:`~rigidflock.envs.policies.ScriptedPursuer` (the same leader rules computed on their
  own observations), throttle 1 by their actions.

The two differ only in the chase's path: the rules' decision or the agents' observation and
command. Figure: captures within ``--max-ticks``, mean ticks to capture.

Speed: environment steps per second (one tick a step, random actions drawn beforehand) of
pursuit_v0 with 4 pursuers + 1 evader (5 observations a step) in its default scene against
Evade-v0 (1 observation a step) in its own (aidemo4: 20 units and the player), alternated
twice, best of each, on one numba thread.

Usage: PYTHONPATH=. python tools/pursuit_baselines.py [--seeds 50] [--max-ticks 2400]
           [--speed-steps 2000] [--procs 4] [--json docs/results/pursuit.json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rigidflock.envs import pursuit_v0
from rigidflock.envs.evade import EvadeEnv
from rigidflock.envs.observation import OWN, PER_PURSUER
from rigidflock.envs.policies import ScriptedEvader, ScriptedPursuer
from rigidflock.envs.pursuit_v0 import OPPONENTS, pursuit_scene

MODES = ("rules", "control")
# the capture arena: half AIDemo4's world each way (the evader starts ~180 units from the
# pursuers instead of ~360: at AIDemo4's speeds some episodes end in a capture within
# 40 s), with no obstacle (the obstacle field cannot place even one of radius 32 on every
# seed in it)
ARENA, OBSTACLES = (400.0, 300.0), 0


def evader_view(env, obs: np.ndarray) -> np.ndarray:
    """The evader's observation cut to Evade-v0's layout (own state, the opponent slots, the
    feelers), the slots' entry 4 zeroed (whether a unit is an agent differs between the modes:
    the scripted evader must see the same in both)."""
    ks = env.observer.ks
    slots = env.slots("evader_0", obs, OPPONENTS).copy()
    slots[:, 4] = 0.0
    rays = obs[OWN + PER_PURSUER * sum(ks) :]
    return np.concatenate([obs[:OWN], slots.ravel(), rays])


def capture_episodes(mode: str, seeds, max_ticks: int, thrust: float) -> list[int | None]:
    """Ticks to capture per seed (None: not caught within ``max_ticks``)."""
    scene = pursuit_scene(
        pursuers=4,
        flocking=False,
        chase=(mode == "rules"),
        evader_thrust=thrust,
        size=ARENA,
        obstacles=OBSTACLES,
    )
    env = pursuit_v0.parallel_env(
        scene=scene, max_ticks=max_ticks, frame_skip=1, rule_pursuers=(mode == "rules"),
        pursuer_rules=True,
    )  # fmt: skip
    evader = ScriptedEvader(env.observer.ks[OPPONENTS], env.observer.rays)
    base = OWN + PER_PURSUER * env.observer.ks[0]
    pursuers = {a: ScriptedPursuer(base, env.role[a]) for a in env.role}
    out = []
    for seed in seeds:
        obs, _ = env.reset(seed=int(seed))
        caught = None
        while env.agents:
            act = {a: p(obs[a]) for a, p in pursuers.items()}
            act["evader_0"] = evader(evader_view(env, obs["evader_0"]))
            obs, _, term, _, info = env.step(act)
            if term["evader_0"]:
                caught = info["evader_0"]["tick"]
        out.append(None if caught is None else int(caught))
    env.close()
    return out


def _episodes(args) -> list[int | None]:
    """:func:`capture_episodes` in a worker process, on one numba thread."""
    return capture_episodes(*args)


def capture_runs(seeds, max_ticks: int, thrust: float, procs: int) -> dict[str, list]:
    """Both modes' ticks to capture, the seeds split over ``procs`` worker processes
    (started with forkserver: the parent has used OpenMP and must not fork)."""
    chunks = [c.tolist() for c in np.array_split(np.asarray(seeds), max(procs // 2, 1)) if len(c)]
    jobs = [(mode, chunk, max_ticks, thrust) for mode in MODES for chunk in chunks]
    if procs <= 1:
        done = [capture_episodes(*j) for j in jobs]
    else:
        os.environ["NUMBA_NUM_THREADS"] = "1"
        ctx = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(procs, mp_context=ctx) as pool:
            done = list(pool.map(_episodes, jobs))
    out: dict[str, list] = {m: [] for m in MODES}
    for (mode, *_), ticks in zip(jobs, done, strict=True):
        out[mode] += ticks
    return out


def capture_summary(ticks: list[int | None]) -> dict:
    caught = [t for t in ticks if t is not None]
    n = len(ticks)
    p = len(caught) / n
    return {
        "episodes": n,
        "captures": len(caught),
        "capture_rate": p,
        "capture_rate_se": float(np.sqrt(p * (1 - p) / n)),  # binomial standard error
        "mean_ticks_to_capture": float(np.mean(caught)) if caught else None,
        "ticks": ticks,
    }


def steps_per_second(make, agents: bool, steps: int) -> float:
    """Environment steps per second over ``steps`` steps (resets included)."""
    env = make()
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1, 1, (steps, 2)).astype(np.float32)
    if agents:
        env.reset(seed=0)
        t = time.perf_counter()
        for k in range(steps):
            if not env.agents:
                env.reset()
            env.step(dict.fromkeys(env.agents, actions[k]))
    else:
        env.reset(seed=0)
        t = time.perf_counter()
        for k in range(steps):
            _, _, term, trunc, _ = env.step(actions[k])
            if term or trunc:
                env.reset()
    rate = steps / (time.perf_counter() - t)
    env.close()
    return rate


def speed(steps: int) -> dict:
    """Both environments' best steps per second, on one numba thread (as vector environments'
    workers run: a tick of a few units is too small for threads)."""
    import numba

    numba.set_num_threads(1)
    scene = pursuit_scene(pursuers=4)
    kw = {"max_ticks": 3600, "frame_skip": 1}
    runs = {
        "pursuit_v0 (4 pursuers + 1 evader)": (
            lambda: pursuit_v0.parallel_env(scene=scene, **kw), True),
        "Evade-v0 (aidemo4)": (lambda: EvadeEnv(**kw), False),
    }  # fmt: skip
    best = dict.fromkeys(runs, 0.0)
    for _ in range(2):
        for name, (make, agents) in runs.items():
            best[name] = max(best[name], steps_per_second(make, agents, steps))
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--max-ticks", type=int, default=2400)
    ap.add_argument("--speed-steps", type=int, default=2000)
    ap.add_argument("--evader-thrust", type=float, default=12.0, help="newtons (pursuers: 10, 15)")
    ap.add_argument("--json", default=None, help="write the results here")
    ap.add_argument("--procs", type=int, default=1, help="worker processes for the captures")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    results: dict = {"seeds": a.seeds, "max_ticks": a.max_ticks, "captures": {},
                     "evader_thrust": a.evader_thrust}  # fmt: skip
    print(f"{a.seeds} seeds, max_ticks {a.max_ticks}, evader thrust {a.evader_thrust:g} N")
    print("| pursuers | captures | capture rate | mean ticks to capture |")
    print("|---|---|---|---|")
    runs = capture_runs(range(a.seeds), a.max_ticks, a.evader_thrust, a.procs)
    for mode in MODES:
        s = capture_summary(runs[mode])
        results["captures"][mode] = s
        mean = s["mean_ticks_to_capture"]
        print(f"| {mode} | {s['captures']}/{s['episodes']} | {s['capture_rate']:.2f} +- "
              f"{s['capture_rate_se']:.2f} | {mean if mean is None else round(mean)} |",
              flush=True)  # fmt: skip
    rates = speed(a.speed_steps) if a.speed_steps else {}
    results["steps_per_second"] = rates
    for name, r in rates.items():
        print(f"{name}: {r:.0f} steps/s")
    if a.json:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        record = {
            "command": "PYTHONPATH=. python tools/pursuit_baselines.py "
            + " ".join(argv if argv is not None else sys.argv[1:]),
            "commit": commit,
            "date": datetime.now(UTC).strftime("%Y-%m-%d"),
            "wall_seconds": round(time.perf_counter() - t0),
            "results": results,
        }
        Path(a.json).write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
