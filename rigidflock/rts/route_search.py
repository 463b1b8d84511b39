"""The route search: Dijkstra over a walkable grid's cells, compiled.

A distance field is searched from the goal's cell over the grid's 8 steps reversed (distance
*to* the goal). The steps are the grid's own neighbour table, so nothing is built per search
(a sparse matrix built and transposed for every search took half of a 45 ms search over
20,000 cells, one tick's stall at each order, building and re-route). Ties are popped lowest
cell first, so a search is the same on any machine.
Costs and distances are world units; cells are flat indices.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def _push(hd, hc, size, d, c):
    i = size
    hd[i] = d
    hc[i] = c
    while i > 0:
        p = (i - 1) >> 1
        if hd[p] < hd[i] or (hd[p] == hd[i] and hc[p] <= hc[i]):
            break
        hd[p], hd[i] = hd[i], hd[p]
        hc[p], hc[i] = hc[i], hc[p]
        i = p
    return size + 1


@nb.njit(cache=True, nogil=True)
def _pop(hd, hc, size):
    d, c = hd[0], hc[0]
    size -= 1
    hd[0], hc[0] = hd[size], hc[size]
    i = 0
    while True:
        lo = 2 * i + 1
        if lo >= size:
            break
        hi = lo + 1
        j = lo
        if hi < size and (hd[hi] < hd[lo] or (hd[hi] == hd[lo] and hc[hi] < hc[lo])):
            j = hi
        if hd[i] < hd[j] or (hd[i] == hd[j] and hc[i] <= hc[j]):
            break
        hd[i], hd[j] = hd[j], hd[i]
        hc[i], hc[j] = hc[j], hc[i]
        i = j
    return d, c, size


@nb.njit(cache=True, nogil=True)
def incoming_steps(neighbours, cost):
    """The steps into each cell of ``neighbours`` (8, cells) (-1: no step) with ``cost``
    (8, cells) each: ``start`` (cells + 1,) int, and per step into cell b (rows
    ``start[b]:start[b + 1]``) the cell it comes from and its cost, in step then cell order."""
    n = neighbours.shape[1]
    start = np.zeros(n + 1, np.int64)
    for k in range(8):
        for a in range(n):
            b = neighbours[k, a]
            if b >= 0:
                start[b + 1] += 1
    for b in range(n):
        start[b + 1] += start[b]
    fill = start[:-1].copy()
    src = np.empty(start[n], np.int64)
    w = np.empty(start[n])
    for k in range(8):
        for a in range(n):
            b = neighbours[k, a]
            if b >= 0:
                src[fill[b]] = a
                w[fill[b]] = cost[k, a]
                fill[b] += 1
    return start, src, w


@nb.njit(cache=True, nogil=True)
def search_field(start, src, w, extra, near_wall, goal):
    """(cells,) distance from every cell to ``goal`` (a cell), inf where none: the least sum
    over steps (the table of :func:`incoming_steps`) of each step's cost plus ``extra`` and
    ``near_wall`` (cells,) of the cell it enters."""
    n = start.shape[0] - 1
    dist = np.full(n, np.inf)
    done = np.zeros(n, np.bool_)
    hd = np.empty(src.shape[0] + 1)
    hc = np.empty(src.shape[0] + 1, np.int64)
    dist[goal] = 0.0
    size = _push(hd, hc, 0, 0.0, goal)
    while size > 0:
        d, b, size = _pop(hd, hc, size)
        if done[b]:
            continue
        done[b] = True
        for e in range(start[b], start[b + 1]):
            a = src[e]
            nd = d + ((w[e] + extra[b]) + near_wall[b])
            if nd < dist[a]:
                dist[a] = nd
                size = _push(hd, hc, size, nd, a)
    return dist


@nb.njit(cache=True, nogil=True)
def downhill(neighbours, dist):
    """(cells,) the next cell down the field ``dist`` (cells,) from each cell: the neighbour
    (``neighbours`` (8, cells), -1: none) of least distance, the first step's on a tie, when
    it is below the cell's own; else the cell itself (the goal, or no way on)."""
    n = neighbours.shape[1]
    out = np.empty(n, np.int64)
    for c in range(n):
        best = np.inf
        kb = 0
        for k in range(8):
            b = neighbours[k, c]
            v = dist[b] if b >= 0 else np.inf
            if v < best:
                best = v
                kb = k
        out[c] = neighbours[kb, c] if best < dist[c] else c
    return out
