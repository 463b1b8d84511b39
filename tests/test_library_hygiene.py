"""rigidflock keeps to itself: importing it changes no process-wide setting, a program's own
numba functions cache where numba would put them without rigidflock, and simulations stepping
in several threads at once leave the interpreter's switch interval as they found it."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from rigidflock import Simulation, load_scene
from rigidflock.bundled import bundled_scene
from rigidflock.model import background
from tests.conftest import reacting, trajectory


def run_python(code: str, cwd, env=None) -> dict:
    """``code`` in a fresh interpreter; what it prints last, as JSON."""
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_importing_rigidflock_changes_no_process_setting(tmp_path):
    seen = run_python(
        """
        import json, os, sys
        env, switch = dict(os.environ), sys.getswitchinterval()
        import numba
        cache_dir = numba.config.CACHE_DIR
        locator_classes = getattr(numba.config, "CACHE_LOCATOR_CLASSES", None)
        import rigidflock
        from rigidflock import Simulation  # the simulation's modules and kernels loaded
        changed = {k: v for k, v in os.environ.items() if env.get(k) != v}
        gone = sorted(set(env) - set(os.environ))
        print(json.dumps({
            "changed": changed, "gone": gone, "switch": sys.getswitchinterval() == switch,
            "numba": [numba.config.CACHE_DIR, getattr(numba.config, "CACHE_LOCATOR_CLASSES", None)]
            == [cache_dir, locator_classes],
        }))
        """,
        tmp_path,
    )
    assert seen == {"changed": {}, "gone": [], "switch": True, "numba": True}


USER_MODULE = """
import numba

@numba.njit(cache=True)
def twice(x):
    return 2 * x
"""

USER_RUN = """
import json, sys
sys.path.insert(0, ".")
{before}
import mine
print(json.dumps([mine.twice(3.0), mine.twice.stats.cache_path]))
"""


def test_a_programs_own_numba_functions_cache_where_numba_puts_them(tmp_path):
    """With and without rigidflock imported first, and with and without the user's
    NUMBA_CACHE_DIR: the same cache files in the same place, none in rigidflock's folder."""
    work, users = tmp_path / "work", tmp_path / "users-cache"
    work.mkdir()
    (work / "mine.py").write_text(USER_MODULE)
    found = {}
    for cache_dir in (None, users):
        env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
        if cache_dir is not None:
            env["NUMBA_CACHE_DIR"] = str(cache_dir)
        for before in ("", "import rigidflock"):
            for old in (work / "__pycache__", users):
                shutil.rmtree(old, ignore_errors=True)
            value, where = run_python(USER_RUN.format(before=before), work, env)
            assert value == 6.0
            files = sorted(p.name for p in Path(where).glob("mine.*.nbi"))
            found[(cache_dir, before)] = (where, files)
            if users.exists():
                assert not list((users / "rigidflock").rglob("mine.*"))
    assert found[(None, "")][0] == str(work / "__pycache__")  # numba's own place
    assert Path(found[(users, "")][0]).parent == users
    for cache_dir in (None, users):
        assert len(found[(cache_dir, "")][1]) == 1
        assert found[(cache_dir, "import rigidflock")] == found[(cache_dir, "")]


def test_two_simulations_in_two_threads_step_as_they_do_one_after_the_other():
    scene = reacting(load_scene(bundled_scene("forest")))  # decides beside the physics step
    alone = [trajectory(Simulation(scene, seed=s), 40) for s in (1, 2)]
    switch = sys.getswitchinterval()
    together: dict[int, np.ndarray] = {}
    start = threading.Barrier(2)

    def run(seed: int) -> None:
        sim = Simulation(scene, seed=seed)
        start.wait()
        together[seed] = trajectory(sim, 40)

    threads = [threading.Thread(target=run, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sys.getswitchinterval() == switch
    for seed, states in zip((1, 2), alone, strict=True):
        np.testing.assert_array_equal(together[seed], states)


def test_the_switch_interval_comes_back_when_the_last_user_leaves():
    """Two threads in and out in the order that left the shorter interval behind when each
    step saved and restored it on its own."""
    switch = sys.getswitchinterval()
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    inside = []

    def a() -> None:
        with background.switching(1e-4):
            a_in.set()
            b_in.wait()
        a_out.set()

    def b() -> None:
        a_in.wait()
        with background.switching(1e-4):
            b_in.set()
            a_out.wait()
            inside.append(sys.getswitchinterval())

    threads = [threading.Thread(target=f) for f in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert inside == [pytest.approx(1e-4)]  # still short while one of them runs
    assert sys.getswitchinterval() == switch
    sys.setswitchinterval(0.002)  # a program's own choice, made while one holds it
    try:
        with background.switching(1e-4):
            sys.setswitchinterval(0.003)
        assert sys.getswitchinterval() == 0.003
    finally:
        sys.setswitchinterval(switch)
