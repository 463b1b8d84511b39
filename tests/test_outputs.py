"""Output files are whole or absent, and get the user's umask like any file the user creates."""

import os

import pytest

from rigidflock.outputs import atomic_open, atomic_path, write_json


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_finished_file_has_the_umask_mode(tmp_path, umask_022):
    # mkstemp creates 0600; a metrics file or a video is an ordinary file: 0666 & ~umask = 0644
    write_json(tmp_path / "m.json", {"a": 1})
    with atomic_path(tmp_path / "v.gif") as tmp:
        assert tmp.endswith(".gif")  # writers that go by the extension see the right one
        open(tmp, "wb").close()
    for name in ("m.json", "v.gif"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o644


def test_a_failed_write_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError), atomic_open(tmp_path / "t.csv") as fh:
        fh.write("half a row")
        raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []
