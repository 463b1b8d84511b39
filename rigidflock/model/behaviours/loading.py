"""Behaviour names to functions: ``"module:name"`` is imported; a name without a colon is
looked up in the entry point group ``rigidflock.behaviours`` (:data:`ENTRY_POINT_GROUP`) that
installed packages register, e.g. in a ``pyproject.toml``::

    [project.entry-points."rigidflock.behaviours"]
    flee = "mypackage.rules:flee"

Importing a module runs its code, as running a script would: a scene the user runs or checks
is imported from (:func:`resolve`). A recording's behaviours are imported only when the user
allows it or when :func:`trusted` says they are installed code (a registered entry point, or
rigidflock's own examples). Each function's source is hashed (:func:`source_hash`) so a
recording says which code made it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rigidflock.scene import Scene, SceneError
from rigidflock.scene.specs import BehaviourSpec

ENTRY_POINT_GROUP = "rigidflock.behaviours"
OWN_PREFIX = "rigidflock."  # modules of this package: installed code, trusted like an entry point


@dataclass(frozen=True)
class Resolved:
    """A behaviour ready to call: its scene entry, the function, and its source's hash."""

    spec: BehaviourSpec
    function: Any
    source_hash: str

    @property
    def name(self) -> str:
        return self.spec.function


class LoadError(ValueError):
    """Why a behaviour's name does not give a function (one line)."""


def registered() -> dict[str, str]:
    """The behaviours installed packages register: entry point name -> ``"module:name"``."""
    return {ep.name: ep.value for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def trusted(function: str) -> bool:
    """Whether ``function`` (a scene's ``behaviours[i].function``) names installed code that may
    be imported without asking: a registered entry point (by its name or its value), or a
    module of rigidflock itself. Imports nothing."""
    if function.startswith(OWN_PREFIX) and ":" in function:
        return True
    reg = registered()
    return function in reg or function in reg.values()


def _import(text: str):
    module, _, attr = text.partition(":")
    try:
        obj = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is not None and (module == e.name or module.startswith(e.name + ".")):
            raise LoadError(f"no module named {e.name!r}") from None
        raise LoadError(f"importing {module!r} failed: {type(e).__name__}: {e}") from None
    except Exception as e:  # the module's own code raised while it was imported
        raise LoadError(f"importing {module!r} failed: {type(e).__name__}: {e}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise LoadError(f"module {module!r} has no name {attr!r}")
        obj = getattr(obj, part)
    return obj


def load_function(text: str):
    """The function named ``text``: ``"module:name"`` imported, or an entry point's name.
    Raises :class:`LoadError` (one line) when there is none or it is not callable."""
    if ":" in text:
        fn = _import(text)
    else:
        reg = registered()
        if text not in reg:
            known = ", ".join(sorted(reg)) or "none"
            raise LoadError(
                f"no behaviour named {text!r} is registered in the entry point group "
                f'{ENTRY_POINT_GROUP} (registered: {known}); or give "module:name"'
            )
        fn = _import(reg[text])
    if not callable(fn):
        raise LoadError(f"{text!r} is not a function (a {type(fn).__name__})")
    return fn


def source_hash(fn) -> str:
    """A hash of the function's source text (16 hex digits, SHA-256): it changes when the
    function's code does. Without source (a compiled or interactively made function), of its
    code object's bytes and constants."""
    try:
        text = inspect.getsource(fn).encode("utf-8")
    except (OSError, TypeError):
        code = getattr(fn, "__code__", None)
        text = repr((code.co_code, code.co_consts)).encode() if code else repr(fn).encode()
    return hashlib.sha256(text).hexdigest()[:16]


def resolve(scene: Scene, functions: dict[str, Any] | None = None) -> list[Resolved]:
    """Import every behaviour of ``scene``. ``functions``: callables to use for some names
    instead of importing them (what ``Simulation(scene, behaviours=[...])`` was handed).
    Raises :class:`~rigidflock.scene.SceneError` with one line per behaviour that cannot be
    imported, naming the file and ``behaviours[i].function``.

    As running a script puts the script's folder first on the module path, a scene file's
    folder is searched first for its behaviours' modules (``rules.py`` beside ``scene.toml``
    is ``function = "rules:flee"``), then the module path as it is."""
    out, errors = [], []
    folder = Path(scene.source).parent
    added = bool(scene.behaviours) and Path(scene.source).is_file()
    if added:
        sys.path.insert(0, str(folder.resolve()))
    try:
        for i, spec in enumerate(scene.behaviours):
            try:
                fn = (functions or {}).get(spec.function) or load_function(spec.function)
            except LoadError as e:
                errors.append(f"{scene.source}: behaviours[{i}].function: {e}")
                continue
            out.append(Resolved(spec, fn, source_hash(fn)))
    finally:
        if added:
            sys.path.remove(str(folder.resolve()))
    if errors:
        raise SceneError(errors)
    return out
