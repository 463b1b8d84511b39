"""Compiled avoidance helpers of the unit pass (numba, inlined into ``unit_pass.unit_pass``):
the feelers, priority, contact and guard against circular obstacles and the world's walls, and
the blocked interval of headings. The numpy reference is ``avoidance.py``; tests compare the
two. Numba's cache of ``unit_pass`` watches ``unit_pass.py`` only;
:mod:`rigidflock.kernel_cache` makes an edit here compile it again.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from rigidflock.model.steering.avoidance import (
    GUARD_BACK,
    PRIORITY_FULL,
    PRIORITY_REACH,
    SPAN_REACH,
)
from rigidflock.model.steering.cells import neighbour_cells
from rigidflock.model.torus import min_image_2d


@nb.njit(cache=True, inline="always")
def _urgency(gap, feeler):
    """``avoidance.urgency``: 0 beyond PRIORITY_REACH of the feeler, 1 within PRIORITY_FULL."""
    span = (PRIORITY_REACH - PRIORITY_FULL) * feeler
    return min(max((PRIORITY_REACH * feeler - gap) / span, 0.0), 1.0)


@nb.njit(cache=True, inline="always")
def _cells_around(at, layout, offx, offy, wrap, cells):
    """The obstacle grid's cells around a unit at ``at`` (px, py) into ``cells`` (9,) scratch;
    returns their number. ``layout``: (ox, oy, sx, sy, ncx, ncy), :class:`ObstacleGrid`'s
    origin, cell size and shape."""
    px, py = at
    ox, oy, sx, sy, ncx, ncy = layout
    cx = min(max(int((px - ox) / sx), 0), ncx - 1)
    cy = min(max(int((py - oy) / sy), 0), ncy - 1)
    return neighbour_cells(cx, cy, ncx, ncy, offx, offy, wrap, cells)


@nb.njit(cache=True, inline="always")
def _obstacle_feelers(at, frame, feeler, body, obs, start, items, nc, cells, torus):
    """The feeler of a unit at ``at`` (px, py), ``frame`` (hx, hy, bx, by) its heading and bow,
    against the obstacles in its ``nc`` cells ``cells`` (``avoidance.obstacle_feelers``), and
    its priority, contact and guard (``avoidance.obstacle_priority``; ``body``: (clearance,
    contact distance, length)).

    ``obs``, ``start``, ``items``: as :class:`ObstacleGrid`; ``torus``: (w, h, wrap). Returns
    the summed strength, the nearest felt obstacle (-1 if none), the urgency, the nearest
    touched edge's distance (inf if none) and whether the guard's sides are touched (port,
    starboard), and whether any obstacle's edge is nearer than ``SPAN_REACH`` of the feeler
    (else :func:`_obstacle_spans` adds nothing: it tests the same distance). (Arrays are passed
    alone, not in tuples: a tuple built per unit would count references to them per unit.)"""
    hx, hy, bx, by = frame
    px, py = at
    w, h, wrap = torus
    clearance, touch, length = body
    total = 0.0
    best = np.inf
    felt = -1
    urg = 0.0
    cgap = np.inf
    port = False
    stbd = False
    near = False
    reach = SPAN_REACH * feeler
    for k in range(nc):
        cell = cells[k]
        for q in range(start[cell], start[cell + 1]):
            o = items[q]
            ax, ay = min_image_2d(obs[o, 0] - px, obs[o, 1] - py, w, h, wrap)
            ahead = ax * hx + ay * hy
            dist = max(math.sqrt(ax * ax + ay * ay), 1e-6)
            edge = dist - obs[o, 2]
            near = near or not edge >= reach  # as _obstacle_spans's test (NaN counts as near)
            a_bow = ax * bx + ay * by
            if edge < touch:
                if a_bow > 0:  # touched ahead of the bow
                    cgap = min(cgap, edge)
                if a_bow * max(edge, 0.0) / dist > -GUARD_BACK * length:  # the guard
                    side = ay * bx - ax * by
                    port = port or side > 0
                    stbd = stbd or side < 0
            if ahead <= 0 or ahead >= feeler:
                continue
            if abs(ay * hx - ax * hy) >= obs[o, 2] + clearance:
                continue
            total += feeler / dist
            urg = max(urg, _urgency(edge, feeler))
            if dist < best:
                best = dist
                felt = o
    return total, felt, urg, cgap, port, stbd, near


@nb.njit(cache=True, inline="always")
def _obstacle_spans(span, at, heading, feeler, clearance, obs, start, items, nc, cells,
                    torus):  # fmt: skip
    """``span`` (lo, hi) grown by the blocked intervals of the obstacles around a unit that
    overlap it (one pass; ``avoidance.obstacle_priority`` and ``avoidance.blocked``). Arguments
    as :func:`_obstacle_feelers`."""
    lo, hi = span
    hx, hy = heading
    px, py = at
    w, h, wrap = torus
    for k in range(nc):
        cell = cells[k]
        for q in range(start[cell], start[cell + 1]):
            o = items[q]
            ax, ay = min_image_2d(obs[o, 0] - px, obs[o, 1] - py, w, h, wrap)
            ahead = ax * hx + ay * hy
            lat = ay * hx - ax * hy
            dist = max(math.sqrt(ax * ax + ay * ay), 1e-6)
            r = obs[o, 2]
            if dist - r >= SPAN_REACH * feeler:
                continue
            theta = math.atan2(lat, ahead)
            half = math.asin(min(1.0, (r + clearance) / dist))
            a, b = theta - half, theta + half
            if a <= hi and b >= lo:
                lo = min(lo, a)
                hi = max(hi, b)
    return lo, hi


@nb.njit(cache=True, inline="always")
def _wall_feelers(found, at, frame, feeler, body, w, h):
    """``found`` (total, urgency, contact gap, guard's port, guard's starboard, near) with the
    feeler, priority, contact and guard of a unit at ``at`` (px, py), ``frame`` (hx, hy, bx, by)
    its heading and bow, ``body`` (contact distance, length), against the four walls of a ``w``
    x ``h`` world folded in (``avoidance.wall_feelers``, ``avoidance.wall_priority``); ``near``
    also when a wall is nearer than ``SPAN_REACH`` of the feeler (:func:`_wall_spans`'s test)."""
    hx, hy, bx, by = frame
    px, py = at
    total, urg, cgap, port, stbd, near = found
    reach = SPAN_REACH * feeler
    touch, length = body
    for axis in range(2):
        hv = hx if axis == 0 else hy
        pv = px if axis == 0 else py
        for k in range(2):
            wall = 0.0 if k == 0 else (w if axis == 0 else h)
            toward = -1.0 if k == 0 else 1.0
            if hv * toward > 1e-9:
                t = (wall - pv) / hv
                if t < feeler:
                    total += feeler / max(t, 1e-6)
                    urg = max(urg, _urgency(t, feeler))
            d = (wall - pv) * toward
            near = near or not d >= reach
            nb = toward * (bx if axis == 0 else by)  # the normal along the bow
            if nb > 1e-9 and d < touch and d < cgap:
                cgap = d
            if d < touch and max(d, 0.0) * nb > -GUARD_BACK * length:  # the guard
                side = toward * (bx if axis == 1 else -by)
                port = port or side > 0
                stbd = stbd or side < 0
    return total, urg, cgap, port, stbd, near


@nb.njit(cache=True, inline="always")
def _wall_spans(span, at, heading, feeler, w, h):
    """``span`` (lo, hi) grown by the blocked intervals of the four walls that overlap it (one
    pass; ``avoidance.wall_priority``); arguments as :func:`_wall_feelers`."""
    lo, hi = span
    hx, hy = heading
    px, py = at
    for axis in range(2):
        hv = hx if axis == 0 else hy
        pv = px if axis == 0 else py
        for k in range(2):
            wall = 0.0 if k == 0 else (w if axis == 0 else h)
            toward = -1.0 if k == 0 else 1.0
            d = (wall - pv) * toward
            if d >= SPAN_REACH * feeler:
                continue
            nl = toward * (hx if axis == 1 else -hy)
            theta = math.atan2(nl, toward * hv)
            half = math.acos(min(max(d / max(feeler, 1e-9), -1.0), 1.0))
            a, b = theta - half, theta + half
            if a <= hi and b >= lo:
                lo = min(lo, a)
                hi = max(hi, b)
    return lo, hi
