"""The cost of naming the units of each contact (``StepEvents.unit_pairs``): ms per tick of a
scene with the pair-keeping begin callbacks against the same scene with callbacks that only
count (what the simulation had before), alternated 3 times in one command, best of each.

Usage: PYTHONPATH=. python tools/bench_contact_pairs.py SCENE [--ticks 400]
(e.g. flock500, or a crowded walled scene where contacts begin every tick)
"""

from __future__ import annotations

import argparse
import time

from rigidflock.model.world import PLAYER, UNIT
from rigidflock.sim import Simulation


def ms_per_tick(scene: str, pairs: bool, ticks: int) -> tuple[float, float]:
    """(ms per tick, contact begins per tick) over ``ticks`` after 50 warm-up ticks."""
    sim = Simulation(scene, seed=1)
    if not pairs:  # the counting callbacks alone (a measurement, not an API)
        w = sim.world
        w.space.on_collision(UNIT, UNIT, begin=w._count("unit"))
        w.space.on_collision(UNIT, PLAYER, begin=w._count("player"))
    for _ in range(50):
        sim.step()
    contacts = 0
    t = time.perf_counter()
    for _ in range(ticks):
        contacts += sim.step().unit_contacts
    return 1e3 * (time.perf_counter() - t) / ticks, contacts / ticks


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scene")
    ap.add_argument("--ticks", type=int, default=400)
    a = ap.parse_args(argv)
    best = {False: float("inf"), True: float("inf")}
    rate = 0.0
    for _ in range(3):
        for pairs in (False, True):
            ms, rate = ms_per_tick(a.scene, pairs, a.ticks)
            best[pairs] = min(best[pairs], ms)
    print(f"{a.scene}: {rate:.2f} unit contact begins a tick")
    print(f"counts only {best[False]:.3f} ms/tick, with pairs {best[True]:.3f} ms/tick, "
          f"ratio {best[True] / best[False]:.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
