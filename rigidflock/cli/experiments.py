"""The experiment commands: sweep (many runs, a row each) and plot (a series or a sweep)."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from rigidflock.cli.args import EXIT_FAILED, EXIT_OK, UsageError, missing_hint, plural
from rigidflock.cli.progress_bars import progress_bar
from rigidflock.outputs import check_writable
from rigidflock.scene import SceneError


def _executor(args):
    """The executor the options ask for, as a context manager (None: this process)."""
    from rigidflock.runs.executors import dask_executor, local_executor

    if args.scheduler is not None and args.dask_local is not None:
        raise UsageError("rigidflock sweep: give --scheduler or --dask-local, not both")
    if args.scheduler is not None or args.dask_local is not None:
        return dask_executor(args.scheduler, args.dask_local)
    if args.workers == 1:
        return contextlib.nullcontext(None)
    return local_executor(args.workers)


def cmd_sweep(args) -> int:
    from rigidflock.bundled import resolve_sweep
    from rigidflock.runs.sweep import failed, run_sweep
    from rigidflock.runs.sweep_spec import load_sweep

    path = resolve_sweep(args.sweep)
    if not path.exists():
        raise SceneError(
            [f"rigidflock sweep: no such sweep file or bundled sweep: {args.sweep}"
             + missing_hint(args.sweep, "sweep")]
        )  # fmt: skip
    # every run's scene checked before any starts
    spec = load_sweep(path, args.set)
    out = Path(args.out or Path(args.sweep).with_suffix(".csv").name)
    check_writable(out, "-o")
    if out.suffix.lower() != ".csv":
        raise UsageError(f"rigidflock sweep: -o {out}: the row file is CSV (name it .csv)")
    if args.scheduler is not None or args.dask_local is not None:
        from rigidflock.runs.executors import _need_dask

        _need_dask()
    enabled = not args.quiet and sys.stderr.isatty()
    with _executor(args) as ex, progress_bar(len(spec.tasks), "run", enabled) as bar:
        rows = run_sweep(spec, executor=ex, out=out, resume=args.resume, progress=bar)
    bad = failed(rows)
    if not args.quiet:
        print(f"{out}: {plural(len(rows), 'run')} ({plural(len(spec.points), 'point')} x "
              f"{plural(len(spec.seeds), 'seed')}), {bad} failed")  # fmt: skip
    for r in rows:
        if r["status"] != "ok":
            print(f"rigidflock: {args.sweep}: run failed (seed {r['seed']}): {r['error']}",
                  file=sys.stderr)  # fmt: skip
    return EXIT_FAILED if bad else EXIT_OK


def cmd_plot(args) -> int:
    from rigidflock.runs import plots

    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(
            'rigidflock plot: needs matplotlib (pip install ".[plot]" in the rigidflock checkout)'
        ) from None
    check_writable(args.out, "-o")
    try:
        what = plots.plot_file(args.input, args.out, metric=args.metric, x=args.x, hue=args.hue)
    except plots.PlotError as e:
        raise UsageError(f"rigidflock plot: {e}") from None
    if not args.quiet:
        print(f"{args.out}: {what}")
    return EXIT_OK
