"""What one picture shows, as plain arrays: :class:`Frame`; which extras: :class:`Overlays`.

Drawing reads only a :class:`Frame`, never the Simulation, so anything that has the arrays (a live
run through :func:`frame_from_sim`, a stored replay state) draws the same way. Optional fields are
``None`` when a source lacks them; the overlays that need them are then not drawn.

The static world (``walls``, ``buildings``) and move orders (``group``, ``slots``, ``paths``) are
plain arrays too; ``selected`` is the viewer's selection (a mask), set by whoever draws.

Overlay vectors (``vectors``) are drawn anchored at the (possibly interpolated) unit position, so
they are stored relative to it: ``feeler`` is the feeler offset, ``forces`` hold an anchor offset
and a vector per force. ``target`` and ``pairs`` are absolute / index based.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from rigidflock.model import vehicle
from rigidflock.model.state import ROLE_INTERCEPT
from rigidflock.model.torus import min_image
from rigidflock.render import colors as C
from rigidflock.render.vertices import view_half_angle


@dataclass
class Overlays:
    """Extras drawn over the units; every one off by default."""

    vectors: bool = False  # velocity, thrust, drag, bow force
    arcs: str = "off"  # "off" | "cursor" (the unit under the mouse) | "all"
    feelers: bool = False
    links: bool = False  # flocking neighbour pairs in view
    targets: bool = False  # chase / intercept aim points
    help: bool = False  # the key help panel

    @classmethod
    def parse(cls, text: str) -> Overlays:
        """``"vectors,arcs,feelers,links,targets"`` (any subset, comma separated; ``all``)."""
        names = {"vectors", "arcs", "feelers", "links", "targets"}
        words = {w.strip() for w in text.split(",") if w.strip()}
        if "all" in words:
            words = (words - {"all"}) | names
        bad = sorted(words - names)
        if bad:
            raise ValueError(
                f"unknown overlay {bad[0]!r}; expected any of {', '.join(sorted(names))} or all"
            )
        o = cls(**dict.fromkeys(words - {"arcs"}, True))
        if "arcs" in words:
            o.arcs = "all"
        return o


@dataclass
class ViewModel:
    """The view sector every unit sees its neighbours in (for the arcs overlay)."""

    name: str
    radius: np.ndarray  # (N,) world units
    half_angle: float  # radians from the bow


@dataclass
class Frame:
    size: tuple[float, float]  # world width, height
    bounds: str  # "wrap" | "walls" | "open"
    pos: np.ndarray  # (N, 2)
    angle: np.ndarray  # (N,)
    length: np.ndarray  # (N,)
    width: np.ndarray  # (N,)
    colors: np.ndarray  # (N, 4) uint8 hull fill
    obstacles: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))  # (M, 3) cx, cy, r
    player: int | None = None  # row of the player
    role: np.ndarray | None = None  # (N,) ROLE_* codes (aim-line colours)
    vel: np.ndarray | None = None  # (N, 2)
    forces: dict[str, tuple[np.ndarray, np.ndarray]] | None = None  # name -> (anchor off, vector)
    feeler: np.ndarray | None = None  # (N, 2) feeler tip relative to pos
    felt: np.ndarray | None = None  # (N,) obstacle index or -1
    target: np.ndarray | None = None  # (N, 2) aim point, NaN when none
    pairs: tuple[np.ndarray, np.ndarray] | None = None  # (i, j) neighbour links
    view: ViewModel | None = None
    # The static world: walls (W, 5) x0, y0, x1, y1, thickness; buildings: convex polygons (K, 2)
    walls: np.ndarray = field(default_factory=lambda: np.zeros((0, 5)))
    buildings: tuple[np.ndarray, ...] = ()
    # Move orders: each unit's group id (-1: none); every member's formation slot (S, 2) and
    # whose it is (S,) unit rows; each group's route ahead (K, 2) with its group id (P,)
    group: np.ndarray | None = None
    slots: np.ndarray | None = None
    slot_unit: np.ndarray | None = None
    paths: tuple[np.ndarray, ...] = ()
    path_group: np.ndarray | None = None
    selected: np.ndarray | None = None  # (N,) bool: the viewer's selection

    @property
    def n(self) -> int:
        return len(self.pos)

    def moved(self, pos: np.ndarray, angle: np.ndarray) -> Frame:
        """The same frame with units at ``pos`` / ``angle`` (interpolated drawing)."""
        return replace(self, pos=pos, angle=angle)


def interpolate(prev_pos, prev_angle, pos, angle, alpha: float, box=None):
    """Positions and angles a fraction ``alpha`` of the way from the previous tick to this one;
    a unit that wrapped across the world edge (``box`` = world size) moves the short way."""
    d = pos - prev_pos
    if box is not None:
        d = min_image(d, np.asarray(box, float))
    da = np.remainder(angle - prev_angle + np.pi, 2 * np.pi) - np.pi
    return pos - (1.0 - alpha) * d, angle - (1.0 - alpha) * da


def vehicle_vectors(angle, vel, omega, throttle, bow_force, units) -> dict:
    """The vehicle model's forces (``model.vehicle``) for drawing: name -> (anchor offset (N, 2)
    from the centre of mass, force vector (N, 2) newtons). ``bow_force`` is the clamped lateral
    force."""
    return vehicle.force_vectors(angle, vel, omega, throttle, bow_force, units)


def walls_array(walls) -> np.ndarray:
    """Scene :class:`~rigidflock.scene.WallSpec` s -> (W, 5) x0, y0, x1, y1, thickness."""
    rows = [(*w.start, *w.end, w.thickness) for w in walls]
    return np.asarray(rows, float).reshape(-1, 5)


def order_arrays(orders, n: int, selected=None) -> dict:
    """The Frame fields of move orders from an :class:`~rigidflock.orders.Orders`: each unit's
    group, every member's slot, and each group's route from its members' place on it on.
    ``selected`` (unit rows or a mask): only the routes of groups with a selected member."""
    group = np.full(n, -1, np.intp)
    gof = np.asarray(orders.group_of)
    group[: len(gof)] = gof[:n]
    groups = list(orders.groups.values())
    if not groups:
        return {"group": group}
    slots = np.concatenate([np.asarray(g.slots, float).reshape(-1, 2) for g in groups])
    slot_unit = np.concatenate([np.asarray(g.members, np.intp) for g in groups])
    paths, path_group = [], []
    chosen = None
    if selected is not None:
        sel = np.asarray(selected)
        rows = np.flatnonzero(sel) if sel.dtype == bool else sel.astype(np.intp)
        chosen = set(np.unique(group[rows[(rows >= 0) & (rows < n)]]).tolist())
    for g in groups:
        if g.path is None or len(g.path) == 0 or (chosen is not None and g.id not in chosen):
            continue
        start = int(np.min(g.path_index)) if g.path_index is not None and len(g.path_index) else 0
        path = np.asarray(g.path, float)[min(start, len(g.path) - 1) :]
        if g.arrived is not None and len(g.arrived) and g.arrived.all():
            continue  # there: no route left to show
        paths.append(path)
        path_group.append(g.id)
    return {
        "group": group,
        "slots": slots,
        "slot_unit": slot_unit,
        "paths": tuple(paths),
        "path_group": np.asarray(path_group, np.intp),
    }


def frame_from_sim(sim, vectors: bool = True, selected=None) -> Frame:
    """A Simulation's current state as a :class:`Frame` (the adapter; drawing never sees ``sim``).
    ``vectors=False`` leaves out the force vectors (saves their computation when not drawn).
    ``selected``: the viewer's selection (unit rows), outlined, and only its groups' routes;
    None (no viewer: screenshots, scripts): every group's route (slots are always drawn).

    ``sim`` may also be a stored tick (:class:`~rigidflock.playback.TickView`): without
    ``orders`` it gives ``buildings`` itself (or the scene's), and no order overlays."""
    u, st, steer, r = sim.units, sim.state, sim.steering, sim.rules
    # feelers and aim points as offsets from the snapshot the steering decided on (one tick
    # before the state with world.reaction_ticks = 1: drawn from where each unit is now)
    decided = getattr(sim, "steering_state", st).pos
    leader = np.asarray(st.leader, bool) if len(st.leader) == u.n else np.zeros(u.n, bool)
    throttle = np.ones(u.n)
    bow = np.clip(steer.force, -u.max_steer, u.max_steer)
    player = None
    if u.has_player:
        player = u.n - 1
        t, s = sim.player_command
        throttle[-1] = t
        bow = bow.copy()
        bow[-1] = s * u.max_steer[-1]
    orders = getattr(sim, "orders", None)
    if orders is not None:
        buildings = tuple(np.asarray(b, float) for b in orders.buildings)
        extra = order_arrays(orders, u.n, selected)
    else:
        found = getattr(sim, "buildings", None)
        if found is None:
            found = [b.polygon for b in sim.scene.buildings]
        buildings = tuple(np.asarray(b, float) for b in found)
        extra = {}
    mask = None
    if selected is not None:
        rows = np.asarray(selected, np.intp).reshape(-1)
        mask = np.zeros(u.n, bool)
        mask[rows[(rows >= 0) & (rows < u.n)]] = True
    return Frame(
        size=tuple(float(v) for v in sim.scene.world.size),
        bounds=sim.scene.world.bounds,
        pos=st.pos,
        angle=st.angle,
        length=u.length,
        width=u.width,
        colors=C.unit_colors(u.family, u.role, leader, u.family_names),
        obstacles=np.asarray(sim.obstacles, float).reshape(-1, 3),
        player=player,
        role=u.role,
        vel=st.vel,
        forces=vehicle_vectors(st.angle, st.vel, st.omega, throttle, bow, u) if vectors else None,
        feeler=steer.feeler_end - decided,
        felt=steer.felt,
        target=steer.target if decided is st.pos else steer.target - decided + st.pos,
        pairs=steer.pairs,
        view=ViewModel(
            r.view,
            u.length * getattr(r.radius_factor, r.view),
            view_half_angle(r.view, r.back_view_angle_factor, r.front_view_angle_factor),
        ),
        walls=walls_array(sim.scene.walls),
        buildings=buildings,
        selected=mask,
        **extra,
    )


def target_colors(role: np.ndarray | None, n: int) -> np.ndarray:
    """Aim-line colours: magenta for interceptors, red for chasers."""
    out = np.empty((n, 4), np.uint8)
    out[:] = C.LEADER
    if role is not None:
        out[role == ROLE_INTERCEPT] = C.INTERCEPTOR
    out[:, 3] = C.TARGET_ALPHA
    return out
