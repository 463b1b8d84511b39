"""The kernel cache is keyed by the package's sources: an edit to any module (a helper numba
inlines into a kernel of another file) compiles the kernels again instead of loading stale
machine code."""

import os
import time
from pathlib import Path

import pytest

from rigidflock import kernel_cache


def package(tmp_path: Path) -> Path:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("X = 1\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    return 2\n")
    (pkg / "sub" / "__pycache__").mkdir()
    return pkg


def test_the_key_changes_with_any_module_and_only_then(tmp_path):
    pkg = package(tmp_path)
    key = kernel_cache.sources_key(pkg)
    assert kernel_cache.sources_key(pkg) == key
    (pkg / "sub" / "__pycache__" / "b.cpython-311.pyc").write_bytes(b"\0")  # caches: no effect
    (pkg / "notes.txt").write_text("not a module")
    assert kernel_cache.sources_key(pkg) == key
    b = pkg / "sub" / "b.py"
    st = b.stat()
    b.write_text("def f():\n    return 3\n")  # same size: the modification time tells
    os.utime(b, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    edited = kernel_cache.sources_key(pkg)
    assert edited != key
    (pkg / "c.py").write_text("")
    assert kernel_cache.sources_key(pkg) not in (key, edited)


def test_configure_uses_this_versions_directory_and_drops_older_unused_ones(monkeypatch, tmp_path):
    import numba

    root = tmp_path / "numba"
    stale, recent = root / "0123456789abcdef", root / "fedcba9876543210"
    for d in (stale, recent):
        (d / "model_x").mkdir(parents=True)
    day_ago = time.time() - kernel_cache.KEEP_SECONDS - 60
    for p in (stale / "model_x", stale):
        os.utime(p, (day_ago, day_ago))
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.delenv(kernel_cache.MARK, raising=False)
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)  # restored after
    monkeypatch.setattr(kernel_cache, "cache_root", lambda: root)
    where = kernel_cache.configure()
    assert where == str(root / kernel_cache.sources_key())
    assert os.environ["NUMBA_CACHE_DIR"] == where == numba.config.CACHE_DIR
    assert not stale.exists()  # unused for a day
    assert recent.exists()  # a process started before an edit may still use it


def test_an_inherited_choice_is_made_again_a_users_is_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv(kernel_cache.MARK, str(tmp_path / "elsewhere"))  # ours, inherited
    monkeypatch.setattr(kernel_cache, "cache_root", lambda: tmp_path / "numba")
    import numba

    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    assert kernel_cache.configure() == str(tmp_path / "numba" / kernel_cache.sources_key())
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))  # the user's
    assert kernel_cache.configure() is None


def test_editor_files_and_vanished_files_do_not_break_the_key(tmp_path):
    pkg = package(tmp_path)
    key = kernel_cache.sources_key(pkg)
    (pkg / ".#a.py").symlink_to(tmp_path / "nowhere")  # an editor's lock: a dangling link
    (pkg / "sub" / ".b.py.swp").write_text("x")
    assert kernel_cache.sources_key(pkg) == key


def test_this_process_caches_its_kernels_under_the_current_key():
    from rigidflock import Simulation

    if os.environ.get("NUMBA_CACHE_DIR") != os.environ.get(kernel_cache.MARK):
        pytest.skip("NUMBA_CACHE_DIR set by the user: rigidflock leaves it")

    Simulation("aidemo4").step()
    where = Path(os.environ["NUMBA_CACHE_DIR"])
    assert where.name == kernel_cache.sources_key()
    assert next(where.rglob("kernels.*.nbi"), None) is not None


def test_a_read_only_install_caches_in_the_users_directory_per_copy(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(kernel_cache, "_writable", lambda folder: False)
    a = kernel_cache.cache_root(tmp_path / "env1" / "rigidflock")
    b = kernel_cache.cache_root(tmp_path / "env2" / "rigidflock")
    assert a.parent == b.parent == tmp_path / "cache" / "rigidflock" / "numba"
    assert a != b  # each copy prunes only its own older caches
    monkeypatch.undo()
    assert kernel_cache.cache_root(tmp_path) == tmp_path / "__pycache__" / "numba"  # writable
