"""The files that ship with rigidflock (``*.toml`` package data beside this module), and the one
place a scene or sweep argument is turned into a file.

Three kinds, each in its own folder: scenes (``rigidflock/bundled/*.toml``), the scored scenario
suite's scenes (``scenarios/*.toml``, ``rigidflock score``) and sweeps
(``sweeps/*.toml``, ``rigidflock sweep``). Every bundled file has a name (its file stem), unique
across the three kinds, and :func:`find_bundled` is the one lookup by name: scenes and scenarios
run and view by name, sweeps sweep by name, and any of them copies out by name
(``rigidflock scenes copy``).

A scene argument is a path when such a file exists, else the name of a bundled scene or scenario,
with or without ``.toml``, or a path into the checkout's ``scenes/`` folder (``scenes/forest.toml``,
as the README writes them), which names the bundled file wherever the command runs; a sweep
argument likewise::

    >>> bundled_scene("aidemo4").name
    'aidemo4.toml'
    >>> bundled_scene("wall_squeeze").parent.name
    'scenarios'
    >>> "rts_doorway" in bundled_names()
    True
    >>> closest_name("aidemo5")
    'aidemo4'

Standard library only (no rigidflock imports): the scene reader and the command line both sit
above it.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

__all__ = [
    "KINDS",
    "SCENE_KINDS",
    "BundledFile",
    "bundled",
    "bundled_names",
    "bundled_scene",
    "bundled_sweep",
    "closest_name",
    "find_bundled",
    "is_missing",
    "resolve_scene",
    "resolve_sweep",
    "scenario_folder",
    "scenario_path",
]

# kind -> its folder under the package's scene folder ("": the folder itself), in listing order
KINDS = {"scene": "", "scenario": "scenarios", "sweep": "sweeps"}
SCENE_KINDS = ("scene", "scenario")  # the kinds `run`, `view` and `check` take


def _folder() -> Path:
    # a regular (non-zipped) install: the package folder is a real directory
    return Path(str(resources.files(__name__)))


def _kind_folder(kind: str) -> Path:
    return _folder() / KINDS[kind]


def _kinds(kinds) -> tuple[str, ...]:
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown kind {unknown[0]!r}; expected one of {', '.join(KINDS)}")
    return kinds


def bundled_names(kinds=("scene",)) -> list[str]:
    """The names (file stems) of the bundled files of ``kinds`` (a kind or several: ``"scene"``,
    ``"scenario"``, ``"sweep"``; default the scenes), sorted within each kind, kinds in
    :data:`KINDS` order."""
    return [
        p.stem for kind in KINDS if kind in _kinds(kinds)
        for p in sorted(_kind_folder(kind).glob("*.toml"))
    ]  # fmt: skip


def find_bundled(arg: str | os.PathLike, kinds=SCENE_KINDS) -> Path | None:
    """The bundled file of one of ``kinds`` that ``arg`` names, or None. ``arg`` is a name
    (``"aidemo4"`` or ``"aidemo4.toml"``; the first kind holding it wins, but names are unique
    across kinds) or a checkout path (``scenes/forest.toml``, ``scenes/scenarios/...``,
    ``scenes/sweeps/...``: the checkout's ``scenes/`` is the package's scene folder)."""
    kinds = _kinds(kinds)
    parts = Path(arg).parts
    if len(parts) == 1:
        stem = parts[0][:-5] if parts[0].endswith(".toml") else parts[0]
        if not stem or stem.startswith("."):
            return None
        for kind in kinds:
            path = _kind_folder(kind) / f"{stem}.toml"
            if path.is_file():
                return path
        return None
    if parts[0] != "scenes" or ".." in parts or not parts[-1].endswith(".toml"):
        return None
    folder = parts[1] if len(parts) == 3 else ""
    if len(parts) > 3 or not any(KINDS[k] == folder for k in kinds):
        return None
    path = _folder().joinpath(*parts[1:])
    return path if path.is_file() else None


def bundled_scene(name: str) -> Path | None:
    """The file of the bundled scene or scenario ``name`` (``"aidemo4"``, ``"aidemo4.toml"``,
    ``"wall_squeeze"``), or None."""
    return find_bundled(name, SCENE_KINDS)


def bundled_sweep(name: str) -> Path | None:
    """The file of the bundled sweep ``name`` (``"forest_cohesion"``, with or without
    ``.toml``), or None."""
    return find_bundled(name, "sweep")


def closest_name(arg: str | os.PathLike, kinds=SCENE_KINDS) -> str | None:
    """The bundled name of ``kinds`` most like ``arg`` (a name, or a checkout path's file name),
    for a did-you-mean; None when none is close, or when ``arg`` is a path elsewhere."""
    parts = Path(arg).parts
    if not parts or (len(parts) > 1 and parts[0] != "scenes"):
        return None
    stem = parts[-1][:-5] if parts[-1].endswith(".toml") else parts[-1]
    close = difflib.get_close_matches(stem, bundled_names(kinds), n=1, cutoff=0.6)
    return close[0] if close else None


def resolve_sweep(arg: str | os.PathLike) -> Path:
    """The sweep file for a command-line argument: ``arg`` itself when it exists, else the
    bundled sweep it names (a checkout path or a bundled sweep's name); else ``arg`` (the reader
    then reports it)."""
    path = Path(arg)
    if path.exists():
        return path
    return find_bundled(arg, "sweep") or path


def scenario_folder() -> Path:
    """The folder of the scored scenario suite's scenes (``rigidflock score``)."""
    return _kind_folder("scenario")


def scenario_path(name: str) -> Path:
    """The scene file of the scored scenario ``name`` (e.g. ``"wall_squeeze"``)."""
    return scenario_folder() / f"{name}.toml"


def resolve_scene(arg: str | os.PathLike) -> Path:
    """The scene file for a command-line argument: ``arg`` itself when it exists (or names a
    folder, or is not a bundled name: the reader then reports it), else the bundled scene or
    scenario it names."""
    path = Path(arg)
    if path.exists():
        return path
    return find_bundled(arg, SCENE_KINDS) or path


def is_missing(arg: str | os.PathLike) -> bool:
    """Neither a file nor a bundled scene or scenario (by name or checkout path)."""
    return not resolve_scene(arg).exists()


@dataclass(frozen=True)
class BundledFile:
    name: str  # file stem: what `rigidflock run NAME` (a sweep: `rigidflock sweep NAME`) takes
    kind: str  # "scene", "scenario" or "sweep"
    path: Path
    title: str  # the file's own ``name`` key ("" for none)
    about: str  # the first sentence of its leading comment, if any


def _about(text: str, width: int = 90) -> str:
    """The first sentence of the file's leading comment, cut to ``width`` at a word."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    first = " ".join(lines).split(". ")[0].rstrip(".")
    if len(first) > width:
        first = first[: width - 3].rsplit(" ", 1)[0] + "..."
    return first


def bundled(kinds=tuple(KINDS)) -> list[BundledFile]:
    """Every bundled file of ``kinds`` (default all) with its title and one line about it,
    kinds in :data:`KINDS` order, sorted by name within each."""
    out = []
    for kind in KINDS:
        if kind not in _kinds(kinds):
            continue
        for path in sorted(_kind_folder(kind).glob("*.toml")):
            text = path.read_text(encoding="utf-8")
            try:
                title = str(tomllib.loads(text).get("name", ""))
            except tomllib.TOMLDecodeError:
                title = ""
            out.append(BundledFile(path.stem, kind, path, title, _about(text)))
    return out
