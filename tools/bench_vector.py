"""Throughput of the native vector environment of rigidflock/Evade-v0 against one single
environment, in one command: environment steps per second (every world's steps counted).

- one thread: ``gym.make_vec("rigidflock/Evade-v0", num_envs=N)`` (the native vector environment,
  one process) at N = 1, 16, 64, 256, each run next to one ``gym.make("rigidflock/Evade-v0")``
  stepped alone, both on one numba thread in this process; the ratio is native / single of that
  pair;
- both cores, one thread per core: two worker processes at once, each on one numba thread,
  each stepping a native vector environment of N / 2 worlds, against two workers each
  stepping one single environment.

Actions are uniform random (one seeded generator), the same for both; episodes end and restart
as they do in training (autoreset; the single environment is reset when an episode ends, the
reset timed too). Each figure is a time-bounded run of ``--seconds`` after a warm-up; the whole
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


def single_rate(seconds: float) -> float:
    """Steps per second of one single environment (gym.make), random actions."""
    import gymnasium as gym

    import rigidflock.envs  # noqa: F401
    from rigidflock.envs import EVADE_ID

    env = gym.make(EVADE_ID)
    env.reset(seed=SEED)
    rng = np.random.default_rng(SEED)
    acts = rng.uniform(-1, 1, (4096, 2)).astype(np.float32)
    for a in acts[:10]:  # warm-up
        if any(env.step(a)[2:4]):
            env.reset()
    steps, clock = 0, time.perf_counter
    t0 = clock()
    while clock() - t0 < seconds:
        _, _, term, trunc, _ = env.step(acts[steps % len(acts)])
        steps += 1
        if term or trunc:
            env.reset()
    rate = steps / (clock() - t0)
    env.close()
    return rate


def native_rate(n: int, seconds: float) -> float:
    """Steps per second (all worlds) of the native vector environment of ``n`` worlds."""
    import gymnasium as gym

    import rigidflock.envs  # noqa: F401
    from rigidflock.envs import EVADE_ID

    env = gym.make_vec(EVADE_ID, num_envs=n, vectorization_mode="vector_entry_point")
    env.reset(seed=SEED)
    rng = np.random.default_rng(SEED)
    acts = rng.uniform(-1, 1, (64, n, 2)).astype(np.float32)
    for a in acts[:3]:  # warm-up
        env.step(a)
    steps, clock = 0, time.perf_counter
    t0 = clock()
    while clock() - t0 < seconds:
        env.step(acts[steps % len(acts)])
        steps += 1
    rate = n * steps / (clock() - t0)
    env.close()
    return rate


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
            s = single_rate(a.seconds)
            v = native_rate(n, a.seconds)
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
