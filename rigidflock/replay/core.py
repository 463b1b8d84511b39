"""Replay files: a recorder, a reader and a verifier (DESIGN.md section 7).

A replay holds everything needed to see a run again and to run it again: a header (format version,
rigidflock, pymunk and numpy versions, the scene's TOML text, seed, dt, precision), every input that
changed the run (each :class:`~rigidflock.sim.Command` given to ``Simulation.step`` with its tick)
and every unit's state at every tick (position, angle, velocity, angular velocity, leader flag,
the player's effective throttle/steer, and the tick's contact events)::

    with Recorder("run.rfr", sim) as rec:          # records sim's current state first
        for _ in range(600):
            events = sim.step(command)
            rec.record(command, events)
    with ReplayReader("run.rfr") as r:
        r.state(300).pos                           # stored positions at tick 300
    verify("run.rfr").ok                           # re-simulate and compare every tick

File layout (all integers little-endian)::

    preamble   b"RFLKREPL", u16 format version, u16 flags (0), u32 reserved (0)       16 bytes
    chunk      b"CHNK", u8 type, u8 0, u16 0, i64 first tick, u32 ticks,
               u32 payload length, u32 raw length, u32 payload crc32, u32 crc32 of the above
               then the payload: one zstd frame
    header chunk (type 1), data chunks (type 2, ~1 s of ticks each), end chunk (type 3)

A data chunk's payload is a u32 length, a JSON object (``arrays``: name, dtype, shape and layout
of each array that follows, packed in that order; ``inputs``: ``[tick, command]`` pairs;
``events``: each tick's StepEvents) and the arrays' bytes: ``state`` (6, N, T) columns x, y, vx,
vy, angle, omega; ``leader`` (T, ceil(N / 8)) packed bits; ``player_command`` (T, 2) float64.
Dtypes come from a short allow-list and every shape is checked against the bytes present.
The end chunk holds the tick count and an index of chunk offsets; a file without it was cut
short. Every chunk is written with one write and flushed, so a process killed at any
moment leaves every complete chunk readable; the reader checks both checksums of every chunk, and
bounds every length before reading or allocating, and stops at the first incomplete or damaged
chunk: what it returns is always an intact prefix. Nothing in a file is executed (JSON, raw
numbers and zstd only; never pickle).

Precision (recorded in the header):

- ``"compact"`` (default): fixed point. Position and velocity in 1/1024 world unit (per second),
  angle in 2**-16 rad, angular velocity in 2**-12 rad/s, rounded to integers; within a chunk each
  unit's series is second-order delta coded, zigzagged, byte-plane shuffled, then zstd compressed
  (level 3, on a writer thread with reused work arrays: the simulation does not wait for it).
  The reader returns exactly the integers the recorder computed (:func:`quantize` of the live
  state); ``verify`` compares a re-simulated run quantized the same way, integer for integer.
- ``"exact"``: float64 bit patterns, XOR'ed with the previous tick, byte-plane shuffled, zstd:
  states read back bit for bit, and ``verify`` compares bit for bit.

Commands are stored as JSON built from their dataclass fields (nested frozen dataclasses, tuples,
str/int/float/bool/None, numpy arrays), tagged with their class name and rebuilt only from the
dataclasses of :mod:`rigidflock.sim`; a field this version does not know is a clear error. A tick
whose command is None or equals ``Command()`` (every field at its default: the scene's own control
drives, no switches) is not stored; the simulation treats both alike, and a test checks it.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import math
import os
import platform
import queue
import struct
import threading
import typing
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np
import zstandard

from rigidflock import __version__
from rigidflock.model.state import State

MAGIC = b"RFLKREPL"
FORMAT = "rigidflock-replay"
FORMAT_VERSION = 1
PREAMBLE = struct.Struct("<8sHHI")
CHUNK = struct.Struct("<4sBBHqIIII")  # without the trailing header crc32
CHUNK_SYNC = b"CHNK"
CHUNK_HEAD = CHUNK.size + 4
HEADER, DATA, END = 1, 2, 3
PRECISIONS = ("compact", "exact")
# Fixed-point scales of the compact precision (quanta per unit).
SCALES = {"pos": 1024.0, "vel": 1024.0, "angle": 65536.0, "omega": 4096.0}
STATE_FIELDS = ("pos", "vel", "angle", "omega")
FIELD_WORDS = {"pos": "position", "vel": "velocity", "angle": "angle", "omega": "angular velocity"}
# Bounds on what a chunk may claim, checked before anything is read or allocated.
MAX_PAYLOAD = 1 << 30
MAX_RAW = 1 << 31
MAX_HEADER = 64 << 20
MAX_CHUNK_TICKS = 1 << 16
MAX_UNITS = 1 << 24
ALLOWED_DTYPES = {"|u1", "<u4", "<u8", "<f8", "|b1", "<i8", "<i4"}
ZSTD_LEVEL = 3


class ReplayError(Exception):
    """A file that cannot be read as a replay (one line, names the file)."""


# --------------------------------------------------------------------------------------------------
# Commands <-> JSON


def _sim_dataclasses() -> dict[str, type]:
    """The dataclasses a command may be built from: those named in rigidflock.sim's namespace
    and those reachable through Command's type hints."""
    from rigidflock.sim import commands as sim

    found: dict[str, type] = {}

    def add(tp, depth=0) -> None:
        if depth > 6:
            return
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            if tp.__name__ in found:
                return
            found[tp.__name__] = tp
            try:
                hints = typing.get_type_hints(tp)
            except Exception:  # annotations that cannot be resolved: the namespace still counts
                hints = {}
            for h in hints.values():
                add(h, depth + 1)
        for arg in typing.get_args(tp):
            add(arg, depth + 1)

    add(sim.Command)
    for value in vars(sim).values():
        if isinstance(value, type) and dataclasses.is_dataclass(value):
            found.setdefault(value.__name__, value)
    return found


