"""explanation/live_change_figures.inc: what a live change costs per tick once applied, from
docs/results/live_change.json (written by ``python tools/bench_live.py --json
docs/results/live_change.json``, run twice: the file keeps the last two runs).
``explanation/performance.md`` includes the page made here; every figure on it comes from that
JSON.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results" / "live_change.json"
PAGE = "explanation/live_change_figures.inc"


def _spread(values: list[float]) -> str:
    return f"{min(values):.3f}-{max(values):.3f}"


def _figures(runs: list[dict]) -> str:
    first = runs[0]
    out = [
        "### A live change, once applied",
        "",
        "A change through `Command(changes=...)` (the tuning panel, `view --watch`) is validated "
        "and taken in the tick that carries it; the ticks after it run as before. "
        f"`{first['command']}` steps two runs of `{first['scene']}` ({first['units']:,} units) "
        f"side by side, tick by tick, on {first['numba_threads']} numba thread: one takes a "
        "change of every rule weight, the steering force and the first group's thrust after "
        f"{first['warmup']} ticks, the other none, and both then step {first['ticks']} timed "
        "ticks. The change sets the values the scene has (and the chase weight, which steers "
        "nothing without a player): it goes the whole way (checked, the scene derived, new "
        "rules, the units' constants written) and both runs keep the same states, checked bit "
        "for bit, so they time the same work. Beside each such pair runs a pair of two plain "
        "runs: how far two identical runs differ is the yardstick. A run's time is its median "
        "tick; the ratios are the medians of "
        f"{first['repeats']} pairs of each kind, their range in brackets.",
        "",
        "| run | commit | load before | ms/tick plain | ms/tick after the change | **ratio** "
        "| two plain runs | the change's tick ms | that tick plain ms |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate(runs, 1):
        plain = statistics.median(r["plain_seconds"]) / r["ticks"] * 1e3
        live = statistics.median(r["live_seconds"]) / r["ticks"] * 1e3
        changed = " (tree changed)" if r.get("tree_changed") else ""
        load = ", ".join(f"{x:.2f}" for x in r["load"])
        out.append(
            f"| {i} | `{r['commit']}`{changed} | {load} | {plain:.3f} | {live:.3f} | "
            f"**{r['ratio']:.3f}** ({_spread(r['ratios'])}) | {r['plain_ratio']:.3f} "
            f"({_spread(r['plain_ratios'])}) | {r['change_tick_seconds'] * 1e3:.1f} | "
            f"{r['tick_seconds'] * 1e3:.1f} |"
        )
    out += [
        "",
        "Measured on a machine shared with other work "
        f"({first['cpus']} cores; Python {first['python']}; {first['date'][:10]}). The tick "
        "that takes the change pays for deriving and checking the tuned scene and for deciding "
        "afresh on its snapshot, once.",
        "",
    ]
    return "\n".join(out)


def pages() -> dict[str, str]:
    if not RESULTS.exists():
        text = (
            "### A live change, once applied\n\nNo figures yet: run `python tools/bench_live.py "
            "--json docs/results/live_change.json` twice, then `python docs/generate.py`.\n"
        )
        return {PAGE: text}
    return {PAGE: _figures(json.loads(RESULTS.read_text())["runs"])}
