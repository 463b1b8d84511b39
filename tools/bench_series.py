"""The cost of ``run --series``: a 1,000-unit run without a series and with one sampled every
--every ticks, alternating, --repeats times each, in this one process. Reports the fastest wall
time of each (the least disturbed by other load on the machine), the medians, and the ratio.
Usage:

    python tools/bench_series.py [--units 1000] [--ticks 300] [--every 10] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rigidflock.runs.runner import run_scene  # noqa: E402
from rigidflock.scene import load_scene  # noqa: E402
from rigidflock.scene.overrides import derive  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scene", default=str(ROOT / "scenes" / "flock500.toml"))
    p.add_argument("--units", type=int, default=1000)
    p.add_argument("--ticks", type=int, default=300)
    p.add_argument("--every", type=int, default=10)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    scene = derive(load_scene(a.scene), {"groups[0].count": a.units})
    run_scene(scene, 5, series_every=1)  # compile / load the kernels first
    plain, sampled = [], []
    for _ in range(a.repeats):
        plain.append(run_scene(scene, a.ticks).wall_seconds)
        sampled.append(run_scene(scene, a.ticks, series_every=a.every).wall_seconds)
    print(f"{scene.name}: {a.units} units, {a.ticks} ticks, {a.repeats} runs each, alternating")
    for name, t in (("without series", plain), (f"--series --every {a.every}", sampled)):
        print(f"  {name:24s} fastest {min(t):7.2f} s  median {statistics.median(t):7.2f} s")
    print(f"  ratio (fastest): {min(sampled) / min(plain):.3f}   "
          f"(median): {statistics.median(sampled) / statistics.median(plain):.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
