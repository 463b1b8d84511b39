"""explanation/performance_figures.inc: the current bench figures, from docs/results/bench.json.

The file is written by ``python tools/bench_json.py`` (``rigidflock bench`` run twice, with the
machine's load, the commit and the library versions); ``explanation/performance.md`` includes the
page made here. Every figure on it comes from that JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results" / "bench.json"
PAGE = "explanation/performance_figures.inc"
PHASES = ("read", "neighbours", "rules", "forces", "write", "physics", "wait", "metrics")
PHASE_NAMES = {"physics": "step"}


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}"


def _load(sample: dict) -> str:
    return ", ".join(f"{x:.2f}" for x in sample["load"])


def _spread(values: list[float], fmt: str) -> str:
    lo, hi = min(values), max(values)
    return format(lo, fmt) if format(lo, fmt) == format(hi, fmt) else f"{lo:{fmt}}-{hi:{fmt}}"


def _figures(data: dict) -> str:
    runs = data["runs"]
    v = data["versions"]
    changed = " (with uncommitted changes in the tree)" if data.get("tree_changed") else ""
    m = data["machine"]
    out = [
        "## Current figures",
        "",
        f"Measured with `{data['command']}` at commit `{data['commit']}`{changed}, "
        f"{data['date'][:10]}, on {m['cpus']} cores ({m['processor']}; {m['system']}) shared "
        f"with other work; numba threads: {data['numba_threads']}; Python {data['python']}, "
        f"rigidflock {v['rigidflock']}, pymunk {v['pymunk']}, numpy {v['numpy']}, numba "
        f"{v['numba']}, llvmlite {v['llvmlite']}, scipy {v['scipy']}. The command runs "
        f"`rigidflock bench` {len(runs)} times in a row ({data['ticks']} timed ticks after "
        f"{data['warmup']} warm-up ticks, each size in its own process); `uptime` before each run:",
        "",
    ]
    out.extend(
        f"- run {r['run']}: load average {_load(r['before'])} before, {_load(r['after'])} "
        f"after ({r['before']['uptime']}); the run took {r['seconds']:.0f} s, compiling "
        "included when the kernel cache was stale (the timed ticks never include it)"
        for r in runs
    )
    busiest = max(max(r["before"]["load"][0], r["after"]["load"][0]) for r in runs)
    if busiest > m["cpus"]:
        out += [
            "",
            f"The load average reached {busiest:.1f} on {m['cpus']} cores: processes queued for "
            "a core. These are the figures of a busy machine; compare them only with figures "
            "measured at a similar load, in the same command.",
        ]
    out += [
        "",
        "| run | units | `neighbour_ticks` | ticks/s | tick ms | bare step ms | **ratio** "
        "| `run x` | B/unit |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        for row in r["results"]:
            out.append(
                f"| {r['run']} | {row['units']:,} | {row['neighbour_ticks']} | "
                f"{row['ticks_per_second']:,.0f} | {_ms(row['tick_seconds'])} | "
                f"{_ms(row['physics_step_seconds'])} | **{row['ratio']:.2f}** | "
                f"{row['run_ratio']:.3f} | {row['bytes_per_unit']:,.0f} |"
            )
    out += [
        "",
        "The split of the same ticks, ms per tick (`step` is the step timed inside the tick; with "
        "`neighbour_ticks` 1 the neighbours and the pair pass run during it, so the phases add up "
        "to more than the tick):",
        "",
        "| run | units | " + " | ".join(PHASE_NAMES.get(p, p) for p in PHASES) + " |",
        "|---|---|" + "---|" * len(PHASES),
    ]
    for r in runs:
        for row in r["results"]:
            cells = " | ".join(_ms(row["split"][p]) for p in PHASES)
            out.append(f"| {r['run']} | {row['units']:,} | {cells} |")
    out += ["", "From one run to the other, at the same commit and a few minutes apart:", ""]
    for n in data["units"]:
        rows = [row for r in runs for row in r["results"] if row["units"] == n]
        speeds = [row["ticks_per_second"] for row in rows]
        ratios = [row["ratio"] for row in rows]
        out.append(
            f"- {n:,} units: {_spread(speeds, ',.0f')} ticks/s (the faster "
            f"{max(speeds) / min(speeds):.2f} x the slower), ratio {_spread(ratios, '.2f')} "
            f"({max(ratios) / min(ratios):.2f} x)."
        )
    out.append("")
    return "\n".join(out)


def pages() -> dict[str, str]:
    if not RESULTS.exists():
        text = (
            "## Current figures\n\nNo figures yet: run `python tools/bench_json.py`, then "
            "`python docs/generate.py`.\n"
        )
        return {PAGE: text}
    return {PAGE: _figures(json.loads(RESULTS.read_text()))}
