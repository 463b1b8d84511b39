"""Sweep executors compared in one command: the same sweep (--runs runs of the forest, --ticks
each) on 1 local worker process, on 2, and on a Dask LocalCluster of 2 worker processes (one
thread each). Times include starting the workers (and the cluster); the Dask time without the
cluster's start is shown too. Checks that all three give the same rows (wall time aside). Usage:

    python tools/bench_sweep.py [--runs 16] [--ticks 900]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rigidflock.runs.executors import dask_executor, local_executor  # noqa: E402
from rigidflock.runs.sweep import run_sweep  # noqa: E402
from rigidflock.runs.sweep_spec import load_sweep  # noqa: E402

SWEEP = """scene = "{scene}"
ticks = {ticks}
seeds = {seeds}
metrics = ["polarization_mean", "flocks_final", "obstacle_contacts"]
[grid]
"rules.weights.cohesion" = [0.5, 1.0, 2.0, 4.0]
"""


def numbers(rows):
    return [{k: v for k, v in r.items() if k != "wall_seconds"} for r in rows]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=16, help="runs (a multiple of 4)")
    p.add_argument("--ticks", type=int, default=900)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.toml"
        scene = (ROOT / "scenes" / "forest.toml").as_posix()
        path.write_text(SWEEP.format(scene=scene, ticks=a.ticks, seeds=max(1, a.runs // 4)))
        spec = load_sweep(path)
    print(f"{len(spec.tasks)} runs of the forest, {a.ticks} ticks each", flush=True)
    times, results = {}, {}
    for workers in (1, 2):
        t0 = time.perf_counter()
        with local_executor(workers) as ex:
            results[workers] = run_sweep(spec, executor=ex)
        times[workers] = time.perf_counter() - t0
        print(f"  local, {workers} worker(s): {times[workers]:7.2f} s", flush=True)
    t0 = time.perf_counter()
    with dask_executor(local_workers=2) as ex:
        t1 = time.perf_counter()
        results["dask"] = run_sweep(spec, executor=ex)
        t2 = time.perf_counter()
    times["dask"] = t2 - t0
    print(f"  Dask LocalCluster, 2 workers: {times['dask']:7.2f} s "
          f"({t2 - t1:.2f} s without starting the cluster)")  # fmt: skip
    same = numbers(results[1]) == numbers(results[2]) == numbers(results["dask"])
    print(f"  2 workers / 1 worker: {times[2] / times[1]:.3f}   "
          f"Dask 2 / local 2: {times['dask'] / times[2]:.3f}   same rows: {same}")  # fmt: skip


if __name__ == "__main__":
    main()
