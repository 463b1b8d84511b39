"""Writing a replay as a run goes: :class:`Recorder`.

What a file holds: a header (format version, rigidflock's version and the versions of Python and
of every library that can change a result: pymunk, numpy, numba, llvmlite, scipy; the scene's
TOML text, seed, dt, precision; ``behaviours``: each user behaviour's ``function`` as the scene
names it and the ``source_hash`` of its code, :func:`~rigidflock.model.behaviours.source_hash`,
so ``verify`` can say when that code changed), every input that changed the run (each
:class:`~rigidflock.sim.Command` given to ``Simulation.step`` with its tick) and every unit's
state at every tick (position, angle, velocity, angular velocity, leader flag, the player's
effective throttle/steer, and the tick's contact events)::

    with Recorder("run.rfr", sim) as rec:          # records sim's current state first
        for _ in range(600):
            events = sim.step(command)
            rec.record(command, events)
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import queue
import threading
from pathlib import Path

import numpy as np
import zstandard

from rigidflock import __version__
from rigidflock.replay.codec import command_record, to_jsonable
from rigidflock.replay.container import (
    DATA,
    END,
    FORMAT,
    FORMAT_VERSION,
    HEADER,
    MAX_CHUNK_TICKS,
    PRECISIONS,
    ZSTD_LEVEL,
    chunk_bytes,
    library_versions,
    preamble,
)
from rigidflock.replay.payload import payload_parts
from rigidflock.replay.states import SCALES, Scratch, encode_compact, encode_exact
from rigidflock.sim.simulation import MODEL_VERSION


def recording_header(sim, precision: str, chunk_ticks: int, prelude) -> dict:
    """The header chunk's JSON object for a recording of ``sim`` from its current tick."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "model_version": MODEL_VERSION,
        "rigidflock": __version__,
        **library_versions(),  # "python", "pymunk", "numpy", "numba", "llvmlite", "scipy"
        "machine": platform.machine(),
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "scene_source": str(sim.scene.source),
        "scene_name": sim.scene.name,
        "scene_text": sim.scene.text,
        "seed": int(sim.seed),
        # each behaviour's name and source hash (verify says when one's code changed)
        "behaviours": sim.behaviours_used,
        "dt": float(sim.scene.world.dt),
        "units": sim.units.n,
        "has_player": bool(sim.units.has_player),
        "precision": precision,
        "scales": SCALES if precision == "compact" else None,
        "chunk_ticks": chunk_ticks,
        "start_tick": int(sim.tick),
        "prelude": [[int(t), c] for t, c in ((t, command_record(c)) for t, c in prelude) if c],
        "fields": ["pos", "vel", "angle", "omega", "leader", "player_command", "events"],
    }