def to_jsonable(obj):
    """A command (or any value inside one) as JSON-able data; dataclasses are tagged."""
    if obj is None or isinstance(obj, bool | str):
        return obj
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {"__type__": type(obj).__name__}
        for f in dataclasses.fields(obj):
            out[f.name] = to_jsonable(getattr(obj, f.name))
        return out
    if isinstance(obj, np.ndarray):
        a = np.ascontiguousarray(obj)
        if a.dtype.str not in ALLOWED_DTYPES:
            raise TypeError(f"cannot record an array of {a.dtype}")
        return {"__ndarray__": a.dtype.str, "shape": list(a.shape), "data": a.ravel().tolist()}
    if isinstance(obj, tuple | list):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, dict):
        if not all(isinstance(k, str) for k in obj):
            raise TypeError("cannot record a dict with non-string keys")
        return {"__dict__": {k: to_jsonable(v) for k, v in obj.items()}}
    raise TypeError(f"cannot record a value of type {type(obj).__name__}")


def from_jsonable(data, registry: dict[str, type] | None = None):
    """Inverse of :func:`to_jsonable` (JSON arrays become tuples). Raises ValueError."""
    registry = _sim_dataclasses() if registry is None else registry
    if data is None or isinstance(data, bool | int | float | str):
        return data
    if isinstance(data, list):
        return tuple(from_jsonable(v, registry) for v in data)
    if not isinstance(data, dict):
        raise ValueError(f"unexpected {type(data).__name__}")
    if "__ndarray__" in data:
        dtype = data["__ndarray__"]
        if dtype not in ALLOWED_DTYPES or not isinstance(data.get("shape"), list):
            raise ValueError(f"bad array {dtype!r}")
        return np.asarray(data.get("data", []), dtype=np.dtype(dtype)).reshape(data["shape"])
    if "__dict__" in data:
        if not isinstance(data["__dict__"], dict):
            raise ValueError("bad mapping")
        return {k: from_jsonable(v, registry) for k, v in data["__dict__"].items()}
    name = data.get("__type__")
    cls = registry.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"unknown type {name!r} (written by a newer rigidflock?)")
    known = {f.name for f in dataclasses.fields(cls) if f.init}
    extra = sorted(set(data) - known - {"__type__"})
    if extra:
        raise ValueError(
            f"{name} has no field {extra[0]!r} in this rigidflock (written by a newer version?)"
        )
    kwargs = {k: from_jsonable(v, registry) for k, v in data.items() if k != "__type__"}
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as e:
        raise ValueError(f"cannot rebuild {name}: {e}") from None


@functools.cache
def _default_command_record():
    from rigidflock.sim import Command

    return to_jsonable(Command())


def _command_record(command) -> object | None:
    """The JSON form of a command worth storing; None for None or the default Command()."""
    if command is None:
        return None
    data = to_jsonable(command)
    return None if data == _default_command_record() else data


def command_matters(command) -> bool:
    """False for None and for a command with every field at its default (not stored)."""
    return _command_record(command) is not None


# --------------------------------------------------------------------------------------------------
# State arrays <-> chunk payloads


