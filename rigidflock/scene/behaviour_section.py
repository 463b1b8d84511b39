"""The reader of ``[[behaviours]]``: each a user's function named ``"module:name"`` (or a name
registered in the entry point group ``rigidflock.behaviours``), a weight, the families it
applies to and free parameters.

Reading a scene imports nothing: the function's name is checked for form here, and imported
when the scene is run or checked (:mod:`rigidflock.model.behaviours.loading`). A recording's
scene is read with this same reader, so opening one runs no code of its own.
"""

from __future__ import annotations

import math
import re
from typing import Any

from rigidflock.scene.declarations import file_keys, key_of
from rigidflock.scene.errors import Ctx, desc, short, suggest
from rigidflock.scene.spec_reader import MISSING, array_of_tables, check_keys, read_fields
from rigidflock.scene.specs import BehaviourSpec
from rigidflock.scene.values import too_many

_DOTTED = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
FUNCTION_RE = re.compile(rf"(?P<module>{_DOTTED}):(?P<name>{_DOTTED})")
ENTRY_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")
MAX_PARAMS_DEPTH = 8  # nested tables and arrays in params


def function_problem(text: str) -> str | None:
    """Why ``text`` cannot name a behaviour's function (None when its form is right)."""
    if FUNCTION_RE.fullmatch(text) or ENTRY_NAME_RE.fullmatch(text):
        return None
    return (
        f'expected "module:name" (e.g. "rigidflock.behaviours.examples:wander") or a name '
        f"registered in the entry point group rigidflock.behaviours, got {desc(short(text, 60))}"
    )


def _finite(ctx: Ctx, value: Any, path: str, depth: int = 0) -> bool:
    """Params hold TOML values; a NaN or infinite number, or nesting deeper than
    ``MAX_PARAMS_DEPTH``, is an error (a behaviour would compute garbage from it)."""
    if depth > MAX_PARAMS_DEPTH:
        ctx.error(path, f"nested more than {MAX_PARAMS_DEPTH} levels deep")
        return False
    if isinstance(value, float) and not math.isfinite(value):
        ctx.error(path, f"must be a finite number, got {value!r}")
        return False
    if isinstance(value, dict):
        return all(_finite(ctx, v, f"{path}.{k}", depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_finite(ctx, v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value))
    return True


def _families(ctx: Ctx, t: dict, path: str, known: list[str]) -> tuple[str, ...] | None:
    value = t.get("families", MISSING)
    if value is MISSING:
        return None
    p = f"{path}.families"
    if not isinstance(value, list):
        ctx.error(p, f"must be an array of family names, got {desc(value)}")
        return None
    if too_many(ctx, value, p, key_of(BehaviourSpec, "families").max_items):
        return None
    out = []
    for i, name in enumerate(value):
        if not isinstance(name, str):
            ctx.error(f"{p}[{i}]", f"must be a family name (a string), got {desc(name)}")
        elif name not in known:
            hint = suggest(name, known) or " (families: " + ", ".join(known) + ")"
            ctx.error(f"{p}[{i}]", f"no group has family {desc(name)}{hint}")
        else:
            out.append(name)
    return tuple(dict.fromkeys(out))


def read_behaviours(ctx: Ctx, data: dict, groups) -> tuple[BehaviourSpec, ...]:
    """Every ``[[behaviours]]`` table; a message's field path is ``behaviours[i].KEY`` and,
    once the function is known, ends by naming it."""
    known = sorted({g.family for g in groups})
    out = []
    for path, t in array_of_tables(ctx, data, "behaviours"):
        check_keys(ctx, t, file_keys(BehaviourSpec), path)
        mark = ctx.mark()
        values = read_fields(ctx, t, BehaviourSpec, path, ("function",))[0]
        function = values["function"]
        if function is not None and ctx.ok_since(mark):
            problem = function_problem(function)
            if problem:
                ctx.error(f"{path}.function", problem)
        named = ctx.mark()
        weight = read_fields(ctx, t, BehaviourSpec, path, ("weight",))[0]["weight"]
        families = _families(ctx, t, path, known)
        params = t.get("params", {})
        if not isinstance(params, dict):
            ctx.error(f"{path}.params", f"must be a table, got {desc(params)}")
        else:
            _finite(ctx, params, f"{path}.params")
        if function is not None and not ctx.ok_since(named):
            # which behaviour the messages are about, in the scene's words
            for k in range(named, len(ctx.errors)):
                ctx.errors[k] += f" (behaviour {desc(function)})"
        if ctx.ok_since(mark):
            out.append(BehaviourSpec(function, weight, families, dict(params)))
    return tuple(out)
