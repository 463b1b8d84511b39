"""``rigidflock/Evade-v0`` as a native vector environment: N worlds stepped in one process.

``gym.make_vec("rigidflock/Evade-v0", num_envs=N)`` (the default vectorization mode of the id,
or ``vectorization_mode="vector_entry_point"``) makes :class:`EvadeVectorEnv`: N independent
worlds (each its own seed, generator and pymunk space) whose units sit in the same arrays, so
each tick is one call of each compiled pass for all of them
(:class:`~rigidflock.sim.batch.SimulationBatch`) and one call for all their observations. World
i gives, bit for bit, what ``gym.make("rigidflock/Evade-v0")`` gives with the same seeds and
actions (observations, rewards, ends and autoresets: what ``SyncVectorEnv`` of N of them gives).

Autoreset: Gymnasium's default, ``AutoresetMode.NEXT_STEP`` (``metadata["autoreset_mode"]``): the
step after a world's episode ends resets it, ignoring its action, and returns its first
observation with reward 0 and neither flag set. ``autoreset_mode=AutoresetMode.SAME_STEP``
resets it in the step that ends the episode instead, returning the new episode's first
observation and the last one in ``info["final_obs"]`` (an object array, one observation per
world that ended; ``info["final_info"]``: the ending step's info), as ``SyncVectorEnv`` does in
that mode.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from rigidflock.envs.evade import CONTACTS, TASK_OPTIONS, EvadeEnv, nearest_distance
from rigidflock.envs.observation import OMEGA_SCALE, Observer
from rigidflock.envs.observation_batch import observe_worlds
from rigidflock.envs.observation_kernel import (
    INV_SENSE,
    INV_SPEED,
    N_SCALES,
    OMEGA,
    RAY_RANGE,
    SPEED,
    Motion,
    Senses,
)
from rigidflock.scene import Scene
from rigidflock.sim.batch import SimulationBatch

__all__ = ["EvadeVectorEnv"]

SEED_DRAW = 2**31 - 1  # an unseeded reset draws the simulation seed below this (as EvadeEnv)


class EvadeVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` worlds of Evade-v0 in one process (see the module's notes).

    Options: ``scene`` and the task's keywords, as :class:`~rigidflock.envs.evade.EvadeEnv`
    takes them (``evade.TASK_OPTIONS``: ``max_ticks``, ``frame_skip``, ``overrides``, ``k``,
    ``rays``, ``survive_reward``, ``capture_penalty``, ``shaping``; the same defaults), plus
    ``max_episode_steps`` (truncation after this many steps of an episode, as the TimeLimit
    wrapper of ``gym.make``; ``gym.make_vec`` passes the spec's, 900) and
    ``autoreset_mode`` (NEXT_STEP, Gymnasium's default, or SAME_STEP). Scenes with move orders,
    timed events or ``world.reaction_ticks = 1`` are refused (ValueError): see
    :mod:`rigidflock.sim.batch`. No rendering (``render_mode`` None only).

    ``reset(seed=s)`` seeds world i with ``s + i`` (a list: one seed a world), as
    ``SyncVectorEnv`` does; ``info`` of ``reset`` and ``step`` holds, per world, the keys of
    ``EvadeEnv``'s info (``tick``, the reward's parts, the contact counts; ``seed`` after a
    reset), each with its ``_key`` mask, as Gymnasium's vector environments give them.
    """

    metadata: ClassVar[dict] = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int,
        scene: Scene | str | os.PathLike | None = None,
        *,
        max_episode_steps: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
        **task: Any,
    ):
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        if render_mode is not None:
            raise ValueError("the native vector environment does not render: render_mode=None")
        if max_episode_steps is not None and max_episode_steps < 1:
            raise ValueError("max_episode_steps must be >= 1")
        mode = AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(f"autoreset_mode must be NEXT_STEP or SAME_STEP, got {mode}")
        # one environment checks the options and holds the spaces (it never builds a simulation)
        unknown = sorted(set(task) - set(TASK_OPTIONS))
        if unknown:
            raise TypeError(f"EvadeVectorEnv got unexpected keyword arguments {unknown}")
        self.single = EvadeEnv(scene, **task)
        one = self.single
        self.scene = one.scene
        self.num_envs = int(num_envs)
        self.metadata = {**self.metadata, "autoreset_mode": mode,
                         "render_fps": one.metadata["render_fps"]}  # fmt: skip
        self.autoreset_mode = mode
        self.render_mode = None
        self.single_observation_space = one.observation_space
        self.single_action_space = one.action_space
        self.observation_space = batch_space(one.observation_space, self.num_envs)
        self.action_space = batch_space(one.action_space, self.num_envs)
        self.frame_skip, self.dt = one.frame_skip, one.dt
        self.max_ticks = one.max_ticks
        self.max_episode_steps = None if max_episode_steps is None else int(max_episode_steps)
        self.batch = SimulationBatch(self.scene, self.num_envs)
        W = self.num_envs
        self._observers = [None] * W
        self._circles: list[np.ndarray] = [np.zeros((0, 3))] * W
        self._segments: list[np.ndarray] = [np.zeros((0, 5))] * W
        self._geometry = None  # the stacked circles and segments, made again after a reset
        self._obs = np.zeros((W, one.observation_space.shape[0]), np.float32)
        self._rngs: list[np.random.Generator | None] = [None] * W
        self._steps = np.zeros(W, np.int64)  # steps into the current episode
        self._pending = np.zeros(W, dtype=bool)  # episode over: reset at the next step
        self._potential = np.ones(W)
        self._started = False
        n = self.batch.n
        self._ai = np.arange(n) != n - 1
        angles = 2 * np.pi * np.arange(one.rays) / max(one.rays, 1)  # as Observer's feelers
        self._rays = np.column_stack([np.cos(angles), np.sin(angles)])
        self._scales = None
        self._box = np.zeros(2)

    # -- episodes -----------------------------------------------------------------------------

    def _reset_world(self, w: int, seed: int | None) -> int:
        """Reset world w as ``EvadeEnv.reset(seed=seed)`` does; returns the simulation seed."""
        if seed is not None:
            self._rngs[w], _ = seeding.np_random(int(seed))
        elif self._rngs[w] is None:
            self._rngs[w], _ = seeding.np_random()
        if seed is None:
            seed = int(self._rngs[w].integers(SEED_DRAW))
        self.batch.reset(w, int(seed))
        sim = self.batch.sims[w]
        obs = self._observers[w] = Observer(sim, k=self.single.k, rays=self.single.rays)
        self._circles[w] = obs.circles
        self._segments[w] = obs.segments
        self._geometry = None
        if self._scales is None:
            scales = np.zeros(N_SCALES)
            scales[SPEED], scales[OMEGA] = obs.speed_scale, OMEGA_SCALE
            scales[INV_SENSE], scales[INV_SPEED] = 1.0 / obs.sense_range, 1.0 / obs.speed_scale
            scales[RAY_RANGE] = obs.ray_range
            self._scales = scales
            if obs.box is not None:
                self._box = np.asarray(obs.box, dtype=float).copy()
        self._steps[w] = 0
        self._pending[w] = False
        return int(seed)

    def _observe(self) -> np.ndarray:
        """Every world's observation (W, size) float32, into the reused array."""
        if self._geometry is None:

            def stack(parts, width):
                off = np.concatenate([[0], np.cumsum([len(p) for p in parts])]).astype(np.int64)
                flat = np.concatenate([np.asarray(p, float).reshape(-1, width) for p in parts])
                return np.ascontiguousarray(flat), off

            self._geometry = (*stack(self._circles, 3), *stack(self._segments, 5))
        b = self.batch
        circles, c_off, segments, s_off = self._geometry
        observe_worlds(self._obs, b.n, Motion(b.pos, b.vel, b.angle, b.omega), b.leader,
                       self._ai, self._box, circles, c_off, segments, s_off,
                       Senses(self._rays, self._scales))  # fmt: skip
        return self._obs

    def _potentials(self, obs: np.ndarray, worlds) -> None:
        """The shaped reward's potential of each world in ``worlds`` from its observation."""
        for w in worlds:
            self._potential[w] = nearest_distance(obs[w])

    def reset(self, *, seed: int | list[int | None] | None = None, options: dict | None = None):
        """Reset every world (with ``options={"reset_mask": mask}``, those in ``mask`` (W,)
        bool). ``seed``: an int (world i gets ``seed + i``), one seed a world, or None."""
        W = self.num_envs
        if seed is None:
            seeds = [None] * W
        elif isinstance(seed, int | np.integer):
            seeds = [int(seed) + i for i in range(W)]
        else:
            seeds = list(seed)
            if len(seeds) != W:
                raise ValueError(f"seed: {len(seeds)} seeds for {W} worlds")
        mask = np.ones(W, dtype=bool)
        if options is not None and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"], dtype=bool)
            if mask.shape != (W,):
                raise ValueError(f"reset_mask: shape {mask.shape}, want ({W},)")
            if not self._started and not mask.all():
                raise ValueError("reset_mask: the first reset resets every world")
        worlds = np.flatnonzero(mask)
        used = np.zeros(W, np.int64)
        for w in worlds:
            used[w] = self._reset_world(int(w), seeds[w])
        self._started = True
        obs = self._observe()
        if self.single.shaping:
            self._potentials(obs, worlds)
        info = {"tick": np.zeros(W, np.int64), "_tick": mask.copy(), "seed": used,
                "_seed": mask.copy()}  # fmt: skip
        return obs.copy(), info

    def step(self, actions):
        """Step every world: (obs (W, size), rewards (W,), terminated (W,), truncated (W,),
        info), as Gymnasium's vector API defines it for the autoreset mode (module notes)."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        W, one = self.num_envs, self.single
        acts = self._actions(actions)
        resetting = self._pending.copy()
        reset_seeds = np.zeros(W, np.int64)
        for w in np.flatnonzero(resetting):
            reset_seeds[w] = self._reset_world(int(w), None)
        active = ~resetting
        stepped = active.copy()
        ticks_done = np.zeros(W, np.int64)
        counts = np.zeros((W, 4), np.int64)
        b = self.batch
        limit = 2**62 if self.max_ticks is None else self.max_ticks
        throttle, steer = acts[:, 0], acts[:, 1]
        for _ in range(self.frame_skip):
            if not active.any():
                break
            events = b.step(throttle, steer, active)
            counts += events
            ticks_done += active
            over = active & ((events[:, 3] > 0) | (b.ticks >= limit))
            active &= ~over
        obs = self._observe()
        terminated = stepped & (counts[:, 3] > 0)
        truncated = stepped & ~terminated & (b.ticks >= limit)
        self._steps += stepped
        if self.max_episode_steps is not None:
            truncated |= stepped & (self._steps >= self.max_episode_steps)
        full = one._full_step_survival
        survival = np.where(ticks_done == self.frame_skip, full,
                            one.survive_reward * ticks_done * one.dt)  # fmt: skip
        survival = np.where(stepped, survival, 0.0)
        capture = np.where(terminated, -one.capture_penalty, 0.0)
        shaped = np.zeros(W)
        if one.shaping:
            before = self._potential.copy()
            self._potentials(obs, range(W))
            shaped = np.where(stepped, one.shaping * (self._potential - before), 0.0)
        rewards = survival + capture + shaped
        info = {"tick": b.ticks.copy(), "_tick": np.ones(W, dtype=bool)}
        parts = {"reward_survival": survival, "reward_capture": capture,
                 "reward_shaping": shaped}  # fmt: skip
        for key, col in zip(CONTACTS, (3, 0, 1, 2), strict=True):
            parts[key] = counts[:, col]
        if stepped.any():  # (keys no world has are left out, as gymnasium's vector envs do)
            for key, value in parts.items():
                info[key] = value
                info["_" + key] = stepped.copy()
        if resetting.any():
            info["seed"], info["_seed"] = reset_seeds, resetting
        done = terminated | truncated
        out = obs.copy()
        if self.autoreset_mode == AutoresetMode.SAME_STEP and done.any():
            # the ending step's info moves to final_info; the reset's (tick 0, seed) takes its
            # place, as SyncVectorEnv gives them
            final = {}
            for key in [k for k in info if not k.startswith("_")]:
                final[key], final["_" + key] = info[key].copy(), done.copy()
                info["_" + key] = info["_" + key] & ~done
            seeds = info.get("seed", np.zeros(W, np.int64)).copy()
            for w in np.flatnonzero(done):
                seeds[w] = self._reset_world(int(w), None)
            info["tick"] = np.where(done, 0, info["tick"])
            info["_tick"] = np.ones(W, dtype=bool)
            info["seed"], info["_seed"] = seeds, info.get("_seed", np.zeros(W, bool)) | done
            final_obs = np.full(W, None, dtype=object)  # one array a world, as SyncVectorEnv
            for w in np.flatnonzero(done):
                final_obs[w] = out[w].copy()
            info["final_obs"], info["_final_obs"] = final_obs, done.copy()
            info["final_info"], info["_final_info"] = final, done.copy()
            if self.single.shaping:
                self._potentials(self._observe(), np.flatnonzero(done))
            out = self._observe().copy()
        else:
            self._pending = done.copy()
        return out, rewards.astype(np.float64), terminated, truncated, info

    def _actions(self, actions) -> np.ndarray:
        """(W, 2) float64 throttles and steers clipped to [-1, 1]; ValueError for another shape
        or a value that is not finite (as EvadeEnv's, world by world)."""
        try:
            a = np.asarray(actions, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"actions: want ({self.num_envs}, 2) numbers, got {actions!r}"
            ) from None
        if a.shape != (self.num_envs, 2):
            raise ValueError(
                f"actions: shape {a.shape}, want ({self.num_envs}, 2) (throttle, steer per world)"
            )
        if not np.isfinite(a).all():
            raise ValueError("actions: not all finite")
        return np.clip(a, -1.0, 1.0)

    def close_extras(self, **kwargs) -> None:
        self.batch = None
