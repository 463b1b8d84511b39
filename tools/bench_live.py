"""What a live change (``Command(changes=...)``, the viewer's tuning panel, ``view --watch``)
costs per tick once applied, in this one process.

Two runs of the scene, stepped side by side in lockstep (each tick of one next to the same tick
of the other, which goes first alternating, so both meet the same load), on one numba thread
(the thread policy chooses by timing: under other load its choices would differ between the
runs): ``plain`` steps it untouched; ``live`` takes a change in the command of the tick after
--warmup untimed ticks; then both step --ticks timed ticks with no command. The change sets the
rule weights, the steering force and the first group's thrust to the values the scene has
(and, in a scene without a player, the chase weight, which steers nothing there): it goes the
whole way (validated, the scene derived, new rules, the units' constants written), yet leaves
the run the same, so both runs time the same states (checked bit for bit at the end) and any
difference is the change's own cost per tick. Each run's time is its median tick times the ticks (a
spike, another process taking the core for a while, moves it little). --repeats such pairs, each
beside a pair of two plain runs, whose ratio shows how far two identical runs differ (which one
is made first, where their arrays sit in memory): the change costs nothing when its ratio is
within that spread. The ratios reported are the medians of the pairs. The tick
that takes the change is timed too, beside the same tick of the plain run. A first pair,
untimed, compiles.

    python tools/bench_live.py [SCENE] [--ticks 400] [--repeats 3] [--json OUT.json]

``--json`` adds the figures, with the command, commit, date and load, to OUT.json (the last two
runs are kept: docs/results/live_change.json; ``python docs/generate.py`` puts them on the
performance page).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# one numba thread: the thread policy chooses by timing, and on a machine under other load its
# choices (so the speed) would differ between the two runs, change or none
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from rigidflock import Simulation, load_scene  # noqa: E402
from rigidflock.bundled import resolve_scene  # noqa: E402
from rigidflock.sim import Command  # noqa: E402


def same_values(scene) -> dict:
    """A change of every rule weight, the steering force and the first group's thrust to the
    values ``scene`` has (the chase weight doubled when there is no player to chase)."""
    w = scene.rules.weights
    changes = {f"rules.weights.{k}": float(getattr(w, k)) for k in
               ("cohesion", "alignment", "separation", "chase", "avoidance")}  # fmt: skip
    if scene.player is None:
        changes["rules.weights.chase"] = 2 * w.chase + 1
    changes["rules.steering_force"] = float(scene.rules.steering_force)
    changes["groups[0].thrust"] = float(scene.groups[0].thrust)
    return changes


def paired(scene, changes: dict, warmup: int, ticks: int):
    """The two runs side by side, in lockstep: each steps ``warmup`` ticks, then the tick that
    takes ``changes`` (``live``) or none (``plain``), then ``ticks`` timed ticks, each tick of
    one run next to the same tick of the other (which goes first alternates), so both meet the
    same load. Returns (seconds of the live run's timed ticks, of the plain run's, of the change's
    tick, of that tick of the plain run, whether the final states are identical); the timed
    ticks' times as the median tick times the ticks (a spike, another process taking the core
    for a while, moves the median of hundreds of ticks little)."""
    live, plain = Simulation(scene), Simulation(scene)
    clock = time.perf_counter
    for _ in range(warmup):
        live.step(), plain.step()
    t0 = clock()
    live.step(Command(changes=changes))
    t1 = clock()
    plain.step()
    t2 = clock()
    change_tick, plain_tick = t1 - t0, t2 - t1
    spent = {"live": [], "plain": []}
    for k in range(ticks):
        order = (("live", live), ("plain", plain)) if k % 2 else (("plain", plain), ("live", live))
        for name, sim in order:
            t0 = clock()
            sim.step()
            spent[name].append(clock() - t0)
    same = all(np.array_equal(getattr(live.state, k), getattr(plain.state, k))
               for k in ("pos", "vel", "angle", "omega"))  # fmt: skip
    live_s, plain_s = (statistics.median(spent[k]) * ticks for k in ("live", "plain"))
    return live_s, plain_s, change_tick, plain_tick, same


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    except OSError:
        return ""
    return out.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scene", nargs="?", default="flock500")
    ap.add_argument("--ticks", type=int, default=400)
    ap.add_argument("--warmup", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", metavar="OUT.json")
    args = ap.parse_args(argv)
    scene = load_scene(resolve_scene(args.scene))
    changes = same_values(scene)
    load_before = list(os.getloadavg())
    paired(scene, changes, 2, 5)  # compile and warm caches
    ratios, same_ratios, first, plain = [], [], [], []
    live_s, plain_s = [], []
    for _ in range(args.repeats):
        # a pair with the change, and a pair of two plain runs: how far two identical runs
        # differ (which one is made first, where their arrays sit) is the yardstick
        for ch, out in ((changes, ratios), ({}, same_ratios)):
            a, b, f, g, same = paired(scene, ch, args.warmup, args.ticks)
            if not same:
                print("the runs differ: the change is not a no-op here", file=sys.stderr)
                return 1
            out.append(a / b)
            if ch:
                live_s.append(a)
                plain_s.append(b)
                first.append(f)
                plain.append(g)
    ratio, same_ratio = statistics.median(ratios), statistics.median(same_ratios)
    tick = statistics.median(plain)
    change_tick = statistics.median(first)
    n = Simulation(scene).units.n
    print(
        f"{scene.source}: {n} units, {args.ticks} timed ticks after {args.warmup}, "
        f"{args.repeats} pairs of each kind; the states of both runs identical; changes {changes}"
    )
    print(f"plain: {statistics.median(plain_s) / args.ticks * 1e3:.3f} ms/tick (median)")
    print(f"changed live: {statistics.median(live_s) / args.ticks * 1e3:.3f} ms/tick (median)")
    spread = f"{min(ratios):.3f}-{max(ratios):.3f}"
    same_spread = f"{min(same_ratios):.3f}-{max(same_ratios):.3f}"
    print(f"ratio live / plain: {ratio:.3f} (pairs {spread}); two plain runs: {same_ratio:.3f} "
          f"(pairs {same_spread})")  # fmt: skip
    print(f"the tick that takes the change: {change_tick * 1e3:.2f} ms; that tick without a "
          f"change: {tick * 1e3:.2f} ms (medians)")  # fmt: skip
    if args.json:
        data = {
            "command": "python tools/bench_live.py " + " ".join(argv or sys.argv[1:]),
            "commit": _git("rev-parse", "--short", "HEAD"),
            "tree_changed": bool(_git("status", "--porcelain", "--untracked-files=no")),
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "load": load_before,
            "load_after": list(os.getloadavg()),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numba_threads": int(os.environ["NUMBA_NUM_THREADS"]),
            "scene": Path(str(scene.source)).name,
            "units": n,
            "ticks": args.ticks,
            "warmup": args.warmup,
            "repeats": args.repeats,
            "changes": changes,
            "live_seconds": live_s,
            "plain_seconds": plain_s,
            "ratios": ratios,
            "plain_ratios": same_ratios,
            "ratio": ratio,
            "plain_ratio": same_ratio,
            "change_tick_seconds": change_tick,
            "tick_seconds": tick,
        }
        runs = []
        out = Path(args.json)
        if out.exists():  # the runs before, measured again: kept side by side
            runs = json.loads(out.read_text()).get("runs", [])
        runs = [*runs[-1:], data]
        out.write_text(json.dumps({"runs": runs}, indent=2) + "\n")
        print(f"wrote {out} ({len(runs)} run(s))")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
