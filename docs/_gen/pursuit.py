"""validation/pursuit.md: the PettingZoo environment's baselines, from
``docs/results/pursuit.json`` (written by ``tools/pursuit_baselines.py --json``)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULT = ROOT / "docs" / "results" / "pursuit.json"


def _mean(x) -> str:
    return "-" if x is None else f"{x:,.0f} ({x / 60:.1f} s)"


def page() -> str:
    data = json.loads(RESULT.read_text())
    r = data["results"]
    cap = r["captures"]
    rows = []
    for mode, what in (
        ("rules", "left to the rules (chase and intercept leaders)"),
        ("control", "agents under per-unit control, the same leader rules on their observations"),
    ):
        c = cap[mode]
        rows.append(
            f"| {what} | {c['captures']}/{c['episodes']} | {c['capture_rate']:.2f} ± "
            f"{c['capture_rate_se']:.2f} | {_mean(c['mean_ticks_to_capture'])} |"
        )
    both = [(a, b) for a, b in zip(cap["rules"]["ticks"], cap["control"]["ticks"], strict=True)]
    same = sum((a is None) == (b is None) for a, b in both)
    tick = sum(a == b for a, b in both)
    diff = cap["control"]["capture_rate"] - cap["rules"]["capture_rate"]
    se = (cap["control"]["capture_rate_se"] ** 2 + cap["rules"]["capture_rate_se"] ** 2) ** 0.5
    speed = r.get("steps_per_second") or {}
    speed_rows = [f"| {name} | {v:,.0f} |" for name, v in speed.items()]
    ratio = ""
    if len(speed) == 2:
        a, b = speed.values()
        ratio = f"\nThe multi-agent environment runs at {a / b:.2f} x Evade-v0's steps a second.\n"
    return "\n".join(
        [
            "# PettingZoo baselines",
            "",
            "Scripted pursuers against the scripted evader in `rigidflock.envs.pursuit_v0`, and "
            "the environment's speed against Evade-v0's ([the guide](../guides/pettingzoo.md)). "
            f"Written by `{data['command']}` at commit `{data['commit']}`, {data['date']} "
            f"({data['wall_seconds']:,} s).",
            "",
            "## Captures: the control path against the rules",
            "",
            f"One episode per seed 0-{r['seeds'] - 1}, at most {r['max_ticks']:,} ticks "
            f"({r['max_ticks'] / 60:.0f} s), one tick a step: 4 pursuers (2 chase, 2 intercept) "
            f"and the scripted evader (thrust {r['evader_thrust']:g} N) in a 400 x 300 "
            "wrap-around arena, no obstacle, flocking off (every pursuer leads). The pursuers "
            "are either left to the rules, or agents keeping the rules (avoidance, unpin) with "
            "the scene's chase off, steered by `ScriptedPursuer`: the book's leader rules on their "
            "own observations.",
            "",
            "| pursuers | captures | capture rate | mean time to capture, ticks |",
            "|---|---|---|---|",
            *rows,
            "",
            f"Difference in capture rate (control - rules): {diff:+.2f} ± {se:.2f} (standard "
            f"error); the two agree on whether the evader is caught in {same} of {len(both)} "
            "seeds"
            + (
                ", at the same tick on every seed: with no obstacle to avoid, the agents' chase "
                "on their float32 observations takes the rules' bang-bang decisions."
                if cap["rules"]["ticks"] == cap["control"]["ticks"]
                else f", at the same tick on {tick} of them (the agents' chase reads float32 "
                "observations: a rounding that flips a bang-bang steer shifts the episode)."
            ),
            "",
            "## Speed",
            "",
            "Environment steps per second, one tick a step, random actions, best of two "
            "alternated runs in the same command:",
            "",
            "| environment | steps/s |",
            "|---|---|",
            *speed_rows,
            ratio,
            "This page is generated (`python docs/generate.py`) from `docs/results/pursuit.json`.",
            "",
        ]
    )


def pages() -> dict[str, str]:
    return {"validation/pursuit.md": page()} if RESULT.exists() else {}
