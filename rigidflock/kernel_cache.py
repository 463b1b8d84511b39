"""Where numba keeps rigidflock's compiled kernels, and when they are compiled again.

numba checks a cached kernel against its own source file only, but the kernels inline helpers
and read constants from other modules (``torus.min_image_2d`` in every pair kernel,
``avoidance_kernels`` in the unit pass): after an edit to a helper, numba alone goes on serving
the old machine code. So the kernels are cached in a directory named after the code they are
made of (:func:`code_key`): the code of every module that defines a cached kernel and of every
package module those import, directly or not, with docstrings and comments left out (the
abstract syntax tree, without line numbers), and the versions of Python, numba, llvmlite and
numpy. A reinstall, a fresh clone of the same commit, a ``touch`` or an edited comment keeps
the cache; a changed line of code (a constant a kernel module imports included) compiles anew.
Reading the code costs ~1.7 s for the whole package here, so each file's digest is kept by
size and modification time in a small file beside the caches: a process start then only looks
at the files (a few ms), and reads the ones that changed.

The place is chosen per kernel, not for the process: a cache locator that numba asks first
(:class:`KernelLocator`) answers only for functions defined in this package's files and lets
numba place everyone else's as it would without rigidflock; ``NUMBA_CACHE_DIR`` is neither set
nor read into another meaning (when the user sets it, rigidflock's kernels go into a folder
``rigidflock`` inside it). Caches of earlier code are removed once unused for a day (a sweep
started before an edit may still be using its own); nothing else is removed.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
import types
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
KEEP_SECONDS = 24 * 3600  # a cache of earlier code unused this long is removed
KEY = re.compile(r"[0-9a-f]{16}")  # the name of a cache directory: a key


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _module_file(package: Path, dotted: list[str]) -> str | None:
    """The package-relative path of the module ``dotted`` (names below the package), if any."""
    base = package.joinpath(*dotted)
    for candidate in (base.with_suffix(".py") if dotted else None, base / "__init__.py"):
        if candidate is not None and candidate.is_file():
            return candidate.relative_to(package).as_posix()
    return None


def _imports(tree: ast.AST, rel: str, package: Path) -> list[str]:
    """The package modules ``tree`` (the module at ``rel``) imports, anywhere in its code."""
    here = rel.split("/")[:-1]  # the package the module is in, below the top one
    found: set[str] = set()

    def add(dotted: list[str]) -> None:
        path = _module_file(package, dotted)
        if path is not None:
            found.add(path)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == package.name:
                    for i in range(1, len(parts) + 1):  # `import a.b.c` runs a, a.b, a.b.c
                        add(parts[1:i])
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1] if node.level > 1 else list(here)
                parts = base + (node.module.split(".") if node.module else [])
            elif node.module and node.module.split(".")[0] == package.name:
                parts = node.module.split(".")[1:]
            else:
                continue
            add(parts)
            for alias in node.names:  # `from a import b`: b may be a module
                add([*parts, alias.name])
    return sorted(found)


def _is_kernel_module(tree: ast.AST) -> bool:
    """Whether the module imports numba and asks for a cache (a ``cache=`` argument)."""
    numba = any(
        (isinstance(n, ast.Import) and any(a.name.split(".")[0] == "numba" for a in n.names))
        or (isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "numba")
        for n in ast.walk(tree)
    )
    return numba and any(isinstance(n, ast.keyword) and n.arg == "cache" for n in ast.walk(tree))


def _read(path: Path, rel: str, package: Path, full: bool) -> dict:
    """A file's entry: whether it has cached kernels and, when ``full`` or numba is named in
    it, its code's digest and the package modules it imports."""
    data = path.read_bytes()
    if not full and b"numba" not in data:
        return {"kernels": False}
    try:
        tree = ast.parse(data, rel)
    except (SyntaxError, ValueError):  # a file caught mid-save: its bytes stand for it
        return {"kernels": False, "digest": hashlib.sha1(data).hexdigest()[:16], "imports": []}
    digest = hashlib.sha1(ast.dump(_strip_docstrings(tree)).encode()).hexdigest()[:16]
    imports = _imports(tree, rel, package)
    return {"kernels": _is_kernel_module(tree), "digest": digest, "imports": imports}


def _entry(package: Path, rel: str, stamp: list[int], memo: dict, full: bool) -> dict:
    """``rel``'s entry from ``memo`` while the file keeps its ``stamp`` (size and modification
    time) and the entry has a digest when ``full``, else read anew and put in ``memo``."""
    old = memo.get(rel)
    if old and old.get("stamp") == stamp and (not full or "digest" in old):
        return old
    entry = _read(package / rel, rel, package, full)
    entry["stamp"] = stamp
    memo[rel] = entry
    return entry