def quantize(values: np.ndarray, name: str) -> np.ndarray:
    """Fixed-point integers of a state field at the compact precision (int64)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.round(np.asarray(values, dtype=np.float64) * SCALES[name]).astype(np.int64)


def quantize_state(state: State) -> dict[str, np.ndarray]:
    """Every stored field of ``state`` as the compact precision stores it."""
    return {k: quantize(getattr(state, k), k) for k in STATE_FIELDS}


def _unplanes(buf: bytes | memoryview, dtype: np.dtype, count: int) -> np.ndarray:
    b = np.frombuffer(buf, np.uint8).reshape(dtype.itemsize, count)
    return np.ascontiguousarray(b.T).view(dtype).reshape(count)


# The state of a chunk travels as one array of columns (COLUMNS, N, T): x, y, vx, vy, angle,
# omega; each unit's series of one column is contiguous (what the delta coding works along).
COLUMNS = (("pos", 0, 2), ("vel", 2, 4), ("angle", 4, 5), ("omega", 5, 6))
COLUMN_SCALES = np.array(
    [SCALES["pos"]] * 2 + [SCALES["vel"]] * 2 + [SCALES["angle"], SCALES["omega"]]
)


def _fields(cols: np.ndarray) -> dict[str, np.ndarray]:
    """(6, N, T) -> {"pos": (T, N, 2), "vel": (T, N, 2), "angle": (T, N), "omega": (T, N)}."""
    out = {}
    for name, lo, hi in COLUMNS:
        part = cols[lo:hi].transpose(2, 1, 0)
        out[name] = np.ascontiguousarray(part if hi - lo > 1 else part[..., 0])
    return out


class _Scratch:
    """Work arrays kept from one chunk to the next: the writer allocates (and the kernel zeroes
    fresh pages for) nothing per chunk, which measurably slows the simulation around it."""

    def __init__(self):
        self._arrays: dict[str, np.ndarray] = {}

    def get(self, name: str, shape: tuple, dtype) -> np.ndarray:
        a = self._arrays.get(name)
        if a is None or a.shape != shape or a.dtype != dtype:
            a = self._arrays[name] = np.empty(shape, dtype)
        return a


def _encode_compact(x: np.ndarray, scratch: _Scratch | None = None) -> np.ndarray:
    """(T, N, 6) float64 states -> (6, N, T) zigzagged second-order deltas of the fixed-point
    integers (all scales are powers of two, so this is :func:`quantize` of each field), as
    uint32 when they fit. The result may live in ``scratch``."""
    s = scratch or _Scratch()
    t, n, k = x.shape
    shape = (k, n, t)
    c = s.get("f", shape, np.float64)
    np.copyto(c, x.transpose(2, 1, 0))
    np.multiply(c, COLUMN_SCALES[:k, None, None], out=c)
    np.rint(c, out=c)
    q, d = s.get("q", shape, np.int64), s.get("d", shape, np.int64)
    with np.errstate(invalid="ignore", over="ignore"):  # modular int64: exactly invertible
        np.copyto(q, c, casting="unsafe")
        d[..., :1] = q[..., :1]
        np.subtract(q[..., 1:], q[..., :-1], out=d[..., 1:])
        np.subtract(d[..., 2:], d[..., 1:-1], out=q[..., 2:])
        if t > 1:
            q[..., 1] = d[..., 1]
        np.left_shift(q, 1, out=d)
        np.right_shift(q, 63, out=q)
        np.bitwise_xor(d, q, out=d)
    z = d.view(np.uint64)
    if z.size and int(z.max()) < (1 << 32):
        u = s.get("u32", shape, np.uint32)
        np.copyto(u, z, casting="unsafe")
        return u
    return z


def _decode_compact(z: np.ndarray) -> np.ndarray:
    """Inverse of :func:`_encode_compact`: (6, N, T) int64 fixed point."""
    z = z.astype(np.uint64)
    d = ((z >> np.uint64(1)).view(np.int64)) ^ -((z & np.uint64(1)).view(np.int64))
    with np.errstate(over="ignore"):
        d[..., 1:] = np.cumsum(d[..., 1:], axis=-1, dtype=np.int64)
        return np.cumsum(d, axis=-1, dtype=np.int64)


def _encode_exact(x: np.ndarray, scratch: _Scratch | None = None) -> np.ndarray:
    """(T, N, 6) float64 -> (6, N, T) bit patterns XOR'ed with the previous tick's."""
    s = scratch or _Scratch()
    t, n, k = x.shape
    b = s.get("f", (k, n, t), np.float64)
    np.copyto(b, x.transpose(2, 1, 0))
    b = b.view(np.uint64)
    out = s.get("x", (k, n, t), np.uint64)
    out[..., :1] = b[..., :1]
    np.bitwise_xor(b[..., 1:], b[..., :-1], out=out[..., 1:])
    return out


def _decode_exact(z: np.ndarray) -> np.ndarray:
    return np.bitwise_xor.accumulate(z, axis=-1).view(np.float64)


def _payload_parts(meta: dict, arrays, scratch: _Scratch | None = None) -> list:
    """The payload as a list of buffers: u32 meta length, meta JSON (with the arrays' name,
    dtype, shape, layout), then each array's bytes ("planes": byte-plane shuffled)."""
    s = scratch or _Scratch()
    parts, specs = [], []
    for name, a, layout in arrays:
        specs.append([name, a.dtype.str, list(a.shape), layout])
        if layout == "planes":
            size = a.dtype.itemsize
            pl = s.get(f"planes-{name}", (size, a.size), np.uint8)
            np.copyto(pl, np.ascontiguousarray(a).reshape(-1).view(np.uint8).reshape(-1, size).T)
            parts.append(memoryview(pl).cast("B"))
        else:
            parts.append(np.ascontiguousarray(a).tobytes())
    head = json.dumps(dict(meta, arrays=specs), separators=(",", ":")).encode("utf-8")
    return [struct.pack("<I", len(head)), head, *parts]


