"""What a scene will cost before anything is allocated, and every step that can refuse it.

:func:`estimate` adds up the memory a run of the scene takes: the units (bodies, arrays and the
steering's buffers, about 5 kB each as ``rigidflock bench`` measures), their neighbour pairs (every
unit's neighbours within its view radius, packed at the separation distance), the obstacles, the
navigation grid of RTS scenes (built when a scene has walls, buildings, orders or events: about
1,200 bytes a cell while it is rasterised, 384 more for each corner of the building with the
most, and 16 for each order's route), the slot deal of an ordered group (dense cost matrices of
up to 2,000 units) and, when recording, the replay buffers (a few chunks of one second of states).

:func:`check_runs` is what ``rigidflock check`` and ``rigidflock run`` both do after reading a
scene: the physics, the steering's rasters (:func:`check_rasters`: a unit length near 0
against the world), the navigation grid's size (:func:`check_grid`: refused by
``navigation.cell`` when the grid alone cannot be built), the memory estimate against the
budget, then the obstacle field placement of the run's seed. So a scene that ``check`` passes
is one that ``run`` starts.

The budget is the smaller of the machine's memory and :data:`DEFAULT_BUDGET` (4 GiB); ``--memory-
budget SIZE`` or the environment variable ``RIGIDFLOCK_MEMORY_BUDGET`` raise or lower the second
(``8G``, ``512M``, bytes without a suffix).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

from rigidflock.scene.errors import SceneError
from rigidflock.scene.generation import check_generation
from rigidflock.scene.specs import Scene
from rigidflock.scene.stability import check_stability

DEFAULT_BUDGET = 4 << 30
BUDGET_ENV = "RIGIDFLOCK_MEMORY_BUDGET"

UNIT_BYTES = 5_000  # per unit: pymunk body and shape, state, steering buffers (bench: 4.6-5.0 kB)
PAIR_BYTES = 48  # per directed neighbour pair: candidate and filtered index arrays, distances
OBSTACLE_BYTES = 2_000  # per obstacle circle (pymunk shape, the steering's arrays)
# per navigation cell: the peak while the grid is rasterised (16 sample points a cell, their
# distances to each wall and building), its neighbour table and one route search; measured with
# tracemalloc at 600-1,200 bytes a cell without buildings (walls take the most) and 600 + 384 K
# with a building of K corners (its (points, corners) distance arrays)
CELL_BYTES = 1_200
CORNER_BYTES = 384  # per cell, per corner of the building with the most corners
FIELD_BYTES = 16  # per cell, per order: the route's distance and next cell, kept by its group
STATE_BYTES = 49  # per unit per recorded tick: six float64 and a leader flag
RECORD_BUFFERS = 6  # chunks of states alive while recording (buffers, writer queue, encoding)
# a group's slot deal: dense (unit, slot) cost matrices, ~56 bytes a pair, up to this many units
# (224 MB; 22 GB at 20,000); a larger group is dealt within blocks of that many
# (``rts.slots.assign_nearest``)
DENSE_SLOT_UNITS = 2000
ASSIGN_BYTES = 56
BASE_BYTES = 200 << 20  # the interpreter, numpy, pymunk, numba's compiled kernels

_SIZE_RE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(text: str) -> int:
    """``"8G"`` -> bytes (k, M, G, T: powers of 1024; plain digits are bytes). ValueError if bad.

    >>> parse_size("512M"), parse_size("2g"), parse_size("1000")
    (536870912, 2147483648, 1000)
    """
    m = _SIZE_RE.fullmatch(text)
    if m is None:
        raise ValueError(f"expected a size such as 8G or 512M, got {text[:40]!r}")
    value = float(m.group(1)) * _UNITS[m.group(2).lower()]
    if not 1 <= value <= 1 << 60:
        raise ValueError(f"expected a size between 1 byte and 1 EiB, got {text[:40]!r}")
    return int(value)


def size_text(n: float) -> str:
    """``12.3 GiB``, ``512 MiB``, ``1.5 TiB``; ``more than 1,000 EiB`` past that (and infinity)."""
    if not n < 1000 * (1 << 60):
        return "more than 1,000 EiB"
    units = (
        ("EiB", 1 << 60),
        ("PiB", 1 << 50),
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
    )
    for unit, scale in units:
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n / 1024:.3g} KiB"


def machine_memory() -> int | None:
    """Bytes of physical memory, or None when the system does not say."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def default_budget() -> int:
    """:data:`DEFAULT_BUDGET`, or ``RIGIDFLOCK_MEMORY_BUDGET`` when set (SceneError if bad)."""
    text = os.environ.get(BUDGET_ENV, "")
    if not text:
        return DEFAULT_BUDGET
    try:
        return parse_size(text)
    except ValueError as e:
        raise SceneError([f"{BUDGET_ENV}: {e}"]) from None


