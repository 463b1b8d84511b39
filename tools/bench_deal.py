"""The slot deal of a 1,000-unit crowd at its formation: the compiled cost against numpy's.

    python tools/bench_deal.py [--units 1000] [--repeats 7] [--seed 1]

A crowd at its formation re-deals its slots every half second (``rts/slots.py: deal_slots``):
a cost matrix of every unit against every slot, then the auction (``rts/assignment.py``). This
times, alternately in one process, the cost matrix built by the compiled ``slot_cost`` and by the
numpy expression it replaced (kept here as the reference), checks they agree to the bit, and
times one whole deal. Prints the medians and the ratio. Run it with ``NUMBA_NUM_THREADS=1``
beside other work.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rigidflock.rts.slots import deal_slots, slot_cost  # noqa: E402


def numpy_cost(p, ang, length, mine):
    """The deal's cost as numpy built it before the kernel (m, k): (m, k, 2) temporaries."""
    off = mine[None, :, :] - p[:, None, :]
    ahead = off[..., 0] * np.cos(ang)[:, None] + off[..., 1] * np.sin(ang)[:, None]
    return np.hypot(off[..., 0], off[..., 1]) + np.where(ahead < 0, 2.0 * length[:, None], 0.0)


def crowd(n: int, seed: int):
    """A crowd of ``n`` units milling among ``n`` lattice slots (2.5 lengths apart) round the
    goal, each a little off some slot: the nearly degenerate deal of a crowd at its formation."""
    rng = np.random.default_rng(seed)
    side = int(np.ceil(np.sqrt(n)))
    gx, gy = np.meshgrid(np.arange(side), np.arange(side))
    slots = (np.stack([gx.ravel(), gy.ravel()], axis=1)[:n] - side / 2) * 10.0
    pos = slots[rng.permutation(n)] + rng.normal(0.0, 3.0, (n, 2))
    return slots, pos, rng.random(n) * 2 * np.pi, np.full(n, 4.0)


def timed(f, repeats: int) -> float:
    """Median seconds of ``repeats`` calls of ``f``."""
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--units", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    slots, pos, ang, length = crowd(a.units, a.seed)
    out = np.empty((a.units, a.units))

    def compiled():
        return slot_cost(pos, np.cos(ang), np.sin(ang), 2.0 * length, slots, out)

    same = np.array_equal(compiled(), numpy_cost(pos, ang, length, slots))
    kernel, numpy = [], []
    for _ in range(a.repeats):  # alternated, so load on the machine hits both alike
        kernel.append(timed(compiled, 1))
        numpy.append(timed(lambda: numpy_cost(pos, ang, length, slots), 1))
    kernel, numpy = statistics.median(kernel), statistics.median(numpy)

    def deal():
        s = slots.copy()
        n = a.units
        deal_slots(s, np.zeros(2), np.array([1.0, 0.0]), np.zeros(n, bool), np.ones(n, bool),
                   pos, ang, np.zeros(n), length)  # fmt: skip

    whole = timed(deal, 3)
    print(f"{a.units} units: cost matrix compiled {1e3 * kernel:.1f} ms, numpy "
          f"{1e3 * numpy:.1f} ms ({numpy / kernel:.1f} x), the same to the bit: "
          f"{same}; one whole deal {1e3 * whole:.0f} ms")  # fmt: skip
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
