"""How rigidflock/Evade-v0 is posed: the figures behind its defaults (docs/guides/gym.md).

- clipping: how often each velocity field of the observation would sit at +-1 for a speed
  scale of c x the fastest cruise speed (c = 1, 1.5, 2, 2.5, 3), and the turn rate for its scale
  (2 pi rad/s), over the steps of the random policy and the scripted evader (unclipped values are
  read through a second observer with scales so large nothing clips);
- warning time: in episodes that end in a capture, the simulated seconds from the last step the
  nearest pursuer was farther than the player's feeler length (100 world units in aidemo4) to
  the capture: the look-ahead a discounted return needs;
- episode lengths of both baselines at the chosen frame_skip, in seconds.

Writes docs/results/evade_task.json (``python docs/generate.py`` makes the guide's tables).

Usage: python tools/evade_task.py [--seeds 4] [--max-ticks 7200] [--frame-skip 4]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rigidflock.envs.evade import EvadeEnv  # noqa: E402
from rigidflock.envs.observation import OWN, PER_PURSUER, Observer  # noqa: E402
from rigidflock.envs.policies import RandomPolicy, ScriptedEvader  # noqa: E402

FACTORS = (1.0, 1.5, 2.0, 2.5, 3.0)
BIG = 1e6  # the raw observer's scales: nothing reaches it


def episode(policy: str, seed: int, env: EvadeEnv):
    """One episode: the raw (unscaled) velocity fields of every step, the turn rates, the
    nearest distance per step, and whether it ended in a capture."""
    obs, _ = env.reset(seed=seed)
    raw = Observer(env.sim, env.k, env.rays, sense_range=BIG, speed_scale=BIG)
    act = RandomPolicy(seed) if policy == "random" else ScriptedEvader(env.k, env.rays)
    own, rel, omega, nearest = [], [], [], []
    while True:
        obs, _, terminated, truncated, info = env.step(act(obs))
        r = raw(env.sim).astype(np.float64)
        own.append(r[0:2] * BIG)
        omega.append(obs[2])  # the turn rate / 2 pi rad/s (clipped at 1)
        slots = r[OWN : OWN + PER_PURSUER * env.k].reshape(env.k, PER_PURSUER)
        present = slots[:, 5] > 0
        rel.append((slots[present, 2:4] * BIG).ravel())
        nearest.append(np.hypot(*slots[0, 0:2]) * BIG if present[0] else np.inf)
        if terminated or truncated:
            return (np.concatenate(own), np.concatenate(rel), np.asarray(omega),
                    np.asarray(nearest), terminated, info["tick"])  # fmt: skip


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--max-ticks", type=int, default=7200)
    ap.add_argument("--frame-skip", type=int, default=4)
    ap.add_argument("--out", default=str(ROOT / "docs" / "results" / "evade_task.json"))
    a = ap.parse_args(argv)
    env = EvadeEnv(max_ticks=a.max_ticks, frame_skip=a.frame_skip)
    cruise = float(env.sim.units.cruise_speed.max())
    feeler = float(env.observer.ray_range)
    step_s = env.dt * a.frame_skip
    result = {"command": "python tools/evade_task.py " + " ".join(argv or sys.argv[1:]),
              "seeds": a.seeds, "max_ticks": a.max_ticks, "frame_skip": a.frame_skip,
              "cruise_speed": cruise, "feeler": feeler, "policies": {}}  # fmt: skip
    t0 = time.perf_counter()
    for policy in ("random", "scripted"):
        own, rel, omega, warn, ticks = [], [], [], [], []
        for seed in range(a.seeds):
            o, r, w, near, captured, tick = episode(policy, 1000 + seed, env)
            own.append(o)
            rel.append(r)
            omega.append(w)
            ticks.append(tick)
            if captured:
                far = np.flatnonzero(near > feeler)
                last = far[-1] if len(far) else -1
                warn.append((len(near) - 1 - last) * step_s)
        own, rel, omega = np.concatenate(own), np.concatenate(rel), np.concatenate(omega)
        result["policies"][policy] = {
            "steps": len(omega),
            "own_clip": {str(c): float(np.mean(np.abs(own) > c * cruise)) for c in FACTORS},
            "relative_clip": {str(c): float(np.mean(np.abs(rel) > c * cruise)) for c in FACTORS},
            "relative_p99": float(np.quantile(np.abs(rel), 0.99) / cruise),
            "own_p99": float(np.quantile(np.abs(own), 0.99) / cruise),
            "omega_clip": float(np.mean(np.abs(omega) >= 1.0)),
            "omega_p99": float(np.quantile(np.abs(omega), 0.99)),
            "warning_s": warn,
            "episode_s": [t * env.dt for t in ticks],
        }
        print(policy, json.dumps(result["policies"][policy]), flush=True)
    env.close()
    result["seconds"] = time.perf_counter() - t0
    git = ["git", "rev-parse", "--short", "HEAD"]
    result["commit"] = subprocess.run(git, cwd=ROOT, check=False, capture_output=True,
                                      text=True).stdout.strip()  # fmt: skip
    result["machine"] = platform.processor() or platform.machine()
    Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
