"""A sweep's row file: CSV written one row at a time as runs finish (header once, a flush per
row), so a killed sweep keeps what it finished and ``--resume`` skips those runs.

A run is known by its key: its parameter cells and seed as written. A sweep killed while writing
leaves at most one half-written last line (no newline yet): reading drops it and cuts the file
back to the last whole row. When the sweep completes the file is rewritten, atomically, in the
sweep's order, so a resumed sweep gives the same file as one run straight through.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from rigidflock.outputs import OutputError, atomic_open
from rigidflock.scene.overrides import parse_value, toml_value


def cell(value) -> str:
    """The text of one value: floats exactly (shortest round-trip), booleans as TOML, None
    empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list | dict):  # a TOML value, as --set takes it
        return toml_value(value)
    return " ".join(str(value).split())  # one line, whatever an error message held


def read_cell(text: str):
    """The value of one cell: a TOML number or boolean, a string otherwise, None when empty."""
    return None if text == "" else parse_value(text)


def _line(cols: list[str], values: dict) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([cell(values.get(c)) for c in cols])
    return buf.getvalue()


class RowFile:
    """Rows of ``cols`` in ``path``; :meth:`start` opens it (anew, or keeping its rows)."""

    def __init__(self, path, cols: list[str], key_cols: list[str]):
        self.path, self.cols, self.key_cols = Path(path), list(cols), list(key_cols)
        self.fh = None

    def key(self, values: dict) -> tuple[str, ...]:
        return tuple(cell(values.get(c)) for c in self.key_cols)

    def done(self) -> dict[tuple, dict]:
        """Rows already in the file by key (cell texts), after cutting off a half-written last
        line. Raises OutputError when the file holds another table."""
        if not self.path.exists():
            return {}
        raw = self.path.read_bytes()
        cut = raw.rfind(b"\n") + 1
        if cut < len(raw):  # a line the killed sweep did not finish
            with open(self.path, "r+b") as fh:
                fh.truncate(cut)
        lines = raw[:cut].decode("utf-8").splitlines()
        if not lines:
            return {}
        rows = list(csv.reader(lines))
        if rows[0] != self.cols:
            raise OutputError(
                f"{self.path}: --resume: the file holds other columns than this sweep's "
                "(another sweep?); choose another -o or drop --resume"
            )
        out = {}
        for r in rows[1:]:
            if len(r) == len(self.cols):
                values = dict(zip(self.cols, r, strict=True))
                out[tuple(values[c] for c in self.key_cols)] = values
        return out

    def start(self, resume: bool) -> dict[tuple, dict]:
        """Open for appending; returns the rows kept (``resume``) as cell texts."""
        kept = self.done() if resume else {}
        fresh = not resume or not self.path.exists() or self.path.stat().st_size == 0
        # kept open across runs (closed by finish/close): rows are appended as they come
        self.fh = open(self.path, "w" if fresh else "a", encoding="utf-8", newline="")  # noqa: SIM115
        if fresh:
            self.fh.write(_line(self.cols, dict(zip(self.cols, self.cols, strict=True))))
            self.fh.flush()
        return kept

    def append(self, values: dict) -> None:
        self.fh.write(_line(self.cols, values))
        self.fh.flush()  # a finished run survives a kill of the sweep
        os.fsync(self.fh.fileno())

    def finish(self, rows: list[dict]) -> None:
        """Rewrite the file with ``rows`` (in the sweep's order), whole or not at all."""
        self.close()
        with atomic_open(self.path, "w", encoding="utf-8", newline="") as fh:
            fh.write(_line(self.cols, dict(zip(self.cols, self.cols, strict=True))))
            for r in rows:
                fh.write(_line(self.cols, r))

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None


def read_rows(path) -> list[dict]:
    """Rows of a sweep file as records (numbers as numbers, empty cells None)."""
    with open(path, encoding="utf-8", newline="") as fh:
        return [{k: read_cell(v) for k, v in r.items()} for r in csv.DictReader(fh)]
