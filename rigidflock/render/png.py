"""PNG files from numpy arrays and back, with zlib only (no imaging library needed)."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def encode_png(image: np.ndarray, level: int = 6) -> bytes:
    """(H, W, 3 or 4) uint8, row 0 at the top -> PNG bytes (8-bit RGB or RGBA)."""
    img = np.ascontiguousarray(image, dtype=np.uint8)
    h, w, ch = img.shape
    if ch not in (3, 4):
        raise ValueError(f"expected 3 or 4 channels, got {ch}")
    raw = np.concatenate([np.zeros((h, 1), np.uint8), img.reshape(h, w * ch)], axis=1)

    def chunk(tag: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(tag + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

    colour_type = 6 if ch == 4 else 2
    header = struct.pack(">IIBBBBB", w, h, 8, colour_type, 0, 0, 0)
    return (
        _SIGNATURE
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw.tobytes(), level))
        + chunk(b"IEND", b"")
    )


def save_png(path: str | os.PathLike, image: np.ndarray) -> None:
    """Write ``image`` to ``path`` whole or not at all (temporary file, then rename)."""
    from rigidflock.outputs import atomic_open

    with atomic_open(path, "wb") as fh:
        fh.write(encode_png(image))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)  # a picture, not a secret (the temporary file was 0600)


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def read_png(path: str | os.PathLike) -> np.ndarray:
    """An 8-bit RGB/RGBA, non-interlaced PNG -> (H, W, 3 or 4) uint8 (enough for screenshots)."""
    data = Path(path).read_bytes()
    if not data.startswith(_SIGNATURE):
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        tag, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + n]
        pos += 12 + n
        if tag == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif tag == b"IDAT":
            idat.append(body)
        elif tag == b"IEND":
            break
    w, h, depth, ctype, _, _, interlace = header
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"{path}: only 8-bit RGB/RGBA non-interlaced PNGs are supported")
    ch = 4 if ctype == 6 else 3
    stride = w * ch
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8).reshape(h, stride + 1)
    out = np.zeros((h, stride), np.int32)
    prev = np.zeros(stride, np.int32)
    for y in range(h):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) & 255
        else:  # 1 sub, 3 average, 4 paeth: sequential along the row
            cur = np.zeros(stride, np.int32)
            for x in range(stride):
                a = cur[x - ch] if x >= ch else 0
                c = prev[x - ch] if x >= ch else 0
                pred = a if f == 1 else (a + prev[x]) // 2 if f == 3 else int(_paeth(a, prev[x], c))
                cur[x] = (line[x] + pred) & 255
        out[y] = cur
        prev = cur
    return out.astype(np.uint8).reshape(h, w, ch)
