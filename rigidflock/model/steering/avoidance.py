"""Feelers against circular obstacles and the world's walls (*AI for Game Developers*, chapter
4 (AIDemo4)), with rigidflock's blocked interval, priority and contact, below.

The feeler of unit i runs from p_i along its heading h_i for ``feeler_len`` world units. An obstacle
(centre c, radius r) is felt when a = c - p_i projects ahead (0 < a . h < feeler_len) and the
feeler line passes within r + W/2 + L/2 of c; the unit then turns away from it with a force
proportional to feeler_len / |a|. Arrays: positions/headings (N, 2); per-unit values (N,).

Which way: AIDemo4 sums -side(a) * feeler_len / |a| over the felt
obstacles, so two trees on either side of the feeler cancel and steer the unit straight into the
gap between them, even when the gap is narrower than the unit (a pocket it then sits in). Here
the strength is AIDemo4's sum of feeler_len / |a| (and feeler_len / t for walls), and the side
is that of the nearer end of the *blocked interval*. Every surface within the feeler's length
blocks a range of headings: an obstacle seen at angle theta from h blocks theta +- asin((r +
W/2 + L/2) / |a|), the headings whose feeler line it would cross (up to its tangents when the
unit is that close); a wall blocks the headings whose feeler would reach it. The ranges that
overlap the heading, directly or through each other, merge into one [lo, hi] (radians from h,
+ to port), and the unit turns toward its end nearer the bow (:func:`blocked`, :func:`escape`;
for a unit under way the bow is along h). For a single surface this is AIDemo4's rule, turn away
from its side (judged in the body frame, as AIDemo4 does); for two trees whose gap the unit
does not fit through, it goes round the pair; in a corner, out along the nearer wall.

Priority: the feeler's command does not simply add to flocking, as in AIDemo4. A felt obstacle
or wall nearer than ``PRIORITY_REACH`` of the feeler makes the unit urgent (:func:`urgency`, 0..1,
1 within ``PRIORITY_FULL`` of the feeler) and the other rules' force is scaled by 1 - urgency, so
the flock's pull cannot hold a unit nose-on to a tree; nor may they turn a unit toward a surface it
touches beside its front, which it turns a little away from instead (:func:`guard_range`), so it
does not orbit a tree scraping along it. A unit touching static geometry ahead of its bow
(its centre within its half-diagonal plus ``CONTACT_TOLERANCE`` of the surface) steers toward
the nearer end of the blocked interval instead (with one touched surface: along its tangent
nearer the heading; in a pocket between two trees: along the tangent that leads out of it), and
nothing else steers it then (:func:`escape`).
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.steering.neighbours import cross_pairs
from rigidflock.model.torus import min_image

PRIORITY_REACH = 0.5  # share of the feeler: a felt surface nearer than this takes priority
PRIORITY_FULL = 0.2  # share of the feeler: nearer than this, avoidance alone steers
CONTACT_TOLERANCE = 1.0  # world units beyond the half-diagonal that count as touching
CONTACT_GAIN = 4.0  # contact command per unit of turn (angle / pi) toward the interval's end
GUARD_BACK = 0.25  # share of L behind the centre where a touched side still bars turning to it
SPAN_REACH = 0.5  # share of the feeler: only surfaces nearer than this block headings (a room
# smaller than the feeler would otherwise block nearly every heading, its far walls chaining
# into one interval whose "nearer end" points anywhere, even into the wall being felt)
GUARD_TURN = 0.5  # the least turn away from a side touched (command; contact friction drags a
# unit rubbing along a tree round it otherwise)


def urgency(gap, feeler_len):
    """How much a felt surface ``gap`` world units ahead (along the feeler, or from the unit's
    centre to an obstacle's edge) takes priority: 0 beyond PRIORITY_REACH x ``feeler_len``,
    rising linearly to 1 at PRIORITY_FULL x ``feeler_len``."""
    span = (PRIORITY_REACH - PRIORITY_FULL) * feeler_len
    return np.clip((PRIORITY_REACH * feeler_len - gap) / span, 0.0, 1.0)


def _pairs(pos, obstacles, feeler_len, clearance, box):
    """Candidate (unit, obstacle) index pairs (K,), (K,): all of them for small problems, else
    those within feeler reach (a k-d tree search)."""
    n, m = len(pos), len(obstacles)
    if n * m <= 200_000:
        return np.divmod(np.arange(n * m), m)
    reach = float(np.max(feeler_len) + np.max(obstacles[:, 2]) + np.max(clearance))
    ui, oi, _ = cross_pairs(pos, obstacles[:, :2], reach, box)
    return ui, oi


def _geometry(pos, heading, obstacles, ui, oi, box):
    """Per pair: a (K, 2) the obstacle's centre from the unit (nearest image), and (K,) each:
    a . h (ahead), a . port(h) (lateral; port(h) = h turned +90 degrees), |a| (at least 1e-6)
    and the perpendicular distance from the feeler line."""
    a = min_image(obstacles[oi, :2] - pos[ui], box)
    h = heading[ui]
    ahead = np.einsum("ij,ij->i", a, h)
    lat = a[:, 1] * h[:, 0] - a[:, 0] * h[:, 1]
    dist = np.maximum(np.hypot(a[:, 0], a[:, 1]), 1e-6)
    return a, ahead, lat, dist, np.abs(lat)


def obstacle_feelers(
    pos: np.ndarray,
    heading: np.ndarray,
    feeler_len: np.ndarray,
    clearance: np.ndarray,
    obstacles: np.ndarray,
    box: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Feeler response to circles.

    ``obstacles``: (M, 3) rows (cx, cy, r); ``clearance``: (N,) W/2 + L/2 added to each radius.
    Returns the strength sum(feeler_len / |a|) over the felt obstacles per unit (N,) (the side
    comes from :func:`escape`) and the index of the nearest felt obstacle per unit (N,), -1
    where none.
    """
    n = len(pos)
    out = np.zeros(n)
    felt = np.full(n, -1, dtype=np.intp)
    if n == 0 or len(obstacles) == 0:
        return out, felt
    ui, oi = _pairs(pos, obstacles, feeler_len, clearance, box)
    _a, ahead, _lat, dist, perp = _geometry(pos, heading, obstacles, ui, oi, box)
    hit = (ahead > 0) & (ahead < feeler_len[ui]) & (perp < obstacles[oi, 2] + clearance[ui])
    ui, oi, dist = ui[hit], oi[hit], dist[hit]
    np.add.at(out, ui, feeler_len[ui] / dist)
    # nearest felt obstacle: sort by distance descending so the nearest is written last
    order = np.argsort(-dist, kind="stable")
    felt[ui[order]] = oi[order]
    return out, felt


def obstacle_priority(
    pos: np.ndarray,
    heading: np.ndarray,
    bow: np.ndarray,
    feeler_len: np.ndarray,
    clearance: np.ndarray,
    touch: np.ndarray,
    length: np.ndarray,
    obstacles: np.ndarray,
    box: np.ndarray | None = None,
):
    """Priority, contact, blocked headings and guard against circles.

    - the urgency (N,) of the felt obstacles (the largest);
    - the distance from the centre to the nearest touched obstacle's edge (N,), inf when none:
      an obstacle is touched when its edge is within ``touch`` (N,) of the unit's centre and
      its centre is ahead of the bow ``bow`` (N, 2) (a . bow > 0);
    - the blocked intervals (unit (K,), lo (K,), hi (K,), radians from h, + to port) of the
      obstacles whose edge is within the feeler's length, in any direction: the headings toward
      the obstacle grown by the clearance, theta +- asin(min(1, (r + clearance) / |a|)) (its
      tangents, +- pi/2 from theta, when the unit is within the clearance; so an interval grows
      and shrinks smoothly as the unit moves);
    - the guard (port (N,), starboard (N,)): the sides of the body touched by an obstacle within
      ``touch`` whose nearest point is not more than GUARD_BACK x ``length`` (N,) behind the
      centre (see :func:`guard_range`).
    """
    n, m = len(pos), len(obstacles)
    urg, cgap = np.zeros(n), np.full(n, np.inf)
    port, stbd = np.zeros(n, bool), np.zeros(n, bool)
    empty = (np.zeros(0, np.intp), np.zeros(0), np.zeros(0))
    if n == 0 or m == 0:
        return urg, cgap, empty, (port, stbd)
    ui, oi = np.divmod(np.arange(n * m), m)
    a, ahead, lat, dist, perp = _geometry(pos, heading, obstacles, ui, oi, box)
    r = obstacles[oi, 2]
    edge = dist - r
    fl = feeler_len[ui]
    felt = (ahead > 0) & (ahead < fl) & (perp < r + clearance[ui])
    np.maximum.at(urg, ui[felt], urgency(edge[felt], fl[felt]))
    # touched ahead of the bow (for a unit under way, ahead of h): a unit nearly stopped with a
    # tree beside its velocity but in front of its nose must still steer off it
    a_bow = np.einsum("ij,ij->i", a, bow[ui])
    near = edge < touch[ui]
    touched = (a_bow > 0) & near
    np.minimum.at(cgap, ui[touched], edge[touched])
    # the guard: the nearest point's distance ahead of the centre, and its side of the body
    front = a_bow * np.maximum(edge, 0.0) / dist > -GUARD_BACK * length[ui]
    side = a[:, 1] * bow[ui, 0] - a[:, 0] * bow[ui, 1]
    port[ui[near & front & (side > 0)]] = True
    stbd[ui[near & front & (side < 0)]] = True
    keep = edge < SPAN_REACH * fl
    theta = np.arctan2(lat[keep], ahead[keep])
    half = np.arcsin(np.minimum(1.0, (r[keep] + clearance[ui[keep]]) / dist[keep]))
    return urg, cgap, (ui[keep], theta - half, theta + half), (port, stbd)


def _walls(pos, heading, feeler_len, size):
    """Per wall of [0, w] x [0, h] (four of them): (axis, toward, moving (N,), t (N,), d (N,)):
    whether the unit heads toward it, the distance along h to it (inf when not), and the
    distance from the centre to it."""
    for axis in (0, 1):
        hv = heading[:, axis]
        for wall, toward in ((0.0, -1.0), (float(size[axis]), 1.0)):
            moving = hv * toward > 1e-9
            t = np.where(moving, (wall - pos[:, axis]) / np.where(moving, hv, 1.0), np.inf)
            yield axis, toward, moving, t, (wall - pos[:, axis]) * toward


def wall_priority(
    pos: np.ndarray,
    heading: np.ndarray,
    bow: np.ndarray,
    feeler_len: np.ndarray,
    touch: np.ndarray,
    length: np.ndarray,
    size: np.ndarray,
    urg: np.ndarray,
    cgap: np.ndarray,
    guard: tuple[np.ndarray, np.ndarray],
):
    """:func:`obstacle_priority`'s results for the four walls of [0, w] x [0, h], with ``urg``,
    ``cgap`` and ``guard`` folded in: a wall the feeler reaches (distance t along h) is urgent
    by t; a wall within ``touch`` of the centre that the bow points toward is touched; a wall
    nearer than the feeler's length (d from the centre) blocks the headings within acos(d /
    feeler_len) of its normal (those whose feeler would reach it; nearly its tangents when
    touched); a wall within ``touch`` guards as an obstacle does (its nearest point is d along
    its normal)."""
    urg, cgap = urg.copy(), cgap.copy()
    port, stbd = guard[0].copy(), guard[1].copy()
    n = len(pos)
    units, los, his = [], [], []
    for axis, toward, moving, t, d in _walls(pos, heading, feeler_len, size):
        hit = moving & (t < feeler_len)
        urg = np.where(hit, np.maximum(urg, urgency(t, feeler_len)), urg)
        near = d < touch
        nb = toward * bow[:, axis]  # the normal along the bow
        cgap = np.where((nb > 1e-9) & near & (d < cgap), d, cgap)
        front = near & (np.maximum(d, 0.0) * nb > -GUARD_BACK * length)
        side = toward * (bow[:, 0] if axis == 1 else -bow[:, 1])  # the normal along port
        port |= front & (side > 0)
        stbd |= front & (side < 0)
        # the wall's normal n seen from h: n . h = toward * h[axis]; n . port(h)
        nh = toward * heading[:, axis]
        nl = toward * (heading[:, 0] if axis == 1 else -heading[:, 1])
        theta = np.arctan2(nl, nh)
        half = np.arccos(np.clip(d / np.maximum(feeler_len, 1e-9), -1.0, 1.0))
        keep = d < SPAN_REACH * feeler_len
        units.append(np.arange(n)[keep])
        los.append((theta - half)[keep])
        his.append((theta + half)[keep])
    spans = (np.concatenate(units), np.concatenate(los), np.concatenate(his))
    return urg, cgap, spans, (port, stbd)


def wall_feelers(
    pos: np.ndarray,
    heading: np.ndarray,
    feeler_len: np.ndarray,
    size: np.ndarray,
) -> np.ndarray:
    """Feeler response to the four walls of a walled world [0, w] x [0, h].

    A wall is felt when the feeler reaches it (distance along h to the wall, t, is below
    ``feeler_len``); the unit turns with strength feeler_len / t, the same law as for obstacles
    (the side from :func:`escape`). Returns the summed strength (N,).
    """
    out = np.zeros(len(pos))
    for _axis, _toward, moving, t, _d in _walls(pos, heading, feeler_len, size):
        hit = moving & (t < feeler_len)
        out += np.where(hit, feeler_len / np.maximum(t, 1e-6), 0.0)
    return out


def blocked(n: int, unit: np.ndarray, lo: np.ndarray, hi: np.ndarray):
    """The blocked interval of each unit (N,) lo, (N,) hi (radians from h, + to port): the
    union of its intervals [lo, hi] (K,) (``unit`` (K,) says whose) connected to the heading
    (angle 0) directly or through each other; [0, 0] where none contains the heading. The union
    does not depend on the intervals' order (the kernel merges them one by one)."""
    out_lo, out_hi = np.zeros(n), np.zeros(n)
    while True:
        overlap = (lo <= out_hi[unit]) & (hi >= out_lo[unit])
        new_lo, new_hi = out_lo.copy(), out_hi.copy()
        np.minimum.at(new_lo, unit[overlap], lo[overlap])
        np.maximum.at(new_hi, unit[overlap], hi[overlap])
        if np.array_equal(new_lo, out_lo) and np.array_equal(new_hi, out_hi):
            return out_lo, out_hi
        out_lo, out_hi = new_lo, new_hi


def guard_range(port: np.ndarray, stbd: np.ndarray, turn: float):
    """The range (lo (N,), hi (N,)) the other rules' force is clipped to, from the sides touched
    (:func:`obstacle_priority`'s guard): touched to port, at most -``turn`` (at least that much
    to starboard, away from it), to starboard at least ``turn``, on both sides 0. A unit rubbing
    along a tree is neither turned into it by its flock nor dragged round it by friction."""
    lo = np.where(stbd, np.where(port, 0.0, turn), -np.inf)
    hi = np.where(port, np.where(stbd, 0.0, -turn), np.inf)
    return lo, hi


def bow_angle(heading: np.ndarray, left: np.ndarray) -> np.ndarray:
    """(N,) the angle of the bow from the direction of travel ``heading`` (N, 2), + to port
    (``left`` (N, 2): the body's port axis, so the bow is (left_y, -left_x)). Near 0 for a
    unit under way; anything for one nearly stopped, whose velocity says little."""
    c, s = left[:, 1], -left[:, 0]
    return np.arctan2(s * heading[:, 0] - c * heading[:, 1], c * heading[:, 0] + s * heading[:, 1])


def escape(lo: np.ndarray, hi: np.ndarray, bow: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """From the blocked interval (N,) lo, hi and the bow's angle (N,) (all radians from the
    direction of travel): the side to turn, +1 (port) when the bow lies on the port half of
    the interval (hi - bow < bow - lo: for a unit under way, when the port end is the nearer),
    else -1 (starboard, also on a tie), and the contact command CONTACT_GAIN x (the turn from
    the bow to that end / pi, within +-1). The bow, not the velocity, decides: a unit nearly
    stopped against a surface turns its body (AIDemo4 judges the side in the body frame too)."""
    port = hi - bow < bow - lo
    end = np.where(port, hi, lo)
    return np.where(port, 1.0, -1.0), CONTACT_GAIN * np.clip((end - bow) / np.pi, -1.0, 1.0)
