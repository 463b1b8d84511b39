"""Keys and mouse buttons -> simulation commands and viewer actions; no window needed.

:class:`Controls` is the whole key map. ``key_press`` handles one key: rule switches (``F``,
``C``, ``O``, ``1``/``2``/``3``) become *toggles* queued for the next tick, and the tuning
panel's sliders and keys (``Tab``, ``[``/``]``, ``Backspace``) *changes* of scene keys, because
they change the run and must pass through :meth:`Simulation.step`'s command (the path a replay
records);
overlay, pause and speed keys change only the viewer. Move orders (a right-click) and buildings
(``B``) are queued the same way (:meth:`Controls.order`, :meth:`Controls.add_building`). The
selection itself is viewer state, not input (:mod:`.selection`). ``command(held)`` builds the
:class:`~rigidflock.sim.Command` for one tick from the keys held down and what is queued.

Mouse (handled by the viewer): left click selects the AI unit under the cursor, left drag the AI
units inside the rectangle, shift adds to the selection; a right *click* (press and release
within a few pixels) orders the selection there; right or middle *drag* pans.

Player control: in any scene with a player, the scene's control (waypoint autopilot, script,
none) drives until an arrow key is first pressed; from then on the arrows drive: up = full
throttle, down = full reverse, neither = 0 (the unit coasts to a stop), left/right = full bow
force to port/starboard. Without a player the arrows do nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rigidflock.render.backend import key
from rigidflock.render.frame import Overlays
from rigidflock.render.tuning import Tuner, value_of
from rigidflock.scene import BuildingSpec, OrderSpec, Scene
from rigidflock.sim import Command

SPEEDS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)  # simulated seconds per real second

VIEW_KEYS = {
    key._1: "wide",
    key.NUM_1: "wide",
    key._2: "limited",
    key.NUM_2: "limited",
    key._3: "narrow",
    key.NUM_3: "narrow",
}
RULE_KEYS = {key.F: "flocking", key.C: "chase", key.O: "avoidance"}
ARROWS = (key.UP, key.DOWN, key.LEFT, key.RIGHT)
FASTER = (key.PLUS, key.EQUAL, key.NUM_ADD)
SLOWER = (key.MINUS, key.UNDERSCORE, key.NUM_SUBTRACT)

KEY_HELP = (
    ("arrows", "take over the player (up/down throttle, left/right steer)"),
    ("1 2 3", "view model: wide / limited / narrow"),
    ("F  C  O", "toggle flocking / chase / obstacle avoidance"),
    ("space", "pause;  .  single step while paused"),
    ("+  -", "simulation speed"),
    ("left click / drag", "select AI units (shift: add to the selection)"),
    ("right click", "order the selection to move there"),
    ("B", "place a building (8 unit lengths square) at the cursor"),
    ("wheel", "zoom around the cursor"),
    ("right/middle drag", "pan;  Home  fit the world"),
    ("V", "velocity and forces (thrust, drag, bow)"),
    ("A / shift+A", "view arc of the unit under the cursor / all"),
    ("E  N  T", "feelers / neighbour links / intercept targets"),
    ("S", "save a screenshot (PNG, current directory)"),
    ("R", "start / stop recording a replay (timestamped file)"),
    ("P", "tuning panel: show / hide (drag a slider, wheel over it)"),
    ("Tab  shift+Tab", "select the next / previous tuning setting"),
    ("[  ]", "step the selected setting down / up (shift: 10 steps)"),
    ("Backspace", "selected setting back to the scene's value (shift: all of them)"),
    ("W", "write the scene as tuned (a TOML file, current directory)"),
    ("L", "scene list: bundled scenes and the current folder's"),
    ("H  ?", "this help;  Esc  quit"),
)


def toggle_overlay(overlays: Overlays, symbol: int, shift: bool) -> bool:
    """The overlay keys shared by the live viewer and the replay window: ``V`` vectors, ``A``
    view arcs (shift: all units), ``E`` feelers, ``N`` neighbour links, ``T`` targets. Returns
    whether ``symbol`` was one of them."""
    o = overlays
    if symbol == key.V:
        o.vectors = not o.vectors
    elif symbol == key.A:
        want = "all" if shift else "cursor"
        o.arcs = "off" if o.arcs == want else want
    elif symbol == key.E:
        o.feelers = not o.feelers
    elif symbol == key.N:
        o.links = not o.links
    elif symbol == key.T:
        o.targets = not o.targets
    else:
        return False
    return True


class Controls:
    """The viewer's input state. ``key_press`` returns a viewer action or None:
    ``"step"``, ``"fit"``, ``"screenshot"``, ``"record"``, ``"building"``, ``"save-tuned"``,
    ``"scenes"``, ``"quit"``.

    ``tuner`` (:class:`~rigidflock.render.tuning.Tuner`) and ``tuned`` (the scene as tuned so
    far, a callable) give the tuning keys their settings and values; without them those keys do
    nothing."""

    def __init__(
        self,
        player_control: str | None = None,
        overlays: Overlays | None = None,
        tuner: Tuner | None = None,
        tuned: Callable[[], Scene] | None = None,
    ):
        self.player_control = player_control  # the scene's player control, None: no player
        self.overlays = overlays or Overlays()
        self.paused = False
        self.speed_index = SPEEDS.index(1.0)
        self.driving = False  # the keyboard has taken the player over from the autopilot
        self._toggles: dict[str, object] = {}
        self._orders: list[OrderSpec] = []
        self._buildings: list[BuildingSpec] = []
        self._changes: dict[str, object] = {}
        self.tuner, self.tuned = tuner, tuned

    @property
    def speed(self) -> float:
        return SPEEDS[self.speed_index]

    @property
    def keyboard_player(self) -> bool:
        """The arrows can take the player over (the scene has one, whatever its control)."""
        return self.player_control is not None

    @property
    def pending(self) -> dict[str, object]:
        """Rule switches waiting for the next tick."""
        return dict(self._toggles)

    @property
    def queued_changes(self) -> dict[str, object]:
        """Changes of scene keys waiting for the next tick."""
        return dict(self._changes)

    def change(self, path: str, value) -> None:
        """Queue a change of the scene key ``path`` for the next tick (a later one wins)."""
        self._changes.pop(path, None)
        self._changes[path] = value

    def value(self, path: str) -> float:
        """The value ``path`` has after the queued changes (the tuned scene's, else)."""
        if path in self._changes:
            return float(self._changes[path])
        return value_of(self.tuned(), path)

    def drop_changes(self) -> None:
        """Forget the queued changes (the next tick's command would be refused)."""
        self._changes.clear()

    def _tune(self, symbol: int, shift: bool) -> bool:
        """The tuning panel's keys; whether ``symbol`` was one."""
        t = self.tuner
        if t is None or self.tuned is None:
            return False
        if symbol == key.P:
            t.shown = not t.shown
        elif symbol == key.TAB:
            t.select(-1 if shift else 1)
        elif symbol in (key.BRACKETLEFT, key.BRACKETRIGHT):
            steps = (10 if shift else 1) * (1 if symbol == key.BRACKETRIGHT else -1)
            path = t.settings[t.selected].path
            self.change(*t.stepped(self.value(path), steps))
        elif symbol == key.BACKSPACE:
            for path, v in t.resets(every=shift).items():
                self.change(path, v)
        else:
            return False
        return True

    @property
    def queued_orders(self) -> tuple[OrderSpec, ...]:
        return tuple(self._orders)

    @property
    def queued_buildings(self) -> tuple[BuildingSpec, ...]:
        """Buildings placed since the last tick (in the next tick's command)."""
        return tuple(self._buildings)

    def order(self, spec: OrderSpec) -> None:
        """Queue a move order for the next tick."""
        self._orders.append(spec)

    def add_building(self, spec: BuildingSpec) -> None:
        """Queue a building for the next tick."""
        self._buildings.append(spec)

    def toggle(self, name: str, value) -> None:
        """Queue a rule switch for the next tick (a later one for the same rule wins)."""
        self._toggles[name] = value

    def key_press(self, symbol: int, modifiers: int, rules) -> str | None:
        """Handle one key press. ``rules`` is the simulation's current RulesSpec (F/C/O flip
        the value it will have after the already queued switches)."""
        shift = bool(modifiers & key.MOD_SHIFT)
        o = self.overlays
        if symbol in ARROWS and self.keyboard_player:
            self.driving = True
        elif symbol in VIEW_KEYS:
            self.toggle("view", VIEW_KEYS[symbol])
        elif symbol in RULE_KEYS:
            name = RULE_KEYS[symbol]
            self.toggle(name, not self._toggles.get(name, getattr(rules, name)))
        elif symbol == key.SPACE:
            self.paused = not self.paused
        elif symbol == key.PERIOD:
            return "step" if self.paused else None
        elif symbol in FASTER or (symbol == key.EQUAL and shift):
            self.speed_index = min(self.speed_index + 1, len(SPEEDS) - 1)
        elif symbol in SLOWER:
            self.speed_index = max(self.speed_index - 1, 0)
        elif symbol == key.HOME:
            return "fit"
        elif toggle_overlay(o, symbol, shift) or self._tune(symbol, shift):
            pass
        elif symbol == key.W:
            return "save-tuned"
        elif symbol == key.L:
            return "scenes"
        elif symbol == key.S:
            return "screenshot"
        elif symbol == key.R:
            return "record"
        elif symbol == key.B:
            return "building"
        elif symbol in (key.H, key.QUESTION) or (symbol == key.SLASH and shift):
            o.help = not o.help
        elif symbol == key.ESCAPE:
            return "quit"
        return None

    def command(self, held: Mapping[int, bool]) -> Command:
        """The command for the next tick: the queued toggles, and throttle/steer from the arrows
        when the keyboard drives the player (None otherwise: the scene's control decides)."""
        queued = {
            "toggles": tuple(self._toggles.items()),
            "orders": tuple(self._orders),
            "add_buildings": tuple(self._buildings),
            "changes": dict(self._changes),
        }
        self._changes.clear()
        self._toggles.clear()
        self._orders.clear()
        self._buildings.clear()
        if not (self.keyboard_player and self.driving):
            return Command(**queued)
        throttle = _down(held, key.UP) - _down(held, key.DOWN)
        steer = _down(held, key.LEFT) - _down(held, key.RIGHT)
        return Command(throttle=throttle, steer=steer, **queued)


def _down(held: Mapping[int, bool], symbol: int) -> float:
    try:
        return float(bool(held[symbol]))
    except KeyError:
        return 0.0
