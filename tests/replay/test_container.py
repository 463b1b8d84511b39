"""The container: damaged replay files (a killed recording, truncation at many offsets, flipped
bytes, other format versions) and chunk framing. Every damaged case reads as an intact prefix or
fails with one clear ReplayError."""

import os
import signal
import struct
import subprocess
import sys
import time

import numpy as np
import pytest

from rigidflock import Simulation, load_scene
from rigidflock.cli import main
from rigidflock.replay import PREAMBLE, Recorder, ReplayError, ReplayReader, verify
from tests.conftest import ROOT

AIDEMO4 = ROOT / "scenes" / "aidemo4.toml"


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    """A small recording with many chunks, and its states as read back intact."""
    path = tmp_path_factory.mktemp("orig") / "orig.rfr"
    sim = Simulation(load_scene(AIDEMO4))
    with Recorder(path, sim, chunk_ticks=8) as rec:
        for _ in range(100):
            rec.record(None, sim.step())
    with ReplayReader(path) as r:
        raws = [r.raw(t) for t in range(r.first_tick, r.last_tick + 1)]
    return path.read_bytes(), raws


def check_prefix(path, raws) -> str:
    """'error' or 'prefix': the readable ticks equal the original's."""
    try:
        r = ReplayReader(path)
    except ReplayError as e:
        assert str(e).count("\n") == 0 and str(path) in str(e)
        return "error"
    with r:
        try:
            for t in range(r.first_tick, r.last_tick + 1):
                got = r.raw(t)
                for k, v in raws[t].items():
                    assert np.array_equal(got[k], v), (t, k)
            r.inputs()
        except ReplayError as e:
            assert str(e).count("\n") == 0
            return "error"
        assert r.last_tick <= len(raws) - 1
        if r.complete:
            assert r.last_tick == len(raws) - 1
        else:
            assert r.problem
    return "prefix"


def test_truncation_at_any_offset_reads_a_prefix_or_fails_clearly(tmp_path, original):
    data, raws = original
    path = tmp_path / "cut.rfr"
    rng = np.random.default_rng(5)
    path.write_bytes(data)
    with ReplayReader(path) as r:
        header_end = r.data_start
    offsets = sorted(set(range(0, 300)) | set(rng.integers(0, len(data), 150).tolist()))
    offsets += list(range(header_end - 5, header_end + 50))
    seen = {"error": 0, "prefix": 0}
    last_ticks = set()
    for off in offsets:
        path.write_bytes(data[:off])
        seen[check_prefix(path, raws)] += 1
        if header_end <= off < len(data):
            with ReplayReader(path) as r:
                assert not r.complete and "cut short at tick" in r.problem
                last_ticks.add(r.last_tick)
    assert seen["error"] and seen["prefix"]
    assert len(last_ticks) > 5  # many different prefixes


def test_flipped_bytes_read_a_prefix_or_fail_clearly(tmp_path, original):
    data, raws = original
    path = tmp_path / "flip.rfr"
    rng = np.random.default_rng(7)
    positions = sorted(set(range(0, 120, 3)) | set(rng.integers(0, len(data), 250).tolist()))
    t0 = time.perf_counter()
    for pos in positions:
        bad = bytearray(data)
        bad[pos] ^= int(rng.integers(1, 256))
        path.write_bytes(bytes(bad))
        check_prefix(path, raws)
        assert main(["replay", str(path), "--info"]) in (0, 2)
    assert time.perf_counter() - t0 < 120


