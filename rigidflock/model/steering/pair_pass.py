"""Compiled kernels (numba) for the per-tick hot path, part one: the row gathering and the pair
pass, and the bundles both passes take (the unit pass is in ``unit_pass``).

The numpy functions in ``flocking.py`` and ``view.py`` (put together by
``reference.steer_reference``) are the reference definitions; the pair pass computes the same
quantities in one pass over the candidate pairs without numpy temporaries. Tests compare the
two. Arguments come in named bundles (``typing.NamedTuple`` s of arrays and scalars, which numba
takes apart by attribute): here :class:`Box` and :class:`Bodies` (shared with the unit pass),
:class:`Rows`, :class:`PairRules` and the pass's results :class:`PairSums` (which the unit pass
reads). The small helpers are inlined into the loops. Kernels are compiled on first use and
cached on disk (``cache=True``), so only the first run on a machine pays the compile time.
Numba's cache watches this file only, not the helpers inlined from ``torus`` or ``view``:
:mod:`rigidflock.kernel_cache` keys the cache directory by every module of the package, so an
edit to any of them compiles the kernels again.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np

from rigidflock.model.steering.serial import serial_twin
from rigidflock.model.steering.view import in_narrow_cone, seen
from rigidflock.model.torus import min_image_2d


class Box(NamedTuple):
    """The world: its size (w, h) in world units, and whether it wraps around."""

    w: float
    h: float
    wrap: bool


class Bodies(NamedTuple):
    """Where the units are: pos (N, 2), vel (N, 2), angle (N,) (the pair pass: AI units only,
    in the order of its rows)."""

    pos: np.ndarray
    vel: np.ndarray
    angle: np.ndarray


class Rows(NamedTuple):
    """Candidate partners per row (from :func:`~.cells.ordered_rows`): row a's are
    ``nbr[ptr[a]:ptr[a + 1]]``, rows again; row a is unit ``unit[a]`` (N,)."""

    ptr: np.ndarray
    nbr: np.ndarray
    unit: np.ndarray


class PairRules(NamedTuple):
    """What the pair pass tests: per-unit family, view, separation and leader-cone radii and
    length (N,), in the order of its rows; the search radius; the view code (``view.VIEW_*``)
    and its angle factors."""

    family: np.ndarray
    view_r: np.ndarray
    sep_r: np.ndarray
    lead_r: np.ndarray
    length: np.ndarray
    search_r: float
    view_code: int
    back: float
    front: float


class PairSums(NamedTuple):
    """The pair pass's results per AI unit: coh (N, 2) summed offsets to flockmates, ali (N, 2)
    their summed velocities, cnt (N,) their number, sep (N,) the summed separation command,
    nf (N,) units in the narrow cone ahead, flock (2P,) whether ``nbr[k]`` is a flockmate of its
    row's unit, gap (N,) distance to the nearest unit ahead in the queue corridor (inf if none),
    nn (N,) distance to the nearest AI unit within the search radius (inf if none: the run
    metrics' nearest-neighbour distance, found by the pass the tick makes anyway)."""

    coh: np.ndarray
    ali: np.ndarray
    cnt: np.ndarray
    sep: np.ndarray
    nf: np.ndarray
    flock: np.ndarray
    gap: np.ndarray
    nn: np.ndarray


@nb.njit(cache=True, inline="always")
def _side(lateral):
    """+1 to port (lateral >= 0), -1 to starboard, as ``flocking.side``."""
    return 1.0 if lateral >= 0 else -1.0


@nb.njit(cache=True, inline="always")
def _separation_push(s, sep_r, dist):
    """One too-close neighbour's separation command, as ``flocking.separation``."""
    return -_side(s) * sep_r / max(dist, 1e-3)


@nb.njit(cache=True, inline="always")
def _queues_behind(f, abs_s, half_width, vbx, vby, ca, sa):
    """Whether a partner with velocity (vbx, vby) is ahead in the queue corridor of a unit with
    bow (ca, sa) and not oncoming (``flocking.gap_ahead``)."""
    going_our_way = vbx * ca + vby * sa >= 0.0
    return (f > 0) & (abs_s < half_width) & going_our_way


# nogil: the steering may run beside pymunk's step, whose contact callbacks need the GIL
@nb.njit(cache=True, nogil=True, parallel=True)
def gather_rows(order, bodies, key, out, out_key):
    """``bodies`` (pos, vel, angle) and ``key`` (N,) of the units ``order`` (R,) into ``out``
    (a :class:`Bodies` of (R, 2), (R, 2), (R,)) and ``out_key`` (R,): the pair pass's inputs in
    the order of its rows. Rows in parallel: its loads scatter (1.2 ms a tick at 100,000 units
    on one thread)."""
    pos, vel, angle = bodies.pos, bodies.vel, bodies.angle
    opos = out.pos  # outputs: one plain assignment each (see below)
    ovel = out.vel
    oangle = out.angle
    for p in nb.prange(order.shape[0]):
        u = order[p]
        opos[p, 0] = pos[u, 0]
        opos[p, 1] = pos[u, 1]
        ovel[p, 0] = vel[u, 0]
        ovel[p, 1] = vel[u, 1]
        oangle[p] = angle[u]
        out_key[p] = key[u]


# Why the kernels unpack their bundles before the parallel loop, and each output array with a
# plain ``x = bundle.x``: numba's parfor pass drops stores to arrays it cannot trace back to an
# argument (numba issue #5872), which is the case for stores made through a tuple inside a prange
# body and for arrays unpacked through a temporary tuple (``a, b, c, d = t.a, t.b, ...``).


@nb.njit(cache=True, nogil=True, parallel=True)
def pair_pass(rows, bodies, rules, box, out, trig):
    """Each row a against its candidate partners b (:class:`Rows`): partners closer than
    ``rules.search_r`` feed the rule sums (:class:`PairSums`, written to ``out`` at the row's
    unit ``rows.unit[a]``; ``flock`` per entry of ``nbr``), as the numpy rules define them.
    ``bodies`` and ``rules`` are in row order: renumbered so that neighbours sit close in
    memory (:func:`~.cells.ordered_rows`). Rows run in parallel; each sums its own partners in a
    fixed order, so results do not depend on the threads or the numbering. ``trig`` (N, 3): each
    unit's cos, sin and angle, cached by unit for the unit pass and the vehicle forces."""
    ptr, nbr, pos, vel, angle = rows.ptr, rows.nbr, bodies.pos, bodies.vel, bodies.angle
    unit = rows.unit
    family, view_r, sep_r, lead_r = rules.family, rules.view_r, rules.sep_r, rules.lead_r
    length, view, back, front = rules.length, rules.view_code, rules.back, rules.front
    w, h, wrap = box.w, box.h, box.wrap
    coh = out.coh  # outputs: one plain assignment each (see above)
    ali = out.ali
    cnt = out.cnt
    sep = out.sep
    nf = out.nf
    flock = out.flock
    gap = out.gap
    nn = out.nn
    r2 = rules.search_r * rules.search_r
    for a in nb.prange(ptr.shape[0] - 1):
        cx = cy = ax = ay = sp = 0.0
        nc = nfa = 0
        gap_a = np.inf
        nn2 = np.inf
        # computed, not looked up in trig: a load in unit order would stall the row on a cache
        # miss (~8 ms a tick at 100,000 units); the stores below do not wait
        ca, sa = math.cos(angle[a]), math.sin(angle[a])
        pax, pay = pos[a, 0], pos[a, 1]
        fam_a, view_a, sep_a, lead_a, len_a = family[a], view_r[a], sep_r[a], lead_r[a], length[a]
        # Branch-free body: every test is a bool combined with &, and a term t enters a sum as
        # x + t * m with m = 1.0 or 0.0 (the same bits as adding only when it counts: t is
        # finite and x never -0.0, so x + 0.0 * t == x). Which tests pass is unpredictable pair
        # to pair: branches mispredicted, computing every term for every candidate is cheaper.
        for k in range(ptr[a], ptr[a + 1]):
            b = nbr[k]
            ex, ey = min_image_2d(pos[b, 0] - pax, pos[b, 1] - pay, w, h, wrap)
            d2 = ex * ex + ey * ey
            near = d2 < r2
            nn2 = d2 if near & (d2 < nn2) else nn2
            dist = math.sqrt(d2)
            f = ex * ca + ey * sa
            s = -ex * sa + ey * ca
            abs_s = abs(s)
            vis = near & seen(f, abs_s, view, back, front)
            mate = vis & (dist < view_a) & (fam_a == family[b])
            vbx, vby = vel[b, 0], vel[b, 1]
            m = 1.0 if mate else 0.0
            cx += ex * m
            cy += ey * m
            ax += vbx * m
            ay += vby * m
            nc += mate
            flock[k] = mate
            push = _separation_push(s, sep_a, dist)
            sp += push * (1.0 if vis & (dist < sep_a) else 0.0)
            nfa += near & in_narrow_cone(f, abs_s, front) & (dist <= lead_a)
            ahead = near & _queues_behind(f, abs_s, len_a, vbx, vby, ca, sa) & (dist < gap_a)
            gap_a = dist if ahead else gap_a
        u = unit[a]
        coh[u, 0] = cx
        coh[u, 1] = cy
        ali[u, 0] = ax
        ali[u, 1] = ay
        cnt[u] = nc
        sep[u] = sp
        nf[u] = nfa
        gap[u] = gap_a
        nn[u] = math.sqrt(nn2)  # sqrt is monotone and correctly rounded: the nearest distance
        trig[u, 0] = ca
        trig[u, 1] = sa
        trig[u, 2] = angle[a]


# one-thread twins, for worlds too small to use a second thread (see ``serial``)
gather_rows_serial = serial_twin(gather_rows)
pair_pass_serial = serial_twin(pair_pass)
