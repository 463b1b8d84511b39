import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from rigidflock.scene import parse_scene  # noqa: E402
from rigidflock.scene.overrides import derive  # noqa: E402


@pytest.fixture
def scene_from():
    """Build a scene from TOML text (the format's defaults fill the rest)."""

    def make(text: str, name: str = "test.toml"):
        return parse_scene(text, name)

    return make


SCENES = sorted((ROOT / "scenes").glob("*.toml"))


def load_tool(name: str):
    """The script ``tools/<name>.py`` as a module (the tools are scripts, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def trajectory(sim, ticks: int):
    """(ticks, 6N): every unit's position, velocity, angle and spin after each of ``ticks``
    steps, one row a tick (two runs compare bit for bit)."""
    import numpy as np

    rows = []
    for _ in range(ticks):
        sim.step()
        st = sim.state
        rows.append(np.concatenate([st.pos.ravel(), st.vel.ravel(), st.angle, st.omega]))
    return np.array(rows)


def reacting(scene, ticks: int = 1, substeps: int | None = None):
    """``scene`` with ``world.reaction_ticks = ticks`` (its text too: what a recording keeps)."""
    changes = {"world.reaction_ticks": ticks}
    if substeps is not None:
        changes["world.substeps"] = substeps
    return derive(scene, changes)


def pytest_configure(config):
    """With several test workers (pytest-xdist), compile the kernels once, before the workers
    start (``tests/warm_kernels.py``, its two halves side by side): else every worker compiles
    the same ones at once. A failure here is only reported: the tests compile what is missing."""
    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not workers or config.option.collectonly:
        return
    import subprocess
    import time

    from rigidflock.runs.warmup import kernels_cold

    if not kernels_cold():
        return
    t0 = time.perf_counter()
    script = str(ROOT / "tests" / "warm_kernels.py")
    procs = [
        subprocess.Popen([sys.executable, script, part], stderr=subprocess.PIPE, text=True)
        for part in ("0", "1")
    ]
    failed = [p.communicate()[1][-500:] for p in procs if p.wait() != 0]
    took = time.perf_counter() - t0
    note = f"kernels compiled before the workers started: {took:.0f} s"
    if failed:
        note += f" (a warm-up failed; the tests compile what is missing): {failed[0]}"
    config.stash[WARM_NOTE] = note


WARM_NOTE = pytest.StashKey[str]()


def pytest_sessionstart(session):
    """Say what the warm-up (:func:`pytest_configure`) took, when it ran (``-q`` too)."""
    note = session.config.stash.get(WARM_NOTE, None)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if note and reporter is not None:
        reporter.write_line(note)
