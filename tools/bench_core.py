"""First performance figure: ticks per second of a scene against the bare pymunk step.

Both are timed in this one process: the full rigidflock tick (state read, neighbour search, rules,
force write, pymunk step, wrap), then ``space.step`` alone on the same space (the same bodies and
contacts, no forces written, so the flock coasts). Usage:

    python tools/bench_core.py [scenes/flock500.toml] [--ticks 300] [--warmup 60]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rigidflock import Simulation, load_scene


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("scene", nargs="?", default="scenes/flock500.toml")
    ap.add_argument("--ticks", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=60)
    args = ap.parse_args()
    scene = load_scene(args.scene)
    sim = Simulation(scene)
    for _ in range(args.warmup):
        sim.step()
    t0 = time.perf_counter()
    for _ in range(args.ticks):
        sim.step()
    tick = (time.perf_counter() - t0) / args.ticks

    space, dt = sim.world.space, scene.world.dt
    t0 = time.perf_counter()
    for _ in range(args.ticks):
        space.step(dt)
    bare = (time.perf_counter() - t0) / args.ticks

    print(f"scene {args.scene}: {sim.units.n} bodies, {args.ticks} ticks after {args.warmup}")
    print(f"  full tick   {tick * 1e3:8.3f} ms  ({1 / tick:8.0f} ticks/s)")
    print(f"  bare pymunk {bare * 1e3:8.3f} ms  ({1 / bare:8.0f} steps/s)")
    print(f"  ratio       {tick / bare:8.1f} x")


if __name__ == "__main__":
    main()
