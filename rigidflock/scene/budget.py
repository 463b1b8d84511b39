"""What a scene will cost before anything is allocated, and every step that can refuse it.

:func:`estimate` adds up the memory a run of the scene takes: the units (bodies, arrays and the
steering's buffers, about 5 kB each as ``rigidflock bench`` measures), their neighbour pairs (every
unit's neighbours within its view radius, packed at the separation distance), the obstacles, the
navigation grid of RTS scenes (about 400 bytes a cell, built when a scene has walls, buildings,
orders or events), the slot deal of an ordered group (dense cost matrices of up to 2,000 units)
and, when recording, the replay buffers (a few chunks of one second of states).

:func:`check_runs` is what ``rigidflock check`` and ``rigidflock run`` both do after reading a
scene: the memory estimate against the budget, then the obstacle field placement of the run's
seed. So a scene that ``check`` passes is one that ``run`` starts.

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
CELL_BYTES = 400  # per navigation cell: the grid, its neighbour table and one route search
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
    """``12.3 GiB``, ``512 MiB``, ``1.5 TiB``."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
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


def grid_cells(scene: Scene) -> int | None:
    """Cells of the navigation grid, or None when the run never builds one."""
    if not (scene.walls or scene.buildings or scene.orders or scene.events):
        return None
    w, h = scene.world.size
    cell = scene.navigation.cell
    return max(1, math.ceil(w / cell)) * max(1, math.ceil(h / cell))


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
                f"a navigation grid of {cells:,} cells",
                cells * CELL_BYTES,
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
    parts = estimate(scene, record)
    total = sum(p.bytes for p in parts)
    limit = default_budget() if budget is None else budget
    machine = machine_memory()
    what = "the memory budget"
    if machine is not None and machine < limit:
        limit, what = machine, "this machine's memory"
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


def check_runs(
    scene: Scene, seed: int | None = None, record: bool = False, budget: int | None = None
) -> None:
    """Every step that can refuse ``scene`` before a run starts: physics that can run
    (:mod:`rigidflock.scene.stability`), the memory estimate, then the
    obstacle field placement with ``seed`` (default: the scene's). Raises :class:`SceneError`."""
    check_stability(scene)
    check_budget(scene, record, budget)
    check_generation(scene, seed)
