"""Bench this checkout against another commit, or against other settings, in one command:
ticks/s ratios, runs interleaved.

    python tools/bench_compare.py --base 1926f70 --units 1000,10000 --repeats 3
    python tools/bench_compare.py --base-set world.neighbour_ticks=1 --units 10000,100000

Checks the base commit out into a temporary git worktree (without ``--base``: the base is this
checkout), then runs ``rigidflock bench`` from each side in turn (A B A B ...: both see the same
machine load) and prints the median ticks/s of each and their ratio (this / base), for the tick
and for ``run`` (the tick plus the run metrics). ``--set`` and ``--base-set`` (repeatable) are
passed to one side's bench each: the cost of a setting, measured in one command. The machine
has 2 shared cores: a ratio within about +-5% is noise. ``--reaction-ticks`` is passed to both
sides' bench (a commit before it came does not know the option).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def bench(
    checkout: Path, units: str, ticks: int, out: Path, extra: list[str]
) -> dict[int, tuple[float, float]]:
    """{units: (tick ticks/s, run ticks/s)}; the run figure is the tick plus the run metrics
    (``split.metrics``), which every version of the bench reports."""
    cmd = [sys.executable, "-m", "rigidflock", "bench", "--units", units, "--ticks", str(ticks),
           "--orders", "0", "--json", str(out), *extra]  # fmt: skip
    subprocess.run(cmd, cwd=checkout, check=True, stdout=subprocess.DEVNULL)
    return {
        r["units"]: (r["ticks_per_second"], 1.0 / (r["tick_seconds"] + r["split"]["metrics"]))
        for r in json.loads(out.read_text())
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", help="commit to compare against (default: this checkout)")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                    help="passed to this side's bench")  # fmt: skip
    ap.add_argument("--base-set", action="append", default=[], metavar="PATH=VALUE",
                    help="passed to the base side's bench")  # fmt: skip
    ap.add_argument("--units", default="1000,10000")
    ap.add_argument("--ticks", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--reaction-ticks",
        choices=("0", "1"),
        help="passed to both checkouts' bench (both checkouts must know the option)",
    )
    args = ap.parse_args()
    extra = ["--reaction-ticks", args.reaction_ticks] if args.reaction_ticks else []
    sides = {
        "this": extra + [f"--set={kv}" for kv in args.set],
        "base": extra + [f"--set={kv}" for kv in args.base_set],
    }
    if args.base is None and sides["this"] == sides["base"]:
        ap.error("without --base, give --set or --base-set: the two sides would be the same")
    with tempfile.TemporaryDirectory() as tmp:
        base = ROOT
        if args.base is not None:
            base = Path(tmp) / "base"
            subprocess.run(["git", "worktree", "add", "-q", "--detach", str(base), args.base],
                           cwd=ROOT, check=True)  # fmt: skip
        try:
            runs: dict[str, list[dict[int, tuple[float, float]]]] = {"this": [], "base": []}
            for k in range(args.repeats):
                for name, where in (("this", ROOT), ("base", base)):
                    out = Path(tmp) / "b.json"
                    runs[name].append(bench(where, args.units, args.ticks, out, sides[name]))
                    print(f"  repeat {k + 1}: {name} {runs[name][-1]}", flush=True)
        finally:
            if args.base is not None:
                subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT,
                               check=False)  # fmt: skip
    print(f"this: {args.set or 'defaults'}; base: {args.base or 'this checkout'} "
          f"{args.base_set or 'defaults'}")  # fmt: skip
    print(f"{'units':>8} {'':>5} {'this ticks/s':>13} {'base ticks/s':>13} {'ratio':>7}")
    for n in runs["this"][0]:
        for k, what in enumerate(("tick", "run")):
            a = statistics.median(r[n][k] for r in runs["this"])
            b = statistics.median(r[n][k] for r in runs["base"])
            print(f"{n:8d} {what:>5} {a:13.0f} {b:13.0f} {a / b:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