def _pack_payload(meta: dict, arrays) -> bytes:
    """The payload of :func:`_payload_parts` as one bytes object."""
    return b"".join(bytes(p) for p in _payload_parts(meta, arrays))


def _unpack_payload(raw: bytes) -> tuple[dict, dict[str, np.ndarray]]:
    """Inverse of :func:`_pack_payload`; raises ValueError on anything inconsistent."""
    if len(raw) < 4:
        raise ValueError("payload too short")
    (n,) = struct.unpack_from("<I", raw)
    if n > len(raw) - 4:
        raise ValueError("payload metadata runs past its end")
    meta = json.loads(raw[4 : 4 + n].decode("utf-8"))
    if not isinstance(meta, dict) or not isinstance(meta.get("arrays", []), list):
        raise ValueError("payload metadata is not an object")
    pos = 4 + n
    arrays = {}
    view = memoryview(raw)
    for spec in meta.get("arrays", []):
        if not (isinstance(spec, list) and len(spec) == 4):
            raise ValueError("bad array entry")
        name, dtype, shape, layout = spec
        if dtype not in ALLOWED_DTYPES or layout not in ("planes", "raw"):
            raise ValueError(f"array {name!r}: unsupported dtype {dtype!r}")
        if not (isinstance(shape, list) and all(isinstance(s, int) and s >= 0 for s in shape)):
            raise ValueError(f"array {name!r}: bad shape")
        dt = np.dtype(dtype)
        count = math.prod(shape)
        nbytes = count * dt.itemsize
        if nbytes > len(raw) - pos:
            raise ValueError(f"array {name!r} runs past the payload")
        buf = view[pos : pos + nbytes]
        a = _unplanes(buf, dt, count) if layout == "planes" else np.frombuffer(buf, dt).copy()
        arrays[name] = a.reshape(shape)
        pos += nbytes
    if pos != len(raw):
        raise ValueError("payload has trailing bytes")
    return meta, arrays


def _chunk_bytes(kind: int, first_tick: int, ticks: int, raw, cctx) -> bytes:
    """One chunk: header, checksums and the zstd frame of ``raw`` (bytes or a list of
    buffers, compressed as one stream)."""
    parts = [raw] if isinstance(raw, bytes | bytearray) else raw
    raw_len = sum(len(p) for p in parts)
    z = cctx.compressobj(size=raw_len)
    payload = b"".join([*(z.compress(p) for p in parts), z.flush()])
    head = CHUNK.pack(
        CHUNK_SYNC, kind, 0, 0, first_tick, ticks, len(payload), raw_len, zlib.crc32(payload)
    )
    return head + struct.pack("<I", zlib.crc32(head)) + payload


# --------------------------------------------------------------------------------------------------
# Recording


def _package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


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
        dt = sim.scene.world.dt
        self.chunk_ticks = int(chunk_ticks or max(1, round(1.0 / dt)))
        if not 1 <= self.chunk_ticks <= MAX_CHUNK_TICKS:
            raise ValueError(f"chunk_ticks must be 1..{MAX_CHUNK_TICKS}")
        self._cctx = zstandard.ZstdCompressor(level=level)
        n = sim.units.n
        self.n = n
        self.start_tick = int(sim.tick)
        self.header = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "rigidflock": __version__,
            "pymunk": _package_version("pymunk"),
            "numpy": np.__version__,
            "python": platform.python_version(),
            "machine": platform.machine(),
            "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "scene_source": str(sim.scene.source),
            "scene_name": sim.scene.name,
            "scene_text": sim.scene.text,
            "seed": int(sim.seed),
            "dt": float(dt),
            "units": n,
            "has_player": bool(sim.units.has_player),
            "precision": precision,
            "scales": SCALES if precision == "compact" else None,
            "chunk_ticks": self.chunk_ticks,
            "start_tick": self.start_tick,
            "prelude": [[int(t), c] for t, c in ((t, _command_record(c)) for t, c in prelude) if c],
            "fields": ["pos", "vel", "angle", "omega", "leader", "player_command", "events"],
        }
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
        self._scratch = _Scratch()
        self._error: BaseException | None = None
        self._fh = open(self.path, "wb")  # noqa: SIM115 - kept open while recording
        try:
            raw = json.dumps(self.header, separators=(",", ":")).encode("utf-8")
            self._write(PREAMBLE.pack(MAGIC, FORMAT_VERSION, 0, 0))
            self._write(_chunk_bytes(HEADER, self.start_tick, 0, raw, self._cctx))
        except BaseException:
            self._fh.close()
            raise
        self._thread = threading.Thread(target=self._writer, name="replay-writer", daemon=True)
        self._thread.start()
        self._add_state(None)

    def _new_buffers(self) -> dict[str, np.ndarray]:
        c, n = self.chunk_ticks, self.n
        return {
            "state": np.zeros((c, n, 6)),
            "leader": np.zeros((c, n), bool),
            "player_command": np.zeros((c, 2)),
        }

    @property
    def ticks_recorded(self) -> int:
        return self.ticks

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
        data = _command_record(command)
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
        enc = _encode_compact(x, sc) if self.precision == "compact" else _encode_exact(x, sc)
        arrays = [("state", enc, "planes")]
        arrays.append(("leader", np.packbits(b["leader"][:k], axis=1), "raw"))
        arrays.append(("player_command", b["player_command"][:k].copy(), "raw"))
        raw = _payload_parts(meta, arrays, sc)
        offset = self._fh.tell()
        self._write(_chunk_bytes(DATA, meta["first_tick"], k, raw, self._cctx))
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
                self._write(_chunk_bytes(END, self._first, 0, raw, self._cctx))
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


