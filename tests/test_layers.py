"""The layering rules hold (import-linter contracts in pyproject.toml): front ends -> runs and
envs -> render -> replay -> sim -> rts -> model -> scene, each importing only downward; only
``model/world.py`` imports pymunk; only ``render/`` imports pyglet (so ``scene/`` imports
neither); only ``envs/`` imports gymnasium, only ``envs/pursuit_v0`` pettingzoo. Every import
counts, a lazy one in a function too."""

import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytest.importorskip("importlinter")


def lint(root) -> subprocess.CompletedProcess:
    """import-linter over the package under ``root`` (a subprocess whose cwd is first on
    sys.path, so it reads that checkout, not an installed copy)."""
    code = "import sys; from importlinter.cli import lint_imports_command as c; sys.exit(c())"
    return subprocess.run(
        [sys.executable, "-c", code, "--no-cache"],
        cwd=root, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_the_import_contracts_hold():
    proc = lint(ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " kept, 0 broken" in proc.stdout


def test_a_broken_rule_is_caught(tmp_path):
    """The contracts can fail: a copy of the package whose scene layer imports the simulation
    breaks the layers contract, and one whose scene layer imports pymunk breaks two."""
    import shutil

    copy = tmp_path / "rigidflock"
    shutil.copytree(ROOT / "rigidflock", copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (copy / "scene" / "bad.py").write_text("import pymunk\nfrom rigidflock.sim import Command\n")
    proc = lint(tmp_path)
    assert proc.returncode != 0
    assert "rigidflock.scene.bad -> rigidflock.sim" in proc.stdout
    assert "rigidflock.scene.bad -> pymunk" in proc.stdout
