"""``pursuit_v0``: pursuers that learn against evaders that learn, rigid vehicles steered at the
bow among rule-driven flocks and obstacles, in PettingZoo's conventions (the optional
``pettingzoo`` extra)::

    from rigidflock.envs import pursuit_v0

    env = pursuit_v0.parallel_env(pursuers=4, flockers=10)   # or pursuit_v0.env(): AEC
    observations, infos = env.reset(seed=1)
    actions = {agent: env.action_space(agent).sample() for agent in env.agents}
    observations, rewards, terminations, truncations, infos = env.step(actions)

Agents ``evader_0 ...`` and ``pursuer_0 ...``. ``evader_0`` is the scene's player (the unit the
rules' chase and intercept leaders steer for), further evaders and the pursuers are AI units
driven by per-unit control (``Command.units``); the flockers are AI units left to the rules.
A scene of one's own says which unit is which by family: units of the family ``"pursuer"`` are
pursuers, of ``"evader"`` (and the player) evaders, every other unit a flocker.

One step gives every agent a throttle and a steer for ``frame_skip`` simulation ticks. A capture
is a contact begun between a pursuer and an evader (``StepEvents.unit_pairs``): it terminates
every agent. Rewards are zero-sum between the sides: each evader gets ``survive_reward`` per
simulated second survived in the step and ``-capture_reward`` at a capture; each pursuer gets
the negative of that. After ``max_ticks`` ticks every agent is truncated.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv
from pettingzoo.utils import parallel_to_aec, wrappers

from rigidflock.envs.episode_outputs import EpisodeOutputs
from rigidflock.envs.observation import OWN, PER_PURSUER, UnitObserver
from rigidflock.model.state import ROLE_INTERCEPT
from rigidflock.scene import Scene, SceneError, check_generation, load_scene, parse_scene
from rigidflock.sim import Command, Simulation

__all__ = ["PursuitEnv", "env", "parallel_env", "pursuit_scene", "raw_env"]

PURSUER, EVADER = "pursuer", "evader"  # the families that mark the sides
TEAM, OPPONENTS, FLOCKERS = 0, 1, 2  # the observation's slot groups, in order


OBSTACLES = 8  # the default scene's obstacles, where the arena has room for them
FIELD_PROBES = range(64)  # seeds a field's count is tried on (see pursuit_scene)


def pursuit_scene(
    evaders: int = 1,
    pursuers: int = 4,
    flockers: int = 0,
    *,
    size: tuple[float, float] = (800.0, 600.0),
    bounds: str = "wrap",
    obstacles: int | None = None,
    flocker_role: str = "none",
    flocking: bool = True,
    chase: bool = True,
    evader_thrust: float = 12.0,
    seed: int = 1,
) -> Scene:
    """The default arena (AIDemo4's world): ``pursuers`` pursuers (family ``"pursuer"``, half
    of role ``"chase"``, half ``"intercept"``, which the rules' leaders use when a pursuer keeps
    the rules on) spawned in the middle, the player and ``evaders - 1`` more evaders near the
    lower left corner, ``flockers`` rule-driven units (role ``flocker_role``) anywhere, and
    ``obstacles`` random obstacles of radius 32, placed from each episode's seed 60 units clear
    of the edges and the spawn areas. ``flocking = False`` switches the flocking rule off in the
    scene (then every rule-driven unit leads), ``chase = False`` the leaders' chase and
    intercept; ``evader_thrust``: the evaders' bow thrust, newtons (pursuers have 10 for chase
    and 15 for intercept, as AIDemo4's units; its player has 12).

    Obstacles: a count fits the arena when one more than it is placed on each of 64 probe seeds
    (the room left over makes a failure on any other seed unlikely). ``None`` (default): 8, or
    as many as fit (none in a 400 x 300 arena); a number that does not fit raises ValueError
    naming ``obstacles`` and how many fit."""
    if evaders < 1 or pursuers < 0 or flockers < 0 or (obstacles is not None and obstacles < 0):
        raise ValueError("need evaders >= 1 and pursuers, flockers, obstacles >= 0")
    w, h = float(size[0]), float(size[1])
    groups = []

    def group(count, family, role, cx, cy, r, extra=""):
        if count > 0:
            spawn = f"{{ center = [{cx}, {cy}], radius = {r} }}"
            groups.append(
                f'[[groups]]\ncount = {count}\nfamily = "{family}"\nrole = "{role}"\n'
                f"spawn = {spawn}\n{extra}"
            )

    group((pursuers + 1) // 2, PURSUER, "chase", w / 2, h / 2, 60.0)
    group(pursuers // 2, PURSUER, "intercept", w / 2, h / 2, 60.0)
    group(evaders - 1, EVADER, "none", w / 8, h / 6, 40.0, f"thrust = {float(evader_thrust)}\n")
    group(flockers, "flock", flocker_role, w / 2, h / 2, 0.4 * min(w, h))
    text = (
        f'name = "pursuit_v0"\nseed = {int(seed)}\n[world]\nsize = [{w}, {h}]\n'
        f'bounds = "{bounds}"\n[rules]\nflocking = {str(bool(flocking)).lower()}\n'
        f"chase = {str(bool(chase)).lower()}\n"
        + "".join(groups)
        + f"[player]\nposition = [{w / 8}, {h / 6}]\nheading = 0.0\n"
        + f"thrust = {float(evader_thrust)}\n"
    )

    def scene(count: int) -> Scene:
        field = f"[obstacle_field]\ncount = {count}\nradius = 32.0\nmargin = 60.0\n"
        return parse_scene(text + (field if count else ""), "pursuit_v0")

    def fits(count: int) -> bool:
        trial = scene(count + 1)
        try:
            for s in FIELD_PROBES:
                check_generation(trial, s)
        except SceneError:
            return False
        return True

    if obstacles is None:
        count = next((c for c in range(OBSTACLES, 0, -1) if fits(c)), 0)
    else:
        count = int(obstacles)
        if count and not fits(count):
            most = next((c for c in range(count - 1, 0, -1) if fits(c)), 0)
            raise ValueError(
                f"pursuit_scene: obstacles = {count} do not fit a {w:g} x {h:g} arena with "
                f"these spawn areas (at most {most}); lower obstacles or enlarge size"
            )
    return scene(count)


class PursuitEnv(EpisodeOutputs, ParallelEnv):
    """The parallel environment (see the module). Parameters: ``scene`` (Scene or path; default
    :func:`pursuit_scene` of ``evaders``, ``pursuers``, ``flockers``), ``max_ticks``
    (truncation, ticks), ``frame_skip`` (ticks per step), ``k_team``, ``k_opponents``,
    ``k_flockers`` (observation slots), ``rays`` (feelers), ``survive_reward``,
    ``capture_reward``, ``pursuer_rules`` / ``evader_rules`` (keep the rules on under the
    agents' steer: see ``Command.unit_rules``; the player, evader_0, never has them),
    ``rule_pursuers`` (the pursuers are left to the rules and are no agents: the baseline the
    learnt ones are measured against), ``render_mode`` (``"rgb_array"`` or ``"human"``),
    ``render_size``, ``record_to`` (a replay path per episode, ``{episode}`` replaced).

    Observation of an agent: ``Box(-1, 1, (5 + 6 (k_team + k_opponents + k_flockers) +
    rays,))`` float32, the layout of :class:`~rigidflock.envs.observation.UnitObserver` in
    its own body frame: own state; its nearest teammates; its nearest opponents; its nearest
    flockers (a slot's entry 4 is 1 for a unit some agent drives). Action: ``Box(-1, 1, (2,))``
    float32, throttle and steer (+ to port), as Evade-v0's.
    """

    metadata: ClassVar[dict] = {
        "render_modes": ["human", "rgb_array"],
        "name": "rigidflock_pursuit_v0",
        "render_fps": 15,
        "is_parallelizable": True,
    }

    def __init__(
        self,
        scene: Scene | str | os.PathLike | None = None,
        *,
        evaders: int = 1,
        pursuers: int = 4,
        flockers: int = 0,
        max_ticks: int = 3600,
        frame_skip: int = 4,
        k_team: int = 3,
        k_opponents: int = 4,
        k_flockers: int = 3,
        rays: int = 8,
        survive_reward: float = 1.0,
        capture_reward: float = 10.0,
        pursuer_rules: bool = False,
        evader_rules: bool = False,
        rule_pursuers: bool = False,
        render_mode: str | None = None,
        render_size: tuple[int, int] = (640, 480),
        record_to: str | os.PathLike | None = None,
    ):
        if max_ticks < 1 or frame_skip < 1:
            raise ValueError("max_ticks and frame_skip must be >= 1")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if scene is None:
            scene = pursuit_scene(evaders, pursuers, flockers)
        elif not isinstance(scene, Scene):
            scene = load_scene(scene)
        self.scene = scene
        self.sim = Simulation(scene)
        u = self.sim.units
        if not u.has_player:
            raise ValueError(f"{scene.source}: the scene has no player (evader_0)")
        self._assign_agents(u, bool(rule_pursuers))
        self.observer = UnitObserver(self.sim, ks=(k_team, k_opponents, k_flockers), rays=rays)
        self.max_ticks, self.frame_skip = int(max_ticks), int(frame_skip)
        self.survive_reward, self.capture_reward = float(survive_reward), float(capture_reward)
        self.dt = float(scene.world.dt)
        self.pursuer_rules, self.evader_rules = bool(pursuer_rules), bool(evader_rules)
        self.render_mode, self.render_size = render_mode, tuple(render_size)
        self.metadata = {**self.metadata, "render_fps": round(1.0 / (self.dt * self.frame_skip))}
        n = self.observer.size
        self._obs_space = spaces.Box(-1.0, 1.0, shape=(n,), dtype=np.float32)
        self._act_space = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._act_space)
        # the agents under per-unit control (every agent but the player), in command order
        self._controlled = [a for a in self.possible_agents if self.unit_of[a] != u.n - 1]
        self._control_rows = np.array([self.unit_of[a] for a in self._controlled], np.int64)
        self._control_rules = np.array(
            [self.pursuer_rules if a.startswith(PURSUER) else self.evader_rules
             for a in self._controlled], dtype=bool,
        )  # fmt: skip
        self.record_to = None if record_to is None else str(record_to)
        self.recorder = None
        self.replay_path: Path | None = None
        self.episode = -1
        self._viewer = None
        self._rng = np.random.default_rng()
        self.agents: list[str] = []

    def _assign_agents(self, u, rule_pursuers: bool) -> None:
        """The sides by family (the player an evader), the agents' names and units, and each
        side's slot groups (its own side the team, the other side the opponents)."""
        names = np.asarray((*u.family_names, ""), dtype=object)[
            np.where(u.family >= 0, u.family, len(u.family_names))
        ]
        player = np.arange(u.n) == u.n - 1
        self._pursuer = (names == PURSUER) & ~player
        self._evader = (names == EVADER) | player
        driven = self._evader | (self._pursuer if not rule_pursuers else False)
        self._driven = driven.astype(float)  # slot entry 4: a unit some agent drives
        ev = np.flatnonzero(self._evader)
        self._evader_rows = np.concatenate([ev[-1:], ev[:-1]])  # evader_0: the player
        self._pursuer_rows = np.flatnonzero(self._pursuer)
        self.rule_pursuers = bool(rule_pursuers)
        self.possible_agents = [f"evader_{i}" for i in range(len(ev))]
        if not rule_pursuers:
            self.possible_agents += [f"pursuer_{i}" for i in range(len(self._pursuer_rows))]
        rows = np.concatenate([self._evader_rows, self._pursuer_rows])
        self.unit_of = dict(zip(self.possible_agents, rows.tolist(), strict=False))
        self.role = {
            a: ("intercept" if u.role[r] == ROLE_INTERCEPT else "chase")
            for a, r in self.unit_of.items()
            if a.startswith(PURSUER)
        }
        # each side's slot groups: its own side (team), the other side, the flockers
        side = np.full(u.n, 2, np.int64)
        side[self._evader] = 0
        side[self._pursuer] = 1
        self._groups = {}
        for s in (0, 1):
            g = np.full(u.n, FLOCKERS, np.int64)
            g[side == s] = TEAM
            g[side == 1 - s] = OPPONENTS
            self._groups[s] = g

    # PettingZoo asks for the spaces by agent; the same objects every call
    @functools.cache  # noqa: B019 (one env, a handful of agents)
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    @functools.cache  # noqa: B019
    def action_space(self, agent):
        return self.action_spaces[agent]

    # -- episodes -----------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Start an episode: ``seed`` seeds the simulation (``rigidflock run --seed``); without
        it a seed is drawn from the environment's generator, seeded by the last seed given."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        else:
            seed = int(self._rng.integers(2**31 - 1))
        self._stop_recording()
        self.sim.reset(int(seed))
        self.observer.reset(self.sim)
        self.agents = list(self.possible_agents)
        self.episode += 1
        self._start_recording()
        if self.render_mode == "human":
            self.render()
        infos = {a: {"tick": 0, "seed": int(seed)} for a in self.agents}
        return self._observations(), infos

    def _observations(self) -> dict[str, np.ndarray]:
        obs, sim = self.observer, self.sim
        return {
            a: obs(sim, r, self._groups[0 if a.startswith(EVADER) else 1], self._driven)
            for a, r in self.unit_of.items()
        }

    def _command(self, actions) -> Command:
        """The tick's command: the player's throttle and steer, every other agent's by unit."""

        def act(agent):
            a = actions.get(agent)
            if a is None:
                return 0.0, 0.0
            a = np.clip(np.ravel(np.asarray(a, dtype=float))[:2], -1.0, 1.0)
            return float(a[0]), float(a[1])

        t0, s0 = act(self.possible_agents[0])
        if not len(self._controlled):
            return Command(throttle=t0, steer=s0)
        ts = np.array([act(a) for a in self._controlled]).reshape(-1, 2)
        return Command(
            throttle=t0, steer=s0, units=self._control_rows, unit_throttle=ts[:, 0],
            unit_steer=ts[:, 1], unit_rules=self._control_rules,
        )  # fmt: skip

    def step(self, actions):
        """Drive every agent with its action (throttle, steer) for ``frame_skip`` ticks,
        stopping early at a capture or ``max_ticks``. Returns PettingZoo's five dicts."""
        if not self.agents:
            raise RuntimeError("the episode is over: call reset()")
        command = self._command(actions)
        sim, rec = self.sim, self.recorder
        captures = []
        ticks = 0
        for _ in range(self.frame_skip):
            events = sim.step(command)
            if rec is not None:
                rec.record(command, events)
            ticks += 1
            p = events.unit_pairs
            if len(p):
                hit = (self._pursuer[p[:, 0]] & self._evader[p[:, 1]]) | (
                    self._evader[p[:, 0]] & self._pursuer[p[:, 1]]
                )
                captures += p[hit].tolist()
            if captures or sim.tick >= self.max_ticks:
                break
        captured = bool(captures)
        truncated = not captured and sim.tick >= self.max_ticks
        survival = self.survive_reward * ticks * self.dt
        r = survival - (self.capture_reward if captured else 0.0)
        rewards = {a: (r if a.startswith(EVADER) else -r) for a in self.agents}
        terminations = dict.fromkeys(self.agents, captured)
        truncations = dict.fromkeys(self.agents, truncated)
        info = {"tick": sim.tick, "captures": captures}
        if captured or truncated:
            self._stop_recording()
            if self.replay_path is not None:
                info["replay"] = str(self.replay_path)
        infos = {a: dict(info) for a in self.agents}
        observations = self._observations()
        if captured or truncated:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    # -- replays ------------------------------------------------------------------------------

    # -- drawing ------------------------------------------------------------------------------

    def render(self):
        """``"rgb_array"``: the current state drawn offscreen, (H, W, 3) uint8; ``"human"``:
        the viewer window (opened on first use; with no display, warns once and skips the
        frames), returns None; no render mode: None."""
        return self._draw()

    def close(self) -> None:
        self._close_outputs()

    # observation entries a scripted policy reads
    def slots(self, agent: str, obs: np.ndarray, group: int) -> np.ndarray:
        """The slot rows of ``group`` (TEAM, OPPONENTS, FLOCKERS) in ``agent``'s observation
        ``obs``: (k, 6) (offset fwd, port; relative velocity fwd, port; driven; present)."""
        ks = self.observer.ks
        base = OWN + PER_PURSUER * sum(ks[:group])
        return obs[base : base + PER_PURSUER * ks[group]].reshape(ks[group], PER_PURSUER)


def parallel_env(**kwargs) -> PursuitEnv:
    """The parallel environment (keyword arguments: :class:`PursuitEnv`)."""
    return PursuitEnv(**kwargs)


def raw_env(**kwargs):
    """The AEC environment, without wrappers (:func:`pettingzoo.utils.parallel_to_aec`)."""
    return parallel_to_aec(PursuitEnv(**kwargs))


def env(**kwargs):
    """The AEC environment with PettingZoo's order-enforcing wrapper (what ``api_test`` and
    AEC training loops expect)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))
