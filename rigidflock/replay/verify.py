"""Re-simulating a replay and comparing it with what is stored: :func:`verify`, tick by tick
at the file's precision::

    verify(ReplayReader("run.rfr")).ok             # re-simulate and compare every tick
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rigidflock.replay.behaviours import check_allowed, hash_notes
from rigidflock.replay.codec import to_jsonable
from rigidflock.replay.container import library_versions
from rigidflock.replay.errors import ReplayError, fail
from rigidflock.replay.payload import Chunk
from rigidflock.replay.reader import ReplayReader, model_version_of
from rigidflock.replay.states import FIELD_WORDS, SCALES, STATE_FIELDS, quantize
from rigidflock.scene import SceneError
from rigidflock.sim import MODEL_VERSION, Simulation


@dataclass
class Difference:
    tick: int
    unit: int | None  # None: not a unit's state (events, player command)
    field: str
    stored: object
    simulated: object
    amount: float | None  # largest absolute difference (world units, rad, ...) at that unit
    units_differing: int = 0

    def describe(self) -> str:
        if self.unit is None:
            return (
                f"tick {self.tick}: {self.field} differ: stored {self.stored}, "
                f"re-simulated {self.simulated}"
            )
        what = FIELD_WORDS.get(self.field, self.field)
        by = "" if self.amount is None else f" by {self.amount:.6g}"
        return (
            f"tick {self.tick}: unit {self.unit} {what} differs{by} (stored {self.stored}, "
            f"re-simulated {self.simulated}); {self.units_differing} unit(s) differ at this tick"
        )


@dataclass
class VerifyResult:
    ticks_checked: int
    difference: Difference | None = None
    complete: bool = True
    problem: str | None = None
    notes: list[str] = field(default_factory=list)
    # why the file cannot be re-simulated at all (recorded by another model version), else None
    unverifiable: str | None = None

    @property
    def ok(self) -> bool:
        return self.difference is None and self.unverifiable is None


def model_problem(header: dict) -> str | None:
    """The one line saying a recording of another model version cannot be verified; None when
    it is this rigidflock's model."""
    v = model_version_of(header)
    if v == MODEL_VERSION:
        return None
    return (
        f"recorded by model version {v}; this rigidflock simulates model {MODEL_VERSION}: "
        "cannot verify; replay and export still work"
    )


def _fmt(v) -> str:
    a = np.asarray(v)
    if a.ndim == 0:
        return f"{float(a):.9g}" if a.dtype.kind == "f" else str(a.item())
    return "(" + ", ".join(_fmt(x) for x in a) + ")"


def _events_text(e) -> str:
    if isinstance(e, dict):
        return ", ".join(f"{k} {v}" for k, v in e.items() if k not in ("__type__", "tick"))
    return str(e)


def _compare_field(precision: str, tick: int, name: str, stored, live) -> Difference | None:
    """The first unit whose stored ``name`` (one tick: (N, ...)) differs from ``live``."""
    if precision == "compact":
        bad = quantize(live, name) != stored
        shown_stored = stored / SCALES[name]
    else:
        bad = np.ascontiguousarray(live, np.float64).view(np.uint64) != stored.view(np.uint64)
        shown_stored = stored
    if bad.ndim == 2:
        bad = bad.any(axis=1)
    if not bad.any():
        return None
    rows = np.flatnonzero(bad)
    i = int(rows[0])
    with np.errstate(invalid="ignore"):
        amount = float(np.max(np.abs(np.asarray(live[i]) - np.asarray(shown_stored[i]))))
    return Difference(tick, i, name, _fmt(shown_stored[i]), _fmt(live[i]), amount, len(rows))


def _compare(reader: ReplayReader, c: Chunk, k: int, sim) -> Difference | None:
    """The first difference between the stored tick ``k`` of ``c`` and ``sim`` now."""
    tick = c.first_tick + k
    st = sim.state
    for name in STATE_FIELDS:
        d = _compare_field(reader.precision, tick, name, c.raw[name][k], getattr(st, name))
        if d is not None:
            return d
    lead = st.leader if len(st.leader) == reader.units else np.zeros(reader.units, bool)
    bad = np.asarray(lead, bool) != c.leader[k]
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        return Difference(
            tick, i, "leader flag", bool(c.leader[k][i]), bool(lead[i]), None, int(bad.sum())
        )
    pc = np.asarray(sim.player_command, float)
    if pc.view(np.uint64).tolist() != c.player_command[k].view(np.uint64).tolist():
        return Difference(tick, None, "player commands", _fmt(c.player_command[k]), _fmt(pc), None)
    return None


def _check_chunk(reader, c: Chunk, first: bool, sim, inputs, result, progress) -> bool:
    """Step ``sim`` through chunk ``c`` comparing every tick (``first``: the chunk whose first
    tick is the state before any recorded step); False at the first difference."""
    total = reader.last_tick + 1
    for k in range(c.ticks):
        tick = c.first_tick + k
        if k or not first:
            events = sim.step(inputs.get(sim.tick))
            stored_ev, live_ev = c.events[k], to_jsonable(events)
            if stored_ev != live_ev:
                result.difference = Difference(
                    tick, None, "events", _events_text(stored_ev), _events_text(live_ev), None
                )
                return False
        d = _compare(reader, c, k, sim)
        if d is not None:
            result.difference = d
            return False
        result.ticks_checked += 1
        if progress is not None:
            progress(tick + 1, total)
    return True


def version_notes(header: dict) -> list[str]:
    """One line for each library (or Python) whose version differs from the one ``header``
    records: a difference found may come from it. A version the file does not record (files
    made before the field) is not compared."""
    notes = []
    for name, here in library_versions().items():
        then = header.get(name)
        if then and here and then != here:
            notes.append(
                f"recorded with {name} {then}, verifying with {name} {here}: "
                "a difference may come from that"
            )
    return notes


def verify(reader: ReplayReader, progress=None, allow_behaviours: bool = False) -> VerifyResult:
    """Re-simulate from the recorded scene, seed and inputs; compare every stored tick at the
    file's precision. ``progress``: optional callable(ticks_done, ticks_total).
    ``allow_behaviours``: import the recording's behaviours even when they are not installed
    code (:mod:`~rigidflock.replay.behaviours`; without it such a file raises ReplayError
    before anything is imported)."""
    scene = reader.scene()
    inputs = reader.inputs()
    result = VerifyResult(0, complete=reader.complete, problem=reader.problem)
    h = reader.header
    result.notes += version_notes(h)
    result.unverifiable = model_problem(h)
    if not reader.chunks or result.unverifiable is not None:
        return result
    check_allowed(reader.path, scene, allow_behaviours)
    try:
        sim = Simulation(scene, seed=h["seed"])
    except SceneError as e:  # a behaviour that does not import here
        raise fail(reader.path, f"recorded scene: {e.errors[0]}") from None
    result.notes += hash_notes(h, sim.behaviours_used)
    try:
        while sim.tick < reader.first_tick:
            sim.step(inputs.get(sim.tick))
        for ci in range(len(reader.chunks)):
            if not _check_chunk(reader, reader.chunk(ci), ci == 0, sim, inputs, result, progress):
                return result
    except ReplayError:
        raise
    except (ValueError, TypeError) as e:  # a recorded command the simulation refuses
        raise fail(reader.path, f"re-simulation refused a recorded input: {e}") from None
    return result