def _modules(package: Path) -> dict[str, list[int]]:
    """Every ``.py`` file under ``package`` (package-relative, sorted) with its size and
    modification time; hidden files (an editor's lock or backup), caches and files that vanish
    meanwhile left out."""
    found: dict[str, list[int]] = {}
    top = str(package)

    def scan(folder: str, prefix: str) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for e in entries:
            if e.name.startswith(".") or e.name == "__pycache__":
                continue
            try:
                if e.is_dir():
                    scan(e.path, f"{prefix}{e.name}/")
                elif e.name.endswith(".py"):
                    st = e.stat()
                    found[prefix + e.name] = [st.st_size, st.st_mtime_ns]
            except OSError:
                continue

    scan(top, "")
    return found


def versions() -> dict[str, str]:
    """The versions the compiled code depends on besides rigidflock's own code."""
    import llvmlite
    import numba
    import numpy

    return {
        "python": f"{sys.implementation.name} {sys.version.split()[0]}",
        "numba": numba.__version__,
        "llvmlite": llvmlite.__version__,
        "numpy": numpy.__version__,
    }


def code_files(package: Path = PACKAGE, memo_file: Path | None = None) -> dict[str, str]:
    """The modules the kernels are made of, package-relative, each with its code's digest
    (docstrings and comments left out): each module under ``package`` with cached kernels
    (it imports numba and passes ``cache=``) and every package module they import, directly or
    not. ``memo_file`` keeps the files' digests between processes (by size and modification
    time); without it every one of them is read. Files that vanish meanwhile do not count."""
    memo: dict = {}
    if memo_file is not None:
        try:
            memo = json.loads(memo_file.read_text())
        except (OSError, ValueError):
            memo = {}
    before = dict(memo)
    modules = _modules(package)
    todo = []
    for rel, stamp in modules.items():
        try:
            if _entry(package, rel, stamp, memo, full=False)["kernels"]:
                todo.append(rel)
        except OSError:
            continue
    seen: dict[str, str] = {}
    while todo:
        rel = todo.pop()
        if rel in seen or rel not in modules:
            continue
        try:
            entry = _entry(package, rel, modules[rel], memo, full=True)
        except OSError:
            continue
        seen[rel] = entry["digest"]
        todo.extend(entry["imports"])
    for gone in set(memo) - modules.keys():
        del memo[gone]
    changed = memo.keys() != before.keys() or any(memo[r] is not before[r] for r in memo)
    if memo_file is not None and changed:
        _write_memo(memo_file, memo)
    return dict(sorted(seen.items()))


def code_key(package: Path = PACKAGE, memo_file: Path | None = None) -> str:
    """16 hex digits naming the kernels' code: the :func:`code_files` of ``package`` and the
    :func:`versions` of what compiles them. The same for a reinstall, a fresh clone of the same
    commit, a ``touch`` or an edited comment or docstring; another for any change of code."""
    h = hashlib.sha1(json.dumps(versions(), sort_keys=True).encode())
    for rel, digest in code_files(package, memo_file).items():
        h.update(f"{rel}:{digest}\n".encode())
    return h.hexdigest()[:16]


def _write_memo(path: Path, memo: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".memo-")
        with os.fdopen(fd, "w") as f:
            json.dump(memo, f)
        os.replace(tmp, path)
    except OSError:
        pass  # only the next start's speed depends on it


