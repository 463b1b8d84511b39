"""Uniform cell grids (numba): binning points into cells, walking a cell's neighbours, and the
pair search and neighbour-list helpers built on them.

A grid covers an extent with ``ncx`` x ``ncy`` cells of size (sx, sy) from an origin (ox, oy);
cell (cx, cy) has the flat index ``cy * ncx + cx``. In a wrap-around world the grid covers the
world and its neighbour walk wraps too.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rigidflock.model.torus import min_image_2d


@nb.njit(cache=True)
def grid_shape(extent_x, extent_y, cell, n_items):
    """Cells per axis, each at least ``cell`` wide, and no more than ~4 per item."""
    ncx = max(1, int(extent_x / cell))
    ncy = max(1, int(extent_y / cell))
    while ncx * ncy > 4 * n_items + 16:
        ncx = max(1, (ncx + 1) // 2)
        ncy = max(1, (ncy + 1) // 2)
    return ncx, ncy


@nb.njit(cache=True)
def bin_points(pos, ox, oy, sx, sy, ncx, ncy):
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
def cell_offsets(nc, wrap):
    """Cell steps to visit along an axis of ``nc`` cells: -1, 0, +1, or in a wrapped axis of
    one or two cells each cell once (a wrapped step would visit it twice)."""
    if wrap and nc == 1:
        return np.array([0])
    if wrap and nc == 2:
        return np.array([0, 1])
    return np.array([-1, 0, 1])


@nb.njit(cache=True)
def neighbour_cells(cx, cy, ncx, ncy, offx, offy, wrap, out):
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
def _extent(pos, box_w, box_h, wrap):
    """Origin and size (ox, oy, ex, ey) of the area a grid covers: the world when it wraps, else
    the points' bounding box (a hair larger, so the last point falls inside)."""
    if wrap:
        return 0.0, 0.0, box_w, box_h
    ox, oy = pos[:, 0].min(), pos[:, 1].min()
    return ox, oy, pos[:, 0].max() - ox + 1e-9, pos[:, 1].max() - oy + 1e-9


@nb.njit(cache=True)
def cell_list(pos, radius, box_w, box_h, wrap):
    """The cell grid over ``pos`` (N, 2) for a search ``radius``: grid shape (ncx, ncy), each
    point's cell, the cells' item lists (start, items) and the neighbour-cell offsets."""
    n = pos.shape[0]
    ox, oy, ex, ey = _extent(pos, box_w, box_h, wrap)
    ncx, ncy = grid_shape(ex, ey, radius, n)
    sx, sy = ex / ncx, ey / ncy
    cell, start, items = bin_points(pos, ox, oy, sx, sy, ncx, ncy)
    return ncx, ncy, cell, start, items, cell_offsets(ncx, wrap), cell_offsets(ncy, wrap)


@nb.njit(cache=True)
def in_order(pos, order):
    """``pos[order]`` (N, 2) as a fresh C-ordered array: positions in cell order."""
    out = np.empty((order.shape[0], 2))
    for q in range(order.shape[0]):
        out[q, 0] = pos[order[q], 0]
        out[q, 1] = pos[order[q], 1]
    return out


