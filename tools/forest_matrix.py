"""The forest matrix: per view x bounds x seed, obstacle contacts with avoidance on and
off, their ratio, the longest pin and the pinned unit-seconds (avoidance on). The scene is
tests/sim/test_forests.py's: 30 units of one family, no player, 800 x 600, 30 trees of radius 16
with margin 20, 3,000 ticks. The requirement: ratio <= 0.3 on every seed and longest pin <= 2 s.

    PYTHONPATH=$PWD python tools/forest_matrix.py [--views wide,limited,narrow]
        [--bounds wrap,walls] [--seeds 1-8] [--ticks 3000] [--procs 2] [--off-cache FILE]
        [--reaction-ticks 0|1] [--json FILE]

``--json FILE`` writes the matrix as JSON: the limits, the scene's text, and per cell the view,
bounds, seed, both runs' figures, the ratio (null when avoidance off made no contact but on did)
and whether the cell passes (docs/validation/forests.md is made from it).

Runs in at most 2 worker processes (each NUMBA_NUM_THREADS=1, niced to 19): the machine is
shared. ``--off-cache`` keeps the avoidance-off runs (which steering changes to avoidance do not
touch) in a JSON file so repeated measurements only run the avoidance-on half.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.sim.test_forests import FOREST  # noqa: E402  (the test's scene, one copy)

RATIO_LIMIT = 0.3
PIN_LIMIT = 2.0


def _init_worker() -> None:
    # numba is imported already (the test module above imports rigidflock): single_thread makes
    # it re-read the count before any thread starts (setting the variable alone made the first
    # compile beside the step fail: "Cannot set NUMBA_NUM_THREADS to a different value")
    from rigidflock.runs.executors import single_thread

    single_thread()
    with contextlib.suppress(OSError):
        os.nice(19)


def run_one(task):
    """(view, bounds, seed, avoid, ticks, reaction) -> (task, metrics subset)."""
    from rigidflock.runs.runner import run_scene
    from rigidflock.scene import parse_scene

    view, bounds, seed, avoid, ticks, reaction = task
    text = FOREST.format(view=view, bounds=bounds, avoid=str(avoid).lower())
    text = text.replace("[world]\n", f"[world]\nreaction_ticks = {reaction}\n")
    m = run_scene(parse_scene(text, "forest.toml"), ticks, seed=seed).metrics
    keep = ("obstacle_contacts", "longest_pin_seconds", "pinned_seconds")
    return task, {k: m[k] for k in keep}


def seeds_arg(text: str) -> list[int]:
    """'1-8' or '3,5' or '3'."""
    out = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        else:
            out.append(int(part))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--views", default="wide,limited,narrow")
    p.add_argument("--bounds", default="wrap,walls")
    p.add_argument("--seeds", default="1-8", type=seeds_arg)
    p.add_argument("--ticks", type=int, default=3000)
    p.add_argument("--procs", type=int, default=2, help="worker processes (at most 2)")
    p.add_argument("--off-cache", type=Path, help="JSON file keeping the avoidance-off runs")
    p.add_argument("--json", type=Path, help="write the matrix, with its limits, as JSON")
    p.add_argument(
        "--reaction-ticks",
        type=int,
        choices=(0, 1),
        default=0,
        help="the scenes' world.reaction_ticks (1: steering decided beside the step)",
    )
    a = p.parse_args()
    if a.json and not a.json.parent.is_dir():
        p.error(f"--json {a.json}: directory {a.json.parent} does not exist")
    views, bounds = a.views.split(","), a.bounds.split(",")
    cells = [(v, b, s) for v in views for b in bounds for s in a.seeds]
    cache = {}
    if a.off_cache and a.off_cache.exists():
        cache = json.loads(a.off_cache.read_text())

    def key(v, b, s):
        return f"{v}/{b}/{s}/{a.ticks}/r{a.reaction_ticks}"

    r = a.reaction_ticks
    tasks = [(v, b, s, True, a.ticks, r) for v, b, s in cells]
    tasks += [(v, b, s, False, a.ticks, r) for v, b, s in cells if key(v, b, s) not in cache]
    t0 = time.perf_counter()
    results = {}
    with mp.get_context("spawn").Pool(min(2, max(1, a.procs)), _init_worker) as pool:
        for task, m in pool.imap_unordered(run_one, tasks):
            results[task[:4]] = m
    for v, b, s in cells:
        if (v, b, s, False) in results:
            cache[key(v, b, s)] = results[(v, b, s, False)]
        else:
            results[(v, b, s, False)] = cache[key(v, b, s)]
    if a.off_cache:
        a.off_cache.write_text(json.dumps(cache, indent=1, sort_keys=True))

    print(f"{'view':8s} {'bounds':6s} {'seed':>4s} {'on':>5s} {'off':>5s} {'ratio':>6s} "
          f"{'pin max s':>9s} {'pinned s':>9s}")  # fmt: skip
    worst_ratio, worst_pin, fails = 0.0, 0.0, 0
    rows = []
    for v, b, s in cells:
        on, off = results[(v, b, s, True)], results[(v, b, s, False)]
        c_on, c_off = on["obstacle_contacts"], off["obstacle_contacts"]
        ratio = c_on / c_off if c_off else (0.0 if c_on == 0 else float("inf"))
        pin = on["longest_pin_seconds"]
        bad = c_on > RATIO_LIMIT * c_off or pin > PIN_LIMIT
        fails += bad
        worst_ratio, worst_pin = max(worst_ratio, ratio), max(worst_pin, pin)
        rows.append(
            {
                "view": v,
                "bounds": b,
                "seed": s,
                "on": on,
                "off": off,
                "ratio": None if ratio == float("inf") else round(ratio, 4),
                "pass": not bad,
            }
        )
        print(f"{v:8s} {b:6s} {s:4d} {c_on:5d} {c_off:5d} {ratio:6.2f} {pin:9.2f} "
              f"{on['pinned_seconds']:9.2f}{'  FAIL' if bad else ''}")  # fmt: skip
    print(f"worst ratio {worst_ratio:.2f} (limit {RATIO_LIMIT}), worst pin {worst_pin:.2f} s "
          f"(limit {PIN_LIMIT}), {fails} of {len(cells)} cells fail, "
          f"{time.perf_counter() - t0:.0f} s")  # fmt: skip
    if a.json:
        out = {
            "ticks": a.ticks,
            "reaction_ticks": a.reaction_ticks,
            "ratio_limit": RATIO_LIMIT,
            "pin_limit": PIN_LIMIT,
            "scene": FOREST,
            "cells": rows,
        }
        tmp = a.json.with_name(a.json.name + ".part")
        tmp.write_text(json.dumps(out, indent=1) + "\n")
        tmp.replace(a.json)


if __name__ == "__main__":
    main()
