"""Scene errors: :class:`SceneError`, the collector :class:`Ctx`, and the wording of values.

Every error is one line ``FILE: FIELD.PATH: message (line N)``; the line is that of the key, or of
the nearest enclosing table written in the file. Parsing records every problem in a :class:`Ctx`
and goes on, so that one :class:`SceneError` lists them all.
"""

from __future__ import annotations

import difflib
import json
import math
from typing import Any

from rigidflock.scene.lines import key_lines, parent_path


class SceneError(Exception):
    """A scene that cannot be used. ``errors`` holds one line per problem."""

    def __init__(self, errors: list[str]):
        self.errors = list(errors)
        super().__init__("\n".join(self.errors))


class Ctx:
    """Collects errors and warnings for one scene text."""

    def __init__(self, source: str, text: str):
        self.source = source
        self.text = text
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self._lines: dict[str, int] | None = None

    def _line(self, path: str) -> int | None:
        if self._lines is None:
            self._lines = key_lines(self.text)
        while path:
            if path in self._lines:
                return self._lines[path]
            parent = parent_path(path)
            if parent == path:  # a part the pattern does not take (a shortened key): give up
                return None
            path = parent
        return None

    def _format(self, path: str, message: str) -> str:
        line = self._line(path)
        where = f" (line {line})" if line is not None else ""
        return f"{self.source}: {path}: {message}{where}"

    def error(self, path: str, message: str) -> None:
        self.errors.append(self._format(path, message))

    def warn(self, path: str, message: str) -> None:
        self.warnings.append(self._format(path, message))

    def mark(self) -> int:
        return len(self.errors)

    def ok_since(self, mark: int) -> bool:
        return len(self.errors) == mark


def desc(value: Any) -> str:
    """A short, TOML-flavoured description of ``value`` for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return num_text(value)
    if isinstance(value, str):
        return json.dumps(short(value), ensure_ascii=False)
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"  # dates and times


def num_text(x: float) -> str:
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) >= 10**15:
        # never the digits of a huge integer (repr fails past 4,300 digits, and echoes them all)
        sign = "-" if x < 0 else ""
        return f"{sign}an integer of about {int(abs(x).bit_length() * 0.30103) + 1} digits"
    return repr(x)


SHOWN = 40  # at most this many characters of a string or key are echoed in a message


def short(text: str, limit: int = SHOWN) -> str:
    """``text``, or its first characters and ``...`` (messages never echo a long value)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def finite_number(value: Any) -> bool:
    """True for an int or float (not bool) that is a finite float64 (huge integers are not)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def suggest(word: str, choices) -> str:
    """`` (did you mean "x"?)`` for the closest choice, or ``""``."""
    if len(word) > 2 * SHOWN:
        return ""  # nothing is close to a long word (and difflib would take a while over it)
    folded = [c for c in choices if c.lower() == word.lower()]
    match = folded or difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f' (did you mean "{match[0]}"?)' if match else ""


def point_text(point) -> str:
    return f"[{point[0]:g}, {point[1]:g}]"


def world_text(size) -> str:
    return f"[0,{size[0]:g}]x[0,{size[1]:g}]"


def range_text(gt=None, ge=None, le=None) -> str:
    """`` > 0``, `` >= 0 and <= 1``, `` in [-1, 1]``: the limits as messages say them."""
    if ge is not None and le is not None:
        return f" in [{ge:g}, {le:g}]"
    parts = []
    if gt is not None:
        parts.append(f"> {gt:g}")
    if ge is not None:
        parts.append(f">= {ge:g}")
    if le is not None:
        parts.append(f"<= {le:g}")
    return " " + " and ".join(parts) if parts else ""
