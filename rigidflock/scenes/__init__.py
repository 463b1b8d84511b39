"""The scenes that ship with rigidflock (``*.toml`` package data beside this module), and the one
place a scene argument is turned into a file: :func:`resolve_scene`.

A scene argument is a path when such a file exists, else the name of a bundled scene, with or
without ``.toml``, or a path into the checkout's ``scenes/`` folder (``scenes/forest.toml``, as the
README writes them), which names the bundled file wherever the command runs; a sweep argument
likewise, the bundled sweeps being ``scenes/sweeps/*.toml``::

    >>> bundled_scene("aidemo4").name
    'aidemo4.toml'
    >>> "rts_doorway" in bundled_names()
    True

Standard library only (no rigidflock imports): the scene reader and the command line both sit
above it.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

__all__ = [
    "BundledScene",
    "bundled_names",
    "bundled_scene",
    "bundled_scenes",
    "bundled_sweeps",
    "resolve_scene",
    "resolve_sweep",
    "scenario_folder",
    "scenario_path",
]


def _folder() -> Path:
    # a regular (non-zipped) install: the package folder is a real directory
    return Path(str(resources.files(__name__)))


def bundled_names() -> list[str]:
    """The bundled scenes' names (file stems), sorted."""
    return sorted(p.stem for p in _folder().glob("*.toml"))


def _bundled(folder: Path, name: str) -> Path | None:
    """The file ``name`` (with or without ``.toml``; a plain name, no path) in ``folder``, or
    None."""
    stem = name[:-5] if name.endswith(".toml") else name
    if not stem or "/" in stem or os.sep in stem or stem.startswith("."):
        return None
    path = folder / f"{stem}.toml"
    return path if path.is_file() else None


def bundled_scene(name: str) -> Path | None:
    """The file of the bundled scene ``name`` (``"aidemo4"`` or ``"aidemo4.toml"``), or None."""
    return _bundled(_folder(), name)


def _checkout_path(arg: str | os.PathLike, sweep: bool = False) -> Path | None:
    """The bundled ``.toml`` file a checkout path names (the checkout's ``scenes/`` is the
    package's scene folder): a scene (``scenes/forest.toml``, ``scenes/scenarios/...``), or with
    ``sweep`` a sweep (``scenes/sweeps/forest_cohesion.toml``); else None."""
    parts = Path(arg).parts
    if len(parts) < 2 or parts[0] != "scenes" or ".." in parts or not parts[-1].endswith(".toml"):
        return None
    if (parts[1] == "sweeps") != sweep:
        return None
    path = _folder().joinpath(*parts[1:])
    return path if path.is_file() else None


def bundled_sweep(name: str) -> Path | None:
    """The file of the bundled sweep ``name`` (``"forest_cohesion"``, with or without
    ``.toml``), or None."""
    return _bundled(_folder() / "sweeps", name)


def resolve_sweep(arg: str | os.PathLike) -> Path:
    """The sweep file for a command-line argument: ``arg`` itself when it exists, else the
    bundled file it names (a checkout path or a bundled sweep's name); else ``arg`` (the reader
    then reports it)."""
    path = Path(arg)
    if path.exists():
        return path
    return _checkout_path(arg, sweep=True) or bundled_sweep(str(arg)) or path


def scenario_folder() -> Path:
    """The folder of the scored scenario suite's scenes (``rigidflock bench --scenarios``)."""
    return _folder() / "scenarios"


def scenario_path(name: str) -> Path:
    """The scene file of the scored scenario ``name`` (e.g. ``"wall_squeeze"``)."""
    return scenario_folder() / f"{name}.toml"


def resolve_scene(arg: str | os.PathLike) -> Path:
    """The scene file for a command-line argument: ``arg`` itself when it exists (or names a
    folder, or is not a bundled name: the reader then reports it), else the bundled scene of
    that name."""
    path = Path(arg)
    if path.exists():
        return path
    return bundled_scene(str(arg)) or _checkout_path(arg) or path


def is_missing(arg: str | os.PathLike) -> bool:
    """Neither a file nor a bundled scene (by name or checkout path)."""
    return not resolve_scene(arg).exists()


@dataclass(frozen=True)
class BundledScene:
    name: str  # file stem: what `rigidflock run NAME` takes
    path: Path
    title: str  # the scene's own ``name``
    about: str  # the first line of its leading comment, if any


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


def bundled_sweeps() -> list[tuple[str, str]]:
    """Every bundled sweep: its name (what ``rigidflock sweep NAME`` takes) and one line about
    it."""
    files = sorted((_folder() / "sweeps").glob("*.toml"))
    return [(p.stem, _about(p.read_text(encoding="utf-8"))) for p in files]


def bundled_scenes() -> list[BundledScene]:
    """Every bundled scene with its title and one line about it."""
    out = []
    for name in bundled_names():
        path = _folder() / f"{name}.toml"
        text = path.read_text(encoding="utf-8")
        try:
            title = str(tomllib.loads(text).get("name", ""))
        except tomllib.TOMLDecodeError:
            title = ""
        out.append(BundledScene(name, path, title, _about(text)))
    return out
