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
    # what the overlays' legend may list: only what this scene can show
    player: bool = True  # chase aim lines point at the player
    interceptors: bool = True  # intercept aim points
    feelable: bool = True  # obstacles, walls or buildings for feelers to touch
    hints: bool = False  # interactive hints ("H  key help"): windows only, never in videos

    def status_text(self) -> str:
        return "\n".join(f"{k:<8} {v}" for k, v in self.status)


def fit_text(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters in the middle (file names keep both ends).

    >>> fit_text("rigidflock-aidemo4-20250101-120000.rfr", 24)
    'rigidflock-...120000.rfr'
    """
    if len(text) <= width:
        return text
    keep = width - 3
    return text[: (keep + 1) // 2] + "..." + text[len(text) - keep // 2 :]


STATUS_WIDTH = 22  # characters of a status value that fit the side panel (after the 9 of the name)
TITLE_WIDTH = 30  # characters of the subtitle (scene name) that fit


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
    head,
    units,
    state,
    rules,
    *,
    pending=None,
    player: str = "",
    rts=(),
    contacts=(0, 0, 0, 0),
    contacts_since: str = "so far",
) -> list[tuple[str, str]]:
    """The status rows of the live viewer and the replay alike: ``head`` (tick, time, speed
    ...), units, leaders, view and rules, the player's speed followed by ``player``, ``rts``
    (orders, selection), and the contact counts ``contacts`` = (unit, obstacle, wall, player):
    running totals, from tick 0 (``contacts_since`` says so: "so far", or "since tick S" for a
    replay recorded from tick S)."""
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
    rows.append(("contacts", contacts_since))
    rows.append(("", f"unit {unit}  obst {obstacle}"))
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
    interactive: bool = False,
) -> Hud:
    """Status rows for a running Simulation (``pending``: rule switches queued for next tick;
    ``selection``: units the viewer has selected, None outside a viewer (every group's route
    is drawn then); ``queued``: orders and buildings waiting for the next tick;
    ``interactive``: a window's panel, with speed, rates and key hints, which a picture
    without a window leaves out)."""
    u = sim.units
    dt = sim.scene.world.dt
    player = ""
    notes = []
    if u.has_player:
        ctrl = sim.scene.player.control
        auto = {"keyboard": "autopilot", "waypoints": "autopilot", "script": "script"}
        if driving:
            player = " arrow keys"
        else:
            player = f" {auto.get(ctrl, 'coasting')}"
            if interactive:
                notes.append("arrow keys: take over the player")
    orders = getattr(sim, "orders", None)
    groups = orders.groups if orders is not None else {}
    c = sim.world.contacts
    head = [("tick", f"{sim.tick}"), ("time", f"{sim.tick * dt:.2f} s")]
    if interactive:
        head += [
            ("speed", _speed_text(speed, paused)),
            ("fps", _fmt_rate(fps)),
            ("ticks/s", _fmt_rate(tps)),
        ]
    rows = status_rows(
        head, u, sim.state, sim.rules, pending=pending, player=player,
        rts=_order_rows(groups, selection), contacts=(c.unit, c.obstacle, c.wall, c.player),
    )  # fmt: skip
    if pending:
        notes.append("* switches at the next tick")
    if queued:
        notes.append("order / building: at the next tick")
    buildings = orders.buildings if orders is not None else sim.scene.buildings
    return Hud(
        subtitle=fit_text(sim.scene.name or str(sim.scene.source), TITLE_WIDTH),
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
        **_can_show(u, sim.obstacles, sim.scene, buildings),
        hints=interactive,
    )


def _can_show(units, obstacles, scene, buildings) -> dict:
    """The Hud fields saying which overlay legend rows this scene can show."""
    from rigidflock.model.state import ROLE_INTERCEPT

    roles = np.asarray(units.role)[: units.n_ai]
    feelable = (
        len(obstacles) > 0
        or len(scene.walls) > 0
        or len(buildings) > 0
        or scene.world.bounds == "walls"
    )
    return {
        "player": bool(units.has_player),
        "interceptors": bool(units.has_player and (roles == ROLE_INTERCEPT).any()),
        "feelable": bool(feelable),
    }


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
    rows = [
        ("tick", f"{view.tick} / {last}"),
        ("time", f"{view.tick * dt:.2f} / {last * dt:.2f} s"),
    ]
    if keys:  # a window: the playback speed (never in a video)
        rows.append(("speed", _speed_text(speed, paused)))
    player = ""
    if u.has_player:
        t, s = view.player_command  # as given: throttle and steer, each -1..1
        player = f" {t:+.2f}/{s:+.2f}"
    contacts = playback.contacts_at(view.tick)
    first = playback.first_tick
    since = "so far" if first == 0 else f"since tick {first}"
    orders = getattr(view, "orders", None)
    groups = orders.groups if orders is not None else {}
    rows = status_rows(
        rows, u, view.state, view.rules, player=player, rts=_order_rows(groups, None),
        contacts=contacts, contacts_since=since,
    )  # fmt: skip
    notes = ["replay: stored states, no physics"]
    if not playback.reader.complete:
        notes.append(f"file {playback.reader.problem}")
    if keys:
        notes += list(REPLAY_KEYS)
    name = playback.scene.name or str(playback.scene.source)
    return Hud(
        title="rigidflock replay",
        subtitle=fit_text(name, TITLE_WIDTH),
        status=rows,
        legend=C.legend_entries(u.family, u.role, u.family_names),
        notes=notes,
        obstacles=len(view.obstacles) > 0,
        marks=world_marks(
            walls=len(playback.scene.walls) > 0,
            buildings=len(view.buildings) > 0,
            slots=bool(groups),
            route=bool(groups),
        ),
        **_can_show(u, view.obstacles, playback.scene, view.buildings),
        hints=keys,
    )


def overlay_legend(
    overlays: Overlays, hud: Hud | None = None
) -> list[tuple[tuple[int, int, int, int], str]]:
    """Legend rows for the overlays that are on, of those the scene can show (``hud``: its
    ``player``, ``interceptors`` and ``feelable``; None: every row)."""
    hud = hud or Hud()
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
        rows.append((C.FEELER, "feeler"))
        if hud.feelable:
            rows.append((C.FEELER_HIT, "feeler touching"))
    if overlays.links:
        rows.append(((160, 170, 190, 255), "neighbour link"))
    if overlays.targets and hud.player:
        rows.append((C.LEADER, "chase aim (the player)"))
        if hud.interceptors:
            rows.append((C.INTERCEPTOR, "intercept aim point (x)"))
    return rows


def help_text() -> str:
    return "\n".join(f"{k:<18} {v}" for k, v in KEY_HELP)
