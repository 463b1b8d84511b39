"""The scene key reference as text: docs/reference/scene-keys.md and ``rigidflock check --keys``.

Both are generated from the declarations next to each spec field (:func:`keys.reference`), so
they cannot drift from what the reader accepts; a test compares docs/reference/scene-keys.md with
:func:`markdown`. Regenerate it with ``python docs/generate.py``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rigidflock.scene.keys import KeyInfo, reference

_INTRO = """\
# Scene files: every key

A scene is a TOML file. Every key has a default except where it says *required*; unknown keys
are errors (with a did-you-mean), and every error names the file, the key and its line. Angles
are degrees in the file, lengths world units, times seconds, forces newtons. Keys marked
*live* can also be changed while a scene runs (`Command(changes=...)`, the viewer's keys and
tuning panel, `view --watch`); a table marked *live* holds only such keys. Any key can be changed
for one run without editing the file: `rigidflock run SCENE --set rules.weights.cohesion=2`.

This page is generated from the scene reader's own declarations
(`python docs/generate.py`); a test fails when it is stale.
The bundled scenes (`rigidflock scenes`) show the commonly tuned keys with comments.
"""


def default_text(value: Any) -> str:
    """A default as a scene file would write it.

    >>> default_text((800.0, 600.0)), default_text("wrap"), default_text(True), default_text(0.5)
    ('[800, 600]', '"wrap"', 'true', '0.5')
    """
    if value is dataclasses.MISSING:
        return "required"
    if value is None or dataclasses.is_dataclass(value):
        return ""  # a table, or a default the meaning column explains
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, int | float):
        return f"{value:g}"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(default_text(v) for v in value) + "]"
    return str(value)


_TABLES = {row.path for row in reference() if "table" in row.type}


def _sections() -> dict[str, list[KeyInfo]]:
    """Rows by top-level table ("" for the top-level keys), in declaration order."""
    out: dict[str, list[KeyInfo]] = {"": []}
    for row in reference():
        head = row.path.split(".")[0].removesuffix("[]")
        if row.path == head and head in _TABLES:
            out.setdefault(head, [])
        else:
            out.setdefault(head if head in _TABLES else "", []).append(row)
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """docs/reference/scene-keys.md: one table per scene table, a row per key."""
    tables = {row.path: row for row in reference() if row.path in _TABLES}
    lines = [_INTRO]
    for name, rows in _sections().items():
        if not rows:
            continue
        if name:
            t = tables[name]
            header = f"[[{name}]]" if t.type == "array of tables" else f"[{name}]"
            lines += [f"## `{header}`", "", t.help[0].upper() + t.help[1:] + ".", ""]
        else:
            lines += ["## Top level", ""]
        lines += ["| key | type | default | limits | meaning |", "|---|---|---|---|---|"]
        for r in rows:
            key = r.path[len(name) :].lstrip("[].") if name else r.path
            meaning = r.help + (" *live*" if r.runtime else "")
            default = "random" if '"random"' in r.type and r.default is None else r.default
            cells = [f"`{key}`", r.type, default_text(default), r.limits, meaning]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)


def text() -> str:
    """The same reference for a terminal: one key a line."""
    rows = reference()
    width = max(len(r.path) for r in rows)
    out = []
    for r in rows:
        extra = ", ".join(x for x in (r.type, r.limits, f"default {default_text(r.default)}")
                          if x and x != "default ")  # fmt: skip
        out.append(f"{r.path:<{width}}  {r.help} ({extra})")
    return "\n".join(out)