@dataclass(frozen=True)
class Part:
    """One line of the estimate: what, how many bytes, and the keys that drive it."""

    what: str
    bytes: float
    keys: str


def _neighbours_per_unit(scene: Scene, n: int) -> float:
    """Neighbours a unit may hold at the widest view: the units packed at the separation
    distance inside the view radius (all of them when the radius takes the whole flock)."""
    if n <= 1:
        return 0.0
    rules = scene.rules
    longest = max(g.length for g in scene.groups)
    shortest = min(g.length for g in scene.groups)
    factor = rules.radius_factor
    radius = max(factor.wide, factor.limited, factor.narrow) * longest
    spacing = max(rules.separation_factor * shortest, 1e-9)
    return min(float(n - 1), (2 * radius / spacing) ** 2)


def builds_grid(scene: Scene) -> bool:
    """Whether a run of ``scene`` builds a navigation grid."""
    return bool(scene.walls or scene.buildings or scene.orders or scene.events)


def _cells_along(side: float, cell: float) -> float:
    """``max(1, ceil(side / cell))`` as a float, infinity when it is past the floats (a cell
    of 5e-324): never an integer too large to convert."""
    n = side / cell
    return max(1.0, float(math.ceil(n))) if n < 2.0**52 else n


def grid_cells(scene: Scene) -> float | None:
    """Cells of the navigation grid (a float: infinity when there are more than the floats
    hold), or None when the run never builds one."""
    if not builds_grid(scene):
        return None
    w, h = scene.world.size
    cell = scene.navigation.cell
    return _cells_along(w, cell) * _cells_along(h, cell)


def _log10_cells(scene: Scene) -> float:
    """log10 of the grid's cells (finite for any cell > 0, 5e-324 included)."""
    w, h = scene.world.size
    cell = scene.navigation.cell
    return sum(max(0.0, math.log10(side) - math.log10(cell)) for side in (w, h))


def count_text(n: float, log10: float | None = None) -> str:
    """``1,234,567``; ``1.2e+18``; ``10^605`` past the floats (``log10`` given)."""
    if n < 1e15:
        return f"{int(n):,}"
    if math.isfinite(n):
        return f"{n:.3g}"
    return f"10^{log10:.0f}" if log10 is not None else "more than 1e308"


def _most_corners(scene: Scene) -> int:
    """Corners of the scene's building with the most, those events add included (0: none)."""
    polygons = [b.polygon for b in scene.buildings]
    polygons += [e.add_building.polygon for e in scene.events]
    return max((len(p) for p in polygons), default=0)


def cell_bytes(scene: Scene) -> int:
    """Bytes a cell of the scene's navigation grid takes at the peak (see :data:`CELL_BYTES`)."""
    return CELL_BYTES + CORNER_BYTES * _most_corners(scene) + FIELD_BYTES * len(scene.orders)


def _round_up(x: float) -> float:
    """``x`` rounded up to three significant digits."""
    if x <= 0 or not math.isfinite(x):
        return x
    scale = 10.0 ** (math.floor(math.log10(x)) - 2)
    return math.ceil(x / scale - 1e-9) * scale


def smallest_cell(scene: Scene, limit: float) -> float | None:
    """The smallest ``navigation.cell`` (three digits, rounded up) whose grid fits ``limit``
    bytes, or None when no cell does (a grid of one cell takes more)."""
    w, h = scene.world.size
    per_cell = cell_bytes(scene)
    if per_cell > limit:
        return None
    cell = max(math.sqrt(w * h * per_cell / limit), 1e-300)
    for _ in range(200):
        c = _round_up(cell)
        if _cells_along(w, c) * _cells_along(h, c) * per_cell <= limit:
            return c
        cell *= 1.01
    return None


