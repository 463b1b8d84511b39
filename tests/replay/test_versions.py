"""A recording keeps the version of every library that can change a result, and ``verify`` names
each one that differs (a warning: it still verifies)."""

import platform
from importlib import metadata

from rigidflock.cli import main
from rigidflock.replay import ReplayReader, recorder, verify
from tests.replay.recording import AIDEMO4, record_run

LIBRARIES = ("pymunk", "numpy", "numba", "llvmlite", "scipy")


def test_a_recording_keeps_python_and_every_result_library_version(tmp_path):
    path = tmp_path / "run.rfr"
    record_run(path, AIDEMO4, 3)
    with ReplayReader(path) as r:
        h = r.header
    assert h["python"] == platform.python_version()
    for name in LIBRARIES:
        assert h[name] == metadata.version(name), name


def test_verify_names_each_library_that_differs_and_still_verifies(tmp_path, monkeypatch, capsys):
    path = tmp_path / "elsewhere.rfr"
    here = recorder.library_versions()
    made_elsewhere = here | {"numba": "0.59.1", "scipy": "1.11.0"}
    monkeypatch.setattr(recorder, "library_versions", lambda: made_elsewhere)
    record_run(path, AIDEMO4, 20)
    monkeypatch.undo()
    with ReplayReader(path) as r:
        res = verify(r)
    assert res.ok and res.ticks_checked == 21
    assert res.notes == [
        f"recorded with numba 0.59.1, verifying with numba {here['numba']}: "
        "a difference may come from that",
        f"recorded with scipy 1.11.0, verifying with scipy {here['scipy']}: "
        "a difference may come from that",
    ]
    assert main(["verify", str(path), "--quiet"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "recorded with" in line] == [
        f"rigidflock: {path}: note: {note}" for note in res.notes
    ]


def test_a_file_made_before_the_new_fields_is_verified_without_notes(tmp_path, monkeypatch):
    path = tmp_path / "older.rfr"
    here = recorder.library_versions()
    older = {k: here[k] for k in ("python", "pymunk", "numpy")}  # what such files stored
    monkeypatch.setattr(recorder, "library_versions", lambda: older)
    record_run(path, AIDEMO4, 5)
    monkeypatch.undo()
    with ReplayReader(path) as r:
        assert "numba" not in r.header
        res = verify(r)
    assert res.ok and res.notes == []
