"""Settings changed while a scene runs: ``Command(changes={"rules.weights.cohesion": 1.5})``.

A change names a scene key by the path ``--set`` takes (``rules.view``,
``groups[0].thrust``, a whole table such as ``rules.weights``) and gives its value. Only keys
declared ``runtime`` in the scene format (the steering rules, a group's or the player's thrust
and steering force, drag and turn damping: :func:`~rigidflock.scene.keys.runtime_keys`) can
change mid-run; any other is refused with the reason. A change is validated exactly like
``--set``: the scene with every change so far is derived (:func:`~rigidflock.scene.overrides.
derive`) and passes the checks ``check`` makes of what can run (stability, rasters, memory),
so a scene written back from the changes (:meth:`Tuning.scene`) passes ``check`` and runs
the tuned settings from tick zero.

:class:`Tuning` keeps a run's changes (rule switches included), in the order they came, and
makes the scene they describe; the simulation takes from it the rules and the per-unit
constants.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from rigidflock.outputs import atomic_open
from rigidflock.scene import Scene, SceneError
from rigidflock.scene.budget import check_budget, check_rasters
from rigidflock.scene.declarations import declared
from rigidflock.scene.overrides import derive, parse_path
from rigidflock.scene.stability import check_stability

# Why the keys of each top-level table (or the top-level key) cannot change mid-run.
FIXED = {
    "world": "the world's size, edges and tick are set when the run starts",
    "physics": "collision shapes are made when the run starts (drag and turn damping can change)",
    "groups": "units are built when the run starts (their thrust and max_steering_force can "
    "change)",
    "player": "the player is built when the run starts (its thrust and max_steering_force can "
    "change)",
    "obstacles": "static geometry is placed when the run starts",
    "obstacle_field": "static geometry is placed when the run starts",
    "walls": "static geometry is placed when the run starts",
    "buildings": "static geometry is placed when the run starts (Command.add_buildings adds one)",
    "navigation": "the navigation grid is made when the run starts",
    "orders": "the scene's orders are scheduled when the run starts (Command.orders gives one)",
    "events": "the scene's events are scheduled when the run starts",
    "seed": "the generator is seeded when the run starts (Simulation.reset(seed))",
    "run": "it sets how long `rigidflock run` runs, not a setting of the simulation",
    "name": "it is the scene's name, not a setting of the simulation",
}


class ChangeError(ValueError):
    """A change that cannot be taken (its message names the path)."""


def _live(cls, path: tuple) -> bool | None:
    """True when ``path`` names a key of ``cls`` (or a table of them) that can change mid-run,
    False when it names one that cannot, None when it names no key at all (the reader says
    why)."""
    part, rest = path[0], path[1:]
    keys = {f.name: k for f, k in declared(cls)}
    k = keys.get(part) if isinstance(part, str) else None
    if k is None:
        return None
    if k.kind == "tables":
        if not rest or not isinstance(rest[0], int):
            return False
        rest = rest[1:]
    if not rest:  # a table is live when every key in it is
        return _all_live(k.spec) if k.spec is not None else k.runtime
    if k.kind not in ("table", "tables"):
        return None  # a key inside a value: the reader says so
    return _live(k.spec, rest)


def _all_live(cls) -> bool:
    return all(k.runtime and (k.spec is None or _all_live(k.spec)) for _, k in declared(cls))


def _plain(value):
    """``value`` as the reader takes it (lists for tuples, Python numbers for numpy's)."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def _message(scene: Scene, error: str) -> str:
    """A reader's message about the derived scene, without the file name and the ``(--set)``."""
    error = error.removeprefix(f"{scene.source}: ").removeprefix("--set ")
    head, sep, _ = error.rpartition(" (--set ")
    return head if sep else error


class Tuning:
    """The changes a run of ``scene`` has taken, path -> value, in the order they last came
    (a path given again moves to the end; one a table given later covers is dropped)."""

    def __init__(self, scene: Scene):
        self.base = scene
        self.changes: dict[str, object] = {}
        self._scene: Scene | None = scene

    def scene(self) -> Scene:
        """The scene as tuned: ``base`` with every change taken so far (its ``text`` a TOML
        file that ``check`` accepts and that runs the tuned settings from tick zero)."""
        if self._scene is None:  # rule switches came since the last change
            self._scene = derive(self.base, self.changes)
        return self._scene

    def propose(self, changes: Mapping[str, object]) -> tuple[dict, Scene]:
        """The changes after ``changes`` and the scene they make, validated; nothing taken yet.
        Raises :class:`ChangeError` naming the first path that cannot change or whose value
        is refused."""
        if not isinstance(changes, Mapping):
            raise ChangeError(f"expected a mapping of path -> value, got {type(changes).__name__}")
        merged = dict(self.changes)
        for text, value in changes.items():
            if not isinstance(text, str):
                raise ChangeError(f"a path must be a string, got {text!r:.40}")
            try:
                path = parse_path(text)
            except ValueError as e:
                raise ChangeError(str(e)) from None
            live = _live(Scene, path)
            if live is False:
                top = path[0]
                why = FIXED.get(str(top), "it is not a setting of the simulation")
                raise ChangeError(f"{text} cannot change while the scene runs: {why}")
            for old in [p for p in merged if p == text or p.startswith((f"{text}.", f"{text}["))]:
                del merged[old]
            merged[text] = _plain(value)
            if live is None:  # no such key: the reader's message (a did-you-mean)
                try:
                    derive(self.base, {text: merged[text]})
                except SceneError as e:
                    raise ChangeError(_message(self.base, e.errors[0])) from None
                why = FIXED.get(str(path[0]), "it is not a setting of the simulation")
                raise ChangeError(f"{text} cannot change while the scene runs: {why}")
        try:
            scene = derive(self.base, merged)
            check_stability(scene)
            check_rasters(scene)
            check_budget(scene)
        except SceneError as e:
            raise ChangeError(_message(self.base, e.errors[0])) from None
        return merged, scene

    def take(self, merged: dict, scene: Scene) -> None:
        """Keep what :meth:`propose` returned."""
        self.changes, self._scene = merged, scene

    def switches(self, toggles) -> None:
        """Note rule switches (``(name, value)`` pairs, already checked) among the changes."""
        if not toggles:
            return
        merged = dict(self.changes)
        for name, value in toggles:
            merged.pop(f"rules.{name}", None)
            merged[f"rules.{name}"] = value if name == "view" else bool(value)
        self.changes = merged
        self._scene = None  # made again when asked for


def save_scene(scene: Scene, path: str | os.PathLike) -> Path:
    """Write ``scene.text`` (e.g. :meth:`Simulation.tuned_scene`'s: a TOML file ``check``
    accepts) to ``path``, whole or not at all. Returns the path."""
    path = Path(path)
    with atomic_open(path, "w", encoding="utf-8") as fh:
        fh.write(scene.text)
    return path