def test_a_damaged_chunk_in_the_middle_ends_the_readable_part(tmp_path, original):
    data, _raws = original
    bad = bytearray(data)
    bad[len(data) // 2] ^= 0x40
    path = tmp_path / "mid.rfr"
    path.write_bytes(bytes(bad))
    with ReplayReader(path) as r:
        assert not r.complete and "damaged chunk" in r.problem
        assert 0 < r.last_tick < 100
        assert verify(r).ok  # the readable part still re-simulates


def test_newer_and_unknown_format_versions_are_refused(tmp_path, original, capsys):
    data, _ = original
    path = tmp_path / "v.rfr"
    magic, _, flags, res = PREAMBLE.unpack_from(data)
    path.write_bytes(PREAMBLE.pack(magic, 7, flags, res) + data[PREAMBLE.size :])
    with pytest.raises(ReplayError, match="format version 7 is newer"):
        ReplayReader(path)
    assert main(["replay", str(path), "--info"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "upgrade rigidflock" in err
    path.write_bytes(PREAMBLE.pack(magic, 0, flags, res) + data[PREAMBLE.size :])
    with pytest.raises(ReplayError, match="unknown replay format version 0"):
        ReplayReader(path)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "empty file"),
        (b"[[groups]]\ncount = 3\n", "not a rigidflock replay"),
        (b"RFLKREPL", "cut short inside its header"),
        (struct.pack("<8sHHI", b"RFLKREPL", 1, 0, 0) + b"CHNK" + b"\0" * 40, "header damaged"),
    ],
)
def test_files_that_are_not_replays(tmp_path, capsys, content, message):
    path = tmp_path / "x.rfr"
    path.write_bytes(content)
    for argv in (["replay", str(path), "--info"], ["verify", str(path)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err


def test_missing_file_and_directory(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "nope.rfr")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["replay", str(tmp_path), "--info"]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_killed_recording_leaves_its_complete_chunks(tmp_path):
    path = tmp_path / "killed.rfr"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "rigidflock", "run", str(ROOT / "scenes" / "flock500.toml"),
         "--ticks", "1000000", "--record", str(path), "--quiet"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            time.sleep(0.2)
            if path.exists() and path.stat().st_size > 150_000:
                break
            assert proc.poll() is None, proc.stderr.read().decode()
        else:
            pytest.fail("the recording did not grow")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    assert proc.returncode == -signal.SIGKILL
    with ReplayReader(path) as r:
        assert not r.complete
        assert r.problem.startswith(f"cut short at tick {r.last_tick}")
        assert r.last_tick >= 60
        st = r.state(r.last_tick)
        assert np.isfinite(st.pos).all()
        res = verify(r)
    assert res.ok and res.ticks_checked == r.last_tick + 1
    out = subprocess.run(
        [sys.executable, "-m", "rigidflock", "replay", str(path), "--info"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert f"INCOMPLETE: cut short at tick {r.last_tick}" in out.stdout


def test_a_chunk_frames_its_payload_with_two_checksums(tmp_path):
    import io

    import zstandard

    from rigidflock.replay.container import (
        CHUNK_HEAD,
        DATA,
        chunk_bytes,
        decompress,
        read_chunk_head,
        read_payload,
        version_problem,
    )

    raw = [b"abc" * 100, memoryview(b"xyz")]
    data = chunk_bytes(DATA, 42, 7, raw, zstandard.ZstdCompressor(level=3))
    fh = io.BytesIO(b"\0" * 5 + data)
    info, kind = read_chunk_head(fh, 5, 5 + len(data))
    assert kind == DATA and (info.offset, info.first_tick, info.ticks) == (5, 42, 7)
    assert info.raw_len == 303 and CHUNK_HEAD + info.payload_len == len(data)
    got = decompress(zstandard.ZstdDecompressor(), info, read_payload(fh, info))
    assert got == b"abc" * 100 + b"xyz"
    assert read_chunk_head(fh, 5, 5 + len(data) - 1) == "cut"
    assert read_chunk_head(fh, 5 + len(data), 5 + len(data)) == "eof"
    bad = io.BytesIO(b"\0" * 5 + data[:10] + bytes([data[10] ^ 1]) + data[11:])
    assert read_chunk_head(bad, 5, 5 + len(data)) == "damaged"
    bad = io.BytesIO(b"\0" * 5 + data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(ValueError, match="checksum mismatch"):
        read_payload(bad, info)
    assert version_problem(1) is None
    assert version_problem(True) == "replay header has no format version"
