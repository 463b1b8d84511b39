"""The documentation runs: the README's Python example and every doctest in the package."""

import doctest
import importlib
import pkgutil
import re

import pytest

import rigidflock
from tests.conftest import ROOT


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_readme_python_example_runs(monkeypatch, tmp_path):
    blocks = python_blocks((ROOT / "README.md").read_text())
    assert blocks, "the README has a Python example"
    monkeypatch.chdir(tmp_path)  # not the checkout: the examples work for an installed copy too
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})


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