def _writable(folder: Path) -> bool:
    """Whether a file can be made in ``folder`` (made if missing), tried as numba tries it:
    ``os.access`` says yes to a read-only install on some systems."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
        return True
    except OSError:
        return False


def cache_root() -> Path:
    """The folder of rigidflock's kernel caches, one directory a code key inside: a folder
    ``rigidflock`` of the user's ``NUMBA_CACHE_DIR`` when one is set, else the user's cache
    directory (``$XDG_CACHE_HOME/rigidflock/numba``, ``~/.cache/...``). Never inside the
    package: a cache there is thrown away by every reinstall, and the folder pip leaves behind
    when it uninstalls would be imported as an empty ``rigidflock`` package. The folders are
    named by what the code is, so every copy of the same code (a reinstall, another clone of
    the same commit, another environment with the same versions) shares one."""
    from numba.core import config

    if config.CACHE_DIR:
        return Path(config.CACHE_DIR).resolve() / "rigidflock"
    base = os.environ.get("LOCALAPPDATA") if os.name == "nt" else os.environ.get("XDG_CACHE_HOME")
    base = base or os.path.join(Path.home(), ".cache")
    return Path(base).resolve() / "rigidflock" / "numba"


def memo_file(root: Path, package: Path = PACKAGE) -> Path:
    """Where the digests of ``package``'s files are kept between processes: one file per copy
    of the package (the digests are matched by each file's size and modification time)."""
    where = hashlib.sha1(str(package).encode()).hexdigest()[:12]
    return root / f"sources-{sys.implementation.cache_tag}-{where}.json"


def _last_used(folder: Path) -> float:
    """The newest modification time of ``folder`` and its immediate entries (numba writes its
    files one level down; :func:`configure` touches the folder of the key in use)."""
    times = [folder.stat().st_mtime]
    times += [p.stat().st_mtime for p in folder.iterdir()]
    return max(times)


def prune(root: Path, keep: str, now: float | None = None) -> list[Path]:
    """Remove the caches under ``root`` other than ``keep`` unused for ``KEEP_SECONDS``: only
    directories named like a key (16 hex digits); every other file or folder is left. Returns
    what was removed."""
    now = time.time() if now is None else now
    removed: list[Path] = []
    if not root.is_dir():
        return removed
    for old in root.iterdir():
        try:
            if not (KEY.fullmatch(old.name) and old.name != keep and old.is_dir()):
                continue
            if now - _last_used(old) > KEEP_SECONDS:
                shutil.rmtree(old, ignore_errors=True)
                removed.append(old)
        except OSError:
            continue
    return removed


def _const(value) -> str:
    """A constant as text that does not depend on the process (sets in a stable order)."""
    if isinstance(value, frozenset):
        return "frozenset(" + ",".join(sorted(_const(v) for v in value)) + ")"
    if isinstance(value, tuple):
        return "(" + ",".join(_const(v) for v in value) + ")"
    return repr(value)


def function_digest(func: types.FunctionType) -> str:
    """12 hex digits of a function's compiled Python code, without its line numbers or its
    docstring: the name of its cache files (numba's own name has the line number, so a line
    added above a kernel would compile it again)."""
    h = hashlib.sha1()

    def walk(code: types.CodeType, doc: str | None) -> None:
        h.update(code.co_code)
        names = (code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)
        counts = (code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount)
        h.update(repr((names, counts, code.co_flags)).encode())
        consts = code.co_consts
        if doc is not None and consts and consts[0] == doc:  # the docstring's slot: as if none
            consts = (None, *consts[1:])
        for c in consts:
            if isinstance(c, types.CodeType):
                walk(c, None)
            else:
                h.update(_const(c).encode() + b"\0")

    walk(func.__code__, func.__doc__)
    return h.hexdigest()[:12]


_CHOSEN: dict[str, Path | str | None] = {}  # this process's root and key, once found


def directory() -> Path | None:
    """This process's directory of rigidflock's kernels (made if missing), or None when no
    place could be made (numba then places them as it places any function's)."""
    if "dir" not in _CHOSEN:
        _CHOSEN["dir"] = None
        try:
            root = cache_root()
            key = code_key(PACKAGE, memo_file(root))
            target = root / key
            if not _writable(target):
                raise OSError(f"{target}: not writable")
            os.utime(target)  # in use: not pruned by another copy's process meanwhile
            _CHOSEN.update(root=root, key=key, dir=target)
        except (OSError, RuntimeError, ValueError):
            pass  # finding a place for a cache must never stop an import
    return _CHOSEN["dir"]  # type: ignore[return-value]


def _inside_package(py_file: str) -> bool:
    return os.path.realpath(py_file).startswith(str(PACKAGE) + os.sep)


try:
    from numba.core.caching import CacheImpl, _CacheLocator
except ImportError:  # a numba without this interface: its own places then
    CacheImpl = _CacheLocator = None  # type: ignore[assignment,misc]

if _CacheLocator is not None:

    class KernelLocator(_CacheLocator):
        """numba's cache locator for the functions of this package's files (numba asks it
        first, and the next locator when it answers None): the :func:`directory` of this
        process's key, one folder per package folder (``model.steering``), the key as the
        source stamp and :func:`function_digest` in the file names."""

        def __init__(self, py_func, py_file: str, where: Path, key: str):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            folder = Path(os.path.realpath(py_file)).parent.relative_to(PACKAGE)
            self._cache_path = str(where / (".".join(folder.parts) or "_"))
            self._key = key
            self._name = function_digest(py_func)

        def get_cache_path(self) -> str:
            return self._cache_path

        def get_source_stamp(self) -> str:
            return self._key

        def get_disambiguator(self) -> str:
            return self._name

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _inside_package(py_file):
                return None
            where = directory()
            if where is None:
                return None
            self = cls(py_func, py_file, where, str(_CHOSEN["key"]))
            try:
                self.ensure_cache_path()
            except OSError:
                return None
            return self


def configure() -> str | None:
    """Have numba cache this package's kernels in :func:`directory` (before any kernel module
    is imported: numba places a kernel's cache when it is decorated) and remove the caches of
    earlier code unused for a day. The one change to numba is :class:`KernelLocator` put first
    in its list of locators, where it answers for this package's files only: every other
    function is placed by numba's own locators, in their order. Returns the directory, or
    None when numba's own places are used (no place could be made, or a numba without the
    locator interface)."""
    if CacheImpl is None or directory() is None:
        return None
    locators = CacheImpl._locator_classes
    if KernelLocator not in locators:
        locators.insert(0, KernelLocator)
    prune(_CHOSEN["root"], str(_CHOSEN["key"]))  # type: ignore[arg-type]
    return str(_CHOSEN["dir"])
