"""``rigidflock bench --frames N,...``: the RTS world's frame times, tick by tick.

A game shows one frame per tick, so one slow tick is a visible hitch however fast the others are.
For each size a generated RTS world (:func:`frames_scene`): an open field with walls at the
world's density of :func:`~rigidflock.bench.bench_scene` (one unit per 15 x 15), the units in a
disc in the west, one building in the middle of the field and one move order to the east, given
after ``LEAD_TICKS`` ticks; ``DROP_SECONDS`` after it a second building drops across the route
and every group routes again. Each size runs in its own process: the ticks from the order until
every unit stands on its slot (at most ``ticks``), each timed alone (the whole
``Simulation.step``), then the same units without the order for ``BASE_TICKS`` ticks.

Reported per size: the median, 99th percentile and slowest tick and the last two as multiples of
the median (a frame-rate target is a ratio: the machine's load moves the milliseconds), the
tick and cause of the slowest (the order, the building, a slot deal), the ticks each took to
arrive, and ``orders_ratio``: the median tick under orders over the median tick of the same
units without them, both measured in this process.
"""

from __future__ import annotations

import multiprocessing as mp
import time

import numpy as np

from rigidflock.heap import fix_mmap_threshold
from rigidflock.scene import Scene, parse_scene

DEFAULT_FRAME_SIZES = (1000, 5000)
DEFAULT_FRAME_TICKS = 12000  # at most this many ticks from the order (200 s)
LEAD_TICKS = 30  # ticks before the order (the world settles, the kernels are warm)
DROP_SECONDS = 5.0  # the building drops across the route this long after the order
BASE_TICKS = 300  # ticks of the same units without orders
SPACING = 15.0  # world units of field per unit (as bench_scene)


def frames_scene(n: int, orders: bool = True) -> Scene:
    """The frame-time world for ``n`` units (module docstring); ``orders`` False: the same
    world with no order and no building dropped."""
    side = float(np.sqrt(n) * SPACING * 1.15)  # the spawn disc's diameter, plus a margin
    goal = 1.4 * side + 60.0  # past the disc's front by about the formation's radius
    w, h = goal + 0.6 * side, 1.5 * side
    cy = h / 2
    drop_tick = LEAD_TICKS + int(round(DROP_SECONDS * 60))
    b = 0.05 * side  # half a building's short side
    fixed, dropped = side + 20.0, 0.5 * (side + 20.0 + goal)  # the buildings' centres
    events = (
        f"""
[[orders]]
tick = {LEAD_TICKS}
select = {{ family = "army" }}
goal = [{goal}, {cy}]

[[events]]
tick = {drop_tick}
add_building = {{ rect = [{dropped - b}, {cy - 0.25 * side}, {dropped + b}, {cy + 0.05 * side}] }}
"""
        if orders
        else ""
    )
    return parse_scene(
        f"""
name = "frames {n}"
seed = 1
[world]
size = [{w}, {h}]
bounds = "walls"
[rules]
view = "wide"
chase = false
radius_factor = {{ wide = 5.0, limited = 5.0, narrow = 5.0 }}
separation_factor = 2.5
feeler_factor = 5.0
[navigation]
cell = 8.0
[[buildings]]
rect = [{fixed - b}, {cy - 0.15 * side}, {fixed + b}, {cy + 0.15 * side}]
[[groups]]
family = "army"
count = {n}
heading = 0
spawn = {{ center = [{0.5 * side}, {cy}], radius = {side / 2 - 10.0} }}
{events}
""",
        f"<frames {n}>",
    )


def _deal_tick(sim, tick: int) -> bool:
    """Whether a group of ``sim`` re-deals its slots on ``tick``."""
    from rigidflock.rts.control import REASSIGN_TICKS

    return any((tick - g.tick) % REASSIGN_TICKS == 0 for g in sim.orders.groups.values())


