"""What a live change (``Command(changes=...)``, the viewer's tuning panel, ``view --watch``)
costs per tick once applied, in this one process.

Two runs of the scene: ``plain`` steps it untouched; ``live`` takes a change in the command of
the tick after --warmup untimed ticks, then both step --ticks timed ticks with no command. The
change sets the rule weights, the steering force and the first group's thrust to the values the
scene has (and, in a scene without a player, the chase weight, which steers nothing there): it
goes the whole way (validated, the scene derived, new rules, the units' constants written), yet
leaves the run the same, so both runs time the same states (checked bit for bit at the end) and
any difference is the change's own cost per tick. The two alternate --repeats times; the ratio
is of the fastest of each (the least disturbed by other load), with the median ratio beside it.
The tick that takes the change is timed too, beside the same tick of the plain run. The first
run, untimed, compiles.

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


def timed(scene, changes: dict | None, warmup: int, ticks: int):
    """(seconds of the ``ticks`` timed ticks, seconds of the tick before them: the one that
    takes ``changes`` when given, after ``warmup`` ticks; the final state)."""
    sim = Simulation(scene)
    for _ in range(warmup):
        sim.step()
    t0 = time.perf_counter()
    sim.step(Command(changes=changes) if changes else None)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(ticks):
        sim.step()
    return time.perf_counter() - t0, first, sim.state


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
    timed(scene, changes, 2, 5)  # compile and warm caches
    live, tuned, first, plain = [], [], [], []
    for _ in range(args.repeats):
        t, f, a = timed(scene, changes, args.warmup, args.ticks)
        live.append(t)
        first.append(f)
        t, f, b = timed(scene, None, args.warmup, args.ticks)
        tuned.append(t)
        plain.append(f)
        same = all(np.array_equal(getattr(a, k), getattr(b, k))
                   for k in ("pos", "vel", "angle", "omega"))  # fmt: skip
        if not same:
            print("the runs differ: the change is not a no-op here", file=sys.stderr)
            return 1
    ratio = min(live) / min(tuned)
    median_ratio = statistics.median(a / b for a, b in zip(live, tuned, strict=True))
    tick = statistics.median(plain)
    change_tick = statistics.median(first)
    n = Simulation(scene).units.n
    print(
        f"{scene.source}: {n} units, {args.ticks} timed ticks after {args.warmup}, "
        f"{args.repeats} repeats; the states of both runs identical; changes {changes}"
    )
    print(f"plain: {min(tuned) / args.ticks * 1e3:.3f} ms/tick (fastest run)")
    print(f"changed live: {min(live) / args.ticks * 1e3:.3f} ms/tick (fastest run)")
    print(f"ratio live / plain: {ratio:.3f} (median of the pairs {median_ratio:.3f})")
    print(f"the tick that takes the change: {change_tick * 1e3:.2f} ms; that tick without a "
          f"change: {tick * 1e3:.2f} ms (medians)")  # fmt: skip
    if args.json:
        data = {
            "command": "python tools/bench_live.py " + " ".join(argv or sys.argv[1:]),
            "commit": _git("rev-parse", "--short", "HEAD"),
            "tree_changed": bool(_git("status", "--porcelain", "--untracked-files=no")),
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "load": list(os.getloadavg()),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "scene": Path(str(scene.source)).name,
            "units": n,
            "ticks": args.ticks,
            "warmup": args.warmup,
            "repeats": args.repeats,
            "changes": changes,
            "live_seconds": live,
            "plain_seconds": tuned,
            "ratio": ratio,
            "median_ratio": median_ratio,
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
