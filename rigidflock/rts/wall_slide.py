"""Ordered units against a scene wall slide along it toward their route instead of into it.

The steering rules feel circles and the world's edge but not the scene's walls and buildings
(feelers that did fought the route through a gap beside a jamb). A unit pressed against a wall
by its neighbours is turned by separation to point away from them: into the wall. Nose-in, its
thrust presses it there and friction holds its bow; the crowd behind holds it. So an ordered unit
within reach of a scene wall (:func:`wall_contact`) heads along the wall toward lower route
distance and off it at 45 degrees (:func:`slide_heading`), with the order's bow force only (the
rules' push would turn it back in), and does not thrust while its nose points into the wall.
One lying side-on against it is not backed out when pressed still (``side_on``).

Units: world units, newtons, throttle in [-1, 1]. m: the group's members, S: wall segments.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from rigidflock.model.steering.flocking import forward_left
from rigidflock.model.steering.pursuit import seek_steer

REACH = 0.6  # unit lengths (plus the wall's half thickness) from the centre: against the wall
# share of the wall's normal in the slide heading: along the wall and off it at 45 degrees. A
# third kept the wall's lane beside a gap: its units crept along the face, pressed
# and starved by the crowd merging in front of them, pinned for 30-50 s in the bottleneck
OFF_WALL = 1.0
NOSE_IN = 0.5  # cos of the angle between the bow and the wall's inward normal: nose-in
NOSE_IN_THROTTLE = -0.3  # nose-in: ease back so the bow swings free instead of pressing


@dataclass
class Walls:
    """The scene's static segments: walls (thickness) and building edges (none)."""

    start: np.ndarray  # (S, 2) world units
    end: np.ndarray  # (S, 2) world units
    radius: np.ndarray  # (S,) half thickness, world units

    @classmethod
    def of_scene(cls, walls, buildings) -> Walls:
        """From ``walls`` (start, end, thickness) triples and convex ``buildings`` (corners)."""
        a, b, r = [], [], []
        for s, e, t in walls:
            a.append(s), b.append(e), r.append(0.5 * t)
        for poly in buildings:
            p = np.asarray(poly, float)
            for k in range(len(p)):
                a.append(p[k]), b.append(p[(k + 1) % len(p)]), r.append(0.0)
        return cls(
            np.asarray(a, float).reshape(-1, 2),
            np.asarray(b, float).reshape(-1, 2),
            np.asarray(r, float),
        )

    def nearest(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(gap (m,), normal (m, 2)): each position's distance to the nearest wall surface it
        lies beside (its foot on the segment between the ends; world units, inf for none) and
        the unit normal from that wall toward it."""
        m = len(pos)
        if len(self.radius) == 0:
            return np.full(m, np.inf), np.zeros((m, 2))
        ab = self.end - self.start  # (S, 2)
        denom = np.maximum(np.einsum("sk,sk->s", ab, ab), 1e-12)
        rel = pos[:, None, :] - self.start[None, :, :]  # (m, S, 2)
        t = np.einsum("msk,sk->ms", rel, ab) / denom
        d = rel - t[..., None] * ab[None]  # (m, S, 2) from the foot of the normal to the unit
        # beside the wall only: past its end a unit is rounding the jamb, into the gap
        dist = np.where((t > 0.0) & (t < 1.0), np.hypot(d[..., 0], d[..., 1]), np.inf)
        k = np.argmin(dist - self.radius[None, :], axis=1)
        rows = np.arange(m)
        near = dist[rows, k]
        normal = d[rows, k] / np.maximum(near, 1e-9)[:, None]
        return near - self.radius[k], normal


def slide_heading(normal: np.ndarray, downhill: np.ndarray) -> np.ndarray:
    """(m, 2) unit headings: along the wall (perpendicular to its ``normal`` (m, 2)) the way
    that goes ``downhill`` (m, 2, toward lower route distance), plus ``OFF_WALL`` of the normal.
    Where the route leads straight away from the wall, straight away."""
    tangent = np.stack([-normal[:, 1], normal[:, 0]], axis=1)
    along = np.einsum("ij,ij->i", tangent, downhill)
    tangent = np.where(along[:, None] < 0, -tangent, tangent)
    away = np.einsum("ij,ij->i", normal, downhill)
    h = tangent + OFF_WALL * normal
    h = np.where((away > np.abs(along))[:, None], normal, h)
    # rows beside no wall have a zero normal (and are not used): no 0 / 0 there
    return h / np.maximum(np.hypot(*h.T), 1e-12)[:, None]


def wall_contact(
    walls: Walls, pos: np.ndarray, length: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(against (m,) bool, normal (m, 2)): units at ``pos`` (m, 2) whose centre is within
    ``REACH`` of their ``length`` (m,) of a wall's surface, and that wall's outward normal."""
    gap, normal = walls.nearest(pos)
    return gap < REACH * length, normal


def points_into(fwd: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """(m,) bool: bows ``fwd`` (m, 2) pointing into the wall of outward ``normal`` (m, 2)
    (within 60 degrees of straight in): nose-in."""
    return -np.einsum("ij,ij->i", fwd, normal) > NOSE_IN


def slide_control(
    against: np.ndarray,
    normal: np.ndarray,
    downhill: np.ndarray,
    fwd: np.ndarray,
    left: np.ndarray,
    seek_force: float,
    force: np.ndarray,
    throttle: np.ndarray,
    flock_scale: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """New (force (m,), throttle (m,), flock_scale (m,)) for the units ``against`` (m,) a wall
    of ``normal`` (m, 2): the bow force (``seek_force`` N at full turn) seeks the slide heading
    along it toward ``downhill`` (m, 2), the rules' force is off, and a unit whose bow
    (``fwd``, ``left`` (m, 2)) points into the wall eases back. The others keep theirs."""
    if not against.any():
        return force, throttle, flock_scale
    h = slide_heading(normal, downhill)
    slide = seek_force * seek_steer(h, fwd, left)
    nose_in = points_into(fwd, normal)
    force = np.where(against, slide, force)
    throttle = np.where(against & nose_in, np.minimum(throttle, NOSE_IN_THROTTLE), throttle)
    return force, throttle, np.where(against, 0.0, flock_scale)


def slide_along_walls(
    c, g, state, units, nav, contact: tuple[np.ndarray, np.ndarray], grid, steering_force: float
):
    """``c`` (a :class:`~rigidflock.rts.control.GroupControl` of group ``g``) with its members
    on the way that are against a wall sliding along it (:func:`slide_control`); ``contact``:
    the members' (against (m,) bool, normal (m, 2)) from :func:`wall_contact`. Members that
    have arrived or are within ``nav.arrive_radius`` lengths of their slot keep theirs.
    Members on the way against a wall side-on (not nose-in; near their slot too) are marked
    ``side_on``: the simulation does not back them out
    (:attr:`~rigidflock.rts.groups.OrderControl.side_on`).
    ``steering_force``: the rules' S, newtons (the order's bow force is ``nav.seek`` x S)."""
    against, normal = contact
    if not against.any():
        return c
    idx = g.members
    fwd, left = forward_left(state.angle[idx])
    # near the slot too: at a gap, slots beyond the wall are within the arrival radius of
    # units in the lane before it
    c = replace(c, side_on=against & ~g.arrived & ~points_into(fwd, normal))
    pos, L = state.pos[idx], units.length[idx]
    d_slot = np.hypot(*(g.slots - pos).T)
    against = against & ~g.arrived & (d_slot >= nav.arrive_radius * L)
    if not against.any():
        return c
    rows = np.flatnonzero(against)
    cells = grid.cell_of(pos[rows])
    downhill = np.zeros((len(idx), 2))
    downhill[rows] = grid.centre(g.field.next_cell[cells]) - pos[rows]
    force, throttle, flock = slide_control(
        against, normal, downhill, fwd, left, nav.seek * steering_force,
        c.force, c.throttle, c.flock_scale,
    )  # fmt: skip
    return replace(c, force=force, throttle=throttle, flock_scale=flock)
