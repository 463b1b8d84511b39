"""PNG files: round trip, atomic writing, file mode, errors."""

import numpy as np

from rigidflock.render.png import encode_png, read_png


def test_png_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (7, 5, 3), dtype=np.uint8)
    path = tmp_path / "x.png"
    path.write_bytes(encode_png(img))
    np.testing.assert_array_equal(read_png(path), img)


def test_save_png_writes_whole_files_with_the_umask_mode(tmp_path):
    import os

    from rigidflock.render.png import save_png

    img = np.arange(4 * 6 * 4, dtype=np.uint8).reshape(4, 6, 4)
    path = tmp_path / "y.png"
    save_png(path, img)
    np.testing.assert_array_equal(read_png(path), img)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
    assert [p.name for p in tmp_path.iterdir()] == ["y.png"]  # no temporary file left


def test_png_errors_name_the_problem(tmp_path):
    import pytest
    from PIL import Image

    with pytest.raises(ValueError, match="expected 3 or 4 channels, got 2"):
        encode_png(np.zeros((2, 2, 2), np.uint8))
    text = tmp_path / "t.png"
    text.write_text("not a picture")
    with pytest.raises(ValueError, match="not a PNG file"):
        read_png(text)
    grey = tmp_path / "g.png"
    Image.fromarray(np.zeros((3, 3), np.uint8)).save(grey)
    with pytest.raises(ValueError, match="only 8-bit RGB/RGBA"):
        read_png(grey)
