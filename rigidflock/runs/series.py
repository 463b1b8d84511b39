"""Metrics over time (``run --series FILE --every K``): one row per sampled tick.

:class:`~rigidflock.runs.collector.Collector` measures the rows: a row reuses what the run summary
measures every tick anyway (polarization, nearest neighbours, leaders, contact totals) and computes
the rest (flocks, milling, pins, arrivals) at the sampled tick only, so sampling every K ticks costs
about 1/K of those per tick. This module names the columns and writes and reads the files. Columns
(world units, seconds):

- ``tick``, ``time``; ``polarization`` (0..1), ``milling`` (normalised angular momentum about the
  flock centre, 0..1), ``nn_mean`` (mean nearest-neighbour distance), ``min_separation``
  (smallest nearest-neighbour distance), ``flocks`` (count), ``leaders`` (count);
- ``{unit,obstacle,wall,player}_contacts`` (contact begins in the sampled tick) and
  ``..._contacts_total`` (since tick 0);
- ``pinned``: AI units in contact with an obstacle, wall or building (pymunk's contact state,
  the one the run metrics' pinned time counts) while slower than 0.1 x cruise speed;
- ``chaser_distance``: the player's distance to the nearest chaser (empty without both);
- ``arrived_K``: units of the scene's K-th order on their slots (empty before it is given).

With ``world.reaction_ticks = 1`` the columns from the steering (``polarization``, ``nn_mean``,
``min_separation``, ``leaders``) are those of the snapshot it decided on, one tick before the
row's ``tick``; with ``world.neighbour_ticks = 1`` ``nn_mean`` and
``min_separation`` are of the snapshot its neighbours were found on, one tick before the row's
(as in the run summary). Tick 0 (the spawned state) is the first row. Rows are
plain dicts (records): ``pandas.DataFrame(rows)`` loads them directly, or see
:func:`to_dataframe`.
"""

from __future__ import annotations

import csv
from pathlib import Path

from rigidflock.model.contacts import KINDS
from rigidflock.outputs import OutputError, atomic_open, atomic_path

FORMATS = {".csv": "csv", ".parquet": "parquet"}


def columns(n_orders: int) -> list[str]:
    """The series columns of a scene with ``n_orders`` move orders, in file order."""
    cols = ["tick", "time", "polarization", "milling", "nn_mean", "min_separation", "flocks"]
    cols += ["leaders", *(f"{k}_contacts" for k in KINDS), *(f"{k}_contacts_total" for k in KINDS)]
    cols += ["pinned", "chaser_distance", *(f"arrived_{k}" for k in range(n_orders))]
    return cols


def series_format(path) -> str:
    """ "csv" or "parquet" from the file name; raises OutputError for anything else."""
    kind = FORMATS.get(Path(path).suffix.lower())
    if kind is None:
        raise OutputError(f"{path}: --series: the file name must end in .csv or .parquet")
    if kind == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise OutputError(
                f"{path}: --series: Parquet needs pyarrow "
                '(pip install ".[parquet]" in the rigidflock checkout)'
            ) from None
    return kind


def write_series(path, rows: list[dict], cols: list[str]) -> None:
    """Write ``rows`` to ``path`` (CSV, or Parquet by the name), whole or not at all. CSV floats
    are written exactly (shortest round-trip text); missing values are empty cells / nulls."""
    if series_format(path) == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist([{c: r.get(c) for c in cols} for r in rows])
        with atomic_path(path) as tmp:
            pq.write_table(table, tmp)
        return
    with atomic_open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow(["" if r.get(c) is None else _cell(r.get(c)) for c in cols])


def _cell(v) -> str:
    return (
        repr(float(v)) if isinstance(v, float) else str(v)
    )  # shortest text that reads back exactly


def read_series(path) -> list[dict]:
    """Rows of a series file (CSV or Parquet) as records: numbers as int/float, empty as None."""
    if Path(path).suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    with open(path, encoding="utf-8", newline="") as fh:
        return [{k: _number(v) for k, v in r.items()} for r in csv.DictReader(fh)]


def _number(text: str):
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def to_dataframe(rows: list[dict]):
    """A pandas DataFrame of series or sweep rows (pandas: the ``parquet`` extra)."""
    import pandas as pd

    return pd.DataFrame.from_records(rows)
