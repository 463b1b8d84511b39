"""validation/before_after.md: model 22 against model 21, from docs/results/before_after.json.

The file is written by ``python tools/before_after_json.py`` (the scored suite before and after,
the bundled RTS scenes' run metrics before and after, the two-way doorway on more seeds before
and after, with both masses).
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results" / "before_after.json"
PAGE = "validation/before_after.md"
DOOR_SHARE = 0.75  # of the time limit (tests/runs/test_scenarios.py)


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


def _spread(rows: list) -> tuple:
    """(slowest t100 / limit, its seed, median, runs over DOOR_SHARE, longest lock s, its seed)."""
    share = sorted(((r["t100"] or float("inf")) / r["limit"], r["seed"]) for r in rows)
    lock = max(rows, key=lambda r: r["longest_lock_seconds"])
    over = sum(f > DOOR_SHARE for f, _ in share)
    med = share[len(share) // 2][0]
    return share[-1][0], share[-1][1], med, over, lock["longest_lock_seconds"], lock["seed"]


def _seeds(data: dict) -> list[str]:
    groups: dict[tuple, dict] = {}
    for label in ("seeds_before", "seeds"):
        for r in data.get(label, []):
            groups.setdefault((r["scenario"], r["mass"]), {}).setdefault(label, []).append(r)
    out = [
        "| scenario | units | seeds | slowest t100 / limit before | after | median before | after "
        f"| runs over {DOOR_SHARE} before | after | longest lock s before | after |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (name, mass), sets in groups.items():
        if "seeds" not in sets or "seeds_before" not in sets:
            continue
        seeds = sorted(r["seed"] for r in sets["seeds"])
        b, a = _spread(sets["seeds_before"]), _spread(sets["seeds"])
        out.append(
            f"| {name} | {mass} | {seeds[0]}-{seeds[-1]} | {b[0]:.2f} (seed {b[1]}) | "
            f"**{a[0]:.2f}** (seed {a[1]}) | {b[2]:.2f} | {a[2]:.2f} | {b[3]} | {a[3]} | "
            f"{b[4]:.2f} (seed {b[5]}) | {a[4]:.2f} (seed {a[5]}) |"
        )
    return out


def page(data: dict) -> str:
    b, a = data["before"], data["after"]
    parts = [
        "# Model 22 against model 21",
        "",
        "In model 22 a group that waits for another at a door waits beside the way, not on it: "
        "each unit at its own place in the queue, 1.5 L to the side of the route it comes up "
        "on (see the [RTS guide](../guides/rts.md)). Before: model 21 (commit "
        f"`{b['commit']}`); after: commit `{a['commit']}`.",
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
        "## The two-way door on more seeds",
        "",
        "`run_scenario` on each seed, with the scenes' pedestrians and with the 10 kg unit "
        "(`--set groups[i].mass=10`): the slowest and the median run as shares of the time "
        f"limit (the bar is {DOOR_SHARE} of it), and the longest spell a pair of units of "
        "different orders stayed pressed together (`longest_lock_seconds`).",
        "",
        *_seeds(data),
        "",
        "This page is generated (`python docs/generate.py`) from `docs/results/before_after.json`, "
        "written by `python tools/before_after_json.py`.",
        "",
    ]
    return "\n".join(parts)


def pages() -> dict[str, str]:
    return {PAGE: page(json.loads(RESULTS.read_text()))}
