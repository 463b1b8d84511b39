"""validation/before_after.md: model 21 against model 20, from docs/results/before_after.json.

The file is written by ``python tools/before_after_json.py`` (the scored suite before and after,
the bundled RTS scenes' run metrics before and after, the crossing and doorway scenarios on more
seeds after).
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results" / "before_after.json"
PAGE = "validation/before_after.md"
LOCK_BOUND = 2.0  # seconds (tests/runs/test_scenarios.py)


def _f(x, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _scored(data: dict) -> list[str]:
    before = {(r["scenario"], r["seed"]): r for r in data["scored"]["before"]}
    out = [
        "| scenario | seed | score before | score after | t100 s before | t100 s after | limit s "
        "| unit contacts before | after | longest pin s before | after |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in data["scored"]["after"]:
        b = before.get((r["scenario"], r["seed"]), {})
        out.append(
            f"| {r['scenario']} | {r['seed']} | {_f(b.get('score'), 1)} | **{_f(r['score'], 1)}** "
            f"| {_f(b.get('t100'))} | {_f(r['t100'])} | {_f(r['limit'])} | "
            f"{b.get('unit_contacts', '-')} | {r['unit_contacts']} | "
            f"{_f(b.get('longest_pin_seconds'))} | {_f(r['longest_pin_seconds'])} |"
        )
    return out


def _scenes(data: dict) -> list[str]:
    out = [
        "| scene | on their slots at tick, before | after | unit contacts before | after | "
        "longest pin s before | after | stuck unit-s before | after |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for b, a in zip(data["scenes"]["before"], data["scenes"]["after"], strict=True):
        out.append(
            f"| {a['scene']} | {', '.join(str(t) for t in b['arrival_ticks'])} | "
            f"{', '.join(str(t) for t in a['arrival_ticks'])} | {b['unit_contacts']} | "
            f"{a['unit_contacts']} | {_f(b['longest_pin_seconds'])} | "
            f"{_f(a['longest_pin_seconds'])} | {_f(b['stuck_seconds'], 0)} | "
            f"{_f(a['stuck_seconds'], 0)} |"
        )
    return out


def _seeds(data: dict) -> list[str]:
    groups: dict[tuple, list] = {}
    for r in data["seeds"]:
        groups.setdefault((r["scenario"], r["mass"]), []).append(r)
    out = [
        "| scenario | units | seeds | longest lock s (worst seed) | unit contacts (most) | "
        "slowest t100 / limit | all in time |",
        "|---|---|---|---|---|---|---|",
    ]
    for (name, mass), rows in groups.items():
        seeds = sorted(r["seed"] for r in rows)
        worst = max(rows, key=lambda r: r["longest_lock_seconds"])
        late = max((r["t100"] or float("inf")) / r["limit"] for r in rows)
        ok = all(r["t100"] is not None and r["t100"] <= r["limit"] for r in rows)
        span = (
            f"{seeds[0]}-{seeds[-1]}"
            if seeds == list(range(seeds[0], seeds[-1] + 1))
            else (", ".join(map(str, seeds)))
        )
        out.append(
            f"| {name} | {mass} | {span} | {worst['longest_lock_seconds']:.2f} (seed "
            f"{worst['seed']}) | {max(r['unit_contacts'] for r in rows)} | {late:.2f} | "
            f"{'yes' if ok else 'no'} |"
        )
    return out


def _paired(data: dict) -> list[str]:
    before = {(r["scenario"], r["seed"]): r for r in data.get("seeds_before", [])}
    out = [
        "| scenario | seed | t100 s before | after | unit contacts before | after | score before "
        "| after |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in data["seeds"]:
        b = before.get((r["scenario"], r["seed"]))
        if b is None or r["mass"] != "scene":
            continue
        out.append(
            f"| {r['scenario']} | {r['seed']} | {_f(b['t100'])} | {_f(r['t100'])} | "
            f"{b['unit_contacts']} | {r['unit_contacts']} | {_f(b['score'], 1)} | "
            f"**{_f(r['score'], 1)}** |"
        )
    return out if len(out) > 2 else []


def page(data: dict) -> str:
    b, a = data["before"], data["after"]
    parts = [
        "# Model 21 against model 20",
        "",
        "Model 21 deals a large formation's slots over ticks and adds the rule of the road at "
        "crossings (the unit with another group's unit on its right gives way; see the "
        "[RTS guide](../guides/rts.md)). Before: model 20 (the scored suite as recorded at "
        f"`{b['scored_commit']}`, the bundled scenes at `{b['commit']}`); after: commit "
        f"`{a['commit']}`.",
        "",
        "## The scored suite, each scene's own seed",
        "",
        "`rigidflock score --json FILE` (one numba thread).",
        "",
        *_scored(data),
        "",
        "## The bundled RTS scenes",
        "",
        "`rigidflock run SCENE --metrics FILE` for each, its own seed and ticks.",
        "",
        *_scenes(data),
        "",
        "## Crossings and the two-way door on more seeds (after)",
        "",
        f"The longest spell a pair of units of different orders stayed pressed together "
        f"(`longest_lock_seconds`; the bound is {LOCK_BOUND:.0f} s), with the scenes' "
        "pedestrians and with the 10 kg unit (`--set groups[i].mass=10`). Before, "
        "`four_way_oncoming` on its seed locked a pair for 16.9 s (129 unit contacts).",
        "",
        *_seeds(data),
        "",
        "The same runs against model 20's on the seeds recorded for it (the scenes' pedestrians; "
        "`docs/results/scenario_seeds.json`):",
        "",
        *_paired(data),
        "",
        "This page is generated (`python docs/generate.py`) from `docs/results/before_after.json`, "
        "written by `python tools/before_after_json.py`.",
        "",
    ]
    return "\n".join(parts)


def pages() -> dict[str, str]:
    return {PAGE: page(json.loads(RESULTS.read_text()))}
