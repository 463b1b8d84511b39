"""What the viewer's tuning panel tunes: one :class:`Setting` per slider, its range and step,
and the reading of a setting's value from a scene; no window needed.

:func:`settings_for` lists the rule weights, the steering force, the separation, feeler and
view radius factors, the view angle factors and each group's thrust (the first
``MAX_GROUPS``). A slider's range holds the scene's own value (the upper end is at least twice
it); values move in whole steps, so a scene written back holds round numbers.
:class:`Tuner` is the panel's state: which setting is selected, whether the panel shows, and
the scene to reset to.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rigidflock.scene import Scene
from rigidflock.scene.overrides import parse_path

MAX_GROUPS = 4  # groups with a thrust slider (the rest: Command.changes, --watch)


@dataclass(frozen=True)
class Setting:
    """One slider: the scene key ``path`` (as ``--set`` names it), its label, the range
    [low, high] and the step values move by."""

    path: str
    label: str
    low: float
    high: float
    step: float

    def snap(self, value: float) -> float:
        """``value`` clamped to the range and rounded to a whole step from ``low``."""
        v = min(max(float(value), self.low), self.high)
        v = self.low + round((v - self.low) / self.step) * self.step
        return float(round(min(v, self.high), 9))

    def fraction(self, value: float) -> float:
        """Where ``value`` sits in the range, 0..1."""
        span = self.high - self.low
        return min(max((float(value) - self.low) / span, 0.0), 1.0) if span > 0 else 0.0

    def at(self, fraction: float) -> float:
        """The value at ``fraction`` (0..1) of the range, snapped."""
        return self.snap(self.low + min(max(fraction, 0.0), 1.0) * (self.high - self.low))

    def text(self, value: float) -> str:
        """The value as the panel shows it (as many decimals as the step has)."""
        digits = max(0, -math.floor(math.log10(self.step) + 1e-9)) if self.step < 1 else 0
        return f"{value:.{digits}f}"


# path, label, low, high, step: the rules every scene has
_RULES = (
    ("rules.weights.cohesion", "cohesion", 0.0, 5.0, 0.05),
    ("rules.weights.alignment", "alignment", 0.0, 5.0, 0.05),
    ("rules.weights.separation", "separation", 0.0, 5.0, 0.05),
    ("rules.weights.chase", "chase", 0.0, 8.0, 0.05),
    ("rules.weights.avoidance", "avoidance", 0.0, 5.0, 0.05),
    ("rules.steering_force", "steering force S, N", 0.0, 100.0, 0.5),
    ("rules.separation_factor", "separation dist., L", 0.5, 20.0, 0.1),
    ("rules.feeler_factor", "feeler length, L", 1.0, 100.0, 0.5),
    ("rules.radius_factor.wide", "radius wide, L", 5.0, 400.0, 1.0),
    ("rules.radius_factor.limited", "radius limited, L", 2.0, 100.0, 0.5),
    ("rules.radius_factor.narrow", "radius narrow, L", 2.0, 200.0, 1.0),
    ("rules.front_view_angle_factor", "front view angle", 0.05, 5.0, 0.05),
    ("rules.back_view_angle_factor", "back view angle", 0.05, 5.0, 0.05),
)


def value_of(scene: Scene, path: str) -> float:
    """The value of the key ``path`` in ``scene`` (``groups[1].thrust`` -> the thrust that
    group runs with)."""
    node = scene
    for part in parse_path(path):
        node = node[part] if isinstance(part, int) else getattr(node, part)
    return float(node)


def _fit(path: str, label: str, low: float, high: float, step: float, value: float) -> Setting:
    """The setting with its upper end raised to twice ``value`` when that is higher."""
    return Setting(path, label, low, max(high, step * math.ceil(2 * value / step)), step)


def settings_for(scene: Scene) -> tuple[Setting, ...]:
    """The panel's sliders for ``scene`` (the rules, then the groups' thrust)."""
    out = [_fit(*row, value_of(scene, row[0])) for row in _RULES]
    for i, g in enumerate(scene.groups[:MAX_GROUPS]):
        path = f"groups[{i}].thrust"
        out.append(_fit(path, f"thrust {g.family[:12]}, N", 0.5, 40.0, 0.5, value_of(scene, path)))
    return tuple(out)


class Tuner:
    """The tuning panel's state: ``settings`` (from :func:`settings_for` of ``scene``, the
    scene reset returns to), the ``selected`` row and whether the panel is ``shown``."""

    def __init__(self, scene: Scene, shown: bool = True):
        self.load(scene)
        self.shown = shown

    def load(self, scene: Scene) -> None:
        """Tune ``scene`` from now on (a new run: the selection kept when it still exists)."""
        self.scene = scene
        self.settings = settings_for(scene)
        self.selected = min(getattr(self, "selected", 0), len(self.settings) - 1)

    def select(self, by: int) -> Setting:
        """Move the selection ``by`` rows (wrapping round); returns the setting selected."""
        self.selected = (self.selected + by) % len(self.settings)
        return self.settings[self.selected]

    def stepped(self, value: float, steps: int) -> tuple[str, float]:
        """(path, value) of the selected setting moved ``steps`` steps from ``value``."""
        s = self.settings[self.selected]
        return s.path, s.snap(value + steps * s.step)

    def resets(self, every: bool) -> dict[str, float]:
        """The changes back to the scene's values: of every setting, or the selected one."""
        rows = self.settings if every else (self.settings[self.selected],)
        return {s.path: value_of(self.scene, s.path) for s in rows}