# --------------------------------------------------------------------------------------------------
# Reading


@dataclass
class ChunkInfo:
    offset: int  # of the chunk header in the file
    first_tick: int
    ticks: int
    payload_len: int
    raw_len: int
    crc: int


@dataclass
class Chunk:
    """One decoded data chunk: ``raw`` holds the stored arrays, (T, N, ...) tick-major (int64
    fixed point for compact files, float64 for exact ones)."""

    first_tick: int
    ticks: int
    raw: dict[str, np.ndarray]
    leader: np.ndarray  # (T, N) bool
    player_command: np.ndarray  # (T, 2)
    events: list  # per tick, JSON form
    inputs: list  # [tick, command JSON]


def _fail(path, message: str) -> ReplayError:
    return ReplayError(f"{path}: {message}")


class ReplayReader:
    """Reads a replay file: the header at once, the chunk index by scanning every chunk's
    checksums, the data chunk by chunk on demand (a few decoded chunks are cached).

    ``complete`` is False when the file has no end chunk (it was cut short) or a damaged chunk;
    ``problem`` then says where, and the readable ticks are ``first_tick..last_tick``.
    Raises :class:`ReplayError` when the file is not a replay, is of an unknown format version,
    or its header is damaged.
    """

    CACHE = 4

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        try:
            self._fh = open(self.path, "rb")  # noqa: SIM115 - closed by close()
        except FileNotFoundError:
            raise _fail(path, "no such file") from None
        except IsADirectoryError:
            raise _fail(path, "is a directory, not a replay file") from None
        except OSError as e:
            raise _fail(path, f"cannot read: {e.strerror or e}") from None
        try:
            self.size = os.fstat(self._fh.fileno()).st_size
            self._dctx = zstandard.ZstdDecompressor()
            self._cache: OrderedDict[int, Chunk] = OrderedDict()
            self._read_preamble()
            self.header = self._read_header()
            self._scan()
        except BaseException:
            self._fh.close()
            raise

    # -- opening ------------------------------------------------------------------------------

    def _read_preamble(self) -> None:
        data = self._fh.read(PREAMBLE.size)
        if len(data) < len(MAGIC) or not data.startswith(MAGIC):
            what = "empty file" if not data else "no replay signature"
            raise _fail(self.path, f"not a rigidflock replay ({what})")
        if len(data) < PREAMBLE.size:
            raise _fail(self.path, "replay cut short inside its header")
        _, version, _, _ = PREAMBLE.unpack(data)
        self._check_version(version)

    def _check_version(self, version) -> None:
        if not isinstance(version, int) or isinstance(version, bool):
            raise _fail(self.path, "replay header has no format version")
        if version > FORMAT_VERSION:
            raise _fail(
                self.path,
                f"replay format version {version} is newer than this rigidflock "
                f"{__version__} reads (version {FORMAT_VERSION}); upgrade rigidflock",
            )
        if version != FORMAT_VERSION:
            raise _fail(self.path, f"unknown replay format version {version}")

    def _chunk_head(self, offset: int) -> tuple[ChunkInfo, int] | str:
        """The chunk header at ``offset`` and its type, or a reason it is not readable."""
        self._fh.seek(offset)
        head = self._fh.read(CHUNK_HEAD)
        if len(head) < CHUNK_HEAD:
            return "cut" if head or offset < self.size else "eof"
        sync, kind, _, _, first, ticks, plen, rlen, crc = CHUNK.unpack_from(head)
        (hcrc,) = struct.unpack_from("<I", head, CHUNK.size)
        if sync != CHUNK_SYNC or zlib.crc32(head[: CHUNK.size]) != hcrc:
            return "damaged"
        if kind not in (HEADER, DATA, END) or plen > MAX_PAYLOAD or rlen > MAX_RAW:
            return "damaged"
        if offset + CHUNK_HEAD + plen > self.size:
            return "cut"
        return ChunkInfo(offset, first, ticks, plen, rlen, crc), kind

    def _payload(self, info: ChunkInfo) -> bytes:
        self._fh.seek(info.offset + CHUNK_HEAD)
        data = self._fh.read(info.payload_len)
        if len(data) != info.payload_len or zlib.crc32(data) != info.crc:
            raise ValueError("checksum mismatch")
        return data

    def _decompress(self, info: ChunkInfo, data: bytes) -> bytes:
        try:
            raw = self._dctx.decompress(data, max_output_size=info.raw_len)
        except zstandard.ZstdError as e:
            raise ValueError(f"cannot decompress: {e}") from None
        if len(raw) != info.raw_len:
            raise ValueError("decompressed size differs from the chunk header")
        return raw

    def _read_header(self) -> dict:
        got = self._chunk_head(PREAMBLE.size)
        if isinstance(got, str) or got[1] != HEADER:
            if got in ("cut", "eof"):
                raise _fail(self.path, "replay cut short inside its header (nothing readable)")
            raise _fail(self.path, "replay header damaged (not readable)")
        info, _ = got
        if info.raw_len > MAX_HEADER:
            raise _fail(self.path, "replay header damaged (too large)")
        try:
            raw = self._decompress(info, self._payload(info))
            header = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise _fail(self.path, f"replay header damaged ({e})") from None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise _fail(self.path, "not a rigidflock replay (header has no replay format)")
        self._check_version(header.get("format_version"))
        types = {
            "scene_text": str,
            "scene_source": str,
            "seed": int,
            "dt": float,
            "units": int,
            "precision": str,
            "chunk_ticks": int,
            "start_tick": int,
            "prelude": list,
        }
        for key, tp in types.items():
            v = header.get(key)
            if not isinstance(v, tp) or isinstance(v, bool):
                raise _fail(self.path, f"replay header damaged (field {key!r})")
        if header["precision"] not in PRECISIONS:
            raise _fail(self.path, f"unknown replay precision {header['precision']!r}")
        if not 0 <= header["units"] <= MAX_UNITS or header["start_tick"] < 0:
            raise _fail(self.path, "replay header damaged (unit count or start tick)")
        if not 1 <= header["chunk_ticks"] <= MAX_CHUNK_TICKS:
            raise _fail(self.path, "replay header damaged (chunk size)")
        self._data_start = info.offset + CHUNK_HEAD + info.payload_len
        return header

    def _scan(self) -> None:
        """Walk the chunks after the header, checking both checksums of each: the index of
        the intact prefix, and whether (and where) the file ends early."""
        self.chunks: list[ChunkInfo] = []
        self.complete = False
        self.problem: str | None = None
        self.end: dict | None = None
        offset = self._data_start
        expected = self.header["start_tick"]
        n = self.header["units"]
        while True:
            got = self._chunk_head(offset)
            reason = None
            if isinstance(got, str):
                reason = got
            else:
                info, kind = got
                bad_ticks = kind == DATA and not 1 <= info.ticks <= MAX_CHUNK_TICKS
                if kind == HEADER or info.first_tick != expected or bad_ticks:
                    reason = "damaged"
                elif kind == DATA and info.raw_len > 64 * info.ticks * (n + 1) + (1 << 24):
                    reason = "damaged"  # more than any encoding of this many states needs
                else:
                    try:
                        data = self._payload(info)
                    except ValueError:
                        reason = "damaged"
            if reason is not None:
                tick = expected - 1
                if reason == "eof":
                    self.problem = f"cut short at tick {tick} (no end mark: the recording stopped)"
                elif reason == "cut":
                    self.problem = f"cut short at tick {tick} (incomplete chunk at byte {offset})"
                else:
                    self.problem = f"damaged chunk at byte {offset}; readable up to tick {tick}"
                return
            if kind == END:
                try:
                    end = json.loads(self._decompress(info, data).decode("utf-8"))
                except (ValueError, UnicodeDecodeError):
                    end = None
                if not isinstance(end, dict):
                    self.problem = f"damaged end mark at byte {offset}"
                    return
                self.end = end
                self.complete = True
                return
            self.chunks.append(info)
            expected += info.ticks
            offset = info.offset + CHUNK_HEAD + info.payload_len

    # -- properties ---------------------------------------------------------------------------

    @property
    def units(self) -> int:
        return self.header["units"]

    @property
    def precision(self) -> str:
        return self.header["precision"]

    @property
    def dt(self) -> float:
        return self.header["dt"]

    @property
    def first_tick(self) -> int:
        return self.header["start_tick"]

    @property
    def ticks(self) -> int:
        """Readable ticks (states) in the file."""
        return sum(c.ticks for c in self.chunks)

    @property
    def last_tick(self) -> int:
        """The last readable tick (``first_tick - 1`` when there is none)."""
        return self.first_tick + self.ticks - 1

    def scene(self):
        """The recorded scene, parsed again from the header's text."""
        from rigidflock.scene import SceneError, parse_scene

        try:
            return parse_scene(self.header["scene_text"], self.header["scene_source"])
        except SceneError as e:
            raise _fail(self.path, f"recorded scene does not parse: {e.errors[0]}") from None

    # -- data ---------------------------------------------------------------------------------

    def chunk_index(self, tick: int) -> int:
        if not self.first_tick <= tick <= self.last_tick:
            raise IndexError(f"tick {tick} not in {self.first_tick}..{self.last_tick}")
        lo, hi = 0, len(self.chunks) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.chunks[mid].first_tick <= tick:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def chunk(self, index: int) -> Chunk:
        """Decoded data chunk number ``index`` (cached). Raises ReplayError when it does not
        decode (only a crafted file gets past both checksums to here)."""
        if index in self._cache:
            self._cache.move_to_end(index)
            return self._cache[index]
        info = self.chunks[index]
        try:
            c = self._decode(info)
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
            raise _fail(self.path, f"chunk at byte {info.offset} does not decode ({e})") from None
        self._cache[index] = c
        while len(self._cache) > self.CACHE:
            self._cache.popitem(last=False)
        return c

    def _decode(self, info: ChunkInfo) -> Chunk:
        meta, arrays = _unpack_payload(self._decompress(info, self._payload(info)))
        t, n = info.ticks, self.units
        if meta.get("first_tick") != info.first_tick or meta.get("ticks") != t:
            raise ValueError("tick range differs from the chunk header")
        missing = {"state", "leader", "player_command"} - set(arrays)
        if missing:
            raise ValueError(f"no {sorted(missing)[0]!r} array")
        a = arrays["state"]
        if a.shape != (len(COLUMN_SCALES), n, t):
            raise ValueError(f"states have shape {a.shape}, expected {(6, n, t)}")
        if self.precision == "compact":
            if a.dtype not in (np.uint32, np.uint64):
                raise ValueError(f"states have dtype {a.dtype}")
            raw = _fields(_decode_compact(a))
        else:
            if a.dtype != np.uint64:
                raise ValueError(f"states have dtype {a.dtype}")
            raw = _fields(_decode_exact(a))
        lead = arrays["leader"]
        if lead.dtype != np.uint8 or lead.shape != (t, (n + 7) // 8):
            raise ValueError("leader flags have the wrong shape")
        leader = np.unpackbits(lead, axis=1, count=n).astype(bool)
        pc = arrays["player_command"]
        if pc.shape != (t, 2) or pc.dtype != np.float64:
            raise ValueError("player commands have the wrong shape")
        events, inputs = meta.get("events"), meta.get("inputs")
        if not isinstance(events, list) or len(events) != t or not isinstance(inputs, list):
            raise ValueError("events or inputs missing")
        for item in inputs:
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], int)):
                raise ValueError("bad input entry")
        return Chunk(info.first_tick, t, raw, leader, pc, events, inputs)

    def raw(self, tick: int) -> dict[str, np.ndarray]:
        """The stored arrays of ``tick`` as stored: int64 fixed point (compact) or float64."""
        c = self.chunk(self.chunk_index(tick))
        k = tick - c.first_tick
        out = {name: c.raw[name][k] for name in STATE_FIELDS}
        out["leader"] = c.leader[k]
        return out

    def state(self, tick: int) -> State:
        """The stored state of ``tick`` as floats (fixed point divided out for compact files)."""
        c = self.chunk(self.chunk_index(tick))
        k = tick - c.first_tick
        vals = {}
        for name in STATE_FIELDS:
            v = c.raw[name][k]
            vals[name] = v / SCALES[name] if self.precision == "compact" else v.copy()
        return State(tick, vals["pos"], vals["vel"], vals["angle"], vals["omega"], c.leader[k])

    def player_command(self, tick: int) -> tuple[float, float]:
        c = self.chunk(self.chunk_index(tick))
        t, s = c.player_command[tick - c.first_tick]
        return float(t), float(s)

    def events(self, tick: int) -> dict | None:
        """The contact events of the step that led to ``tick`` (None for the first tick)."""
        c = self.chunk(self.chunk_index(tick))
        e = c.events[tick - c.first_tick]
        if isinstance(e, dict):
            e = {k: v for k, v in e.items() if k != "__type__"}
        return e

    def inputs(self) -> dict[int, object]:
        """Every recorded command, by tick, as Command objects (prelude included)."""
        registry = _sim_dataclasses()
        out: dict[int, object] = {}
        items = list(self.header["prelude"])
        for i in range(len(self.chunks)):
            items += self.chunk(i).inputs
        for item in items:
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], int)):
                raise _fail(self.path, "bad input entry")
            tick, data = item
            try:
                cmd = from_jsonable(data, registry)
            except (ValueError, TypeError) as e:
                raise _fail(self.path, f"command at tick {tick}: {e}") from None
            out[tick] = cmd
        return out

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> ReplayReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_replay(path) -> ReplayReader:
    return ReplayReader(path)


