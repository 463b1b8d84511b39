"""The frame-time figures of the documentation: ``rigidflock bench --frames`` into one JSON file.

    python tools/frames_json.py --label after                  # runs the bench, 1,000 and 5,000
    python tools/frames_json.py --label before --from b.json --commit f2ec477

Runs ``rigidflock bench --frames`` (each size in its own process) at ``--units`` with
``--frame-ticks`` per size (``--ticks-5000`` for 5,000 units and more: a 5,000-unit army takes
minutes of machine time to reach its formation), or adopts the JSON such a run wrote
(``--from``, with the ``--commit`` it ran at), and stores it under ``--label`` in
docs/results/frames.json with the command, the commit, the date and ``uptime`` before and after
(the machine is shared: its load moves the milliseconds; the ratios are within one run).
``python docs/generate.py`` turns the file into the frame-time table of
``docs/explanation/performance.md``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "results" / "frames.json"


def _git(*args: str) -> str:
    out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True, help="the run's name in the file (before, ...)")
    parser.add_argument("--units", default="1000,5000", help="unit counts (default 1000,5000)")
    parser.add_argument("--frame-ticks", type=int, default=12000, help="most ticks per size")
    parser.add_argument("--ticks-5000", type=int, default=4000, help="most ticks from 5,000 units")
    parser.add_argument("--from", dest="source", help="adopt this bench --frames JSON instead")
    parser.add_argument("--commit", help="with --from: the commit it ran at")
    args = parser.parse_args(argv)
    rows, commands = [], []
    before = _load()
    if args.source:
        rows = json.loads(Path(args.source).read_text())
        commit = args.commit or _git("rev-parse", "--short", "HEAD")
        commands = ["rigidflock bench --frames " + ",".join(str(r["units"]) for r in rows)]
    else:
        commit = _git("rev-parse", "--short", "HEAD")
        for n in (int(x) for x in args.units.split(",")):
            ticks = args.ticks_5000 if n >= 5000 else args.frame_ticks
            tmp = ROOT / f".frames_{n}.json"
            cmd = ["rigidflock", "bench", "--frames", str(n), "--frame-ticks", str(ticks)]
            commands.append(" ".join(cmd))
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
            done = subprocess.run(
                [sys.executable, "-m", "rigidflock", *cmd[1:], "--json", str(tmp)],
                cwd=ROOT,
                env=env,
                check=False,
            )
            if done.returncode:
                print(f"frames_json: {' '.join(cmd)} exited {done.returncode}", file=sys.stderr)
                return 1
            rows += json.loads(tmp.read_text())
            tmp.unlink()
    data = json.loads(OUT.read_text()) if OUT.exists() else {"runs": {}}
    data["runs"][args.label] = {
        "commands": commands,
        "commit": commit,
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        # adopted: the load while it ran was not recorded
        "load_before": None if args.source else before,
        "load_after": None if args.source else _load(),
        "results": rows,
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{OUT.relative_to(ROOT)}: {args.label} recorded at {commit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
