"""``rigidflock view SCENE --watch``: the scene file read again whenever it is saved; no window
needed.

:class:`SceneWatch` looks at the file's modification time and size at most every
``POLL_SECONDS``; when they change it reads the file as ``view`` does (the ``--set`` overrides
applied, every check that ``check`` makes) and compares the new scene with the last good one
(:func:`scene_diff`): keys that can change mid-run (``Command.changes``) become changes, any
other difference needs a restart, and a file with errors keeps the last good scene (the errors
are reported). ``name`` and ``[run]`` do not change the running simulation and are left alone.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from rigidflock.scene import Scene, SceneError, load_scene
from rigidflock.scene.budget import check_runs
from rigidflock.scene.declarations import declared
from rigidflock.scene.overrides import apply_overrides

POLL_SECONDS = 0.25
IGNORED = ("name", "run")  # differences that change nothing in a running simulation


@dataclass
class Reload:
    """What a saved file asks for: ``kind`` "live" (``changes``: path -> value for
    ``Command.changes``), "restart" (``fixed``: the keys that cannot change mid-run) or
    "error" (``errors``: the file's problems, one line each); ``scene``: the new scene (the last
    good one after an error)."""

    kind: str
    scene: Scene
    changes: dict[str, object] = field(default_factory=dict)
    fixed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _file_value(value):
    """A scene dataclass value as a file writes it (None of an "auto" key: "auto")."""
    if value is None:
        return "auto"
    if isinstance(value, tuple):
        return [_file_value(v) for v in value]
    return value


def scene_diff(old: Scene, new: Scene) -> tuple[dict[str, object], list[str]]:
    """(changes, fixed): the keys whose values differ from ``old`` to ``new``: those that can
    change mid-run as path -> new value, the paths of the others."""
    live: dict[str, object] = {}
    fixed: list[str] = []

    def walk(cls, a, b, prefix: str) -> None:
        for f, k in declared(cls):
            va, vb = getattr(a, f.name), getattr(b, f.name)
            path = f"{prefix}.{f.name}" if prefix else f.name
            if va == vb or path in IGNORED:
                continue
            if k.kind == "table" and k.spec is not None and None not in (va, vb):
                walk(k.spec, va, vb, path)
            elif k.kind == "tables" and k.spec is not None and len(va) == len(vb):
                for i, (x, y) in enumerate(zip(va, vb, strict=True)):
                    if x != y:
                        walk(k.spec, x, y, f"{path}[{i}]")
            elif k.runtime:
                live[path] = _file_value(vb)
            else:
                fixed.append(path)

    walk(Scene, old, new, "")
    return live, fixed


class SceneWatch:
    """Watches ``path`` (the scene as ``view`` read it: ``overrides`` applied, ``seed`` for the
    obstacle field check) from the good scene ``scene``."""

    def __init__(self, path, scene: Scene, overrides=(), seed: int | None = None):
        self.path = Path(path)
        self.scene = scene  # the last good scene
        self.overrides, self.seed = list(overrides or ()), seed
        self._stamp = self._stat()
        self._next = 0.0
        self.errors: list[str] = []  # of the last reading (empty: it was good)

    def _stat(self):
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def poll(self, now: float | None = None) -> Reload | None:
        """What the file asks for if it changed since the last look (None otherwise, and
        between looks)."""
        now = time.monotonic() if now is None else now
        if now < self._next:
            return None
        self._next = now + POLL_SECONDS
        stamp = self._stat()
        if stamp == self._stamp:
            return None
        self._stamp = stamp
        return self.read()

    def read(self) -> Reload:
        """Read the file now and compare it with the last good scene."""
        try:
            new = apply_overrides(load_scene(self.path), self.overrides)
            check_runs(new, self.seed)
        except SceneError as e:
            self.errors = list(e.errors)
            return Reload("error", self.scene, errors=self.errors)
        except OSError as e:  # gone or unreadable for a moment (an editor saving)
            self.errors = [f"{self.path}: cannot read: {e.strerror or e}"]
            return Reload("error", self.scene, errors=self.errors)
        self.errors = []
        live, fixed = scene_diff(self.scene, new)
        self.scene = new
        if fixed:
            return Reload("restart", new, fixed=fixed)
        return Reload("live", new, changes=live)
