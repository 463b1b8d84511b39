"""Two runs of the scenario suite side by side: what a change did to each scenario, seed by seed.

    rigidflock score NAME,... --seeds 1,...,28 --json base.json   (on the old code)
    rigidflock score NAME,... --seeds 1,...,28 --json new.json    (on the new code)
    python tools/scenario_compare.py base.json new.json [--pin 5] [--per-seed]

Rows are matched by scenario, seed and ``reaction_ticks``. Per scenario: the runs matched, the runs
whose figures changed and their seeds (any figure both rows have but the wall-clock seconds), the
late ones (not every unit on its slot within the limit), the runs with a pin longer than ``--pin``
seconds and their seeds, the longest pin's mean over the seeds and the paired difference new - base
with its standard error, the longest pin of all, the median time to 100% and its largest change in
one run, and the means and paired differences of the pinned unit-seconds, the wall contacts and the
time to 95% (each over the pairs where both rows have the figure; a row of an older bench may lack
one, and a run that never reached 95% has none). The longest pin of the 1,000-unit bottleneck
varies by about 1.2 s from seed to seed, and any change to the crowd re-draws it: a difference
within two standard errors is not a finding. ``--per-seed`` also lists each seed's longest pin,
base -> new.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path


def load(path: Path) -> dict[tuple, dict]:
    """{(scenario, seed, reaction_ticks): row} of one ``score --json`` file."""
    try:
        rows = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"scenario_compare: {path}: cannot read it as JSON ({e})") from None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise SystemExit(f"scenario_compare: {path}: not a list of rows from bench --scenarios")
    try:
        return {(r["scenario"], r["seed"], r.get("reaction_ticks")): r for r in rows}
    except KeyError as e:
        raise SystemExit(f"scenario_compare: {path}: a row has no {e.args[0]!r}") from None


def late(row: dict) -> bool:
    """Not every unit on its slot within the scenario's time limit."""
    return row["t100"] is None or row["t100"] > row["limit"]


def paired(base: list[float], new: list[float]) -> tuple[float, float]:
    """(mean of new - base, its standard error; nan for fewer than two pairs)."""
    d = [b - a for a, b in zip(base, new, strict=True)]
    if len(d) < 2:
        return (d[0] if d else math.nan), math.nan
    return statistics.mean(d), statistics.stdev(d) / math.sqrt(len(d))


def both_have(base: list[dict], new: list[dict], key: str) -> list[tuple]:
    """(base, new) values of ``key`` in the pairs of rows where both have it (not None)."""
    return [(a[key], b[key]) for a, b in zip(base, new, strict=True)
            if a.get(key) is not None and b.get(key) is not None]  # fmt: skip


def paired_field(base: list[dict], new: list[dict], key: str) -> tuple[float, ...]:
    """(base mean, new mean, mean of new - base, its standard error, pairs) of ``key`` over the
    pairs where both rows have it; nan and 0 pairs where there is none."""
    pairs = both_have(base, new, key)
    if not pairs:
        return math.nan, math.nan, math.nan, math.nan, 0
    x, y = zip(*pairs, strict=True)
    return (statistics.mean(x), statistics.mean(y), *paired(list(x), list(y)), len(pairs))


def largest_change(base: list[dict], new: list[dict], key: str) -> float:
    """The largest |new - base| of ``key`` in one pair where both rows have it; nan if none."""
    return max((abs(y - x) for x, y in both_have(base, new, key)), default=math.nan)


def changed(a: dict, b: dict) -> bool:
    """Two runs' rows differ in a figure both have (the wall-clock seconds do not count; a
    figure only a newer bench writes is not a change)."""
    return any(a[k] != b[k] for k in a.keys() & b.keys() if k != "seconds")


