"""Baseline policies acting on the observation alone: a random policy and a scripted evader for
``rigidflock/Evade-v0``, a scripted pursuer for :mod:`rigidflock.envs.pursuit_v0`. Each maps an
observation (see :mod:`rigidflock.envs.observation`) to an action (throttle, steer), float32
(2,). :func:`evade_episode_lengths` plays the first two on Evade-v0, one episode per seed."""

from __future__ import annotations

import numpy as np

from rigidflock.envs.observation import OWN, PER_PURSUER


class RandomPolicy:
    """Uniform random throttle and steer each step, from its own seeded generator."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        return self.rng.uniform(-1.0, 1.0, 2).astype(np.float32)


class ScriptedEvader:
    """Flee the nearest pursuers while steering off obstacles and walls, at full throttle.

    The wanted direction (body frame) is the sum of pushes away from each observed pursuer,
    weighted 1 / distance^2 (leaders ``leader_weight`` times more), and away from each feeler
    that feels something, weighted ``wall_weight`` x (1 - reading)^2; the steer turns the bow
    toward it, proportionally to the angle (``gain`` per radian), clipped to [-1, 1].
    """

    def __init__(self, k: int, rays: int, gain=2.0, wall_weight=40.0, leader_weight=2.0):
        self.k, self.rays = k, rays
        self.gain, self.wall_weight, self.leader_weight = gain, wall_weight, leader_weight
        ang = 2 * np.pi * np.arange(rays) / max(rays, 1)
        self.ray_dirs = np.column_stack([np.cos(ang), np.sin(ang)])  # (R, 2) body frame

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        slots = obs[OWN : OWN + PER_PURSUER * self.k].reshape(self.k, PER_PURSUER)
        off, lead, present = slots[:, 0:2], slots[:, 4], slots[:, 5]
        d2 = np.maximum(np.einsum("ij,ij->i", off, off), 1e-6)
        w = present * (1.0 + (self.leader_weight - 1.0) * lead) / d2
        want = -(off * w[:, None]).sum(axis=0) / max(w.sum(), 1e-9)
        feel = obs[OWN + PER_PURSUER * self.k :]
        push = self.wall_weight * (1.0 - feel) ** 2
        want = want - (self.ray_dirs * push[:, None]).sum(axis=0)
        if not np.any(want):
            return np.array([1.0, 0.0], np.float32)
        angle = np.arctan2(want[1], want[0])
        return np.array([1.0, np.clip(self.gain * angle, -1.0, 1.0)], np.float32)


class ScriptedPursuer:
    """The leader rules of *AI for Game Developers* (chapter 4, AIDemo4) on a pursuer's own
    observation (:mod:`rigidflock.envs.pursuit_v0`): full throttle, the bow force full to the
    side the aim point lies on (the book's bang-bang chase, ``+1`` to port, dead ahead counting
    as port), aiming at the nearest opponent (``role="chase"``) or where it will be when they
    meet (``role="intercept"``: aim = offset + v_target |offset| / |v_target - v_own|, the book's
    intercept point; the observation's scales cancel). ``base``: where the opponent slots start
    in the observation. With no opponent in sight: throttle 1, no steer."""

    def __init__(self, base: int, role: str = "chase"):
        if role not in ("chase", "intercept"):
            raise ValueError(f"role must be 'chase' or 'intercept', got {role!r}")
        self.base, self.role = int(base), role

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        slot = obs[self.base : self.base + PER_PURSUER].astype(float)
        if slot[5] == 0.0:
            return np.array([1.0, 0.0], np.float32)
        aim = slot[0:2]
        if self.role == "intercept":
            vr = slot[2:4]  # v_target - v_own, in the pursuer's frame
            closing = np.hypot(*vr)
            if closing > 1e-9:
                aim = aim + (vr + obs[0:2]) * (np.hypot(*aim) / closing)
        return np.array([1.0, 1.0 if aim[1] >= 0.0 else -1.0], np.float32)


def evade_episode_lengths(policy: str, seeds, **env_kw) -> np.ndarray:
    """Ticks survived on Evade-v0 by ``policy`` (``"random"``: :class:`RandomPolicy` seeded
    with the episode's seed; ``"scripted"``: :class:`ScriptedEvader`) in one episode per seed
    (``reset(seed=s)``): (S,) int. ``env_kw``: :class:`~rigidflock.envs.evade.EvadeEnv`'s
    keywords (``scene``, ``max_ticks``, ``frame_skip`` ...). Needs gymnasium."""
    if policy not in ("random", "scripted"):
        raise ValueError(f"policy must be 'random' or 'scripted', got {policy!r}")
    from rigidflock.envs.evade import EvadeEnv

    env = EvadeEnv(**env_kw)
    out = []
    for seed in seeds:
        if policy == "random":
            act = RandomPolicy(seed)
        else:
            act = ScriptedEvader(env.observer.k, env.observer.rays)
        obs, _ = env.reset(seed=int(seed))
        while True:
            obs, _, terminated, truncated, info = env.step(act(obs))
            if terminated or truncated:
                break
        out.append(info["tick"])
    env.close()
    return np.asarray(out)
