"""Playback sits below the renderer: importing it (and the whole replay package) loads no
drawing code."""

import subprocess
import sys

from tests.conftest import ROOT


def test_replay_imports_neither_render_nor_runs():
    code = (
        "import sys, rigidflock.replay, rigidflock.replay.playback; "
        "print(sorted(m for m in sys.modules if m.startswith(('rigidflock.render', "
        "'rigidflock.runs', 'rigidflock.cli', 'pyglet'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
