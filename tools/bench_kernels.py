"""Profile the tick's pieces at N units: the steering passes, the rebuild, pymunk's batch I/O.

    NUMBA_NUM_THREADS=1 python tools/bench_kernels.py 10000 [repeats]

Builds the benchmark world (``rigidflock.bench.bench_scene``), runs 30 ticks, then times each
piece on the same state, ``repeats`` times (default 40), and prints the best and the median
in ms: the pair pass (with the gather into row order), the unit pass with all rules and with
flocking, avoidance or both switched off, a whole steering call, a neighbour rebuild
(``cells.ordered_rows``), pymunk's batch read and write, and a whole ``Simulation.step``. The
best of many calls is the figure to compare on a shared machine. Then ``--in-tick`` ticks
(default 200) with the tick's own calls of the kernels and of the batch read and write timed as
they run, their medians in ms: after pymunk's step the caches are cold and the second thread
asleep, so these are the figures the tick pays (compare them with the warm ones above).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numba as nb
import numpy as np

from rigidflock.bench import bench_scene
from rigidflock.model import vehicle
from rigidflock.model.steering import cells, pair_pass, unit_pass
from rigidflock.sim import Simulation


def timed(f, reps: int) -> tuple[float, float]:
    """Best and median of ``reps`` calls of f, ms."""
    f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return min(ts) * 1e3, statistics.median(ts) * 1e3


def in_tick(sim, ticks: int) -> dict[str, list[float]]:
    """Seconds of each kernel call and batch read and write that ``ticks`` ticks of ``sim``
    make, by name: the functions are wrapped in their modules while the ticks run."""
    seen: dict[str, list[float]] = {}

    def timed_call(name, f):
        def call(*args):
            t0 = time.perf_counter()
            out = f(*args)
            seen.setdefault(name, []).append(time.perf_counter() - t0)
            return out

        return call

    # each pass in either form (the parallel kernel or its one-thread twin), timed under its name
    passes = [(pair_pass, "gather_rows"), (pair_pass, "pair_pass"), (unit_pass, "unit_pass")]
    targets = passes + [(m, f"{name}_serial") for m, name in passes]
    targets.append((vehicle, "vehicle_forces_rows"))
    targets += [(sim.world, "read"), (sim.world, "write_forces")]
    saved = [(owner, name, getattr(owner, name)) for owner, name in targets]
    try:
        for owner, name, f in saved:
            setattr(owner, name, timed_call(name.removesuffix("_serial"), f))
        for _ in range(ticks):
            sim.step()
    finally:
        for owner, name, f in saved:
            if owner is sim.world:
                delattr(owner, name)  # the instance's wrapper, not a method of its class
            else:
                setattr(owner, name, f)
    return seen


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("units", nargs="?", type=int, default=10000)
    ap.add_argument("repeats", nargs="?", type=int, default=40)
    ap.add_argument("--in-tick", type=int, default=200, help="ticks timed from inside (0: none)")
    args = ap.parse_args()
    n, reps = args.units, args.repeats
    # decided before the step, the steerer may use numba's threads (beside it, one)
    sim = Simulation(bench_scene(n, reaction_ticks=0))
    for _ in range(30):
        sim.step()
    steer, st, rules = sim.steerer, sim.state, sim.rules
    steer(st, rules)
    n_ai, n_all = sim.units.n_ai, sim.units.n
    radii_, search, grid = steer._geometry(rules)
    pos, vel = np.ascontiguousarray(st.pos), np.ascontiguousarray(st.vel)
    bodies = pair_pass.Bodies(pos, vel, st.angle)
    unit_rules, weights = steer._unit_bundles(rules, steer._role, steer._wall_feeler)
    out = unit_pass.UnitOut(
        np.empty(n_all), np.empty((n_all, 2)), np.empty(n_all, bool), np.empty((n_all, 2)),
        np.empty((n_all, 2)), np.empty(n_all, np.intp),
    )  # fmt: skip

    def unit(**off):
        sums, box, scratch, trig = steer._sums(), steer._box, steer._scratch, steer.trig
        on = unit_rules._replace(**off)
        # trig: the cos/sin the tick's pair pass leaves for the unit pass
        return lambda: unit_pass.unit_pass(bodies, sums, on, weights, grid, box, out, scratch, trig)

    r = search + steer.verlet.skin
    pieces = {
        "pair pass": lambda: steer._pair_pass(
            pair_pass.Bodies(pos[:n_ai], vel[:n_ai], st.angle), rules, steer._family, radii_, search
        ),
        "unit pass": unit(),
        "unit pass, flocking off": unit(flocking=False),
        "unit pass, avoidance off": unit(avoidance=False),
        "unit pass, both off": unit(flocking=False, avoidance=False),
        "steering call": lambda: steer(st, rules),
        "neighbour rebuild": lambda: cells.ordered_rows(pos[:n_ai], r, 0.0, 0.0, False),
        "world read": lambda: sim.world.read(st),
        "world write": sim.world.write_forces,
        "Simulation.step": sim.step,
    }
    print(f"{n} units, {nb.get_num_threads()} thread(s), {len(steer._rows.nbr)} candidates")
    for name, f in pieces.items():
        best, median = timed(f, reps)
        print(f"  {name:26s} best {best:8.3f} ms  median {median:8.3f} ms")
    if args.in_tick > 0:
        print(f"in the tick, {args.in_tick} ticks:")
        for name, ts in in_tick(sim, args.in_tick).items():
            print(f"  {name:26s} median {statistics.median(ts) * 1e3:8.3f} ms  ({len(ts)} calls)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
