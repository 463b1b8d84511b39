"""guides/gym_*.inc: the Gymnasium guide's measured figures, from docs/results/.

- ``gym_task.inc`` from ``evade_task.json`` (``python tools/evade_task.py``): how often the
  observation's velocities would clip at each speed scale, the warning time before captures,
  the baselines' episode lengths;
- ``gym_throughput.inc`` from ``vector_bench.json`` (``python tools/bench_vector.py``): steps per
  second of the native vector environment against one single environment;
- ``gym_learning.inc`` from ``evade_ppo.json`` (``python tools/evade_ppo.py``): PPO's budget,
  its steps, and the held-out evaluation against the baselines.

``guides/gym.md`` includes the three pages. Every figure on them comes from those files.
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results"


def _load(name: str) -> dict | None:
    path = RESULTS / name
    return json.loads(path.read_text()) if path.exists() else None


def _missing(command: str) -> str:
    return f"No figures yet: run `{command}`, then `python docs/generate.py`.\n"


def _task(d: dict | None) -> str:
    if d is None:
        return _missing("python tools/evade_task.py")
    pol = d["policies"]
    factors = list(pol["random"]["relative_clip"])
    out = [
        f"Measured with `{d['command'].strip()}` at commit `{d['commit']}`: {d['seeds']} "
        f"episodes a policy (seeds 1000 on), frame_skip {d['frame_skip']}, at most "
        f"{d['max_ticks']} ticks; the fastest cruise speed is {d['cruise_speed']:.1f} world "
        "units/s.",
        "",
        "Share of the pursuer slots' relative velocities (and of the player's own velocity) "
        "beyond the speed scale, by the scale in fastest cruise speeds:",
        "",
        "| policy | steps | " + " | ".join(f"{f} x" for f in factors) + " | 99th percentile "
        "| own velocity beyond 1 x | turn rate at 1 |",
        "|---|---|" + "---|" * len(factors) + "---|---|---|",
    ]
    for name, p in pol.items():
        clip = " | ".join(f"{100 * p['relative_clip'][f]:.1f}%" for f in factors)
        out.append(
            f"| {name} | {p['steps']} | {clip} | {p['relative_p99']:.2f} x | "
            f"{100 * p['own_clip']['1.0']:.1f}% | {100 * p['omega_clip']:.1f}% |"
        )
    out += ["", "| policy | episode lengths, s | warning time before each capture, s |",
            "|---|---|---|"]  # fmt: skip
    for name, p in pol.items():
        ep = ", ".join(f"{x:.1f}" for x in p["episode_s"])
        warn = ", ".join(f"{x:.1f}" for x in p["warning_s"]) or "no capture"
        out.append(f"| {name} | {ep} | {warn} |")
    return "\n".join(out) + "\n"


def _throughput(d: dict | None) -> str:
    if d is None:
        return _missing("python tools/bench_vector.py")
    changed = " (with uncommitted changes)" if d.get("tree_changed") else ""
    out = [
        f"Measured with `{d['command'].strip()}` at commit `{d['commit']}`{changed}, "
        f"{d['date']}, on {d['cpus']} cores shared with other work ({d['seconds']} s a figure; "
        "load average before each run: "
        + "; ".join(", ".join(f"{x:.1f}" for x in r["load_before"]) for r in d["runs"])
        + "). Steps per second, every world's counted, frame_skip 4:",
        "",
        "| run | N | one thread: single env | native, N worlds | ratio | both cores: 2 single "
        "envs | native, 2 x N/2 worlds | ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in d["runs"]:
        both = {x["n"]: x for x in r["both_cores"]}
        for x in r["one_thread"]:
            b = both.get(x["n"])
            tail = (f"{b['single']:.0f} | {b['native']:.0f} | {b['ratio']:.1f}x" if b
                    else "- | - | -")  # fmt: skip
            out.append(f"| {r['run']} | {x['n']} | {x['single']:.0f} | {x['native']:.0f} | "
                       f"{x['ratio']:.1f}x | {tail} |")  # fmt: skip
    return "\n".join(out) + "\n"


def _learning(d: dict | None) -> str:
    if d is None:
        return _missing("python tools/evade_ppo.py")
    ev = d["evaluation"]
    lo, hi = d["eval_seeds"]
    out = [
        f"Measured with `{d['command'].strip()}` at commit `{d['commit']}` on a machine shared "
        f"with other work (load average {d['load_after'][0]:.1f} at the end): PPO trained "
        f"{d['trained_seconds'] / 60:.1f} minutes on {d['envs']} worlds in one process, "
        f"{d['env_steps']:,} environment steps ({d['steps_per_second']:.0f} a second, PPO's "
        "updates included).",
        "",
        f"Held-out seeds {lo}-{hi}, one episode each, at most {d['eval_steps']} steps:",
        "",
        "| policy | mean survival, s | episodes reaching the limit |",
        "|---|---|---|",
    ]
    n = hi - lo + 1
    for name in ("random", "scripted", "ppo"):
        e = ev[name]
        out.append(f"| {name} | {e['mean_s']:.1f} | {e['reached_limit']}/{n} |")
    out += ["", "![PPO's training curve](../images/evade_ppo.png)"]
    return "\n".join(out) + "\n"


def pages() -> dict[str, str]:
    return {
        "guides/gym_task.inc": _task(_load("evade_task.json")),
        "guides/gym_throughput.inc": _throughput(_load("vector_bench.json")),
        "guides/gym_learning.inc": _learning(_load("evade_ppo.json")),
    }
