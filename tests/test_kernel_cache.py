"""The kernel cache is keyed by the package's sources: an edit to any module (a helper numba
inlines into a kernel of another file) compiles the kernels again instead of loading stale
machine code."""

import os
from pathlib import Path

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


def test_a_users_cache_dir_is_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert kernel_cache.configure() is None
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path)


def test_configure_uses_this_versions_directory_and_drops_older_ones(monkeypatch, tmp_path):
    root = tmp_path / "numba"
    old = root / "0123456789abcdef"
    (old / "model_x").mkdir(parents=True)
    import numba

    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)  # restored after
    monkeypatch.setattr(kernel_cache, "cache_root", lambda: root)
    where = kernel_cache.configure()
    assert where == str(root / kernel_cache.sources_key())
    assert os.environ["NUMBA_CACHE_DIR"] == where
    assert not old.exists()


def test_this_process_caches_its_kernels_under_the_current_key():
    from rigidflock import Simulation

    Simulation("aidemo4").step()
    where = Path(os.environ["NUMBA_CACHE_DIR"])
    assert where.name == kernel_cache.sources_key()
    assert next(where.rglob("kernels.*.nbi"), None) is not None


def test_a_read_only_install_caches_in_the_users_directory_per_copy(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(kernel_cache.os, "access", lambda path, mode: False)
    a = kernel_cache.cache_root(tmp_path / "env1" / "rigidflock")
    b = kernel_cache.cache_root(tmp_path / "env2" / "rigidflock")
    assert a.parent == b.parent == tmp_path / "cache" / "rigidflock" / "numba"
    assert a != b  # each copy prunes only its own older caches
    monkeypatch.undo()
    assert kernel_cache.cache_root(tmp_path) == tmp_path / "__pycache__" / "numba"  # writable
