"""validation/pursuit.md: the PettingZoo environment's baselines, from
``docs/results/pursuit.json`` (written by ``tools/pursuit_baselines.py --json``); and
guides/pettingzoo_learning.inc: the independent-PPO self-play run, from
``docs/results/pursuit_ppo.json`` (written by ``tools/pursuit_ppo.py``)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULT = ROOT / "docs" / "results" / "pursuit.json"
PPO_RESULT = ROOT / "docs" / "results" / "pursuit_ppo.json"


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


def _pairing(ev: dict, key: str) -> tuple[str, str]:
    e = ev[key]
    return f"{e['captures']}/{e['episodes']}", f"{e['mean_length_s']:.1f}"


def learning() -> str:
    """The self-play run: training budget and steps, then every pairing on the held-out seeds,
    the learned sides before and after training."""
    if not PPO_RESULT.exists():
        return (
            "No figures yet: run `python tools/pursuit_ppo.py`, then `python docs/generate.py`.\n"
        )
    d = json.loads(PPO_RESULT.read_text())
    ev = d["evaluation"]
    lo, hi = d["eval_seeds"]
    steps = d["env_steps"]
    rows = []
    for label, before, after in (
        ("(a) learned pursuers, scripted evader", "ppo_before vs scripted",
         "ppo_after vs scripted"),
        ("(b) scripted pursuers, learned evader", "scripted vs ppo_before",
         "scripted vs ppo_after"),
        ("(c) learned pursuers, learned evader", "ppo_before vs ppo_before",
         "ppo_after vs ppo_after"),
    ):  # fmt: skip
        (cb, lb), (ca, la) = _pairing(ev, before), _pairing(ev, after)
        rows.append(f"| {label} | {cb} | {ca} | {lb} | {la} |")
    for label, key in (
        ("(d) scripted pursuers, scripted evader", "scripted vs scripted"),
        ("(d) random pursuers, scripted evader", "random vs scripted"),
        ("(d) scripted pursuers, random evader", "scripted vs random"),
    ):
        c, length = _pairing(ev, key)
        rows.append(f"| {label} | {c} | (same) | {length} | (same) |")
    caught = sum(round(c[3] * c[5]) for c in d["curve"])
    ended = sum(c[5] for c in d["curve"])
    return "\n".join(
        [
            f"Measured with `{d['command'].strip()}` at commit `{d['commit']}`, {d['date']}, on "
            f"a machine shared with other work (load average {d['load_after'][0]:.1f} at the "
            f"end; {d['wall_seconds'] / 60:.0f} minutes in all). Training: "
            f"{d['trained_seconds'] / 60:.1f} minutes in {d['phases']} alternating phases, "
            f"{d['games']} games per learner, {steps['pursuer']:,} pursuer rows' steps "
            f"({steps['pursuer'] // 4:,} game steps) and {steps['evader']:,} evader steps; "
            f"{caught} of the {ended} training episodes that ended in a rollout were captures.",
            "",
            f"Held-out seeds {lo}-{hi}, one episode each, at most {d['max_ticks']:,} ticks "
            f"({d['max_ticks'] / 60:.0f} s); a learned side before training is its initial "
            "network, acting deterministically (as after):",
            "",
            "| pairing | captures before | captures after | mean length before, s | "
            "mean length after, s |",
            "|---|---|---|---|---|",
            *rows,
            "",
            "![Independent PPO on pursuit_v0](../images/pursuit_ppo.png)",
            "",
        ]
    )


def pages() -> dict[str, str]:
    out = {"validation/pursuit.md": page()} if RESULT.exists() else {}
    out["guides/pettingzoo_learning.inc"] = learning()
    return out
