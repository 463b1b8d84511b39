"""Replays into videos: every frame drawn offscreen and streamed, as it is drawn, to the ffmpeg
binary that the ``imageio-ffmpeg`` wheel bundles: MP4 (H.264) or GIF (a palette per frame), so
memory stays flat whatever the video's length (no frame is kept).

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


GIF_FILTER = (
    "split[a][b];[a]palettegen=stats_mode=single:reserve_transparent=0[p];"
    "[b][p]paletteuse=new=1:dither=bayer:bayer_scale=3"
)


class _FfmpegWriter:
    """Frames piped to ffmpeg as they come (nothing kept here)."""

    def __init__(self, path: str, fps: float, size: tuple[int, int], kind: str):
        from fractions import Fraction

        import imageio_ffmpeg

        if kind == "gif":
            rate = Fraction(100, round(100.0 / fps))  # exact: whole centiseconds
            codec, pix, quality = "gif", "pal8", None
            params = ["-vf", GIF_FILTER, "-loop", "0", "-f", "gif"]
        else:
            rate = fps
            codec, pix, quality = "libx264", "yuv420p", 8
            params = ["-f", "mp4"]
        self.gen = imageio_ffmpeg.write_frames(
            path,
            size,
            fps=rate,
            codec=codec,
            pix_fmt_in="rgb24",
            pix_fmt_out=pix,
            quality=quality,
            macro_block_size=1,
            ffmpeg_log_level="error",
            output_params=params,
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
        writer = _FfmpegWriter(str(tmp), fps, size, kind)
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
