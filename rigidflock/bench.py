"""``rigidflock bench``: how the tick scales with the unit count, against pymunk itself.

For each size a generated world (:func:`bench_scene`): constant density (one unit per
``spacing``^2 of a disc), a view radius of 5 unit lengths, separation at 2.5 L, one obstacle per
200 units on a lattice, walls. Each size runs in its own process (so peak memory is that size's
alone): build, ``warmup`` ticks, then ``ticks`` timed ticks. Reported per size:

- ``tick_seconds``: one full ``Simulation.step`` (state read, neighbour search, rules, forces,
  force write, pymunk step);
- ``physics_step_seconds``: the bare pymunk step, the floor rigidflock is measured against:
  ``Space.step`` over the same bodies and contacts in as many ticks right after the timed ones,
  run with nothing beside the step (:func:`bare_steps`); ``ratio`` is tick over physics step.
  (Timed inside the timed ticks, the ``physics`` phase of ``split``, a step can be slower: the
  steering may run beside it on the other core, sharing the memory bus.)
- ``split``: seconds per tick of each phase, plus ``metrics`` (the run summary's per-tick
  measurements, which ``run`` adds on top of the tick); with ``reaction_ticks`` 1 the
  ``neighbours`` and ``rules`` phases run beside ``physics``, with ``neighbour_ticks`` 1 (``--set
  world.neighbour_ticks=1``) ``neighbours`` and the pair pass's share of ``rules`` do, and
  ``wait`` is the time the tick waited for them after the step;
- ``run_tick_seconds`` and ``run_ratio``: what ``rigidflock run`` pays per tick (the tick, the
  state check and the run metrics, as :func:`rigidflock.runs.runner.run_scene` does them), and
  that over the tick;
- ``peak_rss_bytes`` and ``bytes_per_unit``: the process's peak resident memory above its size
  after imports.

With a ``behaviour`` (``--behaviour FUNCTION``), each size is timed twice, one after the other:
without it, then with that behaviour steering every unit (weight 1, no params); the second row
has ``"behaviour"`` set, its ``split`` a ``behaviours`` phase (the behaviour's calls and the
conversion of its directions to bow forces), and ``behaviour_cost``: its tick over the tick
without it, less one (:func:`behaviour_lines` prints it).
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import resource
import time

import numpy as np

from rigidflock.heap import fix_mmap_threshold
from rigidflock.scene import Scene, parse_scene
from rigidflock.scene.overrides import apply_overrides

PHASES = ("read", "neighbours", "rules", "forces", "write", "physics", "wait")
COLUMN = {"physics": "step"}  # the table's name for the step timed in the tick


def bench_scene(
    n: int, spacing: float = 15.0, reaction_ticks: int | None = None, overrides=()
) -> Scene:
    """The benchmark world for ``n`` units (see the module docstring), with the scene's
    ``world.reaction_ticks`` (1: the steering decided beside the physics step, 0: before it;
    None: the key's default) and ``overrides`` (``PATH=VALUE`` strings, as ``--set`` takes
    them; SceneError for a bad one)."""
    if overrides:
        return apply_overrides(bench_scene(n, spacing, reaction_ticks), overrides)
    side = float(np.sqrt(n) * spacing * 1.15)  # the spawn disc fills the square
    r = side / 2 - 10.0
    reaction = "" if reaction_ticks is None else f"reaction_ticks = {reaction_ticks}"
    return parse_scene(
        f"""
