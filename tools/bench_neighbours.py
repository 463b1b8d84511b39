"""The measurement that chose the neighbour search: brute force, scipy's cKDTree and the compiled
cell list, same positions, same radius, in one process (best of 5 per cell).

    python tools/bench_neighbours.py [--units 1000,10000,50000]

Density and radius follow ``rigidflock bench``: one unit per 15 x 15 of a disc, radius 24 (the
view radius of 5 unit lengths plus the neighbour-reuse skin of one length).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rigidflock.model.steering.neighbours import pairs_brute, pairs_cells, pairs_kdtree


def best(fn, *args, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--units", default="1000,10000,50000")
    ap.add_argument("--radius", type=float, default=24.0)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    pairs_cells(rng.random((10, 2)), 1.0)  # compile / load the kernel first
    print(f"{'units':>7} {'pairs':>9} {'brute ms':>9} {'kdtree ms':>10} {'cells ms':>9}")
    for n in map(int, args.units.split(",")):
        side = np.sqrt(n) * 15.0 * 1.15
        r = np.sqrt(rng.random(n)) * side / 2
        t = rng.random(n) * 2 * np.pi
        pos = np.stack([side / 2 + r * np.cos(t), side / 2 + r * np.sin(t)], axis=1)
        brute = best(pairs_brute, pos, args.radius, repeat=1) if n <= 10000 else float("nan")
        kd = best(pairs_kdtree, pos, args.radius)
        cells = best(pairs_cells, pos, args.radius)
        count = len(pairs_cells(pos, args.radius)[0])
        print(f"{n:>7} {count:>9} {brute * 1e3:>9.2f} {kd * 1e3:>10.2f} {cells * 1e3:>9.2f}")


if __name__ == "__main__":
    main()
