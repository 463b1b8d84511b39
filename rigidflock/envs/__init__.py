"""Gymnasium environments on rigidflock scenes (the optional ``gym`` extra:
``pip install ".[gym]"`` in the rigidflock checkout).

Importing this package registers ``rigidflock/Evade-v0`` (:class:`~rigidflock.envs.evade.EvadeEnv`)
when gymnasium is installed::

    import gymnasium as gym
    import rigidflock.envs  # noqa: F401 (registers the environments)

    env = gym.make("rigidflock/Evade-v0")  # 900 steps of 4 ticks at most (spec)
    obs, info = env.reset(seed=1)
    envs = gym.make_vec("rigidflock/Evade-v0", num_envs=64)  # 64 worlds in one process

``import rigidflock`` never needs gymnasium; only :mod:`rigidflock.envs.evade` imports it.
"""

from __future__ import annotations

EVADE_ID = "rigidflock/Evade-v0"
EVADE_ENTRY_POINT = "rigidflock.envs.evade:EvadeEnv"

try:
    import gymnasium as _gym
except ImportError:  # the extra is not installed: nothing to register
    _gym = None

EVADE_VECTOR_ENTRY_POINT = "rigidflock.envs.native:EvadeVectorEnv"
EVADE_MAX_EPISODE_STEPS = 900  # 60 s at the default frame_skip of 4 ticks (evade.FRAME_SKIP)

if _gym is not None and EVADE_ID not in _gym.registry:
    _gym.register(
        id=EVADE_ID,
        entry_point=EVADE_ENTRY_POINT,
        vector_entry_point=EVADE_VECTOR_ENTRY_POINT,
        max_episode_steps=EVADE_MAX_EPISODE_STEPS,
    )

__all__ = [  # EvadeEnv, EvadeVectorEnv: loaded on first use
    "EVADE_ENTRY_POINT",
    "EVADE_ID",
    "EVADE_MAX_EPISODE_STEPS",
    "EVADE_VECTOR_ENTRY_POINT",
    "EvadeEnv",
    "EvadeVectorEnv",
]


def __getattr__(name: str):
    if name in ("EvadeEnv", "EvadeVectorEnv"):
        if _gym is None:
            raise ImportError(
                'rigidflock.envs needs gymnasium (pip install ".[gym]" in the rigidflock checkout)'
            )
        from rigidflock.envs.evade import EvadeEnv
        from rigidflock.envs.native import EvadeVectorEnv

        return EvadeEnv if name == "EvadeEnv" else EvadeVectorEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
