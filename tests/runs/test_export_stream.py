"""Exports stream: exact GIF timing, memory flat in the video's length, a panel that scales (or
none), and no interactive hints in videos."""

import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from rigidflock import Simulation
from rigidflock.cli import main
from rigidflock.replay import Recorder, ReplayReader
from rigidflock.replay.playback import Playback
from rigidflock.runs.export import gif_fps
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def long_recording(tmp_path_factory):
    """aidemo4 for 2 minutes (7,200 ticks at 60 ticks/s)."""
    path = tmp_path_factory.mktemp("rfr") / "a4.rfr"
    sim = Simulation("aidemo4")
    with Recorder(path, sim) as rec:
        for _ in range(7200):
            rec.record(None, sim.step())
    return path


def gif_frames(path):
    """(frames, total delay in ms) of a GIF."""
    with Image.open(path) as im:
        n, ms = 0, 0
        while True:
            ms += im.info["duration"]
            n += 1
            try:
                im.seek(im.tell() + 1)
            except EOFError:
                return n, ms


def test_gif_rates_are_exact_centiseconds():
    assert gif_fps(None) == 25.0 and gif_fps(50) == 50.0 and gif_fps(10) == 10.0
    assert 100 / gif_fps(30) == 3  # 30 -> 33.3 fps: 3 cs a frame
    assert gif_fps(200) == 50.0  # no delay under 2 cs (viewers slow those down)


@pytest.mark.parametrize("fps", [None, 30, 10])
def test_a_gif_lasts_as_long_as_its_ticks(tmp_path, long_recording, fps, capsys):
    out = tmp_path / "clip.gif"
    extra = [] if fps is None else ["--fps", str(fps)]
    argv = ["export", str(long_recording), str(out), "--to", "600", "--size", "160x100", *extra]
    assert main(argv) == 0
    n, ms = gif_frames(out)
    rate = gif_fps(fps)
    assert ms == pytest.approx(10_000, abs=1000 / rate)  # 10 s of ticks, within one frame
    assert len({round(1000 / rate)}) == 1 and ms == n * round(1000 / rate)
    if fps == 30:
        assert "33.33 fps" in capsys.readouterr().err


def peak_kb(argv) -> int:
    """Peak resident memory (kB) of an export run in a fresh process, ffmpeg included."""
    code = (
        "import resource, sys\n"
        "from rigidflock.cli import main\n"
        f"rc = main({argv!r})\n"
        "own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(own + kids)\n"
        "sys.exit(rc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return int(out.stdout.strip().splitlines()[-1])


def test_export_memory_is_flat_in_the_videos_length(tmp_path, long_recording):
    """Measured (640x400, 5 fps GIF): peak 10 s ~330 MB, 2 min within a few MB of it; the
    Pillow writer that kept every frame grew by ~250 kB a frame (828 MB for 30 s at 25 fps)."""
    common = ["--size", "640x400", "--fps", "5", "--quiet"]
    short = peak_kb(
        ["export", str(long_recording), str(tmp_path / "s.gif"), "--to", "600", *common]
    )
    long = peak_kb(["export", str(long_recording), str(tmp_path / "l.gif"), *common])
    assert long < 1.1 * short, (short, long)


def test_panel_none_and_no_hints_in_videos(tmp_path, long_recording):
    from rigidflock.render.hud import replay_hud

    with ReplayReader(long_recording) as r:
        pb = Playback(r)
        hud = replay_hud(pb, pb.view(100))
    names = [k for k, _ in hud.status]
    assert "speed" not in names and not hud.hints  # "speed x1" and "H key help" are for windows
    out = tmp_path / "bare.mp4"
    argv = ["export", str(long_recording), str(out), "--to", "60", "--size", "320x200"]
    assert main([*argv, "--panel", "none", "--quiet"]) == 0
    import imageio_ffmpeg

    gen = imageio_ffmpeg.read_frames(str(out))
    meta = next(gen)
    frame = np.frombuffer(next(gen), np.uint8).reshape(meta["size"][1], meta["size"][0], 3)
    gen.close()
    # no panel: the world's floor reaches the left edge of the picture's middle rows
    from rigidflock.render import colors as C

    left = frame[80:120, 2:20].astype(int)
    panel = np.abs(left - np.asarray(C.PANEL[:3])).max(axis=-1) <= 6
    assert panel.mean() < 0.5