name = "bench {n}"
seed = 1
[world]
size = [{side}, {side}]
bounds = "walls"
{reaction}
[rules]
view = "wide"
chase = false
radius_factor = {{ wide = 5.0, limited = 5.0, narrow = 5.0 }}
separation_factor = 2.5
feeler_factor = 5.0
[[groups]]
count = {n}
spawn = {{ center = [{side / 2}, {side / 2}], radius = {r} }}
{_obstacle_lattice(n, side)}
""",
        f"<bench {n}>",
    )


def mesa_density_scene(n: int = 1000, view_radius: float = 20.0) -> Scene:
    """``n`` units at the density of Mesa's Boid Flockers example (100 boids on a 100 x 100
    torus, vision 10), scaled so Mesa's vision is this scene's view radius (5 L = 20): a
    wrap-around square of side sqrt(n) * 100 / 10 * (view_radius / 10), units placed uniformly
    at random, no obstacles."""
    side = float(np.sqrt(n) * 10.0 * view_radius / 10.0)
    rng = np.random.default_rng(7)
    pos = rng.uniform(0.0, side, size=(n, 2))
    positions = ", ".join(f"[{x:.3f}, {y:.3f}]" for x, y in pos)
    return parse_scene(
        f"""
name = "mesa density {n}"
seed = 1
[world]
size = [{side}, {side}]
bounds = "wrap"
[rules]
view = "wide"
chase = false
radius_factor = {{ wide = {view_radius / 4.0}, limited = 5.0, narrow = 5.0 }}
[[groups]]
count = {n}
spawn = {{ positions = [{positions}] }}
""",
        f"<mesa density {n}>",
    )


def bench_orders_scene(n: int) -> Scene:
    """The benchmark world with every unit under a move order: four orders, one per quadrant,
    each sending its quadrant's units to the opposite quadrant."""
    base = bench_scene(n)
    side = base.world.size[0]
    q = side / 4
    orders = []
    for qx, qy in ((0, 0), (1, 0), (0, 1), (1, 1)):
        x0, y0 = qx * side / 2, qy * side / 2
        gx, gy = (1 - qx) * side / 2 + q + 30.0, (1 - qy) * side / 2 + q + 30.0
        orders.append(
            f"[[orders]]\nselect = {{ rect = [{x0}, {y0}, {x0 + side / 2}, {y0 + side / 2}] }}\n"
            f"goal = [{gx}, {gy}]"
        )
    text = base.text + "\n[navigation]\ncell = 8.0\n" + "\n".join(orders) + "\n"
    return parse_scene(text, f"<bench orders {n}>")


def bench_orders(n: int, ticks: int, warmup: int) -> dict:
    """Ticks per second with every unit under orders, and the route searches' time."""
    from rigidflock.sim import Simulation

    sim = Simulation(bench_orders_scene(n))
    for _ in range(warmup):
        sim.step()
    t0 = time.perf_counter()
    for _ in range(ticks):
        sim.step()
    tick = (time.perf_counter() - t0) / ticks
    o = sim.orders
    return {
        "units": n,
        "orders": len(sim.scene.orders),
        "reaction_ticks": sim.scene.world.reaction_ticks,
        "neighbour_ticks": sim.neighbour_ticks,
        "ticks_per_second": 1.0 / tick,
        "tick_seconds": tick,
        "route_searches": o.searches,
        "route_search_seconds": o.search_seconds,
        "route_search_seconds_each": o.search_seconds / max(o.searches, 1),
        "grid_cells": o.grid.n,
    }


def _obstacle_lattice(n: int, side: float) -> str:
    """One obstacle (radius 8) per 200 units on a regular lattice over the world."""
    k = max(1, int(round(np.sqrt(n / 200))))
    step = side / k
    rows = []
    for a in range(k):
        for b in range(k):
            x, y = (a + 0.5) * step, (b + 0.5) * step
            rows.append(f"[[obstacles]]\ncenter = [{x}, {y}]\nradius = 8.0")
    return "\n".join(rows)


def _rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def bare_steps(sim, ticks: int) -> float:
    """Seconds per bare pymunk step of ``sim``: its ``physics`` phase over ``ticks`` more ticks
    with nothing beside the step (no list built ahead; a decision beside the step made after it,
    in this thread), so the same bodies, forces and contacts as the timed ticks."""
    threaded = sim.threaded
    sim.threaded = False
    sim.steerer.build_ahead = lambda: None  # this instance only
    before = sim.timings["physics"]
    try:
        for _ in range(ticks):
            sim.step()
    finally:
        sim.threaded = threaded
        del sim.steerer.build_ahead
    return (sim.timings["physics"] - before) / ticks


