"""Baselines for rigidflock/Evade-v0: episode length of a random policy and of the scripted
evader over many seeds (the baselines of the docs' Gymnasium guide).

Each policy plays one episode per seed 0..N-1 (``env.reset(seed=s)``; the random policy's own
generator is seeded s too); the figure is the episode length in simulation ticks (1/60 s each):
mean, standard deviation, min, median, max, and how many episodes reached ``--max-ticks``
(:func:`rigidflock.envs.policies.evade_episode_lengths` plays the episodes).

Usage: python tools/evade_baselines.py [--seeds 50] [--max-ticks 18000] [--frame-skip 4]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rigidflock.envs.evade import EvadeEnv
from rigidflock.envs.policies import evade_episode_lengths


def summary(name: str, ticks: np.ndarray, max_ticks: int, dt: float) -> str:
    """One markdown table row: mean +- std (ticks and seconds), min, median, max, survivors."""
    mean, std = ticks.mean(), ticks.std(ddof=1) if len(ticks) > 1 else 0.0
    return (
        f"| {name} | {mean:.0f} +- {std:.0f} ({mean * dt:.1f} s) | {ticks.min()} | "
        f"{np.median(ticks):.0f} | {ticks.max()} | {int((ticks >= max_ticks).sum())}/{len(ticks)} |"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--max-ticks", type=int, default=18000)
    ap.add_argument("--frame-skip", type=int, default=4)
    ap.add_argument("--scene", default=None, help="scene file (default: the bundled aidemo4)")
    a = ap.parse_args(argv)
    kw = {"scene": a.scene, "max_ticks": a.max_ticks, "frame_skip": a.frame_skip}
    dt = EvadeEnv(**kw).dt
    print(f"{a.seeds} seeds, max_ticks {a.max_ticks}, frame_skip {a.frame_skip}")
    print("| policy | episode length, ticks (mean +- std) | min | median | max | reached max |")
    print("|---|---|---|---|---|---|")
    for policy in ("random", "scripted"):
        t0 = time.perf_counter()
        ticks = evade_episode_lengths(policy, range(a.seeds), **kw)
        print(summary(policy, ticks, a.max_ticks, dt), f"<!-- {time.perf_counter() - t0:.0f} s -->")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