def memory_limit(budget: int | None = None) -> tuple[int, str]:
    """(bytes, what they are): ``budget`` (default :func:`default_budget`), or this machine's
    memory when that is less."""
    limit = default_budget() if budget is None else budget
    machine = machine_memory()
    if machine is not None and machine < limit:
        return machine, "this machine's memory"
    return limit, "the memory budget"


_GRID = "a navigation grid of "


def check_grid(scene: Scene, budget: int | None = None, record: bool = False) -> None:
    """:class:`SceneError`, one line naming ``navigation.cell``, when the navigation grid alone
    needs more memory than the limit (:func:`memory_limit`): the grid cannot be built. Its cells
    are counted in floats and logarithms, so a cell of 5e-324 (10^600 cells) is refused like
    one of 0.01, before anything adds them up. The cell it suggests leaves room for the rest of
    the estimate (``record``: with the replay buffers). A cell larger than the world's shorter
    side is refused too: the grid is then one row of cells, or one cell, whose centres lie
    outside a walled world, and an order finds no free formation slot."""
    if not builds_grid(scene):
        return
    side = min(scene.world.size)
    if scene.navigation.cell > side:
        raise SceneError(
            [
                f"{scene.source}: navigation.cell: {_short(scene.navigation.cell)} is more than "
                f"the world's shorter side ({side:g}); give at most {side:g}"
            ]
        )
    limit, what = memory_limit(budget)
    per_cell = cell_bytes(scene)
    cells = grid_cells(scene)
    need = cells * per_cell
    if need <= limit:
        return
    w, h = scene.world.size
    cell = scene.navigation.cell
    rest = math.fsum(p.bytes for p in estimate(scene, record) if not p.what.startswith(_GRID))
    smallest = smallest_cell(scene, limit - rest)
    fix = "no cell fits" if smallest is None else f"give at least {smallest:.3g} or a smaller world"
    if what == "the memory budget":
        fix += ", or raise --memory-budget"
    raise SceneError(
        [
            f"{scene.source}: navigation.cell: {_short(cell)} makes a grid of "
            f"{count_text(cells, _log10_cells(scene))} cells over the world {w:g} x {h:g}, "
            f"{size_text(need)} at {per_cell:,} bytes a cell, over {what} "
            f"({size_text(limit)}); {fix}"
        ]
    )


def _short(x: float) -> str:
    """``4``, ``0.01``, ``1e+06``; the shortest exact text below 10^-4 (``1e-300``,
    ``5e-324``, where six digits would say ``4.94066e-324``)."""
    return f"{x:.6g}" if abs(x) >= 1e-4 else repr(x)


def estimate(scene: Scene, record: bool = False) -> list[Part]:
    """The memory a run of ``scene`` takes, by part (bytes; see the module docstring)."""
    n = scene.unit_count + (scene.player is not None)
    parts = [
        Part("the program", BASE_BYTES, ""),
        Part(f"{n:,} units", n * UNIT_BYTES, "groups[*].count"),
        Part(
            "their neighbour pairs",
            n * _neighbours_per_unit(scene, n) * PAIR_BYTES,
            "groups[*].count, rules.radius_factor, rules.separation_factor",
        ),
    ]
    if scene.orders:
        k = min(scene.unit_count, DENSE_SLOT_UNITS)
        parts.append(
            Part(
                f"the slot deal of up to {k:,} units",
                ASSIGN_BYTES * k * k,
                "orders, groups[*].count",
            )
        )
    field = scene.obstacle_field.count if scene.obstacle_field is not None else 0
    k = len(scene.obstacles) + field
    if k:
        parts.append(Part(f"{k:,} obstacles", k * OBSTACLE_BYTES, "obstacle_field.count"))
    cells = grid_cells(scene)
    if cells is not None:
        parts.append(
            Part(
                f"{_GRID}{count_text(cells, _log10_cells(scene))} cells",
                cells * cell_bytes(scene),
                "world.size, navigation.cell",
            )
        )
    if record:
        chunk = max(1, round(1.0 / scene.world.dt))
        parts.append(
            Part(
                f"replay buffers of {chunk:,} ticks",
                RECORD_BUFFERS * chunk * n * STATE_BYTES,
                "groups[*].count, world.dt",
            )
        )
    return parts


