"""One declaration per scene key: :func:`key` puts the key's type, limits, choices and help text
in the metadata of its dataclass field, next to the default.

The generic reader (:mod:`rigidflock.scene.spec_reader`) and the key reference
(:mod:`rigidflock.scene.keys`) both read these declarations, so they cannot disagree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Value kinds the generic reader knows, with the type text the reference shows for them.
KINDS = {
    "float": "number",
    "int": "integer",
    "bool": "true or false",
    "str": "string",
    "enum": "string",
    "vec2": "[x, y]",
    "auto": '"auto" or number',
    "auto_int": '"auto" or integer',
    "heading": "number (degrees)",
    "points": "array of [x, y]",
    "table": "table",
    "tables": "array of tables",
    # Read by dedicated readers (their own messages); listed by the reference all the same.
    "rect": "[x0, y0, x1, y1]",
    "ids": "array of integers",
    "script": "array of tables",
    "names": "array of strings",
    "params": "table of any values",
}


@dataclass(frozen=True)
class Key:
    """How one scene key is read and documented (the metadata of its dataclass field)."""

    kind: str
    help: str
    gt: float | None = None
    ge: float | None = None
    le: float | None = None  # the upper limit of what the key means (a throttle <= 1)
    most: float | None = None  # the upper limit of what can run (physics, memory, time)
    max_items: int | None = None  # the longest array ("points", "tables", "ids", "script")
    choices: tuple[str, ...] | None = None
    required: bool = False
    spec: type | None = None  # the dataclass of a "table"/"tables" key
    random: bool = False  # "heading": "random" is allowed (None in the dataclass)
    runtime: bool = False  # a key that Command.changes may change while the scene runs
    check: Callable[[Any], str | None] | None = None  # value -> error message, after reading
    alternatives: tuple[tuple[str, Key], ...] = ()  # file keys that stand for this field

    @property
    def type_text(self) -> str:
        if self.kind == "enum":
            return "one of " + ", ".join(f'"{c}"' for c in self.choices)
        if self.kind == "heading" and self.random:
            return 'number (degrees) or "random"'
        return KINDS[self.kind]


def _infer_kind(default: Any, factory: Any, choices) -> str:
    if factory is not dataclasses.MISSING:
        return "table" if dataclasses.is_dataclass(factory) else "tables"
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    if isinstance(default, str):
        return "enum" if choices else "str"
    if isinstance(default, tuple) and len(default) == 2:
        return "vec2"
    raise TypeError(f"give the kind of a key with default {default!r}")


def key(
    default: Any = dataclasses.MISSING,
    *,
    help: str,
    kind: str | None = None,
    default_factory: Any = dataclasses.MISSING,
    **options: Any,
) -> Any:
    """A dataclass field for a scene key: ``dt: float = key(0.016666, gt=0, help="seconds")``.

    ``options`` are the other :class:`Key` attributes (gt, ge, le, choices, required, spec,
    random, runtime, check, alternatives). Without ``kind`` it follows from the default.
    """
    if kind is None:
        kind = _infer_kind(default, default_factory, options.get("choices"))
    if kind == "table" and "spec" not in options:
        options["spec"] = default_factory
    declared = Key(kind=kind, help=help, **options)
    return dataclasses.field(
        default=default, default_factory=default_factory, metadata={"key": declared}
    )


def not_a_key() -> dict:
    """Metadata of a field that no scene file writes (it is filled in by the reader)."""
    return {"key": None}


def declared(cls) -> list[tuple[dataclasses.Field, Key]]:
    """The fields of ``cls`` that are scene keys, in declaration order, with their :class:`Key`."""
    out = []
    for f in dataclasses.fields(cls):
        if "key" not in f.metadata:
            raise TypeError(f"{cls.__name__}.{f.name} has no key declaration")
        if f.metadata["key"] is not None:
            out.append((f, f.metadata["key"]))
    return out


def key_of(cls, name: str) -> Key:
    """The declaration of field ``name`` of ``cls``."""
    return next(k for f, k in declared(cls) if f.name == name)


def file_keys(cls) -> tuple[str, ...]:
    """The key names a file may write in a table read into ``cls``, in declaration order."""
    names: list[str] = []
    for f, k in declared(cls):
        if k.alternatives:
            names.extend(name for name, _ in k.alternatives)
        else:
            names.append(f.name)
    return tuple(names)


def field_default(f: dataclasses.Field) -> Any:
    """The default of a field (a fresh one for factories); ``dataclasses.MISSING`` when none."""
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default
