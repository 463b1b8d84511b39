"""Pictures from numpy arrays (PNG, or JPEG by the file's extension) and PNGs back (Pillow),
written whole or not at all."""

from __future__ import annotations

import io
import os

import numpy as np
from PIL import Image, UnidentifiedImageError

from rigidflock.outputs import OutputError, atomic_open

IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}


def encode_png(image: np.ndarray, level: int = 6) -> bytes:
    """(H, W, 3 or 4) uint8, row 0 at the top -> PNG bytes (8-bit RGB or RGBA)."""
    img = np.ascontiguousarray(image, dtype=np.uint8)
    _, _, ch = img.shape
    if ch not in (3, 4):
        raise ValueError(f"expected 3 or 4 channels, got {ch}")
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="PNG", compress_level=level)
    return buf.getvalue()


def save_png(path: str | os.PathLike, image: np.ndarray) -> None:
    """Write ``image`` to ``path`` whole or not at all (temporary file, then rename)."""
    data = encode_png(image)
    with atomic_open(path, "wb") as fh:  # with the user's umask, like any file they create
        fh.write(data)


def image_format(path: str | os.PathLike) -> str:
    """The Pillow format for ``path`` from its extension ("PNG" or "JPEG"); OutputError (a
    clear one-line error) for any other extension.

    >>> image_format("shot.JPG"), image_format("a/b.png")
    ('JPEG', 'PNG')
    """
    fmt = IMAGE_FORMATS.get(os.path.splitext(str(path))[1].lower())
    if fmt is None:
        raise OutputError(f"{path}: a picture's file name must end in .png, .jpg or .jpeg")
    return fmt


def save_image(path: str | os.PathLike, image: np.ndarray, quality: int = 92) -> None:
    """Write ``image`` ((H, W, 3 or 4) uint8) to ``path`` as PNG or JPEG, chosen by the file's
    extension (:func:`image_format`), whole or not at all."""
    fmt = image_format(path)
    if fmt == "PNG":
        save_png(path, image)
        return
    buf = io.BytesIO()
    rgb = np.ascontiguousarray(np.asarray(image, dtype=np.uint8)[..., :3])
    Image.fromarray(rgb).save(buf, format="JPEG", quality=quality)
    with atomic_open(path, "wb") as fh:
        fh.write(buf.getvalue())


def read_png(path: str | os.PathLike) -> np.ndarray:
    """An 8-bit RGB/RGBA PNG -> (H, W, 3 or 4) uint8 (enough for screenshots)."""
    try:
        im = Image.open(path, formats=["PNG"])
    except UnidentifiedImageError:
        raise ValueError(f"{path}: not a PNG file") from None
    with im:
        if im.mode not in ("RGB", "RGBA"):
            raise ValueError(f"{path}: only 8-bit RGB/RGBA PNGs are supported")
        return np.asarray(im, dtype=np.uint8).copy()
