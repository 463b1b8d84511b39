"""Behaviours handed to ``Simulation(scene, behaviours=[...])``, written into the scene
(:func:`with_behaviours`), so the scene's text, what a recording stores, names them."""

from __future__ import annotations

import dataclasses
import sys

from rigidflock.scene import BehaviourSpec, Scene
from rigidflock.scene.overrides import derive


def function_name(fn) -> str:
    """``"module:qualified.name"`` of a function defined at a module's top level (or a class
    in it); ValueError for one that cannot be imported by its name (a lambda, a nested
    function)."""
    module, qual = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if not module or not qual or "<" in qual:
        raise ValueError(
            f"behaviour {fn!r}: give a function defined at a module's top level (recordings "
            "name it as module:name), or a BehaviourSpec naming one"
        )
    obj = sys.modules.get(module)
    for part in qual.split("."):
        obj = getattr(obj, part, None)
    if obj is not fn:
        raise ValueError(f"behaviour {fn!r}: {module}:{qual} does not name it")
    return f"{module}:{qual}"


def _entry(spec: BehaviourSpec) -> dict:
    d = {"function": spec.function, "weight": spec.weight}
    if spec.families is not None:
        d["families"] = list(spec.families)
    if spec.params:
        d["params"] = dict(spec.params)
    return d


def with_behaviours(scene: Scene, behaviours) -> tuple[Scene, dict]:
    """``scene`` with ``behaviours`` (specs, dicts of a spec's keys, or functions) after its
    own ``[[behaviours]]``, validated like a file (SceneError), and the functions given as
    objects by the names the scene now has for them (used instead of importing them)."""
    entries = [_entry(s) for s in scene.behaviours]
    functions = {}
    for item in behaviours:
        if isinstance(item, BehaviourSpec):
            entry = _entry(item)
        elif isinstance(item, dict):
            entry = dict(item)
        elif callable(item):
            entry = {"function": item}
        else:
            raise TypeError(f"behaviours: expected a BehaviourSpec, dict or function, got {item!r}")
        fn = entry.get("function")
        if callable(fn):
            name = function_name(fn)
            functions[name] = fn
            entry["function"] = name
        entries.append(entry)
    return derive(scene, {"behaviours": entries}), functions


def without_behaviours(scene: Scene) -> Scene:
    """``scene`` with no behaviours: what playback builds its units from, importing nothing."""
    if not scene.behaviours:
        return scene
    return dataclasses.replace(scene, behaviours=())
