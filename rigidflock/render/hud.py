"""The words on screen: the status lines (one builder for the live viewer and the replay), the
colour legend and the key help (pure text).

The renderer lays these out; nothing here touches OpenGL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from rigidflock.render import colors as C
from rigidflock.render.frame import Overlays
from rigidflock.render.input import KEY_HELP

if TYPE_CHECKING:
    from rigidflock.replay.playback import Playback, TickView


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


def _speed_text(speed: float, paused: bool) -> str:
    return f"x{speed:g}" + ("  PAUSED" if paused else "")


RULE_NAMES = (("flocking", "flocking"), ("chase", "chase"), ("avoidance", "avoid"))


def rule_rows(rules, pending: dict | None = None) -> list[tuple[str, str]]:
    """The view and rules rows; a switch queued for the next tick (``pending``) shows its new
    value, marked ``*``."""
    pending = pending or {}

    def on(name: str) -> bool:
        return bool(pending.get(name, getattr(rules, name)))

    mark = {n: "*" if n in pending else "" for n, _ in RULE_NAMES}
    on_rules = [short + mark[n] for n, short in RULE_NAMES if on(n)]
    off_rules = [short + mark[n] for n, short in RULE_NAMES if not on(n)]
    view = str(pending.get("view", rules.view)) + ("*" if "view" in pending else "")
    rows = [("view", view), ("rules", " ".join(on_rules) or "none")]
    if off_rules:
        rows.append(("off", " ".join(off_rules)))
    return rows


def status_rows(
    head, units, state, rules, *, pending=None, player: str = "", rts=(), contacts=(0, 0, 0, 0)
) -> list[tuple[str, str]]:
    """The status rows of the live viewer and the replay alike: ``head`` (tick, time, speed
    ...), units, leaders, view and rules, the player's speed followed by ``player``, ``rts``
    (orders, selection), and the contact counts ``contacts`` = (unit, obstacle, wall, player)."""
    leaders = int(np.count_nonzero(state.leader)) if len(state.leader) else 0
    rows = [
        *head,
        ("units", f"{units.n_ai}" + (" + player" if units.has_player else "")),
        ("leaders", f"{leaders}"),
        *rule_rows(rules, pending),
    ]
    if units.has_player:
        v = float(np.hypot(*state.vel[-1]))
        rows.append(("player", f"{v:.1f} u/s{player}"))
    rows += rts
    unit, obstacle, wall, player_contacts = contacts
    rows.append(("contacts", f"unit {unit}  obst {obstacle}"))
    rows.append(("", f"wall {wall}  player {player_contacts}"))
    return rows


def _order_rows(groups: dict, selection: int | None) -> list[tuple[str, str]]:
    """The move orders (groups, units arrived) and the size of the viewer's selection."""
    rows = []
    if groups or selection:
        arrived = sum(int(g.arrived.sum()) for g in groups.values())
        ordered = sum(len(g.members) for g in groups.values())
        word = "group" if len(groups) == 1 else "groups"
        text = f"{len(groups)} {word}  {arrived}/{ordered} there" if groups else "none"
        rows.append(("orders", text))
    if selection:
        rows.append(("selected", f"{selection}"))
    return rows


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
    u = sim.units
    dt = sim.scene.world.dt
    player = ""
    if u.has_player:
        ctrl = sim.scene.player.control
        if ctrl == "keyboard":
            ctrl = "keyboard" if driving else "autopilot"
        player = f" {ctrl}"
    orders = getattr(sim, "orders", None)
    groups = orders.groups if orders is not None else {}
    c = sim.world.contacts
    head = [
        ("tick", f"{sim.tick}"),
        ("time", f"{sim.tick * dt:.2f} s"),
        ("speed", _speed_text(speed, paused)),
        ("fps", _fmt_rate(fps)),
        ("ticks/s", _fmt_rate(tps)),
    ]
    rows = status_rows(
        head, u, sim.state, sim.rules, pending=pending, player=player,
        rts=_order_rows(groups, selection), contacts=(c.unit, c.obstacle, c.wall, c.player),
    )  # fmt: skip
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


REPLAY_KEYS = (
    "space play/pause  <- -> tick",
    "shift+<- -> 1 s  [ ] speed",
    "Home End  first/last  F fit",
    "click the timeline to seek",
)


def replay_hud(
    playback: Playback, view: TickView, *, speed: float = 1.0, paused: bool = False, keys=False
) -> Hud:
    """Status rows for a stored tick."""
    u = view.units
    dt = playback.dt
    last = playback.last_tick
    player = ""
    if u.has_player:
        t, s = view.player_command
        player = f"  {t:+.0f}/{s:+.0f}"
    ev = view.events or {}
    contacts = tuple(ev.get(f"{k}_contacts", 0) for k in ("unit", "obstacle", "wall", "player"))
    head = [
        ("tick", f"{view.tick} / {last}"),
        ("time", f"{view.tick * dt:.2f} / {last * dt:.2f} s"),
        ("speed", _speed_text(speed, paused)),
    ]
    rows = status_rows(head, u, view.state, view.rules, player=player, contacts=contacts)
    notes = ["replay: stored states, no physics"]
    if not playback.reader.complete:
        notes.append(f"file {playback.reader.problem}")
    if keys:
        notes += list(REPLAY_KEYS)
    name = playback.scene.name or str(playback.scene.source)
    return Hud(
        title="rigidflock replay",
        subtitle=name,
        status=rows,
        legend=C.legend_entries(u.family, u.role, u.family_names),
        notes=notes,
        obstacles=len(view.obstacles) > 0,
        marks=world_marks(walls=len(playback.scene.walls) > 0, buildings=len(view.buildings) > 0),
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
