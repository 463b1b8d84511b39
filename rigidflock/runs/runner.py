"""Headless runs: step a scene for a number of ticks, gather metrics, write traces.

This is what ``rigidflock run`` does, as a function::

    result = run_scene(load_scene("scenes/aidemo4.toml"), ticks=600)
    result.metrics["polarization_final"]
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rigidflock.model.behaviours import BehaviourError
from rigidflock.outputs import atomic_open, write_json
from rigidflock.runs.collector import Collector
from rigidflock.runs.trace import TraceWriter
from rigidflock.scene import Scene
from rigidflock.sim import Simulation


class RunFailed(Exception):
    """The simulation produced an impossible state (NaN or infinite values), or a user's
    behaviour failed (raised, or returned the wrong shape or non-finite values)."""


@dataclass
class RunResult:
    scene: Scene
    seed: int
    ticks: int
    units: int
    wall_seconds: float
    metrics: dict
    series: list[dict] | None = None  # rows of the series, when sampled

    @property
    def ticks_per_second(self) -> float:
        return self.ticks / self.wall_seconds if self.wall_seconds > 0 else float("inf")

    def as_json(self) -> dict:
        return {
            "scene": self.scene.name or self.scene.source,
            "ticks": self.ticks,
            "units": self.units,
            "seed": self.seed,
            "wall_seconds": self.wall_seconds,
            "ticks_per_second": self.ticks_per_second,
            "metrics": self.metrics,
        }


def check_state(st) -> None:
    """Raise RunFailed when a unit's position or velocity is not finite (a sum is finite only
    when every term is, so the common case costs two sums, not two boolean arrays)."""
    if np.isfinite(st.pos.sum()) and np.isfinite(st.vel.sum()):
        return
    if not (np.isfinite(st.pos).all() and np.isfinite(st.vel).all()):
        raise RunFailed(f"non-finite unit state at tick {st.tick}")


def flock_link(scene: Scene) -> float:
    """Link distance of the flock graph: twice the separation distance of the largest unit, so
    units that keep their separation from each other still count as one flock."""
    lengths = [g.length for g in scene.groups]
    return 2.0 * scene.rules.separation_factor * max(lengths)


def route_done(sim, group) -> float:
    """How far along its route an order group is, 0..1: one less the mean distance its members
    still have to go (0 for those on their slots) over the route's length when ordered."""
    dist = group.field.dist[sim.orders.grid.cell_of(sim.state.pos[group.members])]
    if not np.isfinite(group.route_length):
        return 0.0  # no route reaches the goal: nothing of it is done
    left = np.where(group.arrived, 0.0, np.where(np.isfinite(dist), dist, group.route_length))
    if group.route_length <= 0:
        return 1.0
    return float(np.clip(1.0 - left.mean() / group.route_length, 0.0, 1.0))


def run_scene(
    scene: Scene,
    ticks: int,
    seed: int | None = None,
    metrics_path: str | Path | None = None,
    trace_path: str | Path | None = None,
    trace_every: int = 1,
    progress=None,
    record_path: str | Path | None = None,
    record_precision: str = "compact",
    series_path: str | Path | None = None,
    series_every: int | None = None,
) -> RunResult:
    """Run ``scene`` headless for ``ticks`` ticks. ``progress``: optional callable(ticks_done).
    Output files appear only when the run completes. Raises RunFailed on a non-finite state.

    ``record_path``: write a replay there as the run goes (see :mod:`rigidflock.replay`); unlike
    the other outputs it is written in place, chunk by chunk, so a run that fails or is killed
    leaves the ticks recorded so far (the file then reads as cut short).

    ``series_every``: sample the series (:mod:`rigidflock.runs.series`) at tick 0 and every K-th
    tick into ``result.series``; ``series_path`` writes it (CSV or Parquet by the name; K
    defaults to 10)."""
    try:
        return _run(
            scene, ticks, seed, metrics_path, trace_path, trace_every, progress, record_path,
            record_precision, series_path, series_every,
        )  # fmt: skip
    except BehaviourError as e:
        raise RunFailed(str(e)) from e


def _run(
    scene, ticks, seed, metrics_path, trace_path, trace_every, progress, record_path,
    record_precision, series_path, series_every,
) -> RunResult:  # fmt: skip
    sim = Simulation(scene, seed=seed)
    collector = Collector(sim, flock_link(scene))
    if series_every is None and series_path is not None:
        series_every = 10
    if series_every is not None:
        collector.sample()
    with contextlib.ExitStack() as stack:
        recorder = None
        if record_path is not None:
            from rigidflock.replay import Recorder

            recorder = stack.enter_context(Recorder(record_path, sim, precision=record_precision))
        tracer = None
        if trace_path is not None:
            fh = stack.enter_context(atomic_open(trace_path, "w", encoding="utf-8", newline=""))
            tracer = TraceWriter(fh, sim.units)
            tracer.write(sim.state)
        start = time.perf_counter()
        for k in range(1, ticks + 1):
            events = sim.step()
            if recorder is not None:
                recorder.record(None, events)
            st = sim.state
            check_state(st)
            collector.add(events)
            if series_every is not None and k % series_every == 0:
                collector.sample()
            if tracer is not None and k % trace_every == 0:
                tracer.write(st)
            if progress is not None:
                progress(k)
        wall = time.perf_counter() - start
    collector.finish()
    summary = collector.summary(sim.units.has_player)
    if sim.scene.orders or sim.orders.groups:
        summary["orders"] = sim.orders.summary()
        for row, g in zip(summary["orders"], sim.orders.groups.values(), strict=True):
            row["route_done"] = route_done(sim, g)
        summary["route_searches"] = sim.orders.searches
        summary["route_search_seconds"] = sim.orders.search_seconds
    result = RunResult(scene, sim.seed, ticks, sim.units.n_ai, wall, summary)
    if series_every is not None:
        from rigidflock.runs.series import columns, write_series

        result.series = collector.rows
        if series_path is not None:
            write_series(series_path, collector.rows, columns(collector.n_orders))
    if metrics_path is not None:
        write_json(metrics_path, result.as_json())
    return result
