"""Sweep executors compared in one command: the same sweep (--runs runs of the forest, --ticks
each) on 1 local worker process, on 2, and on a Dask LocalCluster of 2 worker processes (one
thread each). Totals include starting the workers (or the cluster) and loading the kernels in
them; "runs" is the time after that, the part that more or longer runs scale. The three are
measured in turn, --repeats rounds of them interleaved (the machine's speed drifts), and the ratios
are of the medians. Checks that all three give the same rows (wall time aside). Usage:

    python tools/bench_sweep.py [--runs 16] [--ticks 2400] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rigidflock.runs.executors import dask_executor, local_executor, warm_worker  # noqa: E402
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
    p.add_argument("--ticks", type=int, default=2400)
    p.add_argument("--repeats", type=int, default=3, help="interleaved rounds; medians reported")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.toml"
        scene = (ROOT / "scenes" / "forest.toml").as_posix()
        path.write_text(SWEEP.format(scene=scene, ticks=a.ticks, seeds=max(1, a.runs // 4)))
        spec = load_sweep(path)
    print(f"{len(spec.tasks)} runs of the forest, {a.ticks} ticks each", flush=True)
    times, runs, results = {}, {}, {}
    one, two, dask = "local, 1 worker", "local, 2 workers", "Dask LocalCluster, 2 workers"
    executors = {
        one: (lambda: local_executor(1), 1),
        two: (lambda: local_executor(2), 2),
        dask: (lambda: dask_executor(local_workers=2), 2),
    }
    for _ in range(a.repeats):
        for name, (make, workers) in executors.items():
            t0 = time.perf_counter()
            with make() as ex:
                list(ex.map(warm_worker, range(workers)))  # start every worker, load the kernels
                t1 = time.perf_counter()
                results[name] = run_sweep(spec, executor=ex)
                runs.setdefault(name, []).append(time.perf_counter() - t1)
            times.setdefault(name, []).append(time.perf_counter() - t0)
            print(f"  {name:28s} total {times[name][-1]:7.2f} s   runs {runs[name][-1]:7.2f} s",
                  flush=True)  # fmt: skip
    times = {k: statistics.median(v) for k, v in times.items()}
    runs = {k: statistics.median(v) for k, v in runs.items()}
    for name in executors:
        print(f"  median {name:21s} total {times[name]:7.2f} s   runs {runs[name]:7.2f} s")
    print(f"  2 workers / 1 worker: total {times[two] / times[one]:.3f}, "
          f"runs {runs[two] / runs[one]:.3f}")  # fmt: skip
    print(f"  Dask 2 / local 2: total {times[dask] / times[two]:.3f}, "
          f"runs {runs[dask] / runs[two]:.3f}")  # fmt: skip
    same = numbers(results[one]) == numbers(results[two]) == numbers(results[dask])
    print(f"  same rows (wall time aside): {same}")


if __name__ == "__main__":
    main()
