"""Replays into videos: every frame drawn offscreen, written as MP4 (H.264 through the ffmpeg
binary that the ``imageio-ffmpeg`` wheel bundles) or GIF (Pillow).

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


class _GifWriter:
    def __init__(self, path: str, fps: float):
        self.path, self.fps = path, fps
        self.frames = []

    def append(self, rgb: np.ndarray) -> None:
        from PIL import Image

        # Palette each frame as it comes: 1 byte per pixel held, not 3.
        self.frames.append(Image.fromarray(rgb).quantize(256, dither=Image.Dither.NONE))

    def close(self) -> None:
        if not self.frames:
            return
        first, rest = self.frames[0], self.frames[1:]
        duration = max(20, round(1000.0 / self.fps / 10) * 10)  # GIF delays are centiseconds
        first.save(
            self.path, format="GIF", save_all=True, append_images=rest, duration=duration, loop=0
        )


class _Mp4Writer:
    def __init__(self, path: str, fps: float, size: tuple[int, int]):
        import imageio_ffmpeg

        self.gen = imageio_ffmpeg.write_frames(
            path,
            size,
            fps=fps,
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
    fps: float = 30.0,
    start: int | None = None,
    stop: int | None = None,
    size: tuple[int, int] = (1280, 800),
    overlays=None,
    progress=None,
) -> int:
    """Render ``playback`` (a :class:`~rigidflock.playback.Playback`) from tick ``start`` to
    ``stop`` (inclusive) into ``out``; returns the number of frames. ``progress``: optional
    callable(frames_done, frames_total)."""
    from rigidflock.render.offscreen import render_frame
    from rigidflock.render.replay_window import replay_hud

    start = playback.first_tick if start is None else start
    stop = playback.last_tick if stop is None else stop
    ticks = frame_ticks(start, stop, fps, playback.dt)
    out = Path(out)
    vectors = bool(overlays is not None and overlays.vectors)
    with atomic_path(out) as tmp:
        writer = _GifWriter(tmp, fps) if kind == "gif" else _Mp4Writer(tmp, fps, size)
        try:
            for k, tick in enumerate(ticks):
                view = playback.view(tick)
                from rigidflock.render.frame import frame_from_sim

                image = render_frame(
                    frame_from_sim(view, vectors=vectors),
                    size,
                    overlays=overlays,
                    hud=replay_hud(playback, view),
                )
                writer.append(image[..., :3])
                if progress is not None:
                    progress(k + 1, len(ticks))
        finally:
            writer.close()
    return len(ticks)
