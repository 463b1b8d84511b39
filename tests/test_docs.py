"""The documentation runs and stays true: the README's and the docs' examples, every doctest in
the package, every command the README shows, the generated pages current, the README a front
page."""

import doctest
import importlib
import importlib.util
import pkgutil
import re
import shlex
import subprocess
import sys

import pytest

import rigidflock
from tests.conftest import ROOT

DOCS = ROOT / "docs"


def _docs_script(name: str):
    spec = importlib.util.spec_from_file_location(f"docs_{name}", DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


examples = _docs_script("run_examples")
README = (ROOT / "README.md").read_text()


@pytest.mark.parametrize("page", examples.pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_examples_of_each_page_run(page, tmp_path):
    """Every ```python block of the README and the docs runs, in order, as a notebook would, in an
    empty folder (not the checkout: the examples work for an installed copy too)."""
    examples.run_page(page, tmp_path)


def test_the_worked_example_and_the_readme_have_examples():
    pages = {p.relative_to(ROOT).as_posix() for p in examples.pages()}
    assert {"README.md", "docs/guides/python-api.md"} <= pages, pages


def test_the_generated_pages_are_current():
    """The CLI reference, the scene keys, the API reference and the validation tables are made by
    ``python docs/generate.py`` from the parser, the declarations, the docstrings and the result
    JSON; a page that differs from what its source makes now is stale."""
    done = subprocess.run(
        [sys.executable, str(DOCS / "generate.py"), "--check"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_every_public_name_is_in_the_api_reference():
    api = (DOCS / "reference" / "api.md").read_text()
    for name in rigidflock.__all__:
        if not name.startswith("__"):
            assert f":: rigidflock.{name}\n" in api, name
    for package in ("sim", "scene", "bundled", "replay", "rts", "render", "envs",
                    "model.behaviours", "behaviours.examples"):  # fmt: skip
        module = importlib.import_module(f"rigidflock.{package}")
        for name in module.__all__:
            obj = getattr(module, name)
            documented = f":: rigidflock.{package}.{name}\n" in api
            at_top = any(getattr(rigidflock, t, None) is obj for t in rigidflock.__all__)
            assert documented or at_top, f"rigidflock.{package}.{name}"


def test_the_readme_is_a_front_page():
    """At most 250 lines; no development history (model versions, issue numbers); the two
    commands a newcomer needs come first: install and run a bundled scene, run the tests."""
    lines = README.splitlines()
    assert len(lines) <= 250, len(lines)
    assert not re.search(r"\b[Mm]odels? \d|\b[Ii]ssues? \d|branch", README)
    first = re.search(r"```sh\n(.*?)```", README, flags=re.S).group(1).splitlines()
    assert first[0].startswith("pip install . && rigidflock run "), first
    assert first[1].startswith('pip install -e ".[test]" && python -m pytest'), first


def test_ci_runs_the_readmes_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    first = re.search(r"```sh\n(.*?)```", README, flags=re.S).group(1).splitlines()
    test_command = first[1].split("&&")[1].split("#")[0].strip()
    assert f"python3 {test_command.removeprefix('python ')}" in ci or test_command in ci


def readme_commands() -> list[str]:
    """The commands of the README's sh blocks, one per line, comments dropped, in order. The
    first block's install and test commands are CI's own steps; from them only what follows the
    install runs here (pytest cannot run itself)."""
    out = []
    for block in re.findall(r"```sh\n(.*?)```", README, flags=re.S):
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            if not command:
                continue
            parts = [p.strip() for p in command.split("&&")]
            out += [p for p in parts if not p.startswith(("pip ", "python -m pytest"))]
    return out


def test_the_readme_shows_commands():
    commands = readme_commands()
    assert len(commands) >= 10, commands
    assert all(c.startswith("rigidflock ") for c in commands), commands


def test_every_command_the_readme_shows_runs(tmp_path):
    """Each command runs as written, in order, in an empty folder (a recording made by one is
    verified and exported by the next), and exits 0."""
    exe = [sys.executable, "-m", "rigidflock"]
    for command in readme_commands():
        args = shlex.split(command)
        done = subprocess.run(
            exe + args[1:], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=900
        )
        assert done.returncode == 0, f"{command}: {done.stderr[-800:]}"
    for made in ("aidemo4.json", "aidemo4.png", "doorway.rfr", "doorway.gif", "cohesion.png"):
        assert (tmp_path / made).stat().st_size > 0, made


def modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(rigidflock.__path__, "rigidflock.")]
    return sorted(n for n in names if not n.endswith("__main__"))


@pytest.mark.parametrize("name", modules())
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{name}: {result.failed} doctest(s) failed"


def test_there_are_doctests():
    attempted = 0
    for name in modules():
        finder = doctest.DocTestFinder()
        for t in finder.find(importlib.import_module(name)):
            attempted += len(t.examples)
    assert attempted >= 3, attempted
