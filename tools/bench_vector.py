"""Throughput of the native vector environment of rigidflock/Evade-v0 against one single
environment, in one command: environment steps per second (every world's steps counted).

- one thread: ``gym.make_vec("rigidflock/Evade-v0", num_envs=N)`` (the native vector environment,
  one process) at N = 1, 16, 64, 256, each against one ``gym.make("rigidflock/Evade-v0")``, both on
  one numba thread in this process, taking turns in six slices of ``--seconds / 3`` each (so load
  that drifts weighs on both); the ratio is native / single of that pair;
- both cores, one thread per core: two worker processes at once, each on one numba thread,
  each stepping a native vector environment of N / 2 worlds, against two workers each
  stepping one single environment.

Actions are uniform random (one seeded generator), the same for both; episodes end and restart
as they do in training (autoreset; the single environment is reset when an episode ends, the
reset timed too). Each figure is a time-bounded run (``2 --seconds`` of turns for one thread,
``--seconds`` for both cores) after a warm-up; the whole
series runs ``--repeat`` times (the machine's load moves absolute figures: compare the ratios
within one run). Writes docs/results/vector_bench.json (``python docs/generate.py`` makes the
guide's table).

Usage: python tools/bench_vector.py [--seconds 3] [--repeat 2] [--sizes 1 16 64 256]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

os.environ["NUMBA_NUM_THREADS"] = "1"  # before numba loads: one thread (workers inherit it)

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SEED = 1


class Single:
    """One single environment (gym.make) stepped with random actions, reset at episode ends."""

    def __init__(self):
        import gymnasium as gym

        import rigidflock.envs  # noqa: F401
        from rigidflock.envs import EVADE_ID

        self.env = gym.make(EVADE_ID)
        self.env.reset(seed=SEED)
        self.acts = np.random.default_rng(SEED).uniform(-1, 1, (4096, 2)).astype(np.float32)
        self.k = 0
        self.run(10)  # warm-up

    def run(self, steps: int) -> None:
        env, acts = self.env, self.acts
        for _ in range(steps):
            _, _, term, trunc, _ = env.step(acts[self.k % len(acts)])
            self.k += 1
            if term or trunc:
                env.reset()

    def close(self) -> None:
        self.env.close()


class Native:
    """The native vector environment of ``n`` worlds, random actions (it autoresets)."""

    def __init__(self, n: int):
        import gymnasium as gym

        import rigidflock.envs  # noqa: F401
        from rigidflock.envs import EVADE_ID

        self.n = n
        self.env = gym.make_vec(EVADE_ID, num_envs=n, vectorization_mode="vector_entry_point")
        self.env.reset(seed=SEED)
        self.acts = np.random.default_rng(SEED).uniform(-1, 1, (64, n, 2)).astype(np.float32)
        self.k = 0
        self.run(3)  # warm-up

    def run(self, steps: int) -> None:
        for _ in range(steps):
            self.env.step(self.acts[self.k % len(self.acts)])
            self.k += 1

    def close(self) -> None:
        self.env.close()


def timed(env, seconds: float) -> tuple[int, float]:
    """(steps, seconds) of ``env`` run for about ``seconds``, all worlds counted."""
    clock, steps, t0 = time.perf_counter, 0, time.perf_counter()
    while clock() - t0 < seconds:
        env.run(1)
        steps += getattr(env, "n", 1)
    return steps, clock() - t0


def interleaved(n: int, seconds: float, slices: int = 6) -> tuple[float, float]:
    """Steps per second of one single environment and of the native one of ``n`` worlds, each
    run ``slices`` times for ``seconds / slices`` in turn (load that drifts during the run then
    weighs on both alike)."""
    single, native = Single(), Native(n)
    totals = {"single": [0, 0.0], "native": [0, 0.0]}
    for _ in range(slices):
        for name, env in (("single", single), ("native", native)):
            steps, spent = timed(env, seconds / slices)
            totals[name][0] += steps
            totals[name][1] += spent
    single.close()
    native.close()
    return tuple(totals[k][0] / totals[k][1] for k in ("single", "native"))


def single_rate(seconds: float) -> float:
    """Steps per second of one single environment."""
    env = Single()
    steps, spent = timed(env, seconds)
    env.close()
    return steps / spent


def native_rate(n: int, seconds: float) -> float:
    """Steps per second (all worlds) of the native vector environment of ``n`` worlds."""
    env = Native(n)
    steps, spent = timed(env, seconds)
    env.close()
    return steps / spent


def _worker(kind: str, n: int, seconds: float, barrier, out) -> None:
    """One worker of the both-cores run: warm up, wait for the other, measure."""
    if kind == "single":
        single_rate(0.2)  # compile / cache load outside the timed run
    else:
        native_rate(n, 0.2)
    barrier.wait()
    out.put(single_rate(seconds) if kind == "single" else native_rate(n, seconds))


def both_cores(kind: str, n: int, seconds: float) -> float:
    """Summed steps per second of two workers (one thread each) running at once."""
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(kind, n, seconds, barrier, out)) for _ in range(2)]
    for p in procs:
        p.start()
    rates = [out.get() for _ in procs]
    for p in procs:
        p.join()
    return float(sum(rates))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 16, 64, 256])
    ap.add_argument("--out", default=str(ROOT / "docs" / "results" / "vector_bench.json"))
    a = ap.parse_args(argv)
    runs = []
    single_rate(0.5)  # compile / cache load
    native_rate(2, 0.5)
    for r in range(a.repeat):
        load = list(os.getloadavg())
        one = []
        for n in a.sizes:
            s, v = interleaved(n, 2 * a.seconds)
            one.append({"n": n, "single": s, "native": v, "ratio": v / s})
            print(f"run {r}: N={n:4d} single {s:7.0f} native {v:8.0f} steps/s: {v / s:5.1f}x",
                  flush=True)  # fmt: skip
        two = []
        for n in [x for x in a.sizes if x >= 16]:
            s = both_cores("single", 1, a.seconds)
            v = both_cores("native", n // 2, a.seconds)
            two.append({"n": n, "single": s, "native": v, "ratio": v / s})
            print(f"run {r}: both cores, N={n:4d} (2 x {n // 2}) single {s:7.0f} (2 x 1) "
                  f"native {v:8.0f} steps/s: {v / s:5.1f}x", flush=True)  # fmt: skip
        runs.append({"run": r, "load_before": load, "load_after": list(os.getloadavg()),
                     "one_thread": one, "both_cores": two})  # fmt: skip
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=False,
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    dirty = subprocess.run(["git", "status", "--porcelain", "rigidflock"], cwd=ROOT, check=False,
                           capture_output=True, text=True).stdout.strip() != ""  # fmt: skip
    result = {
        "command": "python tools/bench_vector.py " + " ".join(argv if argv else sys.argv[1:]),
        "commit": commit, "tree_changed": dirty, "date": time.strftime("%Y-%m-%d"),
        "seconds": a.seconds, "cpus": os.cpu_count(),
        "machine": platform.processor() or platform.machine(), "runs": runs,
    }  # fmt: skip
    Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
