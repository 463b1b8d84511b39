"""Compile the kernels the test suite uses into the cache before its workers start, in two
processes that share the work (``python tests/warm_kernels.py PART``, PART 0 or 1; the suite's
``conftest.py`` runs both when pytest runs on several workers). Without it each worker compiles
the same kernels at the same time, on the same cores."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def part0() -> None:
    """The small worlds' kernels: the passes' one-thread twins, the run metrics, move orders."""
    from rigidflock import load_scene, resolve_scene
    from rigidflock.runs.warmup import warm_up

    for name in ("aidemo4", "rts_doorway"):
        warm_up(load_scene(resolve_scene(name)))


def part1() -> None:
    """The large worlds' parallel kernels, and the environment's observation."""
    from rigidflock.bench import bench_scene
    from rigidflock.model.steering.blend import PARALLEL_FROM
    from rigidflock.runs.warmup import warm_up

    warm_up(bench_scene(PARALLEL_FROM))
    try:
        import gymnasium as gym

        import rigidflock.envs  # noqa: F401  (registers the environment)
    except ImportError:
        return
    env = gym.make("rigidflock/Evade-v0")
    env.reset(seed=1)
    env.step(env.action_space.sample())
    env.close()


if __name__ == "__main__":
    (part0, part1)[int(sys.argv[1])]()
