"""The observations of many worlds in one compiled call: the one-world kernel
(:func:`~rigidflock.envs.observation_kernel.observe`) on each world's slice of the arrays
(:mod:`rigidflock.sim.batch`'s layout: world w's ``n`` units are rows ``w n .. (w + 1) n - 1``,
the observed player last)."""

from __future__ import annotations

import numba as nb

from rigidflock.envs.observation_kernel import Motion, Walls, observe


@nb.njit(cache=True)
def observe_worlds(out, n, motion, leader, ai, box, circles, circles_off, segments, segments_off,
                   senses):  # fmt: skip
    """Row w of ``out`` (W, size) float32: world w's observation, as ``observe`` writes it for
    that world alone. ``motion`` (:class:`~rigidflock.envs.observation_kernel.Motion`) and
    ``leader``: every world's rows; ``ai`` (n,), ``box``, ``senses``: one world's (the same for
    all); ``circles`` (sum M, 3) and ``segments`` (sum S, 5): every world's end to end, world
    w's from ``*_off[w]`` to ``*_off[w + 1]``."""
    pos, vel, angle, omega = motion.pos, motion.vel, motion.angle, motion.omega
    for w in range(out.shape[0]):
        a, b = w * n, (w + 1) * n
        walls = Walls(box, circles[circles_off[w] : circles_off[w + 1]],
                      segments[segments_off[w] : segments_off[w + 1]])  # fmt: skip
        observe(out[w], Motion(pos[a:b], vel[a:b], angle[a:b], omega[a:b]), leader[a:b], ai,
                n - 1, walls, senses)  # fmt: skip
