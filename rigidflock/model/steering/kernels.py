"""Compiled kernels (numba) for the per-tick hot path.

The numpy functions in ``neighbours.py``, ``flocking.py``, ``pursuit.py`` and ``avoidance.py`` are
the reference definitions; these kernels compute the same quantities in one pass over the
candidate pairs (or unit-obstacle pairs) without numpy temporaries. Tests compare the two. Kernels
are compiled on first use and cached on disk (``cache=True``), so only the first run on a machine
pays the compile time.

Minimum image in a wrap-around world is ``d - w * floor(d / w + 0.5)`` here and in
``neighbours.min_image``, so both paths agree on every pair.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

VIEW_CODES = {"wide": 0, "limited": 1, "narrow": 2}
# Below this many units the parallel kernels run on one thread: the gain is small there, and on a
# machine whose cores are busy with other work a parallel region can wait milliseconds for a
# thread (measured: aidemo4 at 0.32 ms per tick on one thread, 23 ms on two next to two busy
# processes).
PARALLEL_MIN_UNITS = 5000


def use_threads(n_units: int) -> None:
    """Run the next kernels on all numba threads for large runs, on one for small ones."""
    want = nb.config.NUMBA_NUM_THREADS if n_units >= PARALLEL_MIN_UNITS else 1
    if nb.get_num_threads() != want:
        nb.set_num_threads(want)


@nb.njit(cache=True, inline="always")
def _fold(d: float, w: float) -> float:
    return d - w * math.floor(d / w + 0.5)


@nb.njit(cache=True)
def _grid_shape(extent_x, extent_y, cell, n_items):
    """Cells per axis, each at least ``cell`` wide, and no more than ~4 per item."""
    ncx = max(1, int(extent_x / cell))
    ncy = max(1, int(extent_y / cell))
    while ncx * ncy > 4 * n_items + 16:
        ncx = max(1, (ncx + 1) // 2)
        ncy = max(1, (ncy + 1) // 2)
    return ncx, ncy


@nb.njit(cache=True)
def _bin(pos, ox, oy, sx, sy, ncx, ncy):
    """Counting sort of points into cells: (start (ncx*ncy+1,), items sorted by cell, stable)."""
    n = pos.shape[0]
    cell = np.empty(n, np.int64)
    for k in range(n):
        cx = min(max(int((pos[k, 0] - ox) / sx), 0), ncx - 1)
        cy = min(max(int((pos[k, 1] - oy) / sy), 0), ncy - 1)
        cell[k] = cy * ncx + cx
    start = np.zeros(ncx * ncy + 1, np.int64)
    for k in range(n):
        start[cell[k] + 1] += 1
    for c in range(ncx * ncy):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    items = np.empty(n, np.int64)
    for k in range(n):
        items[fill[cell[k]]] = k
        fill[cell[k]] += 1
    return cell, start, items


@nb.njit(cache=True)
def _offsets(nc, wrap):
    if wrap and nc == 1:
        return np.array([0])
    if wrap and nc == 2:
        return np.array([0, 1])
    return np.array([-1, 0, 1])


@nb.njit(cache=True)
def _neighbour_cells(cx, cy, ncx, ncy, offx, offy, wrap, out):
    """The distinct cells around (cx, cy) (itself included) into ``out``; returns how many."""
    m = 0
    for oyy in offy:
        y = cy + oyy
        if wrap:
            y %= ncy
        elif y < 0 or y >= ncy:
            continue
        for oxx in offx:
            x = cx + oxx
            if wrap:
                x %= ncx
            elif x < 0 or x >= ncx:
                continue
            out[m] = y * ncx + x
            m += 1
    return m


@nb.njit(cache=True)
def cell_pairs(pos, radius, box_w, box_h, wrap):
    """All pairs i < j with |p_j - p_i| < radius from a uniform cell list, sorted by (i, j).

    pos (N, 2) world units; in a wrap-around world (``wrap``) of size box_w x box_h, positions lie
    in [0, box) and distances are minimum-image. Returns two int64 arrays (P,).
    """
    n = pos.shape[0]
    if wrap:
        ox, oy, ex, ey = 0.0, 0.0, box_w, box_h
    else:
        ox, oy = pos[:, 0].min(), pos[:, 1].min()
        ex = pos[:, 0].max() - ox + 1e-9
        ey = pos[:, 1].max() - oy + 1e-9
    ncx, ncy = _grid_shape(ex, ey, radius, n)
    sx, sy = ex / ncx, ey / ncy
    cell, start, items = _bin(pos, ox, oy, sx, sy, ncx, ncy)
    offx, offy = _offsets(ncx, wrap), _offsets(ncy, wrap)
    # positions in cell order, for memory locality in the scan
    sp = np.empty((n, 2))
    for q in range(n):
        sp[q, 0] = pos[items[q], 0]
        sp[q, 1] = pos[items[q], 1]
    r2 = radius * radius
    cells = np.empty(9, np.int64)
    cap = max(16, 8 * n)
    out_i = np.empty(cap, np.int64)
    out_j = np.empty(cap, np.int64)
    total = 0
    for i in range(n):
        px, py = pos[i, 0], pos[i, 1]
        nc = _neighbour_cells(cell[i] % ncx, cell[i] // ncx, ncx, ncy, offx, offy, wrap, cells)
        first = total
        for k in range(nc):
            c = cells[k]
            for q in range(start[c], start[c + 1]):
                j = items[q]
                if j <= i:
                    continue
                dx = sp[q, 0] - px
                dy = sp[q, 1] - py
                if wrap:
                    dx = _fold(dx, box_w)
                    dy = _fold(dy, box_h)
                if dx * dx + dy * dy < r2:
                    if total == cap:
                        cap *= 2
                        grown_i = np.empty(cap, np.int64)
                        grown_j = np.empty(cap, np.int64)
                        grown_i[:total] = out_i[:total]
                        grown_j[:total] = out_j[:total]
                        out_i, out_j = grown_i, grown_j
                    # insertion sort keeps this unit's partners ascending
                    m = total
                    while m > first and out_j[m - 1] > j:
                        out_j[m] = out_j[m - 1]
                        m -= 1
                    out_j[m] = j
                    out_i[total] = i
                    total += 1
    return out_i[:total].copy(), out_j[:total].copy()


@nb.njit(cache=True)
def max_displacement2(pos, ref, box_w, box_h, wrap):
    """Largest squared distance any unit moved from ``ref`` (minimum image when wrapping)."""
    worst = 0.0
    for k in range(pos.shape[0]):
        dx = pos[k, 0] - ref[k, 0]
        dy = pos[k, 1] - ref[k, 1]
        if wrap:
            dx = _fold(dx, box_w)
            dy = _fold(dy, box_h)
        worst = max(worst, dx * dx + dy * dy)
    return worst


@nb.njit(cache=True)
def to_rows(pi, pj, n):
    """Candidate pairs (i < j, sorted) as per-unit rows: unit a's partners are
    ``nbr[ptr[a]:ptr[a + 1]]``, ascending. Returns ptr (n + 1,), nbr (2P,)."""
    ptr = np.zeros(n + 1, np.int64)
    for k in range(pi.shape[0]):
        ptr[pi[k] + 1] += 1
        ptr[pj[k] + 1] += 1
    for a in range(n):
        ptr[a + 1] += ptr[a]
    fill = ptr[:-1].copy()
    nbr = np.empty(2 * pi.shape[0], np.int64)
    # partners below a arrive first (in order of i), then those above (in order of j)
    for k in range(pi.shape[0]):
        b = pj[k]
        nbr[fill[b]] = pi[k]
        fill[b] += 1
    for k in range(pi.shape[0]):
        a = pi[k]
        nbr[fill[a]] = pj[k]
        fill[a] += 1
    return ptr, nbr


@nb.njit(cache=True, parallel=True)
def pair_pass(
    ptr,
    nbr,
    pos,
    vel,
    angle,
    family,
    view_r,
    sep_r,
    lead_r,
    search_r,
    box_w,
    box_h,
    wrap,
    view_code,
    back,
    front,
    coh,
    ali,
    cnt,
    sep,
    nf,
    flock,
    length,
    gap,
):
    """Each unit a against its candidate partners b (rows from :func:`to_rows`): partners closer
    than ``search_r`` feed a's rule sums, as the numpy rules define them. Units run in parallel;
    each sums its own row in a fixed order, so results do not depend on the threads.

    coh (N, 2): sum of offsets to flockmates; ali (N, 2): sum of their velocities; cnt (N,) their
    number; sep (N,): summed separation command; nf (N,): units in the narrow cone ahead;
    flock (2P,): whether nbr[k] is in its row unit's flocking set; gap (N,): distance to the
    nearest unit ahead in a corridor one length (``length`` (N,)) to either side that is not
    coming toward us, inf if none.
    """
    r2 = search_r * search_r
    for a in nb.prange(ptr.shape[0] - 1):
        cx = cy = ax_ = ay_ = sp = 0.0
        nc = nfa = 0
        gap_a = np.inf
        ca, sa = math.cos(angle[a]), math.sin(angle[a])
        for k in range(ptr[a], ptr[a + 1]):
            b = nbr[k]
            flock[k] = False
            ex = pos[b, 0] - pos[a, 0]
            ey = pos[b, 1] - pos[a, 1]
            if wrap:
                ex = _fold(ex, box_w)
                ey = _fold(ey, box_h)
            d2 = ex * ex + ey * ey
            if d2 >= r2:
                continue
            dist = math.sqrt(d2)
            f = ex * ca + ey * sa
            s = -ex * sa + ey * ca
            abs_s = abs(s)
            if view_code == 0:
                seen = f > 0 or (f < 0 and abs_s > abs(f) * back)
            elif view_code == 1:
                seen = f > 0
            else:
                seen = f > 0 and abs_s < f * front
            if seen:
                if dist < view_r[a] and family[a] == family[b]:
                    cx += ex
                    cy += ey
                    ax_ += vel[b, 0]
                    ay_ += vel[b, 1]
                    nc += 1
                    flock[k] = True
                if dist < sep_r[a]:
                    side = 1.0 if s >= 0 else -1.0
                    sp += -side * sep_r[a] / max(dist, 1e-3)
            if f > 0 and abs_s < f * front and dist <= lead_r[a]:
                nfa += 1
            going_our_way = vel[b, 0] * ca + vel[b, 1] * sa >= 0.0  # not oncoming
            if f > 0 and abs_s < length[a] and dist < gap_a and going_our_way:
                gap_a = dist
        coh[a, 0] = cx
        coh[a, 1] = cy
        ali[a, 0] = ax_
        ali[a, 1] = ay_
        cnt[a] = nc
        sep[a] = sp
        nf[a] = nfa
        gap[a] = gap_a


@nb.njit(cache=True, inline="always")
def _turn(ux, uy, hx, hy, lx, ly):
    """side(u) * acos(h . u) / pi for a direction (ux, uy) of any length; 0 for a zero vector."""
    norm = math.hypot(ux, uy)
    if norm <= 1e-9:
        return 0.0
    ux /= norm
    uy /= norm
    cos = min(max(hx * ux + hy * uy, -1.0), 1.0)
    side = 1.0 if lx * ux + ly * uy >= 0 else -1.0
    return side * math.acos(cos) / math.pi


@nb.njit(cache=True, parallel=True)
def unit_pass(
    pos,
    vel,
    angle,
    n_ai,
    has_player,
    coh,
    ali,
    cnt,
    sep,
    nf,
    role,
    length,
    width,
    feeler_factor,
    S,
    w_coh,
    w_ali,
    w_sep,
    w_chase,
    w_avoid,
    flocking,
    chase,
    avoidance,
    walls,
    size_w,
    size_h,
    wrap,
    obs,
    o_start,
    o_items,
    o_origin,
    o_cell,
    o_shape,
    force,
    heading,
    leader,
    feeler_end,
    target,
    felt,
    scratch,
):
    """Per unit: heading, blended flocking terms, leader flag, chase/intercept, feelers against
    obstacles (found through a static cell grid of their centres: ``o_start``/``o_items`` from
    :func:`_bin`, cells ``o_cell`` wide from ``o_origin``, ``o_shape`` cells, each at least the
    largest feeler reach) and walls.

    Mirrors ``blend._finish`` and ``avoidance`` (the numpy definitions). Role codes as in
    ``state``: 0 none, 1 chase, 2 intercept, 3 player. Writes force (N,), heading (N, 2),
    leader (N,), feeler_end (N, 2), target (N, 2) (NaN unless steering toward the player) and
    felt (N,), the nearest felt obstacle or -1. ``scratch``: (N, 9) int64 work space.
    """
    n = pos.shape[0]
    p = n - 1
    ncx, ncy = o_shape[0], o_shape[1]
    offx, offy = _offsets(ncx, wrap), _offsets(ncy, wrap)
    for u in nb.prange(n):
        c, s = math.cos(angle[u]), math.sin(angle[u])
        speed = math.hypot(vel[u, 0], vel[u, 1])
        if speed > 1e-6:
            hx, hy = vel[u, 0] / speed, vel[u, 1] / speed
        else:
            hx, hy = c, s
        heading[u, 0] = hx
        heading[u, 1] = hy
        lx, ly = -s, c
        fs = 0.0
        is_leader = False
        if u < n_ai:
            if flocking:
                coh_t = ali_t = 0.0
                if cnt[u] > 0:
                    coh_t = _turn(coh[u, 0], coh[u, 1], hx, hy, lx, ly)
                    ali_t = _turn(ali[u, 0], ali[u, 1], hx, hy, lx, ly)
                fs = S * (w_coh * coh_t + w_ali * ali_t + w_sep * sep[u])
            is_leader = (nf[u] == 0 or not flocking) and role[u] != 0 and role[u] != 3
        leader[u] = is_leader
        target[u, 0] = np.nan
        target[u, 1] = np.nan
        if chase and has_player and is_leader and (role[u] == 1 or role[u] == 2):
            ox = pos[p, 0] - pos[u, 0]
            oy = pos[p, 1] - pos[u, 1]
            if wrap:
                ox = _fold(ox, size_w)
                oy = _fold(oy, size_h)
            ax, ay = ox, oy
            if role[u] == 2:
                vrx = vel[p, 0] - vel[u, 0]
                vry = vel[p, 1] - vel[u, 1]
                closing = math.hypot(vrx, vry)
                t = math.hypot(ox, oy) / max(closing, 1e-6) if closing > 1e-6 else 0.0
                ax = ox + vel[p, 0] * t
                ay = oy + vel[p, 1] * t
            fs += w_chase * S * (1.0 if ax * lx + ay * ly >= 0 else -1.0)
            target[u, 0] = pos[u, 0] + ax
            target[u, 1] = pos[u, 1] + ay
        feeler = length[u] * feeler_factor
        feeler_end[u, 0] = pos[u, 0] + hx * feeler
        feeler_end[u, 1] = pos[u, 1] + hy * feeler
        felt[u] = -1
        if avoidance and u < n_ai:
            total = 0.0
            best = np.inf
            clearance = 0.5 * width[u] + 0.5 * length[u]
            cx = min(max(int((pos[u, 0] - o_origin[0]) / o_cell[0]), 0), ncx - 1)
            cy = min(max(int((pos[u, 1] - o_origin[1]) / o_cell[1]), 0), ncy - 1)
            cells = scratch[u]  # preallocated: no allocation per unit in the loop
            nc = _neighbour_cells(cx, cy, ncx, ncy, offx, offy, wrap, cells)
            for k in range(nc):
                cell = cells[k]
                for q in range(o_start[cell], o_start[cell + 1]):
                    o = o_items[q]
                    ax = obs[o, 0] - pos[u, 0]
                    ay = obs[o, 1] - pos[u, 1]
                    if wrap:
                        ax = _fold(ax, size_w)
                        ay = _fold(ay, size_h)
                    ahead = ax * hx + ay * hy
                    if ahead <= 0 or ahead >= feeler:
                        continue
                    if abs(ax * hy - ay * hx) >= obs[o, 2] + clearance:
                        continue
                    dist = max(math.sqrt(ax * ax + ay * ay), 1e-6)
                    total += -(1.0 if ax * lx + ay * ly >= 0 else -1.0) * feeler / dist
                    if dist < best:
                        best = dist
                        felt[u] = o
            if walls:
                for axis in range(2):
                    hv = hx if axis == 0 else hy
                    lv = lx if axis == 0 else ly
                    pv = pos[u, axis]
                    for k in range(2):
                        wall = 0.0 if k == 0 else (size_w if axis == 0 else size_h)
                        toward = -1.0 if k == 0 else 1.0
                        if hv * toward > 1e-9:
                            t = (wall - pv) / hv
                            if t < feeler:
                                side = 1.0 if toward * lv >= 0 else -1.0
                                total += -side * feeler / max(t, 1e-6)
            fs += w_avoid * S * total
        force[u] = fs
