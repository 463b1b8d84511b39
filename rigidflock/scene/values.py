"""Readers of one TOML value. Each records an error and returns a usable default when the value
is bad, so that parsing goes on and every error in the file is reported at once."""

from __future__ import annotations

import math
from typing import Any

from rigidflock.scene.errors import Ctx, desc, finite_number, num_text, range_text, suggest
from rigidflock.scene.specs import Vec2


def as_float(ctx: Ctx, value: Any, path: str, default, *, gt=None, ge=None, le=None, most=None):
    """A finite number within the limits of what it means (``gt``, ``ge``, ``le``) and at most
    ``most``, the largest that can run (named only when that is the limit broken)."""
    need = "must be a number" + range_text(gt, ge, le)
    if isinstance(value, bool) or not isinstance(value, int | float):
        ctx.error(path, f"{need}, got {desc(value)}")
        return default
    if not finite_number(value):
        ctx.error(path, f"{need.replace('a number', 'a finite number')}, got {num_text(value)}")
        return default
    x = float(value)
    if (
        (gt is not None and not x > gt)
        or (ge is not None and not x >= ge)
        or (le is not None and not x <= le)
    ):
        ctx.error(path, f"{need}, got {num_text(value)}")
        return default
    if most is not None and not x <= most:
        ctx.error(path, f"{_most_text(most)}, got {num_text(value)}")
        return default
    return x


def _most_text(most) -> str:
    return (
        f"must be at most {most:,} to run"
        if isinstance(most, int)
        else (f"must be at most {most:g} to run")
    )


def as_int(
    ctx: Ctx, value: Any, path: str, default, *, ge: int, le: int | None = None,
    most: int | None = None,
):  # fmt: skip
    bad = isinstance(value, bool) or not isinstance(value, int) or value < ge
    if bad or (le is not None and value > le):
        what = f">= {ge}" if le is None else f"from {ge} to {le}"
        ctx.error(path, f"must be an integer {what}, got {desc(value)}")
        return default
    if most is not None and value > most:
        ctx.error(path, f"{_most_text(most)}, got {desc(value)}")
        return default
    return value


def too_many(ctx: Ctx, value: Any, path: str, limit: int | None, what: str = "elements") -> bool:
    """True (after an error) when the array ``value`` is longer than ``limit``."""
    if limit is not None and isinstance(value, list) and len(value) > limit:
        ctx.error(path, f"at most {limit:,} {what}, got {len(value):,}")
        return True
    return False


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
        if not finite_number(item):
            ctx.error(path, f"{need}, got an element {desc(item)}")
            return None
        out.append(float(item))
    return (out[0], out[1])


def as_points(
    ctx: Ctx, value: Any, path: str, check=None, max_items: int | None = None
) -> tuple[Vec2, ...] | None:
    """An array of [x, y]; bad elements are reported and left out (None if not an array, or
    longer than ``max_items``).

    ``check(point, path)`` is called for every well-formed point, with the point's own path.
    """
    if not isinstance(value, list):
        ctx.error(path, f"must be an array of [x, y] points, got {desc(value)}")
        return None
    if too_many(ctx, value, path, max_items, "points"):
        return None
    points = []
    for i, item in enumerate(value):
        point = as_vec2(ctx, item, f"{path}[{i}]")
        if point is not None:
            points.append(point)
            if check is not None:
                check(point, f"{path}[{i}]")
    return tuple(points)


MAX_DEGREES = 1e6  # a heading beyond this many degrees is a mistake (and loses its precision)


def as_heading(ctx: Ctx, value: Any, path: str, default, *, allow_random: bool):
    """Degrees in the file -> radians; "random" -> None when allowed."""
    if allow_random and value == "random":
        return None
    if isinstance(value, str) and allow_random:
        hint = suggest(value, ["random"])
        ctx.error(path, f'must be "random" or a number of degrees, got {desc(value)}{hint}')
        return default
    degrees = as_float(ctx, value, path, None)
    if degrees is not None and abs(degrees) > MAX_DEGREES:
        ctx.error(path, f"must be within +-{MAX_DEGREES:g} degrees, got {num_text(value)}")
        return default
    return default if degrees is None else math.radians(degrees)


def as_auto_or_float(ctx: Ctx, value: Any, path: str, *, ge: float, most=None) -> float | None:
    """``"auto"`` -> None, or a number >= ``ge``."""
    if value == "auto":
        return None
    if isinstance(value, str):
        need = f'must be "auto" or a number{range_text(ge=ge)}'
        ctx.error(path, f"{need}, got {desc(value)}{suggest(value, ['auto'])}")
        return None
    return as_float(ctx, value, path, None, ge=ge, most=most)


def as_auto_or_int(ctx: Ctx, value: Any, path: str, *, ge: int, le: int) -> int | None:
    """``"auto"`` -> None, or an integer from ``ge`` to ``le``."""
    if value == "auto":
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not ge <= value <= le:
        hint = suggest(value, ["auto"]) if isinstance(value, str) else ""
        ctx.error(path, f'must be "auto" or an integer from {ge} to {le}, got {desc(value)}{hint}')
        return None
    return value


def as_rect(ctx: Ctx, value: Any, path: str) -> tuple[float, float, float, float] | None:
    """``[x0, y0, x1, y1]`` with x1 > x0 and y1 > y0, or None after an error."""
    if not isinstance(value, list) or len(value) != 4 or not all(finite_number(v) for v in value):
        ctx.error(path, f"must be 4 finite numbers [x0, y0, x1, y1], got {desc(value)}")
        return None
    x0, y0, x1, y1 = map(float, value)
    if not (x1 > x0 and y1 > y0):
        ctx.error(path, f"needs x1 > x0 and y1 > y0, got {desc(value)}")
        return None
    return x0, y0, x1, y1