def behaviour_override(function: str) -> str:
    """The ``--set`` that gives the bench world one behaviour, ``function``, on every unit."""
    return f'behaviours=[{{ function = "{function}" }}]'


def bench_one(
    n: int, ticks: int, warmup: int, reaction_ticks: int | None = None, overrides=()
) -> dict:
    """Build and time one size in this process."""
    from rigidflock.runs.collector import Collector
    from rigidflock.runs.runner import check_state
    from rigidflock.runs.warmup import warm_up
    from rigidflock.sim import Simulation

    # load the compiled kernels, the tick's and the run metrics', before the memory baseline (a
    # first metrics call inside the timed loop once cost ~5 ms and showed as "run x" 5)
    warm_up(bench_scene(50), 3)
    base = _rss_bytes()
    t0 = time.perf_counter()
    sim = Simulation(bench_scene(n, reaction_ticks=reaction_ticks, overrides=overrides))
    build = time.perf_counter() - t0
    for _ in range(warmup):
        sim.step()
    sim.timings.clear()
    acc = Collector(sim, 2.0 * sim.rules.separation_factor * float(sim.units.length.max()))
    metrics = 0.0
    t0 = time.perf_counter()
    for _ in range(ticks):  # what `run` does per tick, with the run metrics timed apart
        events = sim.step()
        t1 = time.perf_counter()
        check_state(sim.state)
        acc.add(events)
        metrics += time.perf_counter() - t1
    total = time.perf_counter() - t0
    tick = (total - metrics) / ticks
    split = {k: sim.timings.get(k, 0.0) / ticks for k in PHASES}
    split["metrics"] = metrics / ticks
    if sim.scene.behaviours:
        split["behaviours"] = sim.timings.get("behaviours", 0.0) / ticks
    physics = bare_steps(sim, ticks)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base
    return {
        "units": sim.units.n,  # n, unless --set changed the group's count
        "reaction_ticks": sim.scene.world.reaction_ticks,
        "neighbour_ticks": sim.neighbour_ticks,
        "set": list(overrides),
        "behaviour": sim.scene.behaviours[0].function if sim.scene.behaviours else None,
        "ticks": ticks,
        "build_seconds": build,
        "tick_seconds": tick,
        "ticks_per_second": 1.0 / tick,
        "physics_step_seconds": physics,
        "ratio": tick / physics if physics > 0 else None,
        "run_tick_seconds": total / ticks,
        "run_ticks_per_second": ticks / total,
        "run_ratio": total / ticks / tick,
        "split": split,
        "neighbour_rebuilds": sim.steerer.verlet.builds,
        "peak_rss_bytes": peak,
        "bytes_per_unit": peak / sim.units.n,
    }


def _child(n, ticks, warmup, queue, kind="flock", reaction_ticks=None, overrides=()):
    fix_mmap_threshold()  # as the command that started it (spawn: nothing is inherited)
    try:
        queue.put(
            bench_one(n, ticks, warmup, reaction_ticks, overrides)
            if kind == "flock"
            else bench_orders(n, ticks, warmup)
        )
    except BaseException as e:  # report, never hang the parent
        queue.put({"units": n, "error": f"{type(e).__name__}: {e}"})


def run_bench(
    sizes,
    ticks: int,
    warmup: int,
    progress=None,
    orders: int = 0,
    reaction_ticks: int | None = None,
    overrides=(),
    behaviour: str | None = None,
) -> list[dict]:
    """Each size in a fresh process; ``progress(result)`` after each. With ``orders`` > 0, one
    more run: that many units under move orders (its row has ``"scenario": "orders"``; the
    others ``"scenario": "flock"``). ``reaction_ticks``: the flock scenes' (0, 1 or None: the
    key's default); ``overrides``: ``PATH=VALUE`` changes to the flock scenes; ``behaviour``:
    each flock size timed again with it (see the module docstring)."""
    ctx = mp.get_context("spawn")
    results = []
    jobs = [(n, "flock", tuple(overrides)) for n in sizes]
    if behaviour is not None:
        with_it = (*overrides, behaviour_override(behaviour))
        jobs = [
            job for n in sizes for job in ((n, "flock", tuple(overrides)), (n, "flock", with_it))
        ]
    jobs += [(orders, "orders", ())] if orders else []
    for n, kind, sets in jobs:
        queue = ctx.Queue()
        proc = ctx.Process(
            target=_child, args=(n, ticks, warmup, queue, kind, reaction_ticks, sets)
        )
        proc.start()
        result = queue.get()
        proc.join()
        result["scenario"] = kind
        if result.get("behaviour") and results and "error" not in results[-1]:
            result["behaviour_cost"] = result["tick_seconds"] / results[-1]["tick_seconds"] - 1
        results.append(result)
        if progress is not None:
            progress(result)
    return results


