"""Which line of a TOML text each dotted key is written on (only to decorate messages).

A best-effort line scanner: the data itself always comes from tomllib.
"""

from __future__ import annotations

import re

_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_KEY_RE = re.compile(rf"^\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*=")
_HEADER_RE = re.compile(rf"^\s*(\[\[?)\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*\]\]?\s*(?:#.*)?$")
_PART_RE = re.compile(_KEY_PART)
_STRINGS_RE = re.compile(r""""(?:[^"\\]|\\.)*"|'[^']*'""")
# The last step of a field path: ``[3]``, ``.key``, the first key, or `` corner 2`` (a building's
# corner, written in no line of its own).
_LAST_PART_RE = re.compile(r"(\[\d+\]|\.[^.\[\]]+|^[^.\[\]]+| corner \d+)$")


def key_parts(dotted: str) -> list[str]:
    """The keys of a dotted TOML key, quotes removed: ``a."b.c"`` -> ``["a", "b.c"]``."""
    return [p[1:-1] if p[0] in "\"'" else p for p in _PART_RE.findall(dotted)]


def parent_path(path: str) -> str:
    """``groups[1].spawn.radius`` -> ``groups[1].spawn``; ``groups[1]`` -> ``groups``."""
    return _LAST_PART_RE.sub("", path)


class _Scanner:
    """The state of one pass over the text: the current table and the arrays of tables seen."""

    def __init__(self) -> None:
        self.lines: dict[str, int] = {}
        self.arrays: dict[str, int] = {}  # array-of-tables path (parents indexed) -> last index
        self.current = ""

    def resolve(self, parts: list[str]) -> str:
        path = ""
        for part in parts:
            path = f"{path}.{part}" if path else part
            if path in self.arrays:
                path = f"{path}[{self.arrays[path]}]"
        return path

    def header(self, match: re.Match, number: int) -> None:
        parts = key_parts(match.group(2))
        if match.group(1) == "[[":
            name = self.resolve(parts[:-1])
            name = f"{name}.{parts[-1]}" if name else parts[-1]
            self.arrays[name] = self.arrays.get(name, -1) + 1
        self.current = self.resolve(parts)
        self.lines.setdefault(self.current, number)

    def key(self, match: re.Match, number: int) -> None:
        dotted = ".".join(key_parts(match.group(1)))
        self.lines.setdefault(f"{self.current}.{dotted}" if self.current else dotted, number)


def _opens_multiline(line: str) -> bool:
    return bool((line.count('"""') + line.count("'''")) % 2)


def key_lines(text: str) -> dict[str, int]:
    """Map field paths (``groups[1].spawn``) to the line (from 1) where they are written."""
    scan = _Scanner()
    depth = 0  # open brackets/braces of a multi-line value
    in_multiline = False
    for number, line in enumerate(text.splitlines(), start=1):
        if in_multiline:
            in_multiline = not _opens_multiline(line)
            continue
        if depth == 0:
            header = _HEADER_RE.match(line)
            if header:
                scan.header(header, number)
                continue
            key = _KEY_RE.match(line)
            if key:
                scan.key(key, number)
                line = line[key.end() :]  # noqa: PLW2901 (the rest after the key)
        if _opens_multiline(line):
            in_multiline = True  # a multi-line string opens here; skip to its closing line
            continue
        bare = _STRINGS_RE.sub("", line).split("#", 1)[0]
        depth = max(
            0, depth + bare.count("[") + bare.count("{") - bare.count("]") - bare.count("}")
        )
    return scan.lines