# --------------------------------------------------------------------------------------------------
# Information and verification


def info(reader: ReplayReader) -> dict:
    """What ``rigidflock replay FILE --info`` prints, as data. Decodes every chunk."""
    h = reader.header
    for i in range(len(reader.chunks)):
        reader.chunk(i)  # raises ReplayError on a chunk that does not decode
    n_inputs = len(reader.inputs())
    ticks = reader.ticks
    units = reader.units
    return {
        "file": str(reader.path),
        "format_version": h["format_version"],
        "rigidflock": h.get("rigidflock"),
        "pymunk": h.get("pymunk"),
        "created": h.get("created"),
        "scene": h.get("scene_name") or h["scene_source"],
        "scene_source": h["scene_source"],
        "seed": h["seed"],
        "dt": h["dt"],
        "precision": h["precision"],
        "units": units,
        "has_player": h.get("has_player"),
        "first_tick": reader.first_tick,
        "last_tick": reader.last_tick,
        "ticks": ticks,
        "duration_seconds": max(ticks - 1, 0) * h["dt"],
        "inputs": n_inputs,
        "chunks": len(reader.chunks),
        "bytes": reader.size,
        "bytes_per_unit_tick": reader.size / (units * ticks) if units and ticks else None,
        "complete": reader.complete,
        "problem": reader.problem,
    }


