"""The cold first run: how long a newcomer waits for the kernels to compile, against a base commit.

For each case (a first ``run``, a first ``view --screenshot``, a first RTS run, the environment's
first ``reset`` + ``step``) it runs the command once with the code of ``--base`` (a git commit,
checked out in a temporary worktree) and once with the code of this checkout, each in a fresh
process with empty caches (a new ``XDG_CACHE_HOME`` and ``HOME``, ``NUMBA_CACHE_DIR`` unset, no
``__pycache__`` in either tree), interleaved so a change in the machine's load hits both alike.
Then the same commands again on the now warm caches. Prints a table of seconds and the ratio
current / base, and writes JSON with ``--json``.

    python tools/bench_cold.py --base 56c71fe --json docs/results/cold.json

Each cold run compiles for one to three minutes: the whole takes 10-30 minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ENV_STEP = (
    "import gymnasium as gym, rigidflock.envs; env = gym.make('rigidflock/Evade-v0'); "
    "env.reset(seed=1); env.step(env.action_space.sample())"
)
CLI = ["-c", "import sys; from rigidflock.cli import main; sys.exit(main(sys.argv[1:]))"]
CASES = {
    "run aidemo4 --ticks 60": [*CLI, "run", "aidemo4", "--ticks", "60"],
    "view aidemo4 --screenshot": [
        *CLI,
        "view",
        "aidemo4",
        "--ticks",
        "60",
        "--screenshot",
        "{tmp}/a.png",
    ],
    "run rts_doorway --ticks 60": [*CLI, "run", "rts_doorway", "--ticks", "60"],
    "Evade-v0 reset + step": ["-c", ENV_STEP],
}


def _clean(tree: Path) -> None:
    for d in tree.rglob("__pycache__"):
        shutil.rmtree(d, ignore_errors=True)


def _time(tree: Path, argv: list[str], home: Path) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CACHE")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), PYTHONPATH=str(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    args = [a.replace("{tmp}", str(home)) for a in argv]
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args], check=False, cwd=home, env=env, capture_output=True, text=True
    )
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed in {tree}:\n{done.stderr[-2000:]}")
    return seconds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the git commit to compare against")
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated cases")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)
    names = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        ap.error(f"unknown case {unknown[0]!r}; cases: {', '.join(CASES)}")
    base_commit = subprocess.run(
        ["git", "rev-parse", "--short", args.base],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="rf-cold-") as tmp:
        base_tree = Path(tmp) / "base"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "-q", str(base_tree), args.base],
            cwd=ROOT,
            check=True,
        )
        try:
            rows = []
            for name in names:
                row = {"case": name}
                for label, tree in (("base", base_tree), ("current", ROOT)):
                    home = Path(tempfile.mkdtemp(prefix=f"{label}-", dir=tmp))
                    _clean(tree)
                    row[f"{label}_cold"] = _time(tree, CASES[name], home)
                    row[f"{label}_warm"] = _time(tree, CASES[name], home)
                row["cold_ratio"] = row["current_cold"] / row["base_cold"]
                row["warm_ratio"] = row["current_warm"] / row["base_warm"]
                rows.append(row)
                print(
                    f"{name:28s} cold {row['base_cold']:7.1f} s -> {row['current_cold']:7.1f} s"
                    f" ({row['cold_ratio']:.2f}x); warm {row['base_warm']:5.1f} s -> "
                    f"{row['current_warm']:5.1f} s ({row['warm_ratio']:.2f}x)",
                    flush=True,
                )
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(base_tree)], cwd=ROOT, check=False
            )
    load = os.getloadavg()[0]
    result = {
        "command": "python tools/bench_cold.py --base " + args.base,
        "base": base_commit,
        "commit": head,
        "load": round(load, 2),
        "rows": rows,
    }
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
