"""explanation/frame_times.inc: the RTS frame times, from docs/results/frames.json.

The file is written by ``python tools/frames_json.py --label LABEL`` (``rigidflock bench
--frames``, each run under its label with its commit and the machine's load);
``explanation/performance.md`` includes the page made here.
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results" / "frames.json"
PAGE = "explanation/frame_times.inc"


def _row(label: str, run: dict, r: dict) -> str:
    if "error" in r:
        return f"| {label} | {r['units']:,} | failed: {r['error']} |||||||||"
    arrived = "all" if r["all_arrived"] else f"{r['arrived']:,} of {r['units']:,}"
    top = r["top"][0]
    return (
        f"| {label} (`{run['commit']}`) | {r['units']:,} | {r['ticks']:,} | {arrived} | "
        f"{r['median_seconds'] * 1e3:.1f} | **{r['p99_ratio']:.2f}** | "
        f"**{r['max_ratio']:.2f}** | tick {top['tick']:,} ({top['cause']}) | "
        f"{r['median_march_seconds'] * 1e3:.1f} | {r['median_plain_seconds'] * 1e3:.1f} | "
        f"**{r['orders_ratio']:.2f}** |"
    )


def page(data: dict) -> str:
    runs = data["runs"]
    out = [
        "## Frame times under orders",
        "",
        "Each tick of the RTS frame-time world timed alone (`rigidflock bench --frames`): the "
        "units in a disc, one move order past a building, a second building dropped across the "
        "route 5 s later, from the order until every unit stands on its slot (or the tick cap: "
        "a 5,000-unit army takes minutes of machine time to form up). p99 x and max x are the "
        "99th percentile and the slowest tick over the median tick of the same run; orders x "
        "is the median of the first 300 ticks under the order over the same units' median tick "
        "without it, measured in the same process. The targets: p99 x at most 2, max x at most "
        "4, orders x at most 1.5.",
        "",
        "| run | units | ticks | on their slots | median ms | p99 x | max x | slowest "
        "(cause) | march ms | no orders ms | orders x |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    out.extend(_row(label, run, r) for label, run in runs.items() for r in run["results"])
    out.append("")
    for label, run in runs.items():
        cmds = "; ".join(f"`{c}`" for c in run["commands"])
        load = (
            f"load average {run['load_before'][0]:.2f} before and {run['load_after'][0]:.2f} after"
            if run.get("load_before")
            else "load average not recorded"
        )
        note = f" ({run['note']})" if run.get("note") else ""
        out.append(
            f"- {label}: {cmds} at commit `{run['commit']}`{note}, {run['date']}, {load} "
            "(2 shared cores, shared with other work)."
        )
    out += [
        "",
        "This table is generated (`python docs/generate.py`) from `docs/results/frames.json`, "
        "written by `python tools/frames_json.py`.",
        "",
    ]
    return "\n".join(out)


def pages() -> dict[str, str]:
    return {PAGE: page(json.loads(RESULTS.read_text()))}
