"""The kernel cache is named after the code the kernels are made of: a reinstall, a ``touch`` or
an edited comment keeps it; a change of code in a kernel module or in a module it imports (a
constant) compiles anew, and an edit elsewhere (the command line) does not."""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import rigidflock
from rigidflock import kernel_cache

PACKAGE = Path(rigidflock.__file__).resolve().parent


@pytest.fixture
def copy(tmp_path) -> Path:
    """A copy of the package (its sources only), as a reinstall or a fresh clone makes it."""
    dest = tmp_path / "rigidflock"
    shutil.copytree(PACKAGE, dest, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    return dest


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert text.count(old) >= count, f"{path.name} has no {old!r}"
    path.write_text(text.replace(old, new, count))


def test_a_copy_a_touch_and_comments_keep_the_key(copy, tmp_path):
    memo = tmp_path / "memo.json"
    key = kernel_cache.code_key(copy, memo)
    assert re.fullmatch(r"[0-9a-f]{16}", key)
    assert kernel_cache.code_key(copy) == key  # without the memo: every file read
    clone = shutil.copytree(copy, tmp_path / "clone" / "rigidflock")  # another place
    assert kernel_cache.code_key(clone) == key
    later = time.time() + 3600
    for p in copy.rglob("*.py"):  # a reinstall or a checkout: every file newer
        os.utime(p, (later, later))
    assert kernel_cache.code_key(copy, memo) == key
    torus = copy / "model" / "torus.py"
    edit(torus, "\nimport", "\n# a comment on a line of its own, above the imports\nimport")
    text = torus.read_text()
    torus.write_text(text.replace('"""', '"""An edited docstring. ', 1))
    (copy / "notes.txt").write_text("not a module")
    assert kernel_cache.code_key(copy, memo) == key


def test_code_and_imported_constants_change_the_key(copy, tmp_path):
    memo = tmp_path / "memo.json"
    key = kernel_cache.code_key(copy, memo)
    files = kernel_cache.code_files(copy, memo)
    assert "model/steering/unit_pass.py" in files and "model/state.py" in files
    assert not any(f.startswith(("cli/", "render/", "replay/")) for f in files)
    edit(copy / "cli" / "run.py", "def ", "def _an_edit_to_the_command_line():\n    pass\n\n\ndef ")
    assert kernel_cache.code_key(copy, memo) == key  # not part of any kernel
    # a constant the unit pass imports from a module without kernels of its own
    edit(copy / "model" / "state.py", "ROLE_PLAYER = 0, 1, 2, 3", "ROLE_PLAYER = 0, 5, 2, 3")
    constant = kernel_cache.code_key(copy, memo)
    assert constant != key
    edit(copy / "model" / "torus.py", "return", "return 1.0 *")
    assert kernel_cache.code_key(copy, memo) not in (key, constant)


def test_editor_files_and_a_file_caught_mid_save_do_not_break_the_key(copy, tmp_path):
    key = kernel_cache.code_key(copy)
    (copy / ".#torus.py").symlink_to(tmp_path / "nowhere")  # an editor's lock: a dangling link
    (copy / "model" / ".torus.py.swp").write_text("x")
    assert kernel_cache.code_key(copy) == key
    edit(copy / "model" / "torus.py", "def ", "def (")  # half-written
    assert kernel_cache.code_key(copy) != key


def test_a_kernel_cache_is_named_by_its_code_not_its_line():
    def f(x):
        """Doc."""
        return x + 1

    def g(x):
        return x + 1

    def h(x):
        return x + 2

    assert kernel_cache.function_digest(f) == kernel_cache.function_digest(g)
    assert kernel_cache.function_digest(h) != kernel_cache.function_digest(g)


def test_only_caches_of_earlier_code_unused_for_a_day_are_removed(tmp_path):
    root = tmp_path / "numba"
    stale, recent, keep = root / "0123456789abcdef", root / "fedcba9876543210", root / ("a" * 16)
    other = root / "not-a-key"
    for d in (stale, recent, keep, other):
        (d / "model").mkdir(parents=True)
    day_ago = time.time() - kernel_cache.KEEP_SECONDS - 60
    for d in (stale, keep, other):
        for p in (d / "model", d):
            os.utime(p, (day_ago, day_ago))
    assert kernel_cache.prune(root, "a" * 16) == [stale]
    assert not stale.exists()
    assert recent.exists()  # a process started before an edit may still use it
    assert keep.exists() and other.exists()  # in use; not one of rigidflock's caches


def test_the_cache_lives_in_the_users_cache_directory_shared_by_copies(monkeypatch, tmp_path):
    """Never inside the package (a reinstall would throw it away, and the folder left behind
    after an uninstall would be imported as an empty package); every copy of the same code shares
    it, each copy keeping its own digests of its files."""
    import numba

    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = kernel_cache.cache_root()
    assert root == tmp_path / "cache" / "rigidflock" / "numba"
    assert kernel_cache.PACKAGE not in root.parents
    a = kernel_cache.memo_file(root, tmp_path / "env1" / "rigidflock")
    b = kernel_cache.memo_file(root, tmp_path / "env2" / "rigidflock")
    assert a.parent == b.parent == root and a != b
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "users"))
    assert kernel_cache.cache_root() == tmp_path / "users" / "rigidflock"


def test_a_second_process_loads_the_kernels_the_first_compiled(tmp_path):
    """In a fresh cache (the user's NUMBA_CACHE_DIR): the first process compiles and writes
    the index files of the kernels it ran, the second compiles nothing."""
    code = (
        "import time\n"
        "from rigidflock.model import torus\n"
        "from rigidflock import kernel_cache\n"
        "import numpy as np\n"
        "t = time.perf_counter()\n"
        "torus.inside(np.zeros((3, 2)), 10.0, 10.0)\n"
        "print(kernel_cache.directory(), torus.inside.stats.cache_hits)\n"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        ).stdout.split()
        for _ in range(2)
    ]
    where = Path(runs[0][0])
    assert where.parent == tmp_path / "rigidflock"
    assert where.name == kernel_cache.code_key()
    assert next(where.rglob("torus.inside-*.nbi"), None) is not None
    assert runs[1][0] == runs[0][0]
    assert "0" not in runs[1][1] and runs[0][1] == "Counter()"  # a hit the second time only
