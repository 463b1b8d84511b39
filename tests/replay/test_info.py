"""``rigidflock replay FILE --info``: the facts of a file and how they print."""

from rigidflock import __version__
from rigidflock.replay import ReplayReader, format_info, info
from rigidflock.sim import MODEL_VERSION
from tests.replay.recording import AIDEMO4, record_run


def test_info_of_a_recording(tmp_path):
    path = tmp_path / "i.rfr"
    live = record_run(path, AIDEMO4, 30, chunk_ticks=10)
    with ReplayReader(path) as r:
        d = info(r)
    assert d["format_version"] == 1 and d["complete"] and d["problem"] is None
    assert (d["first_tick"], d["last_tick"], d["ticks"]) == (0, 30, 31)
    assert d["units"] == len(live[0].pos) and d["chunks"] == 4 and d["bytes"] == path.stat().st_size
    assert d["inputs"] == 0 and d["precision"] == "compact"
    text = format_info(d)
    assert text.splitlines()[0] == f"{path}: rigidflock replay (file format 1), complete"
    assert text.splitlines()[1].startswith(
        f"  recorded  with rigidflock {__version__}, simulation model {MODEL_VERSION} (pymunk "
    )
    assert "note" not in text  # this rigidflock's model: nothing to act on
    assert f"  ticks     0..30 (31 states, {d['duration_seconds']:.2f} s)" in text
    assert "bytes per unit per tick" in text
