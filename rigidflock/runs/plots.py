"""Pictures of experiments (matplotlib, the ``plot`` extra, drawn offscreen with Agg):

- a series (``run --series``): polarization and milling, nearest-neighbour distance and minimum
  separation, running contact totals by kind, and flocks / leaders / pinned units, against time;
- a sweep's rows: one metric against one parameter, a line per value of a second parameter,
  the mean over seeds with a band of +-1 standard deviation and every seed's value as a dot.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rigidflock.outputs import atomic_path


class PlotError(ValueError):
    """A file or choice that cannot be plotted (the message names it)."""


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _column(rows, name) -> np.ndarray:
    return np.array([np.nan if r.get(name) is None else r[name] for r in rows], dtype=float)


def plot_series(rows: list[dict], out, title: str = "") -> None:
    """Four panels against time (s) from series rows (see :mod:`rigidflock.runs.series`)."""
    plt = _plt()
    t = _column(rows, "time")
    arrived = tuple(c for c in rows[0] if c.startswith("arrived_"))  # per order: on their slots
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    panels = [
        (axes[0, 0], ("polarization", "milling"), "order (0..1)"),
        (axes[0, 1], ("nn_mean", "min_separation"), "distance (world units)"),
        (axes[1, 0], tuple(f"{k}_contacts_total" for k in ("unit", "obstacle", "wall", "player")),
         "contacts since start"),
        (axes[1, 1], ("flocks", "leaders", "pinned", *arrived), "units / flocks"),
    ]  # fmt: skip
    for ax, names, label in panels:
        for name in names:
            y = _column(rows, name)
            if np.isfinite(y).any():
                ax.plot(t, y, label=name.replace("_contacts_total", ""), lw=1.4)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    axes[0, 0].set_ylim(0, 1.02)
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    fig.suptitle(title)
    fig.tight_layout()
    _save(fig, out)


def _numeric(values) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def _pick(rows, name, what, candidates):
    if name is None:
        if not candidates:
            raise PlotError(f"no {what} to plot")
        return candidates[0]
    if name not in candidates:
        raise PlotError(f"--{what} {name!r}: expected one of {', '.join(candidates)}")
    return name


def plot_sweep(rows, out, metric=None, x=None, hue=None, title: str = "") -> str:
    """The metric against parameter ``x``, one line per value of ``hue``, spread over seeds.
    Returns what was plotted."""
    cols = list(rows[0])
    params = cols[: cols.index("seed")]
    metrics = cols[cols.index("status") + 1 : cols.index("wall_seconds")]
    metric = _pick(rows, metric, "metric", metrics)
    x = _pick(rows, x, "x", params)
    others = [p for p in params if p != x]
    hue = _pick(rows, hue, "hue", others) if (hue or others) else None
    ok = [r for r in rows if r["status"] == "ok" and r.get(metric) is not None]
    if not ok:
        raise PlotError(f"no finished run has a value of {metric}")
    xs = sorted({r[x] for r in ok}, key=lambda v: (str(type(v)), v))
    numeric = _numeric(xs)
    where = {v: (v if numeric else k) for k, v in enumerate(xs)}
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 5))
    groups = sorted({r[hue] for r in ok}, key=str) if hue else [None]
    for g in groups:
        sel = [r for r in ok if hue is None or r[hue] == g]
        px = np.array([where[r[x]] for r in sel], dtype=float)
        py = np.array([r[metric] for r in sel], dtype=float)
        ux = np.unique(px)
        mean = np.array([py[px == u].mean() for u in ux])
        std = np.array([py[px == u].std() for u in ux])
        line = ax.plot(ux, mean, marker="o", lw=1.8, label=f"{hue} = {g}" if hue else "mean")[0]
        ax.fill_between(ux, mean - std, mean + std, color=line.get_color(), alpha=0.15, lw=0)
        ax.scatter(px, py, s=10, color=line.get_color(), alpha=0.45)
    if not numeric:
        ax.set_xticks(range(len(xs)), [str(v) for v in xs])
    elif min(xs) > 0 and max(xs) >= 8 * min(xs):  # weights that double: evenly spaced on log
        ax.set_xscale("log")
        ax.set_xticks(xs, [f"{v:g}" for v in xs])
        ax.minorticks_off()
    seeds = len({r["seed"] for r in ok})
    ax.set_xlabel(x)
    ax.set_ylabel(metric)
    over = f"{seeds} seed" + ("" if seeds == 1 else "s")
    ax.set_title(title or f"{metric}: mean over {over}, band +-1 sd, dots: each seed")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9)
    fig.tight_layout()
    _save(fig, out)
    runs = f"{len(ok)} run" + ("" if len(ok) == 1 else "s")
    return f"{metric} against {x}" + (f" by {hue}" if hue else "") + f", {runs}"


def _save(fig, out) -> None:
    import matplotlib.pyplot as plt

    with atomic_path(out) as tmp:
        fig.savefig(tmp, dpi=110, format=Path(out).suffix.lstrip(".") or "png")
    plt.close(fig)


def plot_file(path, out, metric=None, x=None, hue=None) -> str:
    """Plot a series file or a sweep row file (told apart by their columns) into ``out``."""
    from rigidflock.runs.rowfile import read_rows
    from rigidflock.runs.series import read_series

    try:
        rows = read_series(path) if Path(path).suffix.lower() == ".parquet" else read_rows(path)
    except FileNotFoundError:
        raise PlotError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise PlotError(f"{path}: cannot read: {e}") from None
    if not rows:
        raise PlotError(f"{path}: no rows to plot")
    if "status" in rows[0] and "seed" in rows[0]:
        try:
            return plot_sweep(rows, out, metric, x, hue)
        except PlotError as e:
            raise PlotError(f"{path}: {e}") from None
    if "tick" in rows[0] and "polarization" in rows[0]:
        plot_series(rows, out, title=Path(path).name)
        return f"series of {len(rows)} sample" + ("" if len(rows) == 1 else "s")
    raise PlotError(f"{path}: neither a series (run --series) nor a sweep's rows")
