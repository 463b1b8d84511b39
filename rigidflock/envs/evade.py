"""``rigidflock/Evade-v0``: drive the player, stay clear of the flocks that chase it.

One environment step gives the player a throttle and a steer for ``frame_skip`` simulation ticks
(``scene.world.dt`` seconds each, 1/60 s in the bundled scenes). The episode ends when an AI unit
touches the player (terminated, the capture penalty), or is truncated: after
``spec.max_episode_steps`` steps through ``gym.make``
(:data:`rigidflock.envs.EVADE_MAX_EPISODE_STEPS`, 60 s at the default frame_skip) and, when
given, after ``max_ticks`` simulation ticks.

The simulation is built on the first :meth:`EvadeEnv.reset` (or the first use of ``env.sim``),
not in ``__init__``: its compiled kernels start numba's OpenMP threads, and a process running
them must not ``fork``. An environment made in a parent process and only inspected there (what
:class:`gymnasium.vector.AsyncVectorEnv` does before it forks its workers) never starts them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from rigidflock.envs.episode_outputs import EpisodeOutputs
from rigidflock.envs.observation import OWN, PER_PURSUER, Observer, observation_size
from rigidflock.envs.scenes import bundled_scene
from rigidflock.scene import Scene, load_scene
from rigidflock.scene.overrides import apply_overrides
from rigidflock.sim import Command, Simulation

__all__ = ["EvadeEnv"]

CONTACTS = ("player_contacts", "unit_contacts", "obstacle_contacts", "wall_contacts")

# 4 ticks a step: gamma 0.99 looks 100 steps = 6.7 s ahead, the time a chaser takes to close
# from across the view (docs/guides/gym.md measures it); at 1 tick a step it was 1.7 s
FRAME_SKIP = 4
# the keywords of EvadeEnv that define the task (not its outputs): what the native vector
# environment passes on to it
TASK_OPTIONS = ("max_ticks", "frame_skip", "overrides", "k", "rays", "survive_reward",
                "capture_penalty", "shaping")  # fmt: skip


def _scene(scene: Scene | str | os.PathLike | None, overrides) -> Scene:
    """The scene to run: a Scene, a path, or None for the bundled default, with ``overrides``
    (key path -> value, as ``--set``) applied so its text (what replays store) is the run's."""
    if scene is None:
        scene = bundled_scene()
    if not isinstance(scene, Scene):
        scene = load_scene(scene)
    return apply_overrides(scene, overrides) if overrides else scene


def _throttle_steer(action) -> tuple[float, float]:
    """The action's two values as floats clipped to [-1, 1] (any array-like of shape (2,); a
    flat float array, what policies give, takes the quick path). ValueError for another shape
    or a value that is not a finite number."""
    if type(action) is not np.ndarray or action.shape != (2,):
        try:
            action = np.asarray(action, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"action: want (throttle, steer), 2 numbers, got {action!r}") from None
        if action.shape != (2,):
            raise ValueError(
                f"action: shape {action.shape}, want (2,) (throttle, steer; the action space "
                "is Box(-1, 1, (2,)))"
            )
    throttle, steer = float(action[0]), float(action[1])
    if not (math.isfinite(throttle) and math.isfinite(steer)):
        raise ValueError(f"action: {throttle, steer} is not finite")
    return min(max(throttle, -1.0), 1.0), min(max(steer, -1.0), 1.0)


def nearest_distance(obs: np.ndarray) -> float:
    """The nearest pursuer's distance / sense range read from an observation (its first slot's
    offset), 1 when no slot holds one: what the shaped reward's potential is made of."""
    if obs.shape[0] <= OWN + PER_PURSUER - 1 or obs[OWN + PER_PURSUER - 1] == 0.0:
        return 1.0
    return min(math.hypot(float(obs[OWN]), float(obs[OWN + 1])), 1.0)


