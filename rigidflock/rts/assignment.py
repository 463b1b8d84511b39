"""Which unit takes which slot: the assignment of least total cost, exact or within a bound.

A group's slots are dealt by the least total cost (straight-line distance, :mod:`.slots`).
Below ``AUCTION_FROM`` units that is the Hungarian method's exact optimum
(``scipy.optimize.linear_sum_assignment``, ~10 ms for 255 units of a crowd). A crowd at its
formation makes the problem nearly degenerate (many assignments within a hair of the least),
where that method searches almost every column for every row: 0.4 s for 1,000 units, paid every
half second of a 1,000-unit order (a freeze in the viewer). From ``AUCTION_FROM`` units the
assignment is Bertsekas' auction with epsilon scaling, whose total is within ``AUCTION_SLACK``
world units of the least: 25-36 ms for the same 1,000 units, 95-97% of them given the same slot
as the exact method. (Groups of more than 2,000 are dealt in blocks: :mod:`.slots`.)

Units: costs in world units. n: units (rows), slots (columns), a square problem.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from scipy.optimize import linear_sum_assignment

AUCTION_FROM = 256  # units: the exact method below (~10 ms for 255 of the crowd's units)
AUCTION_SLACK = 0.01  # world units: the auction's total cost exceeds the least by at most this
SCALING = 5.0  # each auction round bids with a fifth of the last round's margin


def least_cost_columns(cost: np.ndarray) -> np.ndarray:
    """(n,) int: the column (slot) of each row (unit) of the square ``cost`` (n, n) in an
    assignment of least total cost: exact below ``AUCTION_FROM`` rows, else within
    ``AUCTION_SLACK`` (for costs far beyond a scene's distances, within n x 2^-40 x their
    scale: :func:`auction_epsilon`). Raises ValueError for a non-finite cost."""
    n = cost.shape[0]
    if cost.shape != (n, n):
        raise ValueError(f"the cost matrix must be square, not {cost.shape}")
    if not np.isfinite(cost).all():
        raise ValueError("the cost matrix contains non-finite entries")
    if n < AUCTION_FROM:
        rows, cols = linear_sum_assignment(cost)
        return cols[np.argsort(rows)]
    cost = np.ascontiguousarray(cost, dtype=np.float64)
    return auction(cost, auction_epsilon(cost, AUCTION_SLACK / n), SCALING)


def auction_epsilon(cost: np.ndarray, wanted: float) -> float:
    """The auction's last epsilon: ``wanted``, but at least 2^-40 of the costs' scale (largest
    magnitude plus span). A bid raises a price by at least epsilon; below a few ulps of the
    prices it would not raise them at all and the bidding would never end (prices reach about
    the costs' scale: 2^-40 of it is ~4,000 ulps)."""
    if cost.size == 0:
        return wanted
    scale = float(np.abs(cost).max()) + float(cost.max() - cost.min())
    return max(wanted, scale * 2.0**-40)


@nb.njit(cache=True)
def auction(cost, eps_final, scaling):
    """(n,) int64: each row's column in an assignment whose total ``cost`` (n, n) (finite)
    exceeds the least by at most n x ``eps_final`` (which must not be below a few ulps of the
    prices: :func:`auction_epsilon`) (Bertsekas' forward auction, Gauss-Seidel:
    one unassigned row at a time bids for its cheapest column at that column's price plus its
    margin over the second cheapest plus epsilon; rounds start from the last round's prices
    with epsilon divided by ``scaling``, down to ``eps_final``). Deterministic: rows bid in a
    fixed order and ties go to the lowest column."""
    n = cost.shape[0]
    price = np.zeros(n)
    owner = np.empty(n, np.int64)
    column = np.empty(n, np.int64)
    waiting = np.empty(n, np.int64)  # a stack of unassigned rows
    eps = max((cost.max() - cost.min()) / 4.0, eps_final) if n else eps_final
    while True:
        owner[:] = -1
        column[:] = -1
        for k in range(n):
            waiting[k] = n - 1 - k  # row 0 bids first
        top = n
        while top > 0:
            top -= 1
            i = waiting[top]
            best = second = np.inf
            jb = 0
            for j in range(n):
                v = cost[i, j] + price[j]
                if v < best:
                    second = best
                    best = v
                    jb = j
                elif v < second:
                    second = v
            price[jb] += (second - best if second < np.inf else 0.0) + eps
            outbid = owner[jb]
            owner[jb] = i
            column[i] = jb
            if outbid >= 0:
                column[outbid] = -1
                waiting[top] = outbid
                top += 1
        if eps <= eps_final:
            return column
        eps = max(eps / scaling, eps_final)
