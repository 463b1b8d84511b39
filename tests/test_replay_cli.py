"""The replay subcommands: run/view --record, replay --info / --screenshot-at, verify, export."""

import numpy as np
import pytest

from rigidflock.cli import main
from rigidflock.render.png import read_png
from rigidflock.replay import ReplayReader
from tests.conftest import ROOT

AIDEMO4 = ROOT / "scenes" / "aidemo4.toml"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "aidemo4.rfr"
    assert main(["run", str(AIDEMO4), "--ticks", "150", "--record", str(path), "--quiet"]) == 0
    return path


def test_run_record_info_and_verify(recorded, capsys):
    assert main(["replay", str(recorded), "--info"]) == 0
    out = capsys.readouterr().out
    assert "complete" in out and "0..150 (151 states" in out and "21 (player included)" in out
    assert "compact precision" in out and "bytes per unit per tick" in out
    assert main(["verify", str(recorded)]) == 0
    assert "identical: 151 ticks" in capsys.readouterr().out


def test_run_record_exact_and_view_record(tmp_path, capsys):
    exact = tmp_path / "exact.rfr"
    argv = ["run", str(AIDEMO4), "--ticks", "40", "--record", str(exact), "--exact", "--quiet"]
    assert main(argv) == 0
    with ReplayReader(exact) as r:
        assert r.precision == "exact" and r.last_tick == 40
    assert main(["verify", str(exact)]) == 0
    shot, rec = tmp_path / "v.png", tmp_path / "v.rfr"
    argv = ["view", str(AIDEMO4), "--ticks", "20", "--screenshot", str(shot), "--record", str(rec)]
    assert main(argv) == 0
    assert main(["verify", str(rec)]) == 0
    assert main(["run", str(AIDEMO4), "--exact"]) == 2
    assert "--exact needs --record" in capsys.readouterr().err


def test_verify_exit_1_names_the_tick(tmp_path, recorded, capsys):
    """A copy with one stored value changed: rewrite one chunk with a new checksum."""
    import json
    import struct
    import zlib

    import zstandard

    from rigidflock.replay.container import CHUNK, CHUNK_HEAD
    from rigidflock.replay.payload import pack_payload, unpack_payload

    data = bytearray(recorded.read_bytes())
    with ReplayReader(recorded) as r:
        info = r.chunks[2]  # ticks 120..150 at 60 ticks a chunk
    payload = bytes(data[info.offset + CHUNK_HEAD : info.offset + CHUNK_HEAD + info.payload_len])
    meta, arrays = unpack_payload(zstandard.ZstdDecompressor().decompress(payload))
    specs = meta.pop("arrays")
    arrays["leader"][5, 0] ^= 0x80  # tick 125: unit 0's leader flag flipped (big-endian bits)
    raw = pack_payload(meta, [(name, arrays[name], layout) for name, _, _, layout in specs])
    new = zstandard.ZstdCompressor().compress(raw)
    head = CHUNK.pack(b"CHNK", 2, 0, 0, info.first_tick, info.ticks, len(new), len(raw),
                      zlib.crc32(new))  # fmt: skip
    chunk = head + struct.pack("<I", zlib.crc32(head)) + new
    end = info.offset + CHUNK_HEAD + info.payload_len
    copy = tmp_path / "changed.rfr"
    copy.write_bytes(bytes(data[: info.offset]) + chunk + bytes(data[end:]))
    assert json.dumps(meta)  # still plain data
    assert main(["verify", str(copy)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "differs at tick 125: unit 0 leader flag" in err


def test_screenshot_at_a_tick(tmp_path, recorded, capsys):
    out = tmp_path / "t.png"
    argv = ["replay", str(recorded), "--screenshot-at", "100", str(out), "--size", "640x400"]
    assert main(argv) == 0
    image = read_png(out)
    assert image.shape == (400, 640, 3) and image.std() > 5
    assert main(["replay", str(recorded), "--screenshot-at", "999", str(out)]) == 2
    assert "not in the file (0..150)" in capsys.readouterr().err
    bad = tmp_path / "missing" / "x.png"
    assert main(["replay", str(recorded), "--screenshot-at", "1", str(bad)]) == 2
    assert not bad.parent.exists()


def test_export_gif_and_mp4(tmp_path, recorded):
    gif, mp4 = tmp_path / "clip.gif", tmp_path / "clip.mp4"
    argv = ["export", str(recorded), str(gif), "--fps", "10", "--from", "30", "--to", "90"]
    assert main([*argv, "--size", "320x200", "--quiet"]) == 0
    from PIL import Image

    with Image.open(gif) as im:
        assert im.size == (320, 200)
        assert im.n_frames == 1 + int(60 * 0.016666 * 10)  # 10 frames a second for ~1 s
    argv = ["export", str(recorded), str(mp4), "--fps", "24", "--to", "60", "--size", "320x240"]
    assert main([*argv, "--quiet"]) == 0
    import imageio_ffmpeg

    reader = imageio_ffmpeg.read_frames(str(mp4))
    meta = reader.__next__()
    frames = list(reader)
    assert tuple(meta["size"]) == (320, 240)
    assert len(frames) == 1 + int(60 * 0.016666 * 24)
    first = np.frombuffer(frames[0], np.uint8).reshape(240, 320, 3)
    assert first.std() > 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clip.gif", "clip.mp4"]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--from", "100", "--to", "50"], "is before --from"),
        (["--to", "151"], "holds ticks 0..150"),
        (["--size", "321x200"], "even width and height"),
    ],
)
def test_export_bad_input(tmp_path, recorded, capsys, extra, message):
    out = tmp_path / "x.mp4"
    assert main(["export", str(recorded), str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert list(tmp_path.iterdir()) == []


def test_export_needs_a_video_name_and_a_writable_place(tmp_path, recorded, capsys):
    assert main(["export", str(recorded), str(tmp_path / "x.avi")]) == 2
    assert ".mp4 or .gif" in capsys.readouterr().err
    assert main(["export", str(recorded), str(tmp_path / "no" / "x.gif")]) == 2
    assert "does not exist" in capsys.readouterr().err
