"""The words on screen: the status lines, the colour legend and the key help (pure text).

The renderer lays these out; nothing here touches OpenGL.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rigidflock.render import colors as C
from rigidflock.render.frame import Overlays
from rigidflock.render.input import KEY_HELP


@dataclass
class Hud:
    title: str = "rigidflock"
    subtitle: str = ""
    status: list[tuple[str, str]] = field(default_factory=list)  # (name, value) rows
    legend: list[tuple[tuple[int, int, int, int], str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # small print under the legend
    obstacles: bool = True  # the legend has an obstacle row
    # further legend rows drawn as their shape: (kind, colour, label), kind one of MARK_KINDS
    marks: list[tuple[str, tuple[int, int, int, int], str]] = field(default_factory=list)

    def status_text(self) -> str:
        return "\n".join(f"{k:<8} {v}" for k, v in self.status)


MARK_KINDS = ("wall", "building", "slot", "route", "selected")


def world_marks(
    walls: bool = False,
    buildings: bool = False,
    slots: bool = False,
    route: bool = False,
    selected: bool = False,
) -> list[tuple[str, tuple[int, int, int, int], str]]:
    """Legend rows for the static world and move orders that the picture shows."""
    rows = []
    if walls:
        rows.append(("wall", C.WALL, "wall"))
    if buildings:
        rows.append(("building", C.BUILDING_RIM, "building"))
    if slots:
        rows.append(("slot", C.TEXT, "formation slot (unit colour)"))
    if route:
        rows.append(("route", C.ROUTE, "route ahead, x the goal"))
    if selected:
        rows.append(("selected", C.SELECTION, "selected unit"))
    return rows


def _fmt_rate(x: float | None) -> str:
    return "-" if x is None else f"{x:.0f}"


def sim_hud(
    sim,
    *,
    fps: float | None = None,
    tps: float | None = None,
    speed: float = 1.0,
    paused: bool = False,
    pending: dict | None = None,
    driving: bool = False,
    selection: int | None = None,
    queued: int = 0,
) -> Hud:
    """Status rows for a running Simulation (``pending``: rule switches queued for next tick;
    ``selection``: units the viewer has selected, None outside a viewer (every group's route
    is drawn then); ``queued``: orders and buildings waiting for the next tick)."""
    u, st, r = sim.units, sim.state, sim.rules
    pending = pending or {}
    dt = sim.scene.world.dt
    speed_txt = f"x{speed:g}" + ("  PAUSED" if paused else "")
    leaders = int(np.count_nonzero(st.leader)) if len(st.leader) else 0
    units_txt = f"{u.n_ai}" + (" + player" if u.has_player else "")

    def on(name: str) -> bool:
        return bool(pending.get(name, getattr(r, name)))

    names = (("flocking", "flocking"), ("chase", "chase"), ("avoidance", "avoid"))
    mark = {n: "*" if n in pending else "" for n, _ in names}
    on_rules = [short + mark[n] for n, short in names if on(n)]
    off_rules = [short + mark[n] for n, short in names if not on(n)]
    view = str(pending.get("view", r.view)) + ("*" if "view" in pending else "")
    rows = [
        ("tick", f"{sim.tick}"),
        ("time", f"{sim.tick * dt:.2f} s"),
        ("speed", speed_txt),
        ("fps", _fmt_rate(fps)),
        ("ticks/s", _fmt_rate(tps)),
        ("units", units_txt),
        ("leaders", f"{leaders}"),
        ("view", view),
        ("rules", " ".join(on_rules) or "none"),
    ]
    if off_rules:
        rows.append(("off", " ".join(off_rules)))
    if u.has_player:
        v = float(np.hypot(*st.vel[-1]))
        ctrl = sim.scene.player.control
        if ctrl == "keyboard":
            ctrl = "keyboard" if driving else "autopilot"
        rows.append(("player", f"{v:.1f} u/s {ctrl}"))
    orders = getattr(sim, "orders", None)
    groups = orders.groups if orders is not None else {}
    if groups or selection:
        arrived = sum(int(g.arrived.sum()) for g in groups.values())
        ordered = sum(len(g.members) for g in groups.values())
        word = "group" if len(groups) == 1 else "groups"
        text = f"{len(groups)} {word}  {arrived}/{ordered} there" if groups else "none"
        rows.append(("orders", text))
    if selection:
        rows.append(("selected", f"{selection}"))
    c = sim.world.contacts
    rows.append(("contacts", f"unit {c.unit}  obst {c.obstacle}"))
    rows.append(("", f"wall {c.wall}  player {c.player}"))
    notes = ["* switches at the next tick"] if pending else []
    if queued:
        notes.append("order / building: at the next tick")
    buildings = orders.buildings if orders is not None else sim.scene.buildings
    return Hud(
        subtitle=sim.scene.name or str(sim.scene.source),
        status=rows,
        legend=C.legend_entries(u.family, u.role, u.family_names),
        notes=notes,
        obstacles=len(sim.obstacles) > 0,
        marks=world_marks(
            walls=len(sim.scene.walls) > 0,
            buildings=len(buildings) > 0,
            slots=bool(groups),
            route=bool(groups) and (selection is None or selection > 0),
            selected=bool(selection),
        ),
    )


def overlay_legend(overlays: Overlays) -> list[tuple[tuple[int, int, int, int], str]]:
    """Legend rows for the overlays that are on."""
    rows = []
    if overlays.vectors:
        rows += [
            (C.VELOCITY, "velocity (1 s)"),
            (C.THRUST, "thrust"),
            (C.DRAG, "drag"),
            (C.BOW, "bow steering force"),
        ]
    if overlays.arcs != "off":
        rows.append((C.ARC, "view arc"))
    if overlays.feelers:
        rows += [(C.FEELER, "feeler"), (C.FEELER_HIT, "feeler touching")]
    if overlays.links:
        rows.append(((160, 170, 190, 255), "neighbour link"))
    if overlays.targets:
        rows += [(C.LEADER, "chase aim (the player)"), (C.INTERCEPTOR, "intercept aim point (x)")]
    return rows


def help_text() -> str:
    return "\n".join(f"{k:<18} {v}" for k, v in KEY_HELP)