def format_info(d: dict) -> str:
    status = "complete" if d["complete"] else f"INCOMPLETE: {d['problem']}"
    per = d["bytes_per_unit_tick"]
    lines = [
        f"{d['file']}: rigidflock replay, format {d['format_version']}, {status}",
        f"  scene     {d['scene']} ({d['scene_source']}), seed {d['seed']}, dt {d['dt']:g} s",
        f"  recorded  by rigidflock {d['rigidflock']}, pymunk {d['pymunk']}, {d['created']}",
        f"  ticks     {d['first_tick']}..{d['last_tick']} ({d['ticks']} states, "
        f"{d['duration_seconds']:.2f} s)",
        f"  units     {d['units']}" + (" (player included)" if d["has_player"] else ""),
        f"  inputs    {d['inputs']} recorded commands",
        f"  size      {d['bytes']} bytes in {d['chunks']} chunks, {d['precision']} precision"
        + (f", {per:.2f} bytes per unit per tick" if per is not None else ""),
    ]
    return "\n".join(lines)


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

    @property
    def ok(self) -> bool:
        return self.difference is None


def _fmt(v) -> str:
    a = np.asarray(v)
    if a.ndim == 0:
        return f"{float(a):.9g}" if a.dtype.kind == "f" else str(a.item())
    return "(" + ", ".join(_fmt(x) for x in a) + ")"