def check_budget(scene: Scene, record: bool = False, budget: int | None = None) -> int:
    """The estimated bytes; :class:`SceneError` (one line: how much, which keys, the limit) when
    more than ``budget`` (default :func:`default_budget`) or the machine's memory."""
    check_grid(scene, budget, record)
    parts = estimate(scene, record)
    # floats throughout (a part may be infinite, never an integer too large to add to them)
    total = math.fsum(float(p.bytes) for p in parts)
    limit, what = memory_limit(budget)
    if total <= limit:
        return int(total)
    # what drives it: the largest parts the scene's keys set (a tenth of the total or more),
    # and the program itself (the interpreter and libraries) when it is that much too
    keyed = sorted((p for p in parts if p.keys), key=lambda p: -p.bytes)
    big = [p for p in keyed[:2] if p.bytes >= 0.1 * total]
    driven = [f"{p.what}: {size_text(p.bytes)} ({p.keys})" for p in big]
    if 0.1 * total <= BASE_BYTES:
        driven.append(f"the program itself: {size_text(BASE_BYTES)}")
    driven = "; ".join(driven)
    hint = (
        f"raise it with --memory-budget or {BUDGET_ENV}"
        if what == "the memory budget"
        else "lower those keys"
    )
    if limit < BASE_BYTES:  # no scene fits: the interpreter and libraries alone take more
        hint = f"no budget under {size_text(BASE_BYTES)} fits the program itself"
    raise SceneError(
        [
            f"{scene.source}: needs about {size_text(total)} of memory, more than {what} "
            f"({size_text(limit)}): {driven}; {hint}"
        ]
    )


# cells a side, at most, of the rasters the steering bins units and obstacles into (neighbour
# search, flock graph, give-way, obstacle lookup: cells of about the view radius, twice the
# separation distance, 1.5 L and half L at the finest). Their kernels count cells in int64: a
# unit length near 0 against the world (1e-9 in 400) makes a product past 2^63, a negative
# count and a ValueError at the first tick. 2^28 a side leaves room for a flock spreading well
# past an open world's edge.
RASTER_CELLS = 1 << 28


def check_rasters(scene: Scene) -> None:
    """:class:`SceneError` (one line naming the key) when the finest raster cell the steering
    sizes from the units' length (the longest unit's length times the smallest of the radius
    factors, twice the separation factor, and 1/2) would divide the world's longer side into
    more than :data:`RASTER_CELLS` cells."""
    lengths = [(f"groups[{i}].length", g.length) for i, g in enumerate(scene.groups)]
    if scene.player is not None:
        lengths.append(("player.length", scene.player.length))
    length_key, longest = max(lengths, key=lambda kv: kv[1])
    rules = scene.rules
    factors = [
        ("rules.radius_factor.wide", rules.radius_factor.wide),
        ("rules.radius_factor.limited", rules.radius_factor.limited),
        ("rules.radius_factor.narrow", rules.radius_factor.narrow),
        ("rules.separation_factor", 2 * rules.separation_factor),
        (length_key, 0.5),
    ]
    factor_key, factor = min(factors, key=lambda kv: kv[1])
    side = max(scene.world.size)
    finest = longest * factor
    if finest > 0 and side / finest <= RASTER_CELLS:
        return
    needed = side / RASTER_CELLS  # the finest cell that fits
    if factor_key == length_key:
        key, value, least = length_key, longest, needed / factor
    else:
        half = 0.5 if factor_key == "rules.separation_factor" else 1.0
        key, value, least = factor_key, factor * half, needed / longest * half
    raise SceneError(
        [
            f"{scene.source}: {key}: {_short(value)} makes the steering's finest cells "
            f"{_short(finest)} wide (the longest unit, {length_key} = {_short(longest)}), more "
            f"than {RASTER_CELLS:,} across the world's side of {side:g}; give at least "
            f"{_round_up(least):.3g}"
        ]
    )


def check_runs(
    scene: Scene, seed: int | None = None, record: bool = False, budget: int | None = None
) -> None:
    """Every step that can refuse ``scene`` before a run starts: physics that can run
    (:mod:`rigidflock.scene.stability`), the steering's rasters (:func:`check_rasters`), the
    navigation grid and the memory estimate (:func:`check_budget`), then the obstacle field
    placement with ``seed`` (default: the scene's). Raises :class:`SceneError`."""
    check_stability(scene)
    check_rasters(scene)
    check_budget(scene, record, budget)
    check_generation(scene, seed)