def compare(base: dict, new: dict, pin: float) -> list[dict]:
    """One summary per scenario over the rows present in both files, in the base's order."""
    out = []
    for name in dict.fromkeys(k[0] for k in base):
        # by seed, then reaction_ticks (None: the scene's own; not comparable with a number)
        keys = sorted(
            (k for k in base if k[0] == name and k in new), key=lambda k: (k[1], str(k[2]))
        )
        if not keys:
            continue
        b = [base[k] for k in keys]
        n = [new[k] for k in keys]
        bp = [r["longest_pin_seconds"] for r in b]
        np_ = [r["longest_pin_seconds"] for r in n]
        diff, se = paired(bp, np_)
        over = tuple(
            [k[1] for k, p in zip(keys, pins, strict=True) if p > pin] for pins in (bp, np_)
        )
        out.append(
            {
                "scenario": name,
                "runs": len(keys),
                "seeds": [k[1] for k in keys],
                "late": (sum(map(late, b)), sum(map(late, n))),
                "changed": [k[1] for k, x, y in zip(keys, b, n, strict=True) if changed(x, y)],
                "over_pin": tuple(map(len, over)),
                "over_pin_seeds": over,
                "pin_mean": (statistics.mean(bp), statistics.mean(np_)),
                "pin_diff": (diff, se),
                "pin_max": (max(bp), max(np_)),
                "t100_median": tuple(
                    statistics.median(
                        [r["t100"] for r in rows if r["t100"] is not None] or [math.nan]
                    )
                    for rows in (b, n)
                ),
                "t100_change_max": largest_change(b, n, "t100"),
                "pinned": paired_field(b, n, "pinned_seconds"),
                "wall_contacts": paired_field(b, n, "wall_contacts"),
                "t95": paired_field(b, n, "t95"),
                "pins": list(zip(bp, np_, strict=True)),
            }
        )
    return out


MEANS = (
    ("pinned unit-s, mean", "pinned"),
    ("wall contacts, mean", "wall_contacts"),
    ("95% at s, mean", "t95"),
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", type=Path, help="score --json of the old code")
    ap.add_argument("new", type=Path, help="the same of the new code")
    ap.add_argument("--pin", type=float, default=5.0, help="seconds: count pins longer than this")
    ap.add_argument("--per-seed", action="store_true", help="list each seed's longest pin")
    a = ap.parse_args(argv)
    base, new = load(a.base), load(a.new)
    only = sorted(set(base) ^ set(new))
    for s in compare(base, new, a.pin):
        d, se = s["pin_diff"]
        print(f"{s['scenario']}: {s['runs']} runs matched (seeds {s['seeds'][0]}-{s['seeds'][-1]})")
        print(f"  runs changed           {len(s['changed']):>8}   (seeds {s['changed']})")
        print(f"  late runs              {s['late'][0]:>8} -> {s['late'][1]}")
        print(f"  pins over {a.pin:g} s          {s['over_pin'][0]:>8} -> {s['over_pin'][1]}"
              f"   (seeds {s['over_pin_seeds'][0]} -> {s['over_pin_seeds'][1]})")  # fmt: skip
        print(f"  longest pin, mean s    {s['pin_mean'][0]:8.2f} -> {s['pin_mean'][1]:.2f}"
              f"   (new - base {d:+.2f} +- {se:.2f})")  # fmt: skip
        print(f"  longest pin of all s   {s['pin_max'][0]:8.2f} -> {s['pin_max'][1]:.2f}")
        print(f"  median 100% at s       {s['t100_median'][0]:8.1f} -> {s['t100_median'][1]:.1f}"
              f"   (largest change in one run {s['t100_change_max']:.2f})")  # fmt: skip
        for label, key in MEANS:
            x, y, d, se, pairs = s[key]
            if not pairs:
                continue  # no pair has the figure (older bench rows)
            some = f", {pairs} pairs" if pairs < s["runs"] else ""
            print(f"  {label:<22} {x:8.1f} -> {y:.1f}   (new - base {d:+.1f} +- {se:.1f}{some})")
        if a.per_seed:
            pins = ", ".join(
                f"{k}: {p:.2f}->{q:.2f}" for k, (p, q) in zip(s["seeds"], s["pins"], strict=True)
            )
            print(f"  per seed               {pins}")
    if only:
        print(f"{len(only)} rows in one file only (not compared), e.g. {only[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