def _compare(reader: ReplayReader, c: Chunk, k: int, sim) -> Difference | None:
    tick = c.first_tick + k
    st = sim.state
    for name in STATE_FIELDS:
        stored = c.raw[name][k]
        live = getattr(st, name)
        if reader.precision == "compact":
            q = quantize(live, name)
            bad = q != stored
            shown_stored = stored / SCALES[name]
        else:
            bad = np.ascontiguousarray(live, np.float64).view(np.uint64) != stored.view(np.uint64)
            shown_stored = stored
        if bad.ndim == 2:
            bad = bad.any(axis=1)
        if bad.any():
            rows = np.flatnonzero(bad)
            i = int(rows[0])
            with np.errstate(invalid="ignore"):
                amount = float(np.max(np.abs(np.asarray(live[i]) - np.asarray(shown_stored[i]))))
            return Difference(
                tick, i, name, _fmt(shown_stored[i]), _fmt(live[i]), amount, len(rows)
            )
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


def verify(reader: ReplayReader, progress=None) -> VerifyResult:
    """Re-simulate from the recorded scene, seed and inputs; compare every stored tick at the
    file's precision. ``progress``: optional callable(ticks_done, ticks_total)."""
    from rigidflock.sim import Simulation

    scene = reader.scene()
    inputs = reader.inputs()
    result = VerifyResult(0, complete=reader.complete, problem=reader.problem)
    h = reader.header
    here = _package_version("pymunk")
    if h.get("pymunk") and here and h.get("pymunk") != here:
        result.notes.append(f"recorded with pymunk {h['pymunk']}, verifying with {here}")
    if not reader.chunks:
        return result
    try:
        sim = Simulation(scene, seed=h["seed"])
        total = reader.last_tick + 1
        while sim.tick < reader.first_tick:
            sim.step(inputs.get(sim.tick))
        for ci in range(len(reader.chunks)):
            c = reader.chunk(ci)
            for k in range(c.ticks):
                tick = c.first_tick + k
                if k or ci:
                    cmd = inputs.get(sim.tick)
                    events = sim.step(cmd)
                    stored_ev = c.events[k]
                    live_ev = to_jsonable(events)
                    if stored_ev != live_ev:
                        result.difference = Difference(
                            tick, None, "events", _events_text(stored_ev),
                            _events_text(live_ev), None,
                        )  # fmt: skip
                        return result
                d = _compare(reader, c, k, sim)
                if d is not None:
                    result.difference = d
                    return result
                result.ticks_checked += 1
                if progress is not None:
                    progress(tick + 1, total)
    except ReplayError:
        raise
    except (ValueError, TypeError) as e:  # a recorded command the simulation refuses
        raise _fail(reader.path, f"re-simulation refused a recorded input: {e}") from None
    return result


def _events_text(e) -> str:
    if isinstance(e, dict):
        return ", ".join(f"{k} {v}" for k, v in e.items() if k not in ("__type__", "tick"))
    return str(e)
