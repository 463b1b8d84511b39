"""Sweep files: a base scene, parameters (a grid of lists and/or ranges sampled by Latin hypercube
or Sobol), seeds, ticks and the metrics to keep. Example (``scenes/sweeps/forest_cohesion.toml``)::

    scene = "../forest.toml"          # relative to this file
    ticks = 600
    seeds = [1, 2, 3, 4]              # or a count: seeds = 4 -> 0, 1, 2, 3
    metrics = ["polarization_mean", "flocks_final"]   # default: every scalar metric

    [set]                             # fixed changes, like --set
    "rules.chase" = false

    [grid]                            # every combination of these lists
    "rules.weights.cohesion" = [0.5, 1.0, 2.0]
    "rules.view" = ["narrow", "wide"]

    [ranges]                          # [low, high]; whole numbers for both: whole samples
    "rules.weights.alignment" = [0.5, 2.0]

    [sample]                          # how ranges are sampled (needed with [ranges])
    method = "lhs"                    # or "sobol"
    n = 8
    seed = 0

Runs: every grid point x every sample (the product) x every seed. Every changed scene is derived
and validated when the file is read, so a bad key or value stops the sweep before any run, with
one line naming the file and the field.
"""

from __future__ import annotations

import itertools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from rigidflock.scene import Scene, SceneError, load_scene
from rigidflock.scene.overrides import apply_overrides

# Scalar metrics of a run summary (runs.collector.Collector.summary, runner.run_scene)
METRICS = (
    "polarization_mean",
    "polarization_final",
    "nn_distance_mean",
    "min_separation",
    "unit_contacts",
    "obstacle_contacts",
    "wall_contacts",
    "player_contacts",
    "first_player_contact_tick",
    "leader_fraction_mean",
    "flocks_final",
    "elongation_final",
    "route_searches",
)
ORDER_METRIC = re.compile(r"order(\d+)_(arrived|arrival_tick|reroutes)")
KEYS = {"scene", "ticks", "seeds", "metrics", "set", "grid", "ranges", "sample"}
METHODS = ("lhs", "sobol")
_SET_NOTE = re.compile(r" \(--set [^)]*\)$")


@dataclass(frozen=True)
class Task:
    """One run of a sweep: the changed scene as text (what a replay would store), its seed."""

    index: int  # place in the sweep's order
    params: tuple[tuple[str, object], ...]  # (key path, value) of the grid/sampled parameters
    seed: int
    text: str
    source: str
    ticks: int
    metrics: tuple[str, ...]


@dataclass(frozen=True)
class SweepSpec:
    path: str
    scene: Scene  # the base scene with [set] applied
    ticks: int
    seeds: tuple[int, ...]
    metrics: tuple[str, ...]
    parameters: tuple[str, ...]  # grid keys, then range keys
    points: tuple[tuple, ...]  # one value per parameter, per point
    tasks: tuple[Task, ...]


def _fail(path, field: str, message: str):
    raise SceneError([f"{path}: {field}: {message}"])


def _sample_points(path, ranges: dict, sample: dict) -> list[tuple]:
    from scipy.stats import qmc

    method, n, seed = sample.get("method", "lhs"), sample.get("n"), sample.get("seed", 0)
    if method not in METHODS:
        _fail(path, "sample.method", f"expected one of {', '.join(METHODS)}, got {method!r}")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        _fail(path, "sample.n", f"expected a whole number of samples >= 1, got {n!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        _fail(path, "sample.seed", f"expected a whole number, got {seed!r}")
    for key, lohi in ranges.items():
        ok = isinstance(lohi, list) and len(lohi) == 2
        ok = ok and all(isinstance(v, int | float) and not isinstance(v, bool) for v in lohi)
        if not ok or lohi[0] >= lohi[1]:
            _fail(path, f"ranges.{key}", f"expected [low, high] with low < high, got {lohi!r}")
    d = len(ranges)
    engine = qmc.LatinHypercube(d, seed=seed) if method == "lhs" else qmc.Sobol(d, seed=seed)
    unit = engine.random(n)
    points = []
    for row in unit:
        point = []
        for u, (lo, hi) in zip(row, ranges.values(), strict=True):
            v = lo + float(u) * (hi - lo)
            point.append(round(v) if isinstance(lo, int) and isinstance(hi, int) else v)
        points.append(tuple(point))
    return points


def _seeds(path, seeds) -> tuple[int, ...]:
    if isinstance(seeds, int) and not isinstance(seeds, bool) and seeds >= 1:
        return tuple(range(seeds))
    if (
        isinstance(seeds, list)
        and seeds
        and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds)
    ):
        if len(set(seeds)) != len(seeds):
            _fail(path, "seeds", "a seed is listed twice")
        return tuple(seeds)
    _fail(path, "seeds", f"expected a count >= 1 or a list of whole numbers >= 0, got {seeds!r}")


