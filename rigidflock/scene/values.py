"""Readers of one TOML value. Each records an error and returns a usable default when the value
is bad, so that parsing goes on and every error in the file is reported at once."""

from __future__ import annotations

import math
from typing import Any

from rigidflock.scene.errors import Ctx, desc, num_text, range_text, suggest
from rigidflock.scene.specs import Vec2


def as_float(ctx: Ctx, value: Any, path: str, default, *, gt=None, ge=None, le=None):
    need = "must be a number" + range_text(gt, ge, le)
    if isinstance(value, bool) or not isinstance(value, int | float):
        ctx.error(path, f"{need}, got {desc(value)}")
        return default
    x = float(value)
    if not math.isfinite(x):
        ctx.error(path, f"{need.replace('a number', 'a finite number')}, got {num_text(x)}")
        return default
    if (
        (gt is not None and not x > gt)
        or (ge is not None and not x >= ge)
        or (le is not None and not x <= le)
    ):
        ctx.error(path, f"{need}, got {num_text(value)}")
        return default
    return x


def as_int(ctx: Ctx, value: Any, path: str, default, *, ge: int):
    if isinstance(value, bool) or not isinstance(value, int) or value < ge:
        ctx.error(path, f"must be an integer >= {ge}, got {desc(value)}")
        return default
    return value


def as_bool(ctx: Ctx, value: Any, path: str, default: bool) -> bool:
    if not isinstance(value, bool):
        ctx.error(path, f"must be true or false, got {desc(value)}")
        return default
    return value


def as_str(ctx: Ctx, value: Any, path: str, default: str) -> str:
    if not isinstance(value, str):
        ctx.error(path, f"must be a string, got {desc(value)}")
        return default
    return value


def as_enum(ctx: Ctx, value: Any, path: str, default: str, choices) -> str:
    if not isinstance(value, str) or value not in choices:
        need = "must be one of " + ", ".join(f'"{c}"' for c in choices)
        hint = suggest(value, choices) if isinstance(value, str) else ""
        ctx.error(path, f"{need}, got {desc(value)}{hint}")
        return default
    return value


def as_vec2(ctx: Ctx, value: Any, path: str) -> Vec2 | None:
    need = "must be an array of 2 finite numbers [x, y]"
    if not isinstance(value, list) or len(value) != 2:
        got = f"an array of {len(value)}" if isinstance(value, list) else desc(value)
        ctx.error(path, f"{need}, got {got}")
        return None
    out = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int | float) or not math.isfinite(item):
            ctx.error(path, f"{need}, got an element {desc(item)}")
            return None
        out.append(float(item))
    return (out[0], out[1])


def as_points(ctx: Ctx, value: Any, path: str, check=None) -> tuple[Vec2, ...] | None:
    """An array of [x, y]; bad elements are reported and left out (None if not an array).

    ``check(point, path)`` is called for every well-formed point, with the point's own path.
    """
    if not isinstance(value, list):
        ctx.error(path, f"must be an array of [x, y] points, got {desc(value)}")
        return None
    points = []
    for i, item in enumerate(value):
        point = as_vec2(ctx, item, f"{path}[{i}]")
        if point is not None:
            points.append(point)
            if check is not None:
                check(point, f"{path}[{i}]")
    return tuple(points)


def as_heading(ctx: Ctx, value: Any, path: str, default, *, allow_random: bool):
    """Degrees in the file -> radians; "random" -> None when allowed."""
    if allow_random and value == "random":
        return None
    if isinstance(value, str) and allow_random:
        hint = suggest(value, ["random"])
        ctx.error(path, f'must be "random" or a number of degrees, got {desc(value)}{hint}')
        return default
    degrees = as_float(ctx, value, path, None)
    return default if degrees is None else math.radians(degrees)


def as_auto_or_float(ctx: Ctx, value: Any, path: str, *, ge: float) -> float | None:
    """``"auto"`` -> None, or a number >= ``ge``."""
    if value == "auto":
        return None
    if isinstance(value, str):
        need = f'must be "auto" or a number{range_text(ge=ge)}'
        ctx.error(path, f"{need}, got {desc(value)}{suggest(value, ['auto'])}")
        return None
    return as_float(ctx, value, path, None, ge=ge)


def as_rect(ctx: Ctx, value: Any, path: str) -> tuple[float, float, float, float] | None:
    """``[x0, y0, x1, y1]`` with x1 > x0 and y1 > y0, or None after an error."""
    if (
        not isinstance(value, list)
        or len(value) != 4
        or any(isinstance(v, bool) or not isinstance(v, int | float) for v in value)
        or not all(math.isfinite(v) for v in value)
    ):
        ctx.error(path, f"must be 4 finite numbers [x0, y0, x1, y1], got {desc(value)}")
        return None
    x0, y0, x1, y1 = map(float, value)
    if not (x1 > x0 and y1 > y0):
        ctx.error(path, f"needs x1 > x0 and y1 > y0, got {desc(value)}")
        return None
    return x0, y0, x1, y1
