"""The viewer's scene list (``L``): the bundled scenes and the ``*.toml`` files of the current
folder, each behind one key (``1``-``9``, ``0``, then ``a``-``z``); no window needed.

While the list shows, its keys are its own: an entry's key opens that scene at once, the up and
down arrows move the cursor and Enter opens the entry under it, ``L`` or Esc close the list.
"""

from __future__ import annotations

import contextlib
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from rigidflock.bundled import bundled

LABELS = "1234567890abcdefghijklmnopqrstuvwxyz"  # one key per entry, in order


@dataclass(frozen=True)
class Entry:
    """One scene of the list: its key, where it came from, its name, its file."""

    label: str
    where: str  # "bundled" or "here"
    name: str
    path: Path


def _scene_like(path: Path) -> bool:
    """Whether ``path`` may be a scene: a file with ``[[groups]]``, or one that is not valid
    TOML (a scene being edited; opening it shows its errors). pyproject.toml and sweeps are
    not."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError:
        return True
    except (OSError, UnicodeDecodeError):
        return False
    return isinstance(data.get("groups"), list)


def scene_entries(folder: str | os.PathLike | None = None) -> list[Entry]:
    """The bundled scenes, then ``folder``'s (default: the current one) ``*.toml`` scene
    files, sorted by name, as many as there are keys."""
    rows = [("bundled", b.name, b.path) for b in bundled(("scene",))]
    here = Path.cwd() if folder is None else Path(folder)
    with contextlib.suppress(OSError):  # a folder that cannot be listed lists nothing
        rows += [("here", p.stem, p) for p in sorted(here.glob("*.toml")) if _scene_like(p)]
    rows = rows[: len(LABELS)]
    return [Entry(lab, *row) for lab, row in zip(LABELS, rows, strict=False)]


class SceneList:
    """The list's state: ``shown``, its ``entries`` (read again each time it opens) and the
    ``cursor``."""

    def __init__(self, folder: str | os.PathLike | None = None):
        self.folder = folder
        self.shown = False
        self.entries: list[Entry] = []
        self.cursor = 0

    def open(self) -> None:
        self.entries, self.cursor, self.shown = scene_entries(self.folder), 0, True

    def close(self) -> None:
        self.shown = False

    def move(self, by: int) -> None:
        if self.entries:
            self.cursor = (self.cursor + by) % len(self.entries)

    def pick(self, label: str | None = None) -> Path | None:
        """The file behind ``label`` (default: the cursor's entry); None when there is none.
        The list closes when a file is picked."""
        if label is None:
            chosen = self.entries[self.cursor] if self.entries else None
        else:
            chosen = next((e for e in self.entries if e.label == label), None)
        if chosen is not None:
            self.shown = False
            return chosen.path
        return None

    def lines(self, current: str | None = None) -> list[str]:
        """The list as text, the cursor's entry marked ``>`` and the current scene ``*``."""
        if not self.shown:
            return []
        out = ["scenes: press a key to open one (arrows + Enter; L or Esc: close)", ""]
        for i, e in enumerate(self.entries):
            mark = ">" if i == self.cursor else " "
            now = "*" if current is not None and str(e.path) == current else " "
            out.append(f"{mark} {e.label}  {e.name:<24}{now} {e.where}")
        return out
