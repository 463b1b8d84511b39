"""Parameter sweeps: every run of a :class:`~rigidflock.runs.sweep_spec.SweepSpec` on any
:class:`concurrent.futures.Executor`, one row per run::

    spec = load_sweep("scenes/sweeps/forest_cohesion.toml")
    with local_executor(2) as ex:             # or dask_executor(...), or a Dask client's
        rows = run_sweep(spec, executor=ex, out="cohesion.csv")

A row: the parameters, ``seed``, ``status`` ("ok" or "failed"), the chosen final metrics,
``wall_seconds`` and ``error`` (the failure, one line). Each run seeds its own generator from its
seed and reads its scene from text, so the numbers do not depend on the executor or the order in
which runs finish (only ``wall_seconds`` does).
"""

from __future__ import annotations

import time
from concurrent.futures import FIRST_COMPLETED, wait

from rigidflock.runs.rowfile import RowFile, cell, read_cell
from rigidflock.runs.sweep_spec import ORDER_METRIC, SweepSpec, Task

STATUS_OK, STATUS_FAILED = "ok", "failed"


def row_columns(spec: SweepSpec) -> list[str]:
    return [*spec.parameters, "seed", "status", *spec.metrics, "wall_seconds", "error"]


def flat_metrics(summary: dict) -> dict:
    """The run summary's scalars, plus ``orderK_arrived``/``_arrival_tick``/``_reroutes`` per
    order group."""
    out = {k: v for k, v in summary.items() if not isinstance(v, list | dict)}
    for g in summary.get("orders", []):
        for name in ("arrived", "arrival_tick", "reroutes"):
            out[f"order{g['group']}_{name}"] = g[name]
    return out


def run_task(task: Task) -> dict:
    """Run one task (in a worker); never raises: a failure is a row with its error."""
    from rigidflock.runs.runner import run_scene
    from rigidflock.scene import parse_scene

    row = {**dict(task.params), "seed": task.seed}
    start = time.perf_counter()
    try:
        result = run_scene(parse_scene(task.text, task.source), task.ticks, seed=task.seed)
        got = flat_metrics(result.metrics)
        row.update({m: got.get(m) for m in task.metrics}, status=STATUS_OK)
    except Exception as e:
        row.update(status=STATUS_FAILED, error=f"{type(e).__name__}: {e}")
    row["wall_seconds"] = time.perf_counter() - start
    return row


def warm_up(spec: SweepSpec) -> None:
    """Compile the numba kernels here, once, before the fan-out: one short run of the first
    task fills the on-disk cache, which workers then load instead of compiling at once."""
    from rigidflock.runs.warmup import warm_up as compile_kernels
    from rigidflock.scene import parse_scene

    if spec.tasks:
        t = spec.tasks[0]
        compile_kernels(parse_scene(t.text, t.source))


def _as_written(row: dict, cols: list[str]) -> dict:
    """The row as it reads back from the file (so fresh and resumed rows compare equal)."""
    return {c: read_cell(cell(row.get(c))) for c in cols}


def run_sweep(
    spec: SweepSpec,
    executor=None,
    out=None,
    resume: bool = False,
    progress=None,
    warm: bool = True,
) -> list[dict]:
    """Run every task of ``spec`` on ``executor`` (None: one after another in this process);
    returns the rows in the sweep's order. ``out``: the row file, appended as runs finish and
    rewritten in order at the end; ``resume``: keep its rows and run only the missing ones.
    ``progress``: optional callable(done, total), runs done including resumed ones."""
    cols = row_columns(spec)
    rows = RowFile(out, cols, [*spec.parameters, "seed"]) if out is not None else None
    done: dict[tuple, dict] = {}
    try:
        if rows is not None:
            kept = rows.start(resume)
            done = {k: {c: read_cell(v) for c, v in r.items()} for k, r in kept.items()}

        def key(r: dict) -> tuple[str, ...]:  # parameters and seed as written: a run's name
            return tuple(cell(r.get(c)) for c in [*spec.parameters, "seed"])

        todo = [t for t in spec.tasks if key({**dict(t.params), "seed": t.seed}) not in done]
        total = len(spec.tasks)
        if progress is not None:
            progress(total - len(todo), total)

        def record(result: dict) -> None:
            row = _as_written(result, cols)
            done[key(row)] = row
            if rows is not None:
                rows.append(row)
            if progress is not None:
                progress(len(done), total)

        if executor is None:  # here, one after another: each row written as it finishes
            for t in todo:
                record(run_task(t))
        else:
            if warm and todo:
                warm_up(spec)
            pending = {executor.submit(run_task, t) for t in todo}
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    record(f.result())
        ordered = [done[key({**dict(t.params), "seed": t.seed})] for t in spec.tasks]
        if rows is not None:
            rows.finish(ordered)
        return ordered
    finally:
        if rows is not None:
            rows.close()


def failed(rows: list[dict]) -> int:
    return sum(r["status"] != STATUS_OK for r in rows)


__all__ = ["ORDER_METRIC", "flat_metrics", "row_columns", "run_sweep", "run_task", "warm_up"]
