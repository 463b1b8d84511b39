"""The give-way rule: units close behind one that backs out stop pushing it (compiled, one pass).

A unit backs out when pressed still against static geometry (:mod:`.unpin`) or, on an order,
when it made no progress (``rts/progress.py``, ``start_backing``). Reversing at part throttle, it
cannot move the unit pressed against its stern at full throttle: in ``hallway_one_way`` seed 54
one lay nose-in at the end of a wall for 7 s while the unit behind it, turning, pushed it back in;
in the 1,000-unit bottleneck the units nose-in beside the gap stay pressed by those behind them.
So a unit with a backing unit in its queue corridor (ahead of its bow, within its length to
either side: the corridor of the rules' ``gap``, whichever way the backing unit moves) and within
``REACH`` of its lengths does not thrust forward that tick: throttle at most 0. Backing units
themselves keep theirs (a chain of them backs out together). Backing here: the unpin rule's
back-out, and an order's stuck back-off while it lasts, even where the order then overrides that
unit's throttle (a unit held at a door); a unit reversing out of a door under right of way
(``rts/right_of_way.py``) does not count. It applies to every AI unit, after the unpin rule.

Units: world units, radians, throttle in [-1, 1]. N: AI units.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from rigidflock.model.steering.cells import cell_list, neighbour_cells
from rigidflock.model.torus import min_image_2d

REACH = 1.5  # unit lengths between centres: close enough behind a backing unit to give way


@nb.njit(cache=True)
def give_way(pos, angle, length, backing, box_w, box_h, wrap, throttle):
    """Cap at 0, in place, the ``throttle`` (N,) of each unit that is not ``backing`` (N,) bool
    and has a backing unit ahead in its queue corridor: its offset along the bow (from
    ``angle`` (N,)) positive, across it under the unit's ``length`` (N,), and its centre within
    ``REACH`` lengths. ``pos`` (N, 2), world of ``box_w`` x ``box_h`` (``wrap``: a torus).
    Returns how many units had a forward throttle capped. No work beyond a count when none is
    backing (the kernel is called every tick, so the warm-up compiles it)."""
    n = pos.shape[0]
    m = 0
    for u in range(n):
        m += backing[u]
    if m == 0 or n < 2:
        return 0
    reach = REACH * length.max()
    ncx, ncy, cell, start, items, offx, offy = cell_list(pos, reach, box_w, box_h, wrap)
    around = np.empty(9, np.int64)
    gave = 0
    for b in range(n):
        if not backing[b]:
            continue
        k = neighbour_cells(cell[b] % ncx, cell[b] // ncx, ncx, ncy, offx, offy, wrap, around)
        for j in range(k):
            c = around[j]
            for q in range(start[c], start[c + 1]):
                u = items[q]
                if backing[u] or throttle[u] <= 0.0:
                    continue
                ex, ey = min_image_2d(pos[b, 0] - pos[u, 0], pos[b, 1] - pos[u, 1],
                                      box_w, box_h, wrap)  # fmt: skip
                r = REACH * length[u]
                if ex * ex + ey * ey >= r * r:
                    continue
                ca, sa = math.cos(angle[u]), math.sin(angle[u])
                if ex * ca + ey * sa > 0.0 and abs(-ex * sa + ey * ca) < length[u]:
                    throttle[u] = 0.0
                    gave += 1
    return gave
