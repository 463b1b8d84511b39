"""rigidflock/Evade-v0 speed: environment steps per second, and what the environment adds over
stepping the Simulation directly with the same actions.

- direct: ``Simulation.step(Command(throttle, steer))`` per tick, nothing else;
- env: ``EvadeEnv.step(action)`` (frame_skip ticks, rewards, observation), same actions, same
  seed; the ratio env / direct is per simulated tick (the wrapper's overhead), and the time the
  environment adds per step is (env - direct) / steps;
- gym.make: the same through ``gym.make("rigidflock/Evade-v0")``, the environment as users get it
  (gymnasium's PassiveEnvChecker and OrderEnforcing wrappers around EvadeEnv);
- async: a 2-env AsyncVectorEnv (:func:`rigidflock.envs.vector.make_vector`, worker processes),
  environment steps per second summed over both environments.

Direct, env and gym.make runs are interleaved ``--repeat`` times, after an untimed warm-up (the
kernels' compile or cache load, first-call costs); figures are medians. The machine's other
load shows in the spread: compare figures from one run only.

Usage: python tools/bench_env.py [--ticks 1200] [--repeat 5] [--frame-skip 1 4] [--no-async]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rigidflock import Command, Simulation
from rigidflock.envs import EVADE_ID
from rigidflock.envs.evade import EvadeEnv
from rigidflock.envs.scenes import bundled_scene

SEED = 1


def time_direct(sim: Simulation, actions: np.ndarray, frame_skip: int) -> float:
    """Seconds stepping ``sim`` once per action row (row k held for frame_skip ticks, as the
    environment does), from a reset; a capture resets again, untimed, as the environment's
    episode end does."""
    sim.reset(SEED)
    clock, spent = time.perf_counter, 0.0
    for a in actions[::frame_skip]:
        t0 = clock()
        command = Command(throttle=float(a[0]), steer=float(a[1]))
        caught = False
        for _ in range(frame_skip):
            if sim.step(command).player_contacts:
                caught = True
                break
        spent += clock() - t0
        if caught:
            sim.reset(SEED)
    return spent


def time_env(env: gym.Env, actions: np.ndarray) -> tuple[float, int]:
    """Seconds and environment steps for ``len(actions)`` ticks (each action held frame_skip
    ticks); resets after a capture are not timed."""
    env.reset(seed=SEED)
    clock, spent, steps = time.perf_counter, 0.0, 0
    for a in actions[:: env.unwrapped.frame_skip]:
        t0 = clock()
        _, _, term, trunc, _ = env.step(a)
        spent += clock() - t0
        steps += 1
        if term or trunc:
            env.reset(seed=SEED)
    return spent, steps


def time_async(ticks: int, frame_skip: int) -> float:
    """Environment steps per second of a 2-env async vector environment (both counted)."""
    from rigidflock.envs.vector import make_vector

    env = make_vector(2, max_ticks=10**9, frame_skip=frame_skip)
    try:
        env.reset(seed=SEED)
        acts = np.random.default_rng(0).uniform(-1, 1, (ticks // frame_skip, 2, 2))
        env.step(acts[0].astype(np.float32))  # warm the workers
        t0 = time.perf_counter()
        for a in acts:
            env.step(a.astype(np.float32))
        return 2 * len(acts) / (time.perf_counter() - t0)
    finally:
        env.close()


def bench(ticks: int, repeat: int, frame_skip: int) -> dict:
    """Median direct, env and gym.make timings (interleaved) for one frame_skip."""
    actions = np.random.default_rng(0).uniform(-1, 1, (ticks, 2)).astype(np.float32)
    sim = Simulation(bundled_scene(), seed=SEED)
    envs = {
        "env": EvadeEnv(max_ticks=10**9, frame_skip=frame_skip),
        "made": gym.make(EVADE_ID, max_ticks=10**9, frame_skip=frame_skip),
    }
    time_direct(sim, actions[:120], frame_skip)  # warm-up: compile or load kernels, caches
    for env in envs.values():
        time_env(env, actions[:120])
    direct, wrapped = [], {name: [] for name in envs}
    for _ in range(repeat):
        d = time_direct(sim, actions, frame_skip)
        direct.append(d)
        for name, env in envs.items():
            e, steps = time_env(env, actions)
            wrapped[name].append((e / d, (e - d) / steps, e, steps))
    out = {"direct_ticks_s": ticks / statistics.median(direct)}
    for name, runs in wrapped.items():
        ratios = [r[0] for r in runs]
        e, steps = statistics.median(r[2] for r in runs), runs[0][3]
        out[name] = {
            "steps_s": steps / e,
            "ticks_s": ticks / e,
            "ratio": statistics.median(ratios),
            "ratio_range": (min(ratios), max(ratios)),
            "added_us": 1e6 * statistics.median(r[1] for r in runs),
        }
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ticks", type=int, default=1200)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--frame-skip", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--no-async", action="store_true")
    a = ap.parse_args(argv)
    print(f"aidemo4 (21 units), {a.ticks} ticks x {a.repeat} interleaved repeats, medians")
    print("| frame_skip | Simulation ticks/s | env steps/s | env ticks/s | env / direct per tick "
          "(min-max) | gym.make env / direct (min-max) | added per step, env / gym.make | "
          "2-env async steps/s |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for fs in a.frame_skip:
        r = bench(a.ticks, a.repeat, fs)
        asy = "-" if a.no_async else f"{time_async(a.ticks, fs):.0f}"
        env, made = r["env"], r["made"]
        print(
            f"| {fs} | {r['direct_ticks_s']:.0f} | {env['steps_s']:.0f} | {env['ticks_s']:.0f} | "
            f"{env['ratio']:.3f} ({env['ratio_range'][0]:.3f}-{env['ratio_range'][1]:.3f}) | "
            f"{made['ratio']:.3f} ({made['ratio_range'][0]:.3f}-{made['ratio_range'][1]:.3f}) | "
            f"{env['added_us']:.0f} / {made['added_us']:.0f} us | {asy} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