class EvadeEnv(EpisodeOutputs, gym.Env):
    """Evade the flock: a Gymnasium environment on any rigidflock scene with a player.

    Action: ``Box([-1, -1], [1, 1])``, float32: (throttle, steer), exactly the keyboard's
    command (steer + turns to port, counter-clockwise); another shape is refused (ValueError),
    values outside [-1, 1] are clipped. Observation: ``Box(-1, 1, (5 + 6 k + rays,))``,
    float32, documented field by field in :mod:`rigidflock.envs.observation`.

    Reward per step: ``survive_reward`` per simulated second survived in the step (``ticks x dt
    x survive_reward``), ``-capture_penalty`` when an AI unit touches the player (the episode
    terminates), and, with ``shaping`` > 0, ``shaping`` x the change in the nearest pursuer's
    distance over the step (in sense ranges, :func:`nearest_distance`: a potential-based term,
    which leaves the best policy unchanged); ``info`` holds the parts (``reward_survival``,
    ``reward_capture``, ``reward_shaping``), the tick, and the contact counts of the step.

    Parameters: ``scene`` (Scene or path; default the bundled aidemo4 scene), ``max_ticks``
    (truncation after this many simulation ticks; default None: only the spec's
    ``max_episode_steps`` through ``gym.make``), ``frame_skip`` (ticks per step, the action
    repeated; default :data:`FRAME_SKIP`), ``overrides`` (scene key path -> value, e.g.
    ``{"rules.weights.chase": 3}``), ``k`` (pursuer slots), ``rays`` (feelers),
    ``survive_reward``, ``capture_penalty``, ``shaping`` (default 0: off), ``render_mode``
    (``"rgb_array"``: offscreen, no display needed; ``"human"``: the viewer window, opened at
    the first frame; with no display the frames are skipped, with one warning),
    ``render_size`` (W, H pixels), ``record_to`` (a replay path per episode; ``{episode}`` in
    it is replaced by the episode number, else the file is rewritten each episode).
    """

    metadata: ClassVar[dict] = {"render_modes": ["human", "rgb_array"], "render_fps": 60}

    def __init__(
        self,
        scene: Scene | str | os.PathLike | None = None,
        *,
        max_ticks: int | None = None,
        frame_skip: int = FRAME_SKIP,
        overrides: Mapping[str, Any] | None = None,
        k: int = 5,
        rays: int = 8,
        survive_reward: float = 1.0,
        capture_penalty: float = 10.0,
        shaping: float = 0.0,
        render_mode: str | None = None,
        render_size: tuple[int, int] = (640, 480),
        record_to: str | os.PathLike | None = None,
    ):
        if (max_ticks is not None and max_ticks < 1) or frame_skip < 1:
            raise ValueError("max_ticks and frame_skip must be >= 1")
        if k < 0 or rays < 0:
            raise ValueError("k and rays must be >= 0")
        if not math.isfinite(shaping) or shaping < 0:
            raise ValueError(f"shaping must be a finite number >= 0, got {shaping!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.scene = _scene(scene, overrides)
        if self.scene.player is None:
            raise ValueError(f"{self.scene.source}: the scene has no player to control")
        self.k, self.rays = int(k), int(rays)
        self._sim: Simulation | None = None  # built on first use (see the module's notes)
        self._observer: Observer | None = None
        self.max_ticks = None if max_ticks is None else int(max_ticks)
        self.frame_skip = int(frame_skip)
        self._tick_limit = self.max_ticks if self.max_ticks is not None else 2**62
        self.survive_reward, self.capture_penalty = float(survive_reward), float(capture_penalty)
        self.shaping = float(shaping)
        self.dt = float(self.scene.world.dt)
        # a whole step's survival reward, as the per-step formula computes it
        self._full_step_survival = self.survive_reward * self.frame_skip * self.dt
        self.render_mode, self.render_size = render_mode, tuple(render_size)
        self.metadata = {**self.metadata, "render_fps": round(1.0 / (self.dt * self.frame_skip))}
        self.action_space = gym.spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
        n = observation_size(self.k, self.rays)
        self.observation_space = gym.spaces.Box(-1.0, 1.0, shape=(n,), dtype=np.float32)
        self.record_to = None if record_to is None else str(record_to)
        self.recorder = None
        self.replay_path: Path | None = None  # the last episode's replay, when recording
        self.episode = -1
        self._viewer = None
        self._done = True
        self._potential = 1.0  # the shaped reward's: nearest distance at the last observation

    @property
    def sim(self) -> Simulation:
        """The environment's :class:`~rigidflock.sim.Simulation` (built on first use)."""
        if self._sim is None:
            self._sim = Simulation(self.scene)
            self._observer = Observer(self._sim, k=self.k, rays=self.rays)
        return self._sim

    @property
    def observer(self) -> Observer:
        """The :class:`~rigidflock.envs.observation.Observer` building the observations."""
        if self._observer is None:
            self.sim  # noqa: B018 (builds both)
        return self._observer

    # -- episodes -----------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode. ``seed`` seeds the simulation's generator (the run of ``rigidflock
        run --seed``); without it the seed is drawn from the environment's generator, itself
        seeded by the last ``seed`` given (a fresh random one if never)."""
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**31 - 1))
        self._stop_recording()
        sim = self.sim
        sim.reset(int(seed))
        self.observer.reset(sim)
        self.episode += 1
        self._done = False
        self._start_recording()
        if self.render_mode == "human":
            self.render()
        obs = self.observer(sim)
        self._potential = nearest_distance(obs)
        return obs, {"tick": 0, "seed": int(seed)}

    def step(self, action):
        """Drive the player with ``action`` (throttle, steer) for ``frame_skip`` ticks, stopping
        early at a capture or at ``max_ticks``. Returns ``(observation, reward, terminated,
        truncated, info)`` as Gymnasium's ``Env.step`` does; see the class for the reward."""
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        throttle, steer = _throttle_steer(action)
        command = Command(throttle=throttle, steer=steer)
        sim, rec, max_ticks = self.sim, self.recorder, self._tick_limit
        player = unit = obstacle = wall = ticks = 0
        for _ in range(self.frame_skip):
            events = sim.step(command)
            if rec is not None:
                rec.record(command, events)
            ticks += 1
            player += events.player_contacts
            unit += events.unit_contacts
            obstacle += events.obstacle_contacts
            wall += events.wall_contacts
            if events.player_contacts or sim.tick >= max_ticks:
                break
        terminated = player > 0
        truncated = not terminated and sim.tick >= max_ticks
        if ticks == self.frame_skip:
            survival = self._full_step_survival
        else:
            survival = self.survive_reward * ticks * self.dt
        capture = -self.capture_penalty if terminated else 0.0
        obs = self.observer(sim)
        shaped = 0.0
        if self.shaping:
            potential = nearest_distance(obs)
            shaped = self.shaping * (potential - self._potential)
            self._potential = potential
        info = {
            "tick": sim.tick,
            "reward_survival": survival,
            "reward_capture": capture,
            "reward_shaping": shaped,
            "player_contacts": player,
            "unit_contacts": unit,
            "obstacle_contacts": obstacle,
            "wall_contacts": wall,
        }  # the keys: tick, the reward's parts, CONTACTS
        if terminated or truncated:
            self._done = True
            self._stop_recording()
            if self.replay_path is not None:
                info["replay"] = str(self.replay_path)
        if self.render_mode == "human":
            self.render()
        return obs, survival + capture + shaped, terminated, truncated, info

    # -- replays ------------------------------------------------------------------------------

    # -- drawing ------------------------------------------------------------------------------

    def render(self):
        """``"rgb_array"``: the current state drawn offscreen, (H, W, 3) uint8, the world
        filling the frame; ``"human"``: draws it in the viewer window (opened on first use; with
        no display, warns once and skips the frames) and returns None."""
        return self._draw()

    def close(self) -> None:
        self._close_outputs()
        super().close()
