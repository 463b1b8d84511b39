"""guides/behaviours_figures.inc: what a behaviour costs, from docs/results/behaviours_bench.json.

The file is written by ``python tools/bench_json.py --units 10000 --behaviour FUNCTION --out
docs/results/behaviours_bench.json`` (``rigidflock bench --behaviour`` run twice: each size
without the behaviour, then with it, in one command); ``guides/behaviours.md`` includes the page
made here. Every figure on it comes from that JSON.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results" / "behaviours_bench.json"
PAGE = "guides/behaviours_figures.inc"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f}"


def _rows(data: dict) -> list[str]:
    out = [
        "| run | units | tick ms without | tick ms with | with / without | behaviour ms "
        "| **share of the tick** | bench ratio without | with |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for run in data["runs"]:
        rows = run["results"]
        for before, row in itertools.pairwise(rows):
            if not row.get("behaviour"):
                continue
            share = row["split"]["behaviours"] / row["tick_seconds"]
            out.append(
                f"| {run['run']} | {row['units']:,} | {_ms(before['tick_seconds'])} | "
                f"{_ms(row['tick_seconds'])} | {1 + row['behaviour_cost']:.3f} | "
                f"{_ms(row['split']['behaviours'])} | **{share:.1%}** | {before['ratio']:.2f} | "
                f"{row['ratio']:.2f} |"
            )
    return out


def page(data: dict) -> str:
    m, v = data["machine"], data["versions"]
    changed = " (with uncommitted changes in the tree)" if data.get("tree_changed") else ""
    loads = "; ".join(
        f"run {r['run']}: {r['before']['load'][0]:.2f} before, {r['after']['load'][0]:.2f} after"
        for r in data["runs"]
    )
    steps = [
        (r["run"], before["physics_step_seconds"], row["physics_step_seconds"])
        for r in data["runs"]
        for before, row in zip(r["results"], r["results"][1:], strict=False)
        if row.get("behaviour")
    ]
    moved = max(steps, key=lambda s: abs(s[2] / s[1] - 1))
    lines = [
        f"Measured with `{data['command']}` at commit `{data['commit']}`{changed}, "
        f"{data['date'][:10]}, on {m['cpus']} cores ({m['processor']}) shared with other work "
        f"(load average {loads}); Python {data['python']}, numpy {v['numpy']}, pymunk "
        f"{v['pymunk']}. Each run times the bench world (`rigidflock bench`: walls, obstacles, "
        f"flocking on) without the behaviour `{data['behaviour']}`, then with it steering every "
        f"unit, {data['ticks']} ticks after {data['warmup']} warm-up ticks, each in its own "
        "process. *behaviour ms* is the time of its calls and of turning its directions into "
        "bow forces, within the tick; its *share of the tick* is that over the tick with it "
        "(the two are timed in the same ticks, so the machine's load moves them together).",
        "",
        *_rows(data),
        "",
        "*with / without* compares two processes run one after the other, each under the "
        "machine's load of its moment: the bare physics step, which a behaviour does not touch, "
        f"took {_ms(moved[1])} ms in the first and {_ms(moved[2])} ms in the second in run "
        f"{moved[0]}. The share of the tick is the figure that load does not move.",
        "",
    ]
    return "\n".join(lines)


def pages() -> dict[str, str]:
    return {PAGE: page(json.loads(RESULTS.read_text()))}
