"""Process-based vector environments of ``rigidflock/Evade-v0`` with one numba thread a worker.

The simulation's compiled kernels run on numba's OpenMP threads, and a process that has used
OpenMP must not ``fork``. A plain :class:`~gymnasium.vector.AsyncVectorEnv` (``fork`` on Linux)
works as long as the parent has not stepped an environment: the environment builds its
simulation at the first reset, so the one AsyncVectorEnv makes in the parent to read the spaces
never starts the threads. :func:`make_vector` starts the workers with ``forkserver`` (or
``spawn``) instead, so it works whatever the parent ran, each worker on one numba thread (the
workers are the parallelism; one thread each avoids oversubscribing the cores). Scripts that
make an async vector environment need the usual ``if __name__ == "__main__":`` guard. For many
worlds in one process, ``gym.make_vec(..., vectorization_mode="vector_entry_point")``
(:mod:`rigidflock.envs.native`) is faster than either.
"""

from __future__ import annotations

import os

import gymnasium as gym

from rigidflock.envs import EVADE_ID


def make_vector(
    num_envs: int, mode: str = "async", context: str = "forkserver", env_id: str = EVADE_ID, **kw
) -> gym.vector.VectorEnv:
    """``num_envs`` copies of ``env_id`` (keyword arguments ``kw`` go to each), stepped in one
    process (``mode="sync"``) or one worker process each (``"async"``, started with
    ``context``, NUMBA_NUM_THREADS=1 in the workers)."""
    if mode == "sync":
        return gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="sync", **kw)
    if mode != "async":
        raise ValueError(f"mode must be 'sync' or 'async', got {mode!r}")
    before = os.environ.get("NUMBA_NUM_THREADS")
    os.environ["NUMBA_NUM_THREADS"] = "1"  # inherited by the workers started now
    try:
        return gym.make_vec(
            env_id,
            num_envs=num_envs,
            vectorization_mode="async",
            vector_kwargs={"context": context},
            **kw,
        )
    finally:
        if before is None:
            del os.environ["NUMBA_NUM_THREADS"]
        else:
            os.environ["NUMBA_NUM_THREADS"] = before
