"""Replays into videos: every frame drawn offscreen and written as it is drawn, so memory stays
flat whatever the video's length (no frame is kept): MP4 (H.264) through the ffmpeg binary that
the ``imageio-ffmpeg`` wheel bundles, GIF by :class:`GifStream` (each frame quantized to its own
256-colour palette by Pillow and appended to the file; ffmpeg's per-frame palette filter queued
frames in memory when it fell behind, 4.4 GB for a minute at 1280 x 800).

GIF frame delays are whole centiseconds, so a GIF runs at 100 / k frames per second: 25 by
default (4 cs a frame); another ``fps`` is moved to the nearest such rate (30 -> 33.3, 3 cs) and
the frames are sampled at that rate, so the GIF lasts exactly as long as the ticks it shows.
Videos carry no interactive hints (speed, key help); ``panel="none"`` leaves the side panel out,
else it scales with the frame size.

Frame ``k`` shows the stored tick ``start + round(k / (fps * dt))``; frames run while that tick is
at most ``stop``, so a video has ``1 + floor((stop - start) * dt * fps)`` frames and plays at the
recorded speed. The video is written to a temporary file beside the target and renamed into place
when complete: an export that fails leaves nothing behind.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from rigidflock.outputs import OutputError, atomic_path

KINDS = {".mp4": "mp4", ".gif": "gif"}


def parse_target(path, size: tuple[int, int]) -> str:
    """The video kind for ``path`` from its extension; raises OutputError for anything else."""
    kind = KINDS.get(Path(path).suffix.lower())
    if kind is None:
        raise OutputError(f"{path}: export: the file name must end in .mp4 or .gif")
    if kind == "mp4" and (size[0] % 2 or size[1] % 2):
        raise OutputError(
            f"{path}: export: MP4 (H.264, yuv420p) needs an even width and height, "
            f"got {size[0]}x{size[1]}"
        )
    return kind


def frame_ticks(start: int, stop: int, fps: float, dt: float) -> list[int]:
    """The stored tick each video frame shows (see the module docstring)."""
    n = 1 + math.floor((stop - start) * dt * fps + 1e-9)
    ticks = [min(stop, start + round(k / (fps * dt))) for k in range(n)]
    return ticks


GIF_FPS = 25.0  # the default GIF rate: 4 cs a frame, exact


def gif_fps(fps: float | None) -> float:
    """The GIF rate nearest ``fps`` that whole-centisecond delays give exactly (2..100 cs).

    >>> gif_fps(None), gif_fps(30), gif_fps(25), gif_fps(60)
    (25.0, 33.333333333333336, 25.0, 50.0)
    """
    if fps is None:
        return GIF_FPS
    return 100.0 / min(max(round(100.0 / fps), 2), 100)


def video_fps(kind: str, fps: float | None) -> float:
    """The rate a video of ``kind`` is made at for a requested ``fps`` (None: the default)."""
    if kind == "gif":
        return gif_fps(fps)
    return 30.0 if fps is None else float(fps)


class GifStream:
    """An animated GIF written frame by frame: a header and a loop block, then per frame a
    delay (whole centiseconds), its own colour table and its LZW data, each taken from Pillow's
    encoding of that frame alone. Nothing is kept between frames."""

    def __init__(self, path: str, size: tuple[int, int], delay_cs: int):
        self.fh = open(path, "wb")  # noqa: SIM115 (closed in close())
        self.size, self.delay = size, int(delay_cs)
        w, h = size
        self.fh.write(
            b"GIF89a" + w.to_bytes(2, "little") + h.to_bytes(2, "little") + b"\x00\x00\x00"
        )
        self.fh.write(b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00")  # loop forever

    def append(self, rgb: np.ndarray) -> None:
        import io

        from PIL import Image

        im = Image.fromarray(np.ascontiguousarray(rgb)).quantize(
            256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
        )
        buf = io.BytesIO()
        im.save(buf, format="GIF")
        data = buf.getvalue()
        packed = data[10]
        pos = 13
        table = b""
        if packed & 0x80:  # Pillow's global table becomes this frame's local one
            n = 3 * (2 ** ((packed & 7) + 1))
            table, bits = data[pos : pos + n], packed & 7
            pos += n
        while data[pos] == 0x21:  # skip Pillow's extensions
            pos += 2
            while data[pos]:
                pos += data[pos] + 1
            pos += 1
        if data[pos] != 0x2C:
            raise ValueError("unexpected GIF layout from Pillow")
        desc = bytearray(data[pos : pos + 10])
        pos += 10
        if table:
            desc[9] = (desc[9] & 0x40) | 0x80 | bits
        gce = b"\x21\xf9\x04\x04" + self.delay.to_bytes(2, "little") + b"\x00\x00"
        end = len(data) - 1 if data[-1] == 0x3B else len(data)
        self.fh.write(gce + bytes(desc) + table + data[pos:end])

    def close(self) -> None:
        if not self.fh.closed:
            self.fh.write(b"\x3b")
            self.fh.close()


class _FfmpegWriter:
    """Frames piped to ffmpeg as they come (nothing kept here)."""

    def __init__(self, path: str, fps: float, size: tuple[int, int]):
        from fractions import Fraction

        import imageio_ffmpeg

        self.gen = imageio_ffmpeg.write_frames(
            path,
            size,
            fps=Fraction(fps).limit_denominator(1001),
            codec="libx264",
            pix_fmt_in="rgb24",
            pix_fmt_out="yuv420p",
            quality=8,
            macro_block_size=1,
            ffmpeg_log_level="error",
            output_params=["-f", "mp4"],
        )
        self.gen.send(None)

    def append(self, rgb: np.ndarray) -> None:
        self.gen.send(np.ascontiguousarray(rgb))

    def close(self) -> None:
        self.gen.close()


def export_video(
    playback,
    out,
    kind: str,
    *,
    fps: float | None = None,
    start: int | None = None,
    stop: int | None = None,
    size: tuple[int, int] = (1280, 800),
    overlays=None,
    progress=None,
    panel: str = "side",
) -> int:
    """Render ``playback`` (a :class:`~rigidflock.playback.Playback`) from tick ``start`` to
    ``stop`` (inclusive) into ``out``; returns the number of frames. ``fps``: see
    :func:`video_fps` (GIF: exact rates only). ``panel``: ``"side"`` (scaled with the frame) or
    ``"none"``. ``progress``: optional callable(frames_done, frames_total)."""
    from rigidflock.render.camera import fit_camera
    from rigidflock.render.frame import frame_from_sim
    from rigidflock.render.offscreen import render_frame
    from rigidflock.render.replay_window import replay_hud

    fps = video_fps(kind, fps)
    start = playback.first_tick if start is None else start
    stop = playback.last_tick if stop is None else stop
    ticks = frame_ticks(start, stop, fps, playback.dt)
    out = Path(out)
    vectors = bool(overlays is not None and overlays.vectors)
    with_panel = panel != "none"
    camera = fit_camera(playback.scene.world.size, size, panel=with_panel)
    with atomic_path(out) as tmp:
        if kind == "gif":
            writer = GifStream(str(tmp), size, round(100.0 / fps))
        else:
            writer = _FfmpegWriter(str(tmp), fps, size)
        try:
            for k, tick in enumerate(ticks):
                view = playback.view(tick)
                image = render_frame(
                    frame_from_sim(view, vectors=vectors),
                    size,
                    camera=camera,
                    overlays=overlays,
                    hud=replay_hud(playback, view) if with_panel else None,
                )
                writer.append(image[..., :3])
                if progress is not None:
                    progress(k + 1, len(ticks))
        finally:
            writer.close()
    return len(ticks)
