"""The bench figures of the documentation: ``rigidflock bench`` run twice, into one JSON file.

    python tools/bench_json.py                       # writes docs/results/bench.json
    python tools/bench_json.py --units 1000,10000 --runs 2 --out docs/results/bench.json
    python tools/bench_json.py --units 10000 --behaviour rigidflock.behaviours.examples:wander \
        --out docs/results/behaviours_bench.json      # each size without and with a behaviour

Runs :func:`rigidflock.bench.run_bench` (each size in a fresh process, as ``rigidflock bench``
does) ``--runs`` times in a row and writes every run's rows, with what the figures depend on: the
commit (``git rev-parse --short HEAD``, and whether the tree had changes), the date, the machine
(cores, processor), the library versions, numba's thread count and ``uptime`` before and after
each run (the machine is shared: its load moves the figures). ``python docs/generate.py`` turns
the file into the figures of ``docs/explanation/performance.md``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIBRARIES = ("rigidflock", "pymunk", "numpy", "numba", "llvmlite", "scipy")


def _git(*args: str) -> str:
    out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def _uptime() -> dict:
    """``uptime``'s line and the load averages (1, 5, 15 minutes)."""
    try:
        line = subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        line = None
    return {"uptime": line, "load": list(os.getloadavg())}


def _processor() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", default="1000,10000", help="unit counts (default 1000,10000)")
    parser.add_argument("--ticks", type=int, default=200, help="timed ticks per size")
    parser.add_argument("--warmup", type=int, default=30, help="untimed ticks first")
    parser.add_argument("--runs", type=int, default=2, help="times to run the bench, in a row")
    parser.add_argument("--out", default=str(ROOT / "docs" / "results" / "bench.json"))
    parser.add_argument(
        "--behaviour", metavar="FUNCTION", help="time each size again with this behaviour"
    )
    args = parser.parse_args(argv)

    import numba

    from rigidflock import bench
    from rigidflock.outputs import write_json

    sizes = [int(n) for n in args.units.split(",")]
    command = "python tools/bench_json.py" + "".join(
        f" {k} {v}" for k, v in (("--units", args.units), ("--ticks", args.ticks),
                                 ("--warmup", args.warmup), ("--runs", args.runs))
    ) + (f" --behaviour {args.behaviour}" if args.behaviour else "")  # fmt: skip
    runs = []
    for k in range(args.runs):
        before = _uptime()
        t0 = time.perf_counter()
        rows = bench.run_bench(sizes, args.ticks, args.warmup, orders=0, behaviour=args.behaviour)
        seconds = time.perf_counter() - t0
        runs.append({"run": k + 1, "before": before, "after": _uptime(), "seconds": seconds,
                     "results": rows})  # fmt: skip
        print(bench.format_table(rows), flush=True)
        if any("error" in r for r in rows):
            print(f"{sys.argv[0]}: a size failed; nothing written", file=sys.stderr)
            return 1
    data = {
        "command": command,
        "argv": shlex.join([sys.executable, *sys.argv]),
        "commit": _git("rev-parse", "--short", "HEAD"),
        "tree_changed": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "processor": _processor(),
            "system": f"{platform.system()} {platform.release()} {platform.machine()}",
        },
        "python": platform.python_version(),
        "versions": {name: metadata.version(name) for name in LIBRARIES},
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "units": sizes,
        "ticks": args.ticks,
        "warmup": args.warmup,
        "behaviour": args.behaviour,
        "runs": runs,
    }
    write_json(args.out, data)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