@nb.njit(cache=True)
def cell_pairs(pos, radius, box_w, box_h, wrap):
    """All pairs i < j with |p_j - p_i| < radius from a uniform cell list, sorted by (i, j).

    pos (N, 2) world units; in a wrap-around world (``wrap``) of size box_w x box_h, positions lie
    in [0, box) and distances are minimum-image. Returns two int64 arrays (P,).
    """
    n = pos.shape[0]
    ncx, ncy, cell, start, items, offx, offy = cell_list(pos, radius, box_w, box_h, wrap)
    sp = in_order(pos, items)  # positions in cell order, for memory locality in the scan
    r2 = radius * radius
    cells = np.empty(9, np.int64)
    cap = max(16, 8 * n)
    out_i = np.empty(cap, np.int64)
    out_j = np.empty(cap, np.int64)
    total = 0
    for i in range(n):
        px, py = pos[i, 0], pos[i, 1]
        nc = neighbour_cells(cell[i] % ncx, cell[i] // ncx, ncx, ncy, offx, offy, wrap, cells)
        first = total
        for k in range(nc):
            c = cells[k]
            for q in range(start[c], start[c + 1]):
                j = items[q]
                if j <= i:
                    continue
                dx, dy = min_image_2d(sp[q, 0] - px, sp[q, 1] - py, box_w, box_h, wrap)
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


@nb.njit(cache=True, nogil=True)
def max_displacement2(pos, ref, box_w, box_h, wrap):
    """Largest squared distance any unit moved from ``ref`` (minimum image when wrapping)."""
    worst = 0.0
    for k in range(pos.shape[0]):
        dx, dy = min_image_2d(pos[k, 0] - ref[k, 0], pos[k, 1] - ref[k, 1], box_w, box_h, wrap)
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


@nb.njit(cache=True)
def nearest_of(pos, which, cell, box_w, box_h, wrap, out):
    """Distance from each unit ``which[k]`` to its nearest other unit into ``out[k]``, by rings
    of cells of about ``cell`` around it (nearest first; stops once no unvisited cell can hold a
    closer unit). For the few units with nobody within the steering's search radius: with
    ``cell`` that radius the search starts where the pair pass stopped. Distances are
    sqrt(dx^2 + dy^2) of the minimum-image offset, as the pair pass and the k-d tree give them."""
    n = pos.shape[0]
    ox, oy, ex, ey = _extent(pos, box_w, box_h, wrap)
    ncx, ncy = grid_shape(ex, ey, cell, n)
    sx, sy = ex / ncx, ey / ncy
    cellof, start, items = bin_points(pos, ox, oy, sx, sy, ncx, ncy)
    step = min(sx, sy)
    for k in range(which.shape[0]):
        a = which[k]
        px, py = pos[a, 0], pos[a, 1]
        cx, cy = cellof[a] % ncx, cellof[a] // ncx
        best = np.inf
        ring = 0
        while True:
            for gy in range(cy - ring, cy + ring + 1):
                edge_y = gy == cy - ring or gy == cy + ring
                for gx in range(cx - ring, cx + ring + 1):
                    if not edge_y and gx != cx - ring and gx != cx + ring:
                        continue  # inside the ring: visited already
                    x, y = gx, gy
                    if wrap:
                        x %= ncx
                        y %= ncy
                    elif x < 0 or x >= ncx or y < 0 or y >= ncy:
                        continue
                    c = y * ncx + x
                    for q in range(start[c], start[c + 1]):
                        b = items[q]
                        if b == a:
                            continue
                        dx, dy = min_image_2d(pos[b, 0] - px, pos[b, 1] - py, box_w, box_h, wrap)
                        best = min(best, dx * dx + dy * dy)
            # every unit outside the rings so far is at least ring * step away
            if best <= (ring * step) ** 2 or ring > max(ncx, ncy):
                break
            ring += 1
        out[k] = np.sqrt(best)


@nb.njit(cache=True, parallel=True)
def cell_rows(pos, radius, box_w, box_h, wrap):
    """Each unit's partners closer than ``radius`` as rows, straight from a cell list: unit a's
    are ``nbr[ptr[a]:ptr[a + 1]]``, ascending; the same arrays as
    ``to_rows(*cell_pairs(pos, radius, ...), n)``. Two parallel passes over the units (count,
    then fill and sort each row), so the rebuild runs on the threads the kernels run on; every
    pair is tested from both ends, which costs less than the serial pair list and its
    conversion to rows. Returns ptr (n + 1,), nbr (2P,) int64."""
    n = pos.shape[0]
    ncx, ncy, cell, start, items, offx, offy = cell_list(pos, radius, box_w, box_h, wrap)
    sp = np.empty((n, 2))  # positions in cell order, for memory locality in the scan
    for q in nb.prange(n):
        sp[q, 0] = pos[items[q], 0]
        sp[q, 1] = pos[items[q], 1]
    r2 = radius * radius
    count = np.zeros(n + 1, np.int64)
    scratch = np.empty((n, 9), np.int64)
    for i in nb.prange(n):
        px, py = pos[i, 0], pos[i, 1]
        cells = scratch[i]
        nc = neighbour_cells(cell[i] % ncx, cell[i] // ncx, ncx, ncy, offx, offy, wrap, cells)
        m = 0
        for k in range(nc):
            c = cells[k]
            for q in range(start[c], start[c + 1]):
                if items[q] == i:
                    continue
                dx, dy = min_image_2d(sp[q, 0] - px, sp[q, 1] - py, box_w, box_h, wrap)
                if dx * dx + dy * dy < r2:
                    m += 1
        count[i + 1] = m
    ptr = np.cumsum(count)
    nbr = np.empty(ptr[n], np.int64)
    for i in nb.prange(n):
        px, py = pos[i, 0], pos[i, 1]
        cells = scratch[i]
        nc = neighbour_cells(cell[i] % ncx, cell[i] // ncx, ncx, ncy, offx, offy, wrap, cells)
        first = ptr[i]
        m = first
        for k in range(nc):
            c = cells[k]
            for q in range(start[c], start[c + 1]):
                j = items[q]
                if j == i:
                    continue
                dx, dy = min_image_2d(sp[q, 0] - px, sp[q, 1] - py, box_w, box_h, wrap)
                if dx * dx + dy * dy < r2:
                    # insertion sort keeps the row ascending
                    t = m
                    while t > first and nbr[t - 1] > j:
                        nbr[t] = nbr[t - 1]
                        t -= 1
                    nbr[t] = j
                    m += 1
    return ptr, nbr


@nb.njit(cache=True)
def _row_grid(pos, radius, box_w, box_h, wrap):
    """The cell list of :func:`ordered_rows`: grid shape (ncx, ncy), cell starts, the units in
    cell order (``order``), and per row its position (n, 2) and cell (n,), both written in row
    order (reading ``pos`` once through ``order``)."""
    n = pos.shape[0]
    ncx, ncy, _, start, order, _, _ = cell_list(pos, radius, box_w, box_h, wrap)
    sp = in_order(pos, order)
    row_cell = np.empty(n, np.int64)
    for c in range(ncx * ncy):
        for p in range(start[c], start[c + 1]):
            row_cell[p] = c
    return ncx, ncy, start, order, sp, row_cell


@nb.njit(cache=True, inline="always")
def _span(c, nc, wrap, out):
    """The cells within one step of cell c along an axis of ``nc`` cells as ranges
    ``out[k] = (first, last)``, each cell once; returns how many (1 or 2: a wrapped axis
    splits where it wraps; a wrapped axis of at most 3 cells is one range of all of them)."""
    lo, hi = c - 1, c + 1
    if not wrap:
        out[0, 0], out[0, 1] = max(lo, 0), min(hi, nc - 1)
        return 1
    if nc <= 3:
        out[0, 0], out[0, 1] = 0, nc - 1
        return 1
    if lo < 0:
        out[0, 0], out[0, 1] = lo + nc, nc - 1
        out[1, 0], out[1, 1] = 0, hi
        return 2
    if hi >= nc:
        out[0, 0], out[0, 1] = lo, nc - 1
        out[1, 0], out[1, 1] = 0, hi - nc
        return 2
    out[0, 0], out[0, 1] = lo, hi
    return 1


@nb.njit(cache=True, inline="always")
def _scan_row(p, grid, r2, box, spans, nbr, first, last):
    """Row p's partners (rows q != p closer than sqrt(r2)) written to ``nbr[first:last]`` in
    scan order (nothing written when ``last == first``); returns ``first`` + their count.
    ``grid``: (ncx, ncy, start, sp, row_cell) of :func:`_row_grid`; ``box``: (w, h, wrap).
    The cells beside each other in a row of the grid are one run of the cell-sorted rows, so
    each of the three rows of neighbour cells is scanned as one loop, not three (the loop
    overhead was most of a build: cells hold about two units each). Branch-free on the
    distance test: every candidate is written, and kept only if inside (``m`` advances)."""
    ncx, ncy, start, sp, row_cell = grid
    w, h, wrap = box
    px, py = sp[p, 0], sp[p, 1]
    c = row_cell[p]
    xs = spans[0:2]
    ys = spans[2:4]
    nx = _span(c % ncx, ncx, wrap, xs)
    ny = _span(c // ncx, ncy, wrap, ys)
    m = first
    for iy in range(ny):
        for y in range(ys[iy, 0], ys[iy, 1] + 1):
            row = y * ncx
            for ix in range(nx):
                for q in range(start[row + xs[ix, 0]], start[row + xs[ix, 1] + 1]):
                    dx, dy = min_image_2d(sp[q, 0] - px, sp[q, 1] - py, w, h, wrap)
                    if m < last:  # never into the next row (another thread fills it)
                        nbr[m] = q
                    m += (dx * dx + dy * dy < r2) & (q != p)
    return m


@nb.njit(cache=True, inline="always")
def _sort_row(nbr, first, last, order):
    """Insertion sort of ``nbr[first:last]`` (row numbers) by unit number ``order[row]``."""
    for t in range(first + 1, last):
        v = nbr[t]
        key = order[v]
        s = t
        while s > first and order[nbr[s - 1]] > key:
            nbr[s] = nbr[s - 1]
            s -= 1
        nbr[s] = v


@nb.njit(cache=True, parallel=True)
def ordered_rows(pos, radius, box_w, box_h, wrap):
    """Each unit's partners closer than ``radius`` as rows, the units renumbered in cell order
    (the grid's row-major cell order, by unit number within a cell) so that neighbours sit
    close in memory: row p is unit ``order[p]``, its
    partners ``nbr[ptr[p]:ptr[p + 1]]`` are row numbers, sequenced by unit number ascending
    (each unit's partners in the sequence of ``to_rows(*cell_pairs(...))``). Two parallel
    passes over the rows (count, then fill and sort) (:func:`ordered_rows_serial` gives the
    same arrays in one pass, faster on one thread). Returns ptr (n + 1,), nbr (2P,), order
    (n,), all int64 (:func:`row_pairs` names the pairs in the units' own numbering)."""
    n = pos.shape[0]
    ncx, ncy, start, order, sp, row_cell = _row_grid(pos, radius, box_w, box_h, wrap)
    grid = (ncx, ncy, start, sp, row_cell)
    box = (box_w, box_h, wrap)
    r2 = radius * radius
    count = np.zeros(n + 1, np.int64)
    spans = np.empty((n, 4, 2), np.int64)
    nothing = np.empty(0, np.int64)  # the count pass writes nothing (last == first)
    for p in nb.prange(n):
        count[p + 1] = _scan_row(p, grid, r2, box, spans[p], nothing, 0, 0)
    ptr = np.cumsum(count)
    nbr = np.empty(ptr[n], np.int64)
    for p in nb.prange(n):
        _scan_row(p, grid, r2, box, spans[p], nbr, ptr[p], ptr[p + 1])
        _sort_row(nbr, ptr[p], ptr[p + 1], order)
    return ptr, nbr, order


@nb.njit(cache=True, nogil=True)  # nogil: built ahead in a thread (VerletPairs.build_ahead)
def ordered_rows_serial(pos, radius, box_w, box_h, wrap):
    """:func:`ordered_rows` on one thread, the same arrays: one pass over the rows, each
    appended to a growing list (room for every candidate made first, so the branch-free fill
    never runs over), then sorted."""
    n = pos.shape[0]
    ncx, ncy, start, order, sp, row_cell = _row_grid(pos, radius, box_w, box_h, wrap)
    grid = (ncx, ncy, start, sp, row_cell)
    box = (box_w, box_h, wrap)
    r2 = radius * radius
    ptr = np.zeros(n + 1, np.int64)
    cap = max(16, 16 * n)
    nbr = np.empty(cap, np.int64)
    spans = np.empty((4, 2), np.int64)
    # a row's candidates: at most the 3 x 3 cells around its own (room for every other unit
    # instead grew the list to 32-64 entries a unit at 100,000 units, ~200 bytes a unit more)
    fullest = 0
    for c in range(ncx * ncy):
        fullest = max(fullest, start[c + 1] - start[c])
    worst = min(n - 1, 9 * fullest)
    m = 0
    for p in range(n):
        if m + worst > cap:
            while m + worst > cap:
                cap *= 2
            grown = np.empty(cap, np.int64)
            grown[:m] = nbr[:m]
            nbr = grown
        m = _scan_row(p, grid, r2, box, spans, nbr, m, m + worst)
        _sort_row(nbr, ptr[p], m, order)
        ptr[p + 1] = m
    return ptr, nbr[:m].copy(), order


def row_pairs(ptr: np.ndarray, nbr: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of :func:`ordered_rows` as pairs in the units' own numbering: owner, partner
    (2P,) int64, entry t of ``nbr`` (2P,) being unit ``owner[t]``'s partner ``partner[t]``.
    Made only when asked for (drawing the flocking links): kept with the rows they cost 16
    bytes an entry, ~240 bytes a unit at 100,000 units."""
    owner = np.repeat(order, np.diff(ptr))
    return owner, order[nbr]
