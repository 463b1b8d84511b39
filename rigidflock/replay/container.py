"""The replay container: signature, chunk framing, checksums and the bounds a file may claim.

File layout (all integers little-endian)::

    preamble   b"RFLKREPL", u16 format version, u16 flags (0), u32 reserved (0)       16 bytes
    chunk      b"CHNK", u8 type, u8 0, u16 0, i64 first tick, u32 ticks,
               u32 payload length, u32 raw length, u32 payload crc32, u32 crc32 of the above
               then the payload: one zstd frame
    header chunk (type 1), data chunks (type 2, ~1 s of ticks each), end chunk (type 3)

The end chunk holds the tick count and an index of chunk offsets; a file without it was cut
short. Every chunk is written with one write and flushed, so a process killed at any moment
leaves every complete chunk readable; the reader checks both checksums of every chunk, and
bounds every length before reading or allocating, and stops at the first incomplete or damaged
chunk: what it returns is always an intact prefix. Nothing in a file is executed (JSON, raw
numbers and zstd only; never pickle).
"""

from __future__ import annotations

import platform
import struct
import zlib
from dataclasses import dataclass
from importlib import metadata

import zstandard

from rigidflock import __version__

MAGIC = b"RFLKREPL"
FORMAT = "rigidflock-replay"
FORMAT_VERSION = 1
PREAMBLE = struct.Struct("<8sHHI")
CHUNK = struct.Struct("<4sBBHqIIII")  # without the trailing header crc32
CHUNK_SYNC = b"CHNK"
CHUNK_HEAD = CHUNK.size + 4
HEADER, DATA, END = 1, 2, 3
PRECISIONS = ("compact", "exact")
# Bounds on what a chunk may claim, checked before anything is read or allocated.
MAX_PAYLOAD = 1 << 30
MAX_RAW = 1 << 31
MAX_HEADER = 64 << 20
MAX_CHUNK_TICKS = 1 << 16
MAX_UNITS = 1 << 24
# The only array dtypes a file may name (payload arrays and arrays inside commands).
ALLOWED_DTYPES = {"|u1", "<u4", "<u8", "<f8", "|b1", "<i8", "<i4"}
ZSTD_LEVEL = 3


@dataclass
class ChunkInfo:
    offset: int  # of the chunk header in the file
    first_tick: int
    ticks: int
    payload_len: int
    raw_len: int
    crc: int


def package_version(name: str) -> str | None:
    """The installed version of ``name`` (recorded in the header), None when not installed."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


# The libraries whose version can change a run's numbers (the physics, the compiled kernels and
# their compiler, the arrays, the spatial searches); the header keeps each one's version under
# its name, beside Python's ("python"), and ``verify`` names those that differ.
RESULT_LIBRARIES = ("pymunk", "numpy", "numba", "llvmlite", "scipy")


def library_versions() -> dict[str, str | None]:
    """Python's version and each of :data:`RESULT_LIBRARIES`' installed versions (None: not
    installed), as a recording's header stores them."""
    return {"python": platform.python_version()} | {
        name: package_version(name) for name in RESULT_LIBRARIES
    }


def preamble() -> bytes:
    """The 16 bytes a replay file starts with."""
    return PREAMBLE.pack(MAGIC, FORMAT_VERSION, 0, 0)


def version_problem(version) -> str | None:
    """Why a file of format ``version`` cannot be read (None: it can)."""
    if not isinstance(version, int) or isinstance(version, bool):
        return "replay header has no format version"
    if version > FORMAT_VERSION:
        return (
            f"replay format version {version} is newer than this rigidflock "
            f"{__version__} reads (version {FORMAT_VERSION}); upgrade rigidflock"
        )
    if version != FORMAT_VERSION:
        return f"unknown replay format version {version}"
    return None


def chunk_bytes(kind: int, first_tick: int, ticks: int, raw, cctx) -> bytes:
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


def read_chunk_head(fh, offset: int, size: int) -> tuple[ChunkInfo, int] | str:
    """The chunk header at ``offset`` of ``fh`` (a file of ``size`` bytes) and its type, or a
    reason it is not readable: "eof" (the file ends there), "cut" or "damaged"."""
    fh.seek(offset)
    head = fh.read(CHUNK_HEAD)
    if len(head) < CHUNK_HEAD:
        return "cut" if head or offset < size else "eof"
    sync, kind, _, _, first, ticks, plen, rlen, crc = CHUNK.unpack_from(head)
    (hcrc,) = struct.unpack_from("<I", head, CHUNK.size)
    if sync != CHUNK_SYNC or zlib.crc32(head[: CHUNK.size]) != hcrc:
        return "damaged"
    if kind not in (HEADER, DATA, END) or plen > MAX_PAYLOAD or rlen > MAX_RAW:
        return "damaged"
    if offset + CHUNK_HEAD + plen > size:
        return "cut"
    return ChunkInfo(offset, first, ticks, plen, rlen, crc), kind


def read_payload(fh, info: ChunkInfo) -> bytes:
    """The compressed payload of a chunk, its checksum checked (ValueError on a mismatch)."""
    fh.seek(info.offset + CHUNK_HEAD)
    data = fh.read(info.payload_len)
    if len(data) != info.payload_len or zlib.crc32(data) != info.crc:
        raise ValueError("checksum mismatch")
    return data


def decompress(dctx: zstandard.ZstdDecompressor, info: ChunkInfo, data: bytes) -> bytes:
    """The payload's raw bytes, never more than the header's raw length (ValueError)."""
    try:
        raw = dctx.decompress(data, max_output_size=info.raw_len)
    except zstandard.ZstdError as e:
        raise ValueError(f"cannot decompress: {e}") from None
    if len(raw) != info.raw_len:
        raise ValueError("decompressed size differs from the chunk header")
    return raw
