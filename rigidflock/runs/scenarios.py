"""The scored scenario suite (``rigidflock score``): scenes modelled on SteerSuite's
classic test cases, in ``scenes/scenarios/`` (doorway one and two way, wall squeeze, double
squeeze, hallway one and two way, bottleneck squeeze with 1,000 units, 4-way oncoming, oncoming
groups, 4-way confusion).

Each scenario runs until every ordered unit stands on its slot or its time limit passes: the
limit the RTS tests use, 2 x route / group speed + N x L / group speed + 20 s, the largest over
its groups. Per scenario: fraction arrived, seconds to 95% and to 100% (from the first order),
unit and wall contacts, pinned and stuck unit-seconds, the longest pin, and a composite score
(:func:`score`).
"""

from __future__ import annotations

import time
from concurrent.futures import as_completed
from pathlib import Path

import numpy as np

from rigidflock.bundled import scenario_path
from rigidflock.runs.collector import Collector
from rigidflock.scene import load_scene
from rigidflock.scene.overrides import apply_overrides, derive
from rigidflock.sim import Simulation

NAMES = (
    "doorway_one_way",
    "doorway_two_way",
    "wall_squeeze",
    "double_squeeze",
    "hallway_one_way",
    "hallway_two_way",
    "bottleneck_squeeze",
    "four_way_oncoming",
    "oncoming_groups",
    "four_way_confusion",
)


def time_limit(groups, length: float) -> float:
    """Seconds the groups may take (the RTS tests' limit), the largest over ``groups``. A group
    whose goal no route reaches is given the straight line from its path's start to its goal
    instead (the run then ends at a limit and reports it unarrived, rather than never)."""

    def route(g) -> float:
        if np.isfinite(g.route_length):
            return g.route_length
        return float(np.hypot(*(g.goal - g.path[0])))

    return max(2 * route(g) / g.speed + len(g.members) * length / g.speed + 20.0 for g in groups)


def score(r: dict) -> float:
    """One number per scenario, 0..100: 100 x the fraction arrived, less up to 25 for the time
    the last unit took against the limit, less 2 per second of the longest pin beyond 1 s (at
    most 25), less 1 per unit-second stuck per unit (at most 10)."""
    s = 100.0 * r["arrived_fraction"]
    t = r["t100"] if r["t100"] is not None else r["limit"]
    s -= 25.0 * min(1.0, t / r["limit"])
    s -= min(25.0, 2.0 * max(0.0, r["longest_pin_seconds"] - 1.0))
    s -= min(10.0, r["stuck_seconds"] / max(r["units"], 1))
    return round(max(s, 0.0), 2)


def scenario_scene(path, reaction_ticks: int | None = None, overrides=()):
    """The scenario scene at ``path`` with ``overrides`` (``PATH=VALUE`` strings, as ``--set``
    takes them) and ``world.reaction_ticks`` (None: its own)."""
    scene = apply_overrides(load_scene(path), overrides)
    if reaction_ticks is not None:
        scene = derive(scene, {"world.reaction_ticks": reaction_ticks})
    return scene