def _metrics(path, metrics) -> tuple[str, ...]:
    if metrics is None:
        return METRICS
    if not isinstance(metrics, list) or not metrics:
        _fail(path, "metrics", "expected a list of metric names")
    for m in metrics:
        if m not in METRICS and not (isinstance(m, str) and ORDER_METRIC.fullmatch(m)):
            _fail(path, "metrics", f"unknown metric {m!r}; expected one of {', '.join(METRICS)}")
    return tuple(metrics)


def _read(path) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise SceneError(
            [f"{path}: no such sweep file, nor a bundled sweep of that name"]
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise SceneError([f"{path}: cannot read: {e}"]) from None
    except tomllib.TOMLDecodeError as e:
        raise SceneError([f"{path}: not valid TOML: {e}"]) from None


def load_sweep(path, overrides=(), ticks: int | None = None) -> SweepSpec:
    """Read and check a sweep file; ``overrides``: extra ``PATH=VALUE`` changes to the base scene
    (``--set``); ``ticks``: instead of the file's. Raises SceneError (one line naming the file and
    the field) on anything wrong."""
    data = _read(path)
    if ticks is not None:
        data["ticks"] = ticks
    for key in data:
        if key not in KEYS:
            _fail(path, key, f"unknown key; expected one of {', '.join(sorted(KEYS))}")
    if not isinstance(data.get("scene"), str):
        _fail(path, "scene", "expected the base scene's file name (relative to this file)")
    ticks = data.get("ticks", 600)
    if not isinstance(ticks, int) or isinstance(ticks, bool) or ticks < 1:
        _fail(path, "ticks", f"expected a whole number >= 1, got {ticks!r}")
    seeds = _seeds(path, data.get("seeds", [0]))
    metrics = _metrics(path, data.get("metrics"))
    tables = {k: data.get(k, {}) for k in ("set", "grid", "ranges", "sample")}
    for k, table in tables.items():
        if not isinstance(table, dict):
            _fail(path, k, "expected a table")
    for key, values in tables["grid"].items():
        if not isinstance(values, list) or not values:
            _fail(path, f"grid.{key}", f"expected a non-empty list of values, got {values!r}")
    if tables["ranges"] and not tables["sample"]:
        _fail(path, "sample", "[ranges] needs [sample] with method and n")
    both = set(tables["grid"]) & set(tables["ranges"])
    if both:
        _fail(path, f"ranges.{sorted(both)[0]}", "is also in [grid]")
    base_path = Path(path).parent / data["scene"]
    base = load_scene(base_path)
    base = apply_overrides(base, tables["set"])
    base = apply_overrides(base, list(overrides))
    grid = list(itertools.product(*tables["grid"].values()))
    samples = [()]
    if tables["ranges"]:
        samples = _sample_points(path, tables["ranges"], tables["sample"])
    keys = (*tables["grid"], *tables["ranges"])
    points = [g + s for g in grid for s in samples]
    tasks = []
    for point in points:
        changes = dict(zip(keys, point, strict=True))
        try:
            scene = apply_overrides(base, changes)
        except SceneError as e:  # name the sweep file (the change came from it), not --set
            raise SceneError([f"{path}: {_SET_NOTE.sub('', e.errors[0])}"]) from None
        for seed in seeds:
            tasks.append(
                Task(len(tasks), tuple(changes.items()), seed, scene.text, scene.source, ticks,
                     metrics)
            )  # fmt: skip
    return SweepSpec(str(path), base, ticks, seeds, metrics, keys, tuple(points), tuple(tasks))
