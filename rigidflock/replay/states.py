"""Unit states in a data chunk: quantization and the compact and exact encodings of the
``state`` array, (6, N, T) columns x, y, vx, vy, angle, omega.

Precision (recorded in the header):

- ``"compact"`` (default): fixed point. Position and velocity in 1/1024 world unit (per second),
  angle in 2**-16 rad, angular velocity in 2**-12 rad/s, rounded to integers; within a chunk each
  unit's series is second-order delta coded, zigzagged, byte-plane shuffled, then zstd compressed
  (level 3, on a writer thread with reused work arrays: the simulation does not wait for it).
  The reader returns exactly the integers the recorder computed (:func:`quantize` of the live
  state); ``verify`` compares a re-simulated run quantized the same way, integer for integer.
- ``"exact"``: float64 bit patterns, XOR'ed with the previous tick, byte-plane shuffled, zstd:
  states read back bit for bit, and ``verify`` compares bit for bit.
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.state import State

# Fixed-point scales of the compact precision (quanta per unit).
SCALES = {"pos": 1024.0, "vel": 1024.0, "angle": 65536.0, "omega": 4096.0}
STATE_FIELDS = ("pos", "vel", "angle", "omega")
FIELD_WORDS = {"pos": "position", "vel": "velocity", "angle": "angle", "omega": "angular velocity"}
# The state of a chunk travels as one array of columns (COLUMNS, N, T): x, y, vx, vy, angle,
# omega; each unit's series of one column is contiguous (what the delta coding works along).
COLUMNS = (("pos", 0, 2), ("vel", 2, 4), ("angle", 4, 5), ("omega", 5, 6))
COLUMN_SCALES = np.array(
    [SCALES["pos"]] * 2 + [SCALES["vel"]] * 2 + [SCALES["angle"], SCALES["omega"]]
)


def quantize(values: np.ndarray, name: str) -> np.ndarray:
    """Fixed-point integers of a state field at the compact precision (int64)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.round(np.asarray(values, dtype=np.float64) * SCALES[name]).astype(np.int64)


def quantize_state(state: State) -> dict[str, np.ndarray]:
    """Every stored field of ``state`` as the compact precision stores it."""
    return {k: quantize(getattr(state, k), k) for k in STATE_FIELDS}


def fields(cols: np.ndarray) -> dict[str, np.ndarray]:
    """(6, N, T) -> {"pos": (T, N, 2), "vel": (T, N, 2), "angle": (T, N), "omega": (T, N)}."""
    out = {}
    for name, lo, hi in COLUMNS:
        part = cols[lo:hi].transpose(2, 1, 0)
        out[name] = np.ascontiguousarray(part if hi - lo > 1 else part[..., 0])
    return out


class Scratch:
    """Work arrays kept from one chunk to the next: the writer allocates (and the kernel zeroes
    fresh pages for) nothing per chunk, which measurably slows the simulation around it."""

    def __init__(self):
        self._arrays: dict[str, np.ndarray] = {}

    def get(self, name: str, shape: tuple, dtype) -> np.ndarray:
        a = self._arrays.get(name)
        if a is None or a.shape != shape or a.dtype != dtype:
            a = self._arrays[name] = np.empty(shape, dtype)
        return a


def encode_compact(x: np.ndarray, scratch: Scratch | None = None) -> np.ndarray:
    """(T, N, 6) float64 states -> (6, N, T) zigzagged second-order deltas of the fixed-point
    integers (all scales are powers of two, so this is :func:`quantize` of each field), as
    uint32 when they fit. The result may live in ``scratch``."""
    s = scratch or Scratch()
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


def decode_compact(z: np.ndarray) -> np.ndarray:
    """Inverse of :func:`encode_compact`: (6, N, T) int64 fixed point."""
    z = z.astype(np.uint64)
    d = ((z >> np.uint64(1)).view(np.int64)) ^ -((z & np.uint64(1)).view(np.int64))
    with np.errstate(over="ignore"):
        d[..., 1:] = np.cumsum(d[..., 1:], axis=-1, dtype=np.int64)
        return np.cumsum(d, axis=-1, dtype=np.int64)


def encode_exact(x: np.ndarray, scratch: Scratch | None = None) -> np.ndarray:
    """(T, N, 6) float64 -> (6, N, T) bit patterns XOR'ed with the previous tick's."""
    s = scratch or Scratch()
    t, n, k = x.shape
    b = s.get("f", (k, n, t), np.float64)
    np.copyto(b, x.transpose(2, 1, 0))
    b = b.view(np.uint64)
    out = s.get("x", (k, n, t), np.uint64)
    out[..., :1] = b[..., :1]
    np.bitwise_xor(b[..., 1:], b[..., :-1], out=out[..., 1:])
    return out


def decode_exact(z: np.ndarray) -> np.ndarray:
    """Inverse of :func:`encode_exact`: (6, N, T) float64."""
    return np.bitwise_xor.accumulate(z, axis=-1).view(np.float64)


def decode_states(a: np.ndarray, units: int, ticks: int, precision: str) -> dict[str, np.ndarray]:
    """A chunk's stored ``state`` array, checked, as :func:`fields` (int64 fixed point for
    compact files, float64 for exact ones). Raises ValueError."""
    if a.shape != (len(COLUMN_SCALES), units, ticks):
        raise ValueError(f"states have shape {a.shape}, expected {(6, units, ticks)}")
    if precision == "compact":
        if a.dtype not in (np.uint32, np.uint64):
            raise ValueError(f"states have dtype {a.dtype}")
        return fields(decode_compact(a))
    if a.dtype != np.uint64:
        raise ValueError(f"states have dtype {a.dtype}")
    return fields(decode_exact(a))