def behaviour_lines(results: list[dict]) -> list[str]:
    """For each size timed with a behaviour: its tick against the one without, in one line."""
    lines = []
    for before, r in itertools.pairwise(results):
        if r.get("behaviour_cost") is None:
            continue
        lines.append(
            f"{r['units']:>7} units with behaviour {r['behaviour']}: tick "
            f"{r['tick_seconds'] * 1e3:.3f} ms against {before['tick_seconds'] * 1e3:.3f} ms "
            f"without: {r['behaviour_cost']:+.1%} (its calls and forces "
            f"{r['split']['behaviours'] * 1e3:.3f} ms a tick)"
        )
    return lines


def format_table(results: list[dict]) -> str:
    head = (
        f"{'units':>7} {'ticks/s':>9} {'tick ms':>8} {'physics ms':>10} {'ratio':>6} "
        + " ".join(f"{COLUMN.get(p, p):>10}" for p in (*PHASES, "metrics"))
        + f" {'B/unit':>8} {'run ms':>8} {'run/s':>7} {'run x':>6}"
    )
    lines = [head, " " * 47 + "(ms per tick)" + " " * 73 + "(run: tick + metrics)"]
    tail = behaviour_lines(results)
    for r in results:
        if r.get("scenario") == "orders" and "error" not in r:
            lines.append(
                f"orders: {r['units']} units under {r['orders']} move orders: "
                f"{r['ticks_per_second']:.0f} ticks/s; route searches: {r['route_searches']} "
                f"(one per order, plus re-routes), {r['route_search_seconds_each'] * 1e3:.1f} ms "
                f"each over {r['grid_cells']} cells"
            )
            continue
        if "error" in r:
            lines.append(f"{r['units']:>7} failed: {r['error']}")
            continue
        if r.get("behaviour"):
            lines.append(f"  with behaviour {r['behaviour']}:")
        s = r["split"]
        lines.append(
            f"{r['units']:>7} {r['ticks_per_second']:>9.0f} {r['tick_seconds'] * 1e3:>8.3f} "
            f"{r['physics_step_seconds'] * 1e3:>10.3f} {r['ratio']:>6.2f} "
            + " ".join(f"{s[p] * 1e3:>10.3f}" for p in (*PHASES, "metrics"))
            + f" {r['bytes_per_unit']:>8.0f} {r['run_tick_seconds'] * 1e3:>8.3f}"
            f" {r['run_ticks_per_second']:>7.0f} {r['run_ratio']:>6.3f}"
        )
    return "\n".join(lines + tail)


def plot(results: list[dict], path) -> None:
    """Ticks per second against units, log axes, with the bare-physics line beside it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [r for r in results if "error" not in r and r.get("scenario") != "orders"]
    units = [r["units"] for r in ok]
    fig, ax = plt.subplots(figsize=(6.4, 4.4), dpi=120)
    ax.loglog(units, [r["ticks_per_second"] for r in ok], "o-", label="rigidflock tick")
    ax.loglog(
        units,
        [1 / r["physics_step_seconds"] for r in ok],
        "s--",
        label="pymunk step (same bodies and contacts)",
    )
    ax.axhline(100, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("units")
    ax.set_ylabel("ticks per second")
    ax.set_title("rigidflock bench")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
