"""What each ordered unit in a box was doing, sample by sample: the control state behind a pin.

    python tools/unit_trace.py bottleneck_squeeze --seed 13 --from 64 --to 74 \\
        --box 290,205,302,245 [--every 0.5] [--reaction-ticks 0|1] [--set PATH=VALUE ...]

Runs one scenario scene of ``scenes/scenarios`` and, every ``--every`` simulated seconds between
``--from`` and ``--to``, prints a line per ordered unit whose centre lies in the box (x0, y0, x1,
y1, world units), bottom to top: its id, position, heading (degrees), speed (world units / s),
whether it touches static geometry, the throttle it got (after backing out and giving way) and
the one its order asked for, the order's bow force (N), its share of the flocking rules,
whether it lies side-on against a wall, is backing off by stuck detection, how long it has gone
without progress (s), whether it has arrived, its straight distance to its slot and the gap to
the unit ahead (world units). Found this way: the bottleneck's tail pins are a lane of side-on
units above or below the gap, its head at the jamb's end, head and body backing off every few
seconds.
Run it with ``NUMBA_NUM_THREADS=1`` beside other work: the figures are the same either way.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rigidflock.bundled import scenario_path  # noqa: E402
from rigidflock.cli.args import set_arg  # noqa: E402
from rigidflock.runs.scenarios import scenario_scene  # noqa: E402
from rigidflock.scene import SceneError  # noqa: E402
from rigidflock.sim import Simulation  # noqa: E402

COLUMNS = ("t", "unit", "x", "y", "heading", "speed", "touching", "throttle", "asked", "force",
           "flock", "side_on", "backing", "waited", "arrived", "to_slot", "gap")  # fmt: skip


def trace(name, seed, start, end, box, every=0.5, reaction=None, overrides=()) -> list[dict]:
    """The rows (dicts keyed by ``COLUMNS``) of every sample from ``start`` to ``end`` seconds."""
    sim = Simulation(scenario_scene(scenario_path(name), reaction, overrides), seed)
    dt = sim.scene.world.dt
    seen = {}
    control = sim.orders.control

    def kept(state, gap, tick, dt_):  # the tick's order control, as the simulation gets it
        seen["c"], seen["gap"] = control(state, gap, tick, dt_), gap.copy()
        return seen["c"]

    sim.orders.control = kept
    step = max(1, int(round(every / dt)))
    x0, y0, x1, y1 = box
    rows = []
    while sim.tick * dt < end:
        sim.step()
        t = sim.tick * dt
        if t < start or sim.tick % step or "c" not in seen:
            continue
        st, c = sim.state, seen["c"]
        sample = []
        for g in sim.orders.groups.values():
            p = st.pos[g.members]
            inside = np.flatnonzero(
                (p[:, 0] > x0) & (p[:, 0] < x1) & (p[:, 1] > y0) & (p[:, 1] < y1)
            )
            for i in inside:
                k = int(g.members[i])
                sample.append(dict(zip(COLUMNS, (
                    t, k, float(st.pos[k, 0]), float(st.pos[k, 1]),
                    float(np.degrees(st.angle[k]) % 360), float(np.hypot(*st.vel[k])),
                    int(sim.world.touching[k] > 0), float(sim._throttle[k]), float(c.throttle[k]),
                    float(c.force[k]), float(c.flock_scale[k]), bool(c.side_on[k]),
                    bool(g.backing_until[i] > sim.tick), (sim.tick - g.progress_tick[i]) * dt,
                    bool(g.arrived[i]), float(np.hypot(*(g.slots[i] - st.pos[k]))),
                    float(seen["gap"][k]),
                ), strict=True)))  # fmt: skip
        rows += sorted(sample, key=lambda r: r["y"])
    return rows


def line(r: dict) -> str:
    return " ".join((
        f"{r['unit']:5d} ({r['x']:6.1f},{r['y']:6.1f}) hd {r['heading']:3.0f}",
        f"v {r['speed']:4.2f} touch {r['touching']} thr {r['throttle']:+.2f}",
        f"asked {r['asked']:+.2f} f {r['force']:+7.1f} flock {r['flock']:.1f}",
        f"side {int(r['side_on'])} back {int(r['backing'])} waited {r['waited']:5.1f}",
        f"arr {int(r['arrived'])} slot {r['to_slot']:5.1f} gap {r['gap']:5.1f}",
    ))  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--from", dest="start", type=float, required=True, help="seconds")
    ap.add_argument("--to", dest="end", type=float, required=True, help="seconds")
    ap.add_argument("--box", required=True, metavar="X0,Y0,X1,Y1", help="world units")
    ap.add_argument("--every", type=float, default=0.5, help="seconds between samples")
    ap.add_argument("--reaction-ticks", type=int, choices=(0, 1), default=None)
    set_arg(ap, "change a key of the scene, as rigidflock run --set")
    a = ap.parse_args()
    try:
        box = tuple(float(v) for v in a.box.split(","))
        if len(box) != 4:
            raise ValueError
    except ValueError:
        ap.error(f"--box: four numbers x0,y0,x1,y1, got {a.box!r}")
    try:
        rows = trace(a.scenario, a.seed, a.start, a.end, box, a.every, a.reaction_ticks, a.set)
    except SceneError as e:
        print("\n".join(e.errors), file=sys.stderr)
        return 2
    at = None
    for r in rows:
        if r["t"] != at:
            at = r["t"]
            print(f"--- {at:.2f} s")
        print(line(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
