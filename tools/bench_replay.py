"""Replay recording: file size per unit per tick and the cost of recording a headless run.

Runs the scene for --ticks ticks (after --warmup untimed ones) without recording and with
recording, alternating, --repeats times each, in this one process, and reports the fastest wall
time of each (the least disturbed by other load on the machine; the median too), the slowdown,
and the bytes per unit per tick of both precisions. Usage:

    python tools/bench_replay.py [scenes/flock500.toml] [--ticks 1200] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rigidflock import Simulation, load_scene
from rigidflock.replay import Recorder


def timed_run(scene, warmup: int, ticks: int, path: Path | None, precision: str) -> float:
    sim = Simulation(scene)
    for _ in range(warmup):
        sim.step()
    rec = Recorder(path, sim, precision=precision) if path is not None else None
    t0 = time.perf_counter()
    for _ in range(ticks):
        events = sim.step()
        if rec is not None:
            rec.record(None, events)
    if rec is not None:
        rec.close()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("scene", nargs="?", default="scenes/flock500.toml")
    ap.add_argument("--ticks", type=int, default=1200)
    ap.add_argument("--warmup", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    scene = load_scene(args.scene)
    n = Simulation(scene).units.n
    timed_run(scene, args.warmup, 30, None, "compact")  # compile and warm caches
    with tempfile.TemporaryDirectory() as tmp:
        out = {"plain": [], "compact": [], "exact": []}
        sizes = {}
        for _ in range(args.repeats):
            for kind in out:
                path = None if kind == "plain" else Path(tmp) / f"{kind}.rfr"
                out[kind].append(timed_run(scene, args.warmup, args.ticks, path, kind))
                if path is not None:
                    sizes[kind] = path.stat().st_size
    plain, plain_med = min(out["plain"]), statistics.median(out["plain"])
    print(f"{args.scene}: {n} units, {args.ticks} ticks after {args.warmup}, best of "
          f"{args.repeats} (median)")  # fmt: skip
    print(f"  no recording   {plain:8.3f} s  ({plain / args.ticks * 1e3:.2f} ms/tick)")
    for kind in ("compact", "exact"):
        t, med = min(out[kind]), statistics.median(out[kind])
        per = sizes[kind] / (n * (args.ticks + 1))
        print(
            f"  {kind:<8} rec  {t:8.3f} s  ({(t / plain - 1) * 100:+.1f}%, median "
            f"{(med / plain_med - 1) * 100:+.1f}%)  {sizes[kind]} bytes = "
            f"{per:.2f} bytes/unit/tick"
        )


if __name__ == "__main__":
    main()
