"""The command line's small promises: --version, the help alone, global flags after the
subcommand, and the picture format from the file extension."""

import subprocess
import sys

import pytest
from PIL import Image

from rigidflock import __version__
from rigidflock.cli import main
from rigidflock.render.png import image_format
from tests.conftest import ROOT

AIDEMO4 = str(ROOT / "scenes" / "aidemo4.toml")


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"rigidflock {__version__}"


def test_rigidflock_alone_prints_the_help():
    out = subprocess.run(
        [sys.executable, "-m", "rigidflock"], check=False, capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0
    assert "usage: rigidflock" in out.stdout and "run" in out.stdout and "view" in out.stdout
    assert out.stderr == ""


def test_debug_is_accepted_after_the_subcommand(tmp_path, capsys):
    scene = tmp_path / "s.toml"
    scene.write_text("[[groups]]\ncount = 3\n")
    assert main(["run", str(scene), "--ticks", "2", "--quiet", "--debug"]) == 0
    assert main(["--debug", "run", str(scene), "--ticks", "2", "--quiet"]) == 0
    bad = tmp_path / "bad.toml"
    bad.write_text("[[groups]]\ncount = -3\n")
    assert main(["run", str(bad), "--ticks", "2"]) == 2  # without --debug: one line
    with pytest.raises(Exception, match="count"):  # with it (after the subcommand): a traceback
        main(["run", str(bad), "--ticks", "2", "--debug"])


def test_image_format_from_the_extension():
    assert image_format("x.png") == "PNG"
    assert image_format("x.jpeg") == image_format("x.JPG") == "JPEG"


def test_view_screenshot_writes_jpeg_for_jpg(tmp_path, capsys):
    shot = tmp_path / "x.jpg"
    assert (
        main(["view", AIDEMO4, "--ticks", "2", "--screenshot", str(shot), "--size", "320x200"]) == 0
    )
    with Image.open(shot) as im:
        assert im.format == "JPEG" and im.size == (320, 200)


def test_unknown_picture_extension_is_a_clear_error(tmp_path, capsys):
    shot = tmp_path / "x.bmp"
    assert main(["view", AIDEMO4, "--screenshot", str(shot)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ".png, .jpg or .jpeg" in err[0]
    assert not shot.exists()
