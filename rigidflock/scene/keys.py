"""The scene key reference, from the declarations next to each spec field.

:func:`reference` lists every table and key a scene file may write, with its type, default,
limits and help text: the source of docs/reference/scene-keys.md and ``check --keys``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, NamedTuple

from rigidflock.scene.declarations import Key, declared, field_default
from rigidflock.scene.errors import range_text
from rigidflock.scene.specs import Scene

REQUIRED = dataclasses.MISSING  # the default reported for a key that must be written


class KeyInfo(NamedTuple):
    """One row of the reference. ``path`` is dotted, ``[]`` marks an array of tables
    (``groups[].spawn.radius``); ``default`` is the dataclass default (:data:`REQUIRED` when the
    key must be given; for ``heading``, radians)."""

    path: str
    type: str
    default: Any
    limits: str  # "> 0", "in [-1, 1]", "" for none
    help: str
    runtime: bool = False  # a key commands may change while the scene runs


def _limits(k) -> str:
    """``> 0``, ``in [-1, 1]``, with ``, at most N to run`` when the key has a run limit."""
    text = range_text(k.gt, k.ge, k.le).strip()
    if k.most is None:
        return text
    most = f"{k.most:,}" if isinstance(k.most, int) else f"{k.most:g}"
    return f"{text}, at most {most} to run" if text else f"at most {most} to run"


def _rows(path: str, k: Key, default: Any) -> Iterator[KeyInfo]:
    yield KeyInfo(path, k.type_text, default, _limits(k), k.help, k.runtime)
    if k.kind in ("table", "tables"):
        yield from iter_keys(k.spec, path + ("[]" if k.kind == "tables" else ""))


def iter_keys(cls=Scene, prefix: str = "") -> Iterator[KeyInfo]:
    """Every key of the tables read into ``cls`` (default: a whole scene), depth first, in
    declaration order; a table's row comes before its keys."""
    for f, k in declared(cls):
        if k.alternatives:
            for name, alt in k.alternatives:
                yield from _rows(f"{prefix}.{name}" if prefix else name, alt, field_default(f))
        else:
            yield from _rows(f"{prefix}.{f.name}" if prefix else f.name, k, field_default(f))


def reference() -> list[KeyInfo]:
    """The whole reference: every table and key of a scene file."""
    return list(iter_keys())


def runtime_keys() -> tuple[str, ...]:
    """Paths of the keys that commands may change while a scene runs (``Command.changes``)."""
    return tuple(row.path for row in iter_keys() if row.runtime)
