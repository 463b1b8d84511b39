"""Profile the tick's pieces at N units: the steering passes, the rebuild, pymunk's batch I/O.

    NUMBA_NUM_THREADS=1 python tools/bench_kernels.py 10000 [repeats]

Builds the benchmark world (``rigidflock.bench.bench_scene``), runs 30 ticks, then times each
piece on the same state, ``repeats`` times (default 40), and prints the best and the median
in ms: the pair pass (with the gather into row order), the unit pass with all rules and with
flocking, avoidance or both switched off, a whole steering call, a neighbour rebuild
(``cells.ordered_rows``), pymunk's batch read and write, and a whole ``Simulation.step``. The
best of many calls is the figure to compare on a shared machine.
"""

from __future__ import annotations

import statistics
import sys
import time

import numba as nb
import numpy as np

from rigidflock.bench import bench_scene
from rigidflock.model.steering import cells, kernels
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


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    # decided before the step, the steerer may use numba's threads (beside it, one)
    sim = Simulation(bench_scene(n, reaction_ticks=0))
    for _ in range(30):
        sim.step()
    steer, st, rules = sim._steerer, sim.state, sim.rules
    steer(st, rules)
    n_ai, n_all = sim.units.n_ai, sim.units.n
    radii_, search, grid = steer._geometry(rules)
    pos, vel = np.ascontiguousarray(st.pos), np.ascontiguousarray(st.vel)
    bodies = kernels.Bodies(pos, vel, st.angle)
    unit_rules, weights = steer._unit_bundles(rules, steer._role)
    out = kernels.UnitOut(
        np.empty(n_all), np.empty((n_all, 2)), np.empty(n_all, bool), np.empty((n_all, 2)),
        np.empty((n_all, 2)), np.empty(n_all, np.intp),
    )  # fmt: skip

    def unit(**off):
        sums, box, scratch, trig = steer._sums(), steer._box, steer._scratch, steer.trig
        on = unit_rules._replace(**off)
        # trig: the cos/sin the tick's pair pass leaves for the unit pass
        return lambda: kernels.unit_pass(bodies, sums, on, weights, grid, box, out, scratch, trig)

    r = search + steer.verlet.skin
    pieces = {
        "pair pass": lambda: steer._pair_pass(
            kernels.Bodies(pos[:n_ai], vel[:n_ai], st.angle), rules, steer._family, radii_, search
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
