"""A data chunk's payload: packing, unpacking and decoding it into a :class:`Chunk`.

The payload is a u32 length, a JSON object (``arrays``: name, dtype, shape and layout of each
array that follows, packed in that order; ``inputs``: ``[tick, command]`` pairs; ``events``:
each tick's StepEvents) and the arrays' bytes: ``state`` (6, N, T) columns x, y, vx, vy, angle,
omega (see :mod:`~rigidflock.replay.states`); ``leader`` (T, ceil(N / 8)) packed bits;
``player_command`` (T, 2) float64. Dtypes come from a short allow-list and every shape is
checked against the bytes present.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass

import numpy as np

from rigidflock.replay.container import ALLOWED_DTYPES, ChunkInfo
from rigidflock.replay.states import Scratch, decode_states


def _unplanes(buf: bytes | memoryview, dtype: np.dtype, count: int) -> np.ndarray:
    """``count`` values of ``dtype`` from byte planes (all first bytes, then all second ...)."""
    b = np.frombuffer(buf, np.uint8).reshape(dtype.itemsize, count)
    return np.ascontiguousarray(b.T).view(dtype).reshape(count)


def payload_parts(meta: dict, arrays, scratch: Scratch | None = None) -> list:
    """The payload as a list of buffers: u32 meta length, meta JSON (with the arrays' name,
    dtype, shape, layout), then each array's bytes ("planes": byte-plane shuffled)."""
    s = scratch or Scratch()
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


def pack_payload(meta: dict, arrays) -> bytes:
    """The payload of :func:`payload_parts` as one bytes object."""
    return b"".join(bytes(p) for p in payload_parts(meta, arrays))


def unpack_payload(raw: bytes) -> tuple[dict, dict[str, np.ndarray]]:
    """Inverse of :func:`pack_payload`; raises ValueError on anything inconsistent."""
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
        name, dt, shape, layout = _array_spec(spec)
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


def _array_spec(spec) -> tuple[object, np.dtype, list[int], str]:
    """One ``[name, dtype, shape, layout]`` entry of the payload metadata, checked."""
    if not (isinstance(spec, list) and len(spec) == 4):
        raise ValueError("bad array entry")
    name, dtype, shape, layout = spec
    if dtype not in ALLOWED_DTYPES or layout not in ("planes", "raw"):
        raise ValueError(f"array {name!r}: unsupported dtype {dtype!r}")
    if not (isinstance(shape, list) and all(isinstance(s, int) and s >= 0 for s in shape)):
        raise ValueError(f"array {name!r}: bad shape")
    return name, np.dtype(dtype), shape, layout


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


def is_input(item) -> bool:
    """A ``[tick, command JSON]`` pair."""
    return isinstance(item, list) and len(item) == 2 and isinstance(item[0], int)


def decode_chunk(info: ChunkInfo, raw: bytes, units: int, precision: str) -> Chunk:
    """The data chunk ``info`` from its decompressed payload. Raises ValueError (and KeyError,
    TypeError on crafted metadata)."""
    meta, arrays = unpack_payload(raw)
    t, n = info.ticks, units
    if meta.get("first_tick") != info.first_tick or meta.get("ticks") != t:
        raise ValueError("tick range differs from the chunk header")
    missing = {"state", "leader", "player_command"} - set(arrays)
    if missing:
        raise ValueError(f"no {sorted(missing)[0]!r} array")
    states = decode_states(arrays["state"], n, t, precision)
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
    if not all(is_input(item) for item in inputs):
        raise ValueError("bad input entry")
    return Chunk(info.first_tick, t, states, leader, pc, events, inputs)