def frames_one(n: int, ticks: int) -> dict:
    """Time each tick of the frame-time world of ``n`` units in this process (module
    docstring)."""
    from rigidflock.runs.warmup import warm_up
    from rigidflock.sim import Simulation

    warm_up(frames_scene(50), 3)
    scene = frames_scene(n)
    sim = Simulation(scene)
    for _ in range(LEAD_TICKS):
        sim.step()
    drop = scene.events[0].tick
    times, causes, searches = [], [], []
    clock = time.perf_counter
    arrived_tick = None
    while len(times) < ticks:
        tick = sim.tick
        cause = (
            "order"
            if tick == LEAD_TICKS
            else "building"
            if tick == drop
            else "slot deal"
            if _deal_tick(sim, tick)
            else ""
        )
        s0 = sim.orders.search_seconds
        t0 = clock()
        sim.step()
        times.append(clock() - t0)
        searches.append(sim.orders.search_seconds - s0)
        causes.append(cause)
        groups = sim.orders.groups.values()
        if sim.tick > drop and groups and all(g.arrived.all() for g in groups):
            arrived_tick = sim.tick - LEAD_TICKS
            break
    t = np.asarray(times)
    base = Simulation(frames_scene(n, orders=False))
    for _ in range(LEAD_TICKS):
        base.step()
    plain = []
    for _ in range(BASE_TICKS):
        t0 = clock()
        base.step()
        plain.append(clock() - t0)
    med = float(np.median(t))
    # the median of the marching ticks (the first BASE_TICKS after the order) against the
    # plain world's: the same units over the same stretch of time
    march = float(np.median(t[:BASE_TICKS]))
    worst = int(np.argmax(t))
    arrived = sum(int(g.arrived.sum()) for g in sim.orders.groups.values())
    return {
        "units": n,
        "ticks": len(t),
        "all_arrived": arrived_tick is not None,
        "arrived": arrived,
        "arrival_ticks": arrived_tick,
        "median_seconds": med,
        "p99_seconds": float(np.percentile(t, 99)),
        "max_seconds": float(t.max()),
        "p99_ratio": float(np.percentile(t, 99)) / med,
        "max_ratio": float(t.max()) / med,
        "slowest_tick": worst,
        "slowest_cause": causes[worst] or "other",
        "slowest_search_seconds": searches[worst],
        "route_searches": sim.orders.searches,
        "route_search_seconds": sim.orders.search_seconds,
        "median_plain_seconds": float(np.median(plain)),
        "median_march_seconds": march,
        "orders_ratio": march / float(np.median(plain)),
        "top": [
            {"tick": int(i), "seconds": float(t[i]), "cause": causes[i] or "other"}
            for i in np.argsort(t)[::-1][:5]
        ],
    }


def _child(n, ticks, queue):
    fix_mmap_threshold()
    try:
        queue.put(frames_one(n, ticks))
    except BaseException as e:  # report, never hang the parent
        queue.put({"units": n, "error": f"{type(e).__name__}: {e}"})


def run_frames(sizes, ticks: int, progress=None) -> list[dict]:
    """Each size in a fresh process; ``progress(result)`` after each."""
    ctx = mp.get_context("spawn")
    results = []
    for n in sizes:
        queue = ctx.Queue()
        proc = ctx.Process(target=_child, args=(n, ticks, queue))
        proc.start()
        result = queue.get()
        proc.join()
        result["scenario"] = "frames"
        results.append(result)
        if progress is not None:
            progress(result)
    return results


def format_frames(results: list[dict]) -> str:
    """The frame-time table: one row per size."""
    head = (
        f"{'units':>7} {'ticks':>6} {'arrived':>8} {'median ms':>10} {'p99 ms':>8} "
        f"{'p99 x':>6} {'max ms':>8} {'max x':>6}  {'slowest (cause)':<24} {'orders x':>8}"
    )
    lines = [head]
    for r in results:
        if "error" in r:
            lines.append(f"{r['units']:>7} failed: {r['error']}")
            continue
        arrived = "all" if r["all_arrived"] else f"{r['arrived']}"
        slowest = f"tick {r['slowest_tick']} ({r['slowest_cause']})"
        lines.append(
            f"{r['units']:>7} {r['ticks']:>6} {arrived:>8} {r['median_seconds'] * 1e3:>10.2f} "
            f"{r['p99_seconds'] * 1e3:>8.2f} {r['p99_ratio']:>6.2f} "
            f"{r['max_seconds'] * 1e3:>8.2f} {r['max_ratio']:>6.2f}  {slowest:<24} "
            f"{r['orders_ratio']:>8.2f}"
        )
    lines.append(
        "(ticks from the order; p99 x, max x: over the median tick; orders x: the median tick "
        f"of the first {BASE_TICKS} under the order over the same units' without it)"
    )
    return "\n".join(lines)