def run_scenario(
    path, seed: int | None = None, reaction_ticks: int | None = None, overrides=()
) -> dict:
    """Run one scenario scene to completion or its limit; its figures as a dict.
    ``reaction_ticks``, ``overrides``: as :func:`scenario_scene`."""
    scene = scenario_scene(path, reaction_ticks, overrides)
    sim = Simulation(scene, seed=seed)
    acc = Collector(sim, 1.0)
    dt = scene.world.dt
    start = time.perf_counter()
    while not sim.orders.groups:
        acc.add(sim.step())
    first = sim.tick
    groups = list(sim.orders.groups.values())
    n = sum(len(g.members) for g in groups)
    L = float(sim.units.length.max())
    limit = time_limit(groups, L)
    t95 = t100 = None
    while (sim.tick - first) * dt < limit:
        events = sim.step()
        acc.add(events)
        arrived = sum(int(g.arrived.sum()) for g in groups)
        t = (sim.tick - first) * dt
        if t95 is None and arrived >= 0.95 * n:
            t95 = t
        if all(g.arrival_tick is not None for g in groups):
            t100 = t
            break
    m = acc.summary(False)
    first_arrival = [g.arrival_tick for g in groups]
    r = {
        "scenario": Path(path).stem,
        "seed": sim.seed,
        "reaction_ticks": scene.world.reaction_ticks,
        "neighbour_ticks": sim.neighbour_ticks,
        "set": list(overrides),
        "units": n,
        "limit": round(limit, 2),
        "arrived_fraction": max(
            sum(int(g.arrived.sum()) for g in groups),
            sum(len(g.members) for g, a in zip(groups, first_arrival, strict=True) if a),
        )
        / n,
        "t95": None if t95 is None else round(t95, 2),
        "t100": None if t100 is None else round(t100, 2),
        "unit_contacts": m["unit_contacts"],
        "wall_contacts": m["wall_contacts"] + m["obstacle_contacts"],
        "pinned_seconds": round(m["pinned_seconds"], 2),
        "longest_pin_seconds": round(m["longest_pin_seconds"], 2),
        "stuck_seconds": round(m["stuck_seconds"], 2),
        "longest_lock_seconds": round(m["longest_lock_seconds"], 2),
        "seconds": round(time.perf_counter() - start, 2),
    }
    r["score"] = score(r)
    return r


def run_many(
    jobs, progress=None, workers: int = 1, reaction_ticks: int | None = None, overrides=()
) -> list[dict]:
    """Each ``(name, seed)`` of ``jobs`` (seed None: the scene's own), results in the order of
    ``jobs``; ``progress``: optional callable(result), as each finishes; ``reaction_ticks``,
    ``overrides``: as :func:`run_scenario`. ``workers`` > 1 (and
    more than one job): that many at once, each in its own process with one numba thread
    (:func:`~rigidflock.runs.executors.local_executor`); a run's figures are the same wherever
    it runs, all but its wall-clock ``seconds`` (a worker's first also loads the kernels)."""
    paths = [(scenario_path(name), seed) for name, seed in jobs]
    out: list = [None] * len(paths)
    if workers <= 1 or len(paths) <= 1:
        for k, (path, seed) in enumerate(paths):
            out[k] = run_scenario(path, seed, reaction_ticks, overrides)
            if progress is not None:
                progress(out[k])
        return out
    from rigidflock.runs.executors import local_executor

    with local_executor(min(workers, len(paths))) as ex:
        pending = {
            ex.submit(run_scenario, path, seed, reaction_ticks, overrides): k
            for k, (path, seed) in enumerate(paths)
        }
        try:
            for f in as_completed(pending):
                out[pending[f]] = f.result()
                if progress is not None:
                    progress(out[pending[f]])
        except BaseException:  # a run failed, or Ctrl-C: do not start the rest
            ex.shutdown(wait=False, cancel_futures=True)
            raise
    return out


def format_table(results: list[dict], seeds: bool = False) -> str:
    """The suite's results as printed by ``rigidflock score``; ``seeds``: with a
    column of the seed each row ran (``--seeds``)."""

    def f(x):
        return "-" if x is None else f"{x:.1f}"

    head = (f"{'scenario':20s} {'seed':>6s} " if seeds else f"{'scenario':20s} ") + (
        f"{'units':>5s} {'arrived':>7s} {'t95 s':>7s} {'t100 s':>7s} "
        f"{'limit s':>7s} {'unit c':>6s} {'wall c':>6s} {'pinned':>7s} {'pin max':>7s} "
        f"{'stuck':>7s} {'score':>6s}"
    )
    lines = [head]
    lines.extend(
        (f"{r['scenario']:20s} {r['seed']:6d} " if seeds else f"{r['scenario']:20s} ")
        + f"{r['units']:5d} {r['arrived_fraction']:7.0%} {f(r['t95']):>7s} "
        f"{f(r['t100']):>7s} {r['limit']:7.1f} {r['unit_contacts']:6d} {r['wall_contacts']:6d} "
        f"{r['pinned_seconds']:7.1f} {r['longest_pin_seconds']:7.1f} "
        f"{r['stuck_seconds']:7.1f} {r['score']:6.1f}"
        for r in results
    )
    if results:
        lines.append(f"{'mean score':>20s} {np.mean([r['score'] for r in results]):.1f}")
    return "\n".join(lines)