class Recorder:
    """Writes a replay of ``sim`` to ``path`` from its current tick on.

    Call :meth:`record` after every ``sim.step(command)`` with that command and the step's events,
    and :meth:`close` at the end (or use ``with``). ``prelude``: ``(tick, command)`` pairs given
    before the recording started (a recording started mid-run, the viewer's R key), so the file
    can still be re-simulated from tick 0. The file is written as it goes: every ``chunk_ticks``
    ticks (default: one second) one more chunk is complete on disk.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        sim,
        *,
        precision: str = "compact",
        chunk_ticks: int | None = None,
        prelude=(),
        level: int = ZSTD_LEVEL,
    ):
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
        self.path = Path(path)
        self.sim = sim
        self.precision = precision
        self.chunk_ticks = int(chunk_ticks or max(1, round(1.0 / sim.scene.world.dt)))
        if not 1 <= self.chunk_ticks <= MAX_CHUNK_TICKS:
            raise ValueError(f"chunk_ticks must be 1..{MAX_CHUNK_TICKS}")
        self._cctx = zstandard.ZstdCompressor(level=level)
        self.n = sim.units.n
        self.start_tick = int(sim.tick)
        self.header = recording_header(sim, precision, self.chunk_ticks, prelude)
        self._events: list = []
        self._inputs: list = []
        self._count = 0
        self._first = self.start_tick
        self._index: list[list[int]] = []
        self.ticks = 0  # states written or buffered
        self.closed = False
        # Encoding and compressing a chunk happen on a writer thread (numpy and zstd release the
        # GIL), with buffers from a small pool: the simulation does not wait for them.
        self._free: queue.Queue = queue.Queue()
        for _ in range(3):
            self._free.put(self._new_buffers())
        self._buf = self._free.get()
        self._work: queue.Queue = queue.Queue()
        self._scratch = Scratch()
        self._error: BaseException | None = None
        self._open()
        self._thread = threading.Thread(target=self._writer, name="replay-writer", daemon=True)
        self._thread.start()
        self._add_state(None)

    def _open(self) -> None:
        """Create the file with its preamble and header chunk."""
        self._fh = open(self.path, "wb")  # noqa: SIM115 - kept open while recording
        try:
            raw = json.dumps(self.header, separators=(",", ":")).encode("utf-8")
            self._write(preamble())
            self._write(chunk_bytes(HEADER, self.start_tick, 0, raw, self._cctx))
        except BaseException:
            self._fh.close()
            raise

    def _new_buffers(self) -> dict[str, np.ndarray]:
        c, n = self.chunk_ticks, self.n
        return {
            "state": np.zeros((c, n, 6)),
            "leader": np.zeros((c, n), bool),
            "player_command": np.zeros((c, 2)),
        }

    def _write(self, data: bytes) -> None:
        self._fh.write(data)
        self._fh.flush()

    def _add_state(self, events) -> None:
        st, b, k = self.sim.state, self._buf, self._count
        row = b["state"][k]
        row[:, 0:2] = st.pos
        row[:, 2:4] = st.vel
        row[:, 4] = st.angle
        row[:, 5] = st.omega
        lead = st.leader
        b["leader"][k] = lead if len(lead) == self.n else False
        b["player_command"][k] = self.sim.player_command
        self._events.append(None if events is None else to_jsonable(events))
        self._count += 1
        self.ticks += 1
        if self._count == self.chunk_ticks:
            self._hand_over()

    def record(self, command, events=None) -> None:
        """Store the command just given to ``sim.step`` and the state (and events) it made."""
        if self.closed:
            raise ValueError("recorder is closed")
        if self._error is not None:
            raise self._error
        data = command_record(command)
        if data is not None:
            self._inputs.append([int(self.sim.tick) - 1, data])
        self._add_state(events)

    def _hand_over(self) -> None:
        """Pass the buffered ticks to the writer thread; continue in a fresh buffer."""
        k = self._count
        if k == 0:
            return
        meta = {"first_tick": self._first, "ticks": k, "inputs": self._inputs}
        meta["events"] = self._events
        self._work.put((self._buf, k, meta))
        self._first += k
        self._count = 0
        self._inputs = []
        self._events = []
        self._buf = self._free.get()  # waits when the writer is three chunks behind

    def _writer(self) -> None:
        while True:
            item = self._work.get()
            if item is None:
                return
            buf, k, meta = item
            try:
                if self._error is None:
                    self._write_chunk(buf, k, meta)
            except BaseException as e:  # reported to the recording thread
                self._error = e
            finally:
                self._free.put(buf)

    def _write_chunk(self, b: dict, k: int, meta: dict) -> None:
        x, sc = b["state"][:k], self._scratch
        enc = encode_compact(x, sc) if self.precision == "compact" else encode_exact(x, sc)
        arrays = [("state", enc, "planes")]
        arrays.append(("leader", np.packbits(b["leader"][:k], axis=1), "raw"))
        arrays.append(("player_command", b["player_command"][:k].copy(), "raw"))
        raw = payload_parts(meta, arrays, sc)
        offset = self._fh.tell()
        self._write(chunk_bytes(DATA, meta["first_tick"], k, raw, self._cctx))
        self._index.append([offset, meta["first_tick"], k])

    def flush(self) -> None:
        """Write the buffered ticks as one chunk now and wait until it is on disk."""
        self._hand_over()
        self._drain()

    def _drain(self) -> None:
        self._work.put(None)
        self._thread.join()
        if self._error is not None:
            raise self._error
        if not self.closed:
            self._thread = threading.Thread(target=self._writer, name="replay-writer", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Write what is buffered and the end chunk (the mark of a complete file)."""
        self._finish(complete=True)

    def abandon(self) -> None:
        """Write the buffered ticks but no end chunk (the file reads as cut short)."""
        self._finish(complete=False)

    def _finish(self, complete: bool) -> None:
        if self.closed:
            return
        try:
            self._hand_over()
            self.closed = True
            self._drain()
            if complete:
                end = {"last_tick": self._first - 1, "ticks": self.ticks, "chunks": self._index}
                raw = json.dumps(end, separators=(",", ":")).encode("utf-8")
                self._write(chunk_bytes(END, self._first, 0, raw, self._cctx))
        finally:
            self.closed = True
            self._fh.close()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abandon()
