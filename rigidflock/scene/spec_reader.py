"""The one generic reader: a TOML table -> the fields of a spec dataclass, from the declarations
that :func:`rigidflock.scene.declarations.key` put next to each field."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from rigidflock.scene.declarations import Key, declared, field_default, file_keys, key_of
from rigidflock.scene.errors import SHOWN, Ctx, desc, short, suggest
from rigidflock.scene.specs import Scene
from rigidflock.scene.values import (
    as_auto_or_float,
    as_auto_or_int,
    as_bool,
    as_enum,
    as_float,
    as_heading,
    as_int,
    as_points,
    as_str,
    as_vec2,
    too_many,
)

MISSING = object()
MAX_KEY_LENGTH = 64  # no key of the format is longer; messages quote at most a prefix
_BARE_KEY_RE = re.compile(r"[A-Za-z0-9_-]+")


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def check_keys(ctx: Ctx, table: dict, allowed, path: str) -> None:
    """An error with a did-you-mean (or the list of keys) for every key not in ``allowed``."""
    for key in table:
        if key not in allowed:
            hint = suggest(key, allowed) or " (expected one of: " + ", ".join(allowed) + ")"
            if len(key) > MAX_KEY_LENGTH:
                hint = f" (a key of {len(key):,} characters; keys are at most {MAX_KEY_LENGTH})"
            shown = short(key, SHOWN)
            if not _BARE_KEY_RE.fullmatch(key):
                shown = json.dumps(shown, ensure_ascii=False)
            ctx.error(join(path, shown), f"unknown key{hint}")


def sub_table(ctx: Ctx, parent: dict, key: str, path: str) -> dict | None:
    """The sub-table ``parent[key]``; None if absent or not a table (the latter is an error)."""
    value = parent.get(key, MISSING)
    if value is MISSING:
        return None
    if not isinstance(value, dict):
        ctx.error(join(path, key), f"must be a table, got {desc(value)}")
        return None
    return value


def array_of_tables(
    ctx: Ctx, data: dict, key: str, max_items: int | None = None
) -> list[tuple[str, dict]]:
    """``(path, table)`` for each table of ``data[key]``; errors for what is not a table.

    ``max_items``: the longest array; by default that declared for the scene key ``key``."""
    value = data.get(key, MISSING)
    if value is MISSING:
        return []
    if not isinstance(value, list):
        ctx.error(key, f"must be an array of tables ([[{key}]]), got {desc(value)}")
        return []
    if max_items is None:
        max_items = key_of(Scene, key).max_items
    if too_many(ctx, value, key, max_items, "tables"):
        return []
    out = []
    for i, item in enumerate(value):
        if isinstance(item, dict):
            out.append((f"{key}[{i}]", item))
        else:
            ctx.error(f"{key}[{i}]", f"must be a table, got {desc(item)}")
    return out


def _read_table(ctx: Ctx, value: Any, path: str, default: Any, k: Key) -> Any:
    if not isinstance(value, dict):
        ctx.error(path, f"must be a table, got {desc(value)}")
        return default
    check_keys(ctx, value, file_keys(k.spec), path)
    return k.spec(**read_fields(ctx, value, k.spec, path)[0])


def _read_vec2(ctx: Ctx, value: Any, path: str, default: Any, k: Key) -> Any:
    vec = as_vec2(ctx, value, path)
    return default if vec is None else vec


# kind -> reader(ctx, value, path, default, key): one value written in the file, read as the key
# declares; the default after an error.
_READERS = {
    "float": lambda ctx, v, p, d, k: as_float(ctx, v, p, d, gt=k.gt, ge=k.ge, le=k.le, most=k.most),
    "int": lambda ctx, v, p, d, k: as_int(ctx, v, p, d, ge=k.ge, le=k.le, most=k.most),
    "bool": lambda ctx, v, p, d, k: as_bool(ctx, v, p, d),
    "str": lambda ctx, v, p, d, k: as_str(ctx, v, p, d),
    "enum": lambda ctx, v, p, d, k: as_enum(ctx, v, p, d, k.choices),
    "vec2": _read_vec2,
    "auto": lambda ctx, v, p, d, k: as_auto_or_float(ctx, v, p, ge=k.ge, most=k.most),
    "auto_int": lambda ctx, v, p, d, k: as_auto_or_int(ctx, v, p, ge=k.ge, le=k.le),
    "heading": lambda ctx, v, p, d, k: as_heading(ctx, v, p, d, allow_random=k.random),
    "points": lambda ctx, v, p, d, k: as_points(ctx, v, p, max_items=k.max_items),
    "table": _read_table,
}


def read_value(ctx: Ctx, value: Any, path: str, default: Any, k: Key) -> Any:
    """One value written in the file, read as key ``k`` declares; ``default`` after an error."""
    if k.kind not in _READERS:
        raise TypeError(f"{path}: the generic reader does not read {k.kind!r} keys")
    return _READERS[k.kind](ctx, value, path, default, k)


def _ordered(cls, names) -> list[tuple[dataclasses.Field, Key]]:
    fields = declared(cls)
    if names is None:
        return fields
    by_name = {f.name: (f, k) for f, k in fields}
    return [by_name[name] for name in names]


def _read_key(ctx: Ctx, table: dict, path: str, f: dataclasses.Field, k: Key, default) -> Any:
    """The value of one key (``default`` when absent or bad), its ``check`` applied."""
    value = table.get(f.name, MISSING)
    if value is MISSING:
        return default
    mark = ctx.mark()
    value = read_value(ctx, value, join(path, f.name), default, k)
    message = k.check(value) if k.check and ctx.ok_since(mark) else None
    if message is not None:
        ctx.error(join(path, f.name), message)
        return default
    return value


def read_fields(
    ctx: Ctx, table: dict, cls, path: str, names=None, defaults=None
) -> tuple[dict[str, Any], set[str]]:
    """Read the keys ``names`` (default: every key of ``cls``, in order) of ``table``.

    First every missing required key is reported, then each key is read in turn: absent keys
    take ``defaults[name]`` or the dataclass default (None for required keys). Returns the values
    by field name, and the names whose reading reported an error.
    """
    fields = _ordered(cls, names)
    failed = set()
    for f, k in fields:
        if k.required and f.name not in table:
            ctx.error(join(path, f.name), "required")
            failed.add(f.name)
    values = {}
    for f, k in fields:
        default = (defaults or {}).get(f.name, field_default(f))
        mark = ctx.mark()
        values[f.name] = _read_key(
            ctx, table, path, f, k, None if default is dataclasses.MISSING else default
        )
        if not ctx.ok_since(mark):
            failed.add(f.name)
    return values, failed


def first(cls, *names: str) -> tuple[str, ...]:
    """Every key of ``cls``, ``names`` first (the order in which messages have always come)."""
    return names + tuple(f.name for f, _ in declared(cls) if f.name not in names)


def read_spec(ctx: Ctx, parent: dict, key: str, path: str, cls, *first_names: str) -> Any:
    """The table ``parent[key]`` read into ``cls``; its default when absent or not a table. Keys
    named in ``first_names`` are read (and reported) before the others."""
    table = sub_table(ctx, parent, key, path)
    if table is None:
        return cls()
    check_keys(ctx, table, file_keys(cls), join(path, key))
    names = first(cls, *first_names) if first_names else None
    return cls(**read_fields(ctx, table, cls, join(path, key), names)[0])
