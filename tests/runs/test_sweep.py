"""Sweeps: the runs a file asks for, rows that do not depend on the executor, resuming a killed
sweep, failures as rows, and bad files refused before any run."""

import os
import signal
import subprocess
import sys
import time

import pytest

from rigidflock.runs.executors import local_executor
from rigidflock.runs.rowfile import read_rows
from rigidflock.runs.sweep import run_sweep
from rigidflock.runs.sweep_spec import load_sweep
from rigidflock.scene import SceneError
from tests.conftest import ROOT

BASE = "[world]\nsize = [400.0, 300.0]\nbounds = 'walls'\n[[groups]]\ncount = 6\n"
SWEEP = """scene = "base.toml"
ticks = {ticks}
seeds = [3, 5]
metrics = ["polarization_mean", "min_separation", "unit_contacts", "flocks_final"]
[grid]
"rules.weights.cohesion" = [0.5, 2.0]
"rules.view" = ["narrow", "wide"]
"""


def make(tmp_path, text=SWEEP, ticks=30, name="sweep.toml"):
    (tmp_path / "base.toml").write_text(BASE)
    path = tmp_path / name
    path.write_text(text.replace("{ticks}", str(ticks)))
    return path


def numbers(rows):
    """Rows without the wall time (the one column that depends on the machine)."""
    return [{k: v for k, v in r.items() if k != "wall_seconds"} for r in rows]


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """The reference: the sweep run in this process, one run after another."""
    tmp = tmp_path_factory.mktemp("straight")
    spec = load_sweep(make(tmp))
    return spec, run_sweep(spec, out=tmp / "rows.csv"), tmp / "rows.csv"


def test_grid_times_seeds_in_order(straight):
    """2 x 2 grid points x 2 seeds = 8 runs, in the file's order; every run finished."""
    _, rows, path = straight
    assert len(rows) == 8 and [r["seed"] for r in rows[:2]] == [3, 5]
    assert {r["rules.view"] for r in rows} == {"narrow", "wide"}
    assert all(r["status"] == "ok" and r["error"] is None for r in rows)
    assert numbers(read_rows(path)) == numbers(rows)


def test_local_processes_give_the_same_rows(straight):
    """Two spawned worker processes, runs finishing in any order: the same numbers, row for
    row (each run seeds its own generator and reads its scene from text)."""
    spec, rows, _ = straight
    with local_executor(2) as ex:
        assert numbers(run_sweep(spec, executor=ex)) == numbers(rows)


def test_dask_local_cluster_gives_the_same_rows(straight):
    """A real Dask LocalCluster (2 worker processes, 1 thread each) through the client's
    concurrent.futures executor: the same numbers as this process. Its workers run without
    Dask's stack-sampling profiler, which took the GIL from the runs every 10 ms."""
    pytest.importorskip("distributed")
    import dask

    from rigidflock.runs.executors import dask_executor

    spec, rows, _ = straight
    with dask_executor(local_workers=2) as ex:
        assert numbers(run_sweep(spec, executor=ex)) == numbers(rows)
        key = "distributed.worker.profile.enabled"
        assert ex.submit(dask.config.get, key).result() is False
        assert ex.submit(os.getpid).result() != os.getpid()  # a worker process, not this one


def compile_fresh(x: float) -> tuple[float, int]:
    """In a worker: compile a kernel the on-disk cache cannot hold (a new lambda), as a worker
    on another machine compiles every kernel; its result, and the most threads a simulation's
    thread policy there would use."""
    import numba
    import numpy as np

    from rigidflock.model.steering.threads import ThreadPolicy

    kernel = numba.njit(parallel=True)(lambda a: a.sum() + x)
    return float(kernel(np.ones(10))), ThreadPolicy().max_threads


def test_a_local_worker_can_compile_on_its_one_thread():
    """Importing the worker set-up imports numba, which reads NUMBA_NUM_THREADS then; setting it
    to 1 after that made every later compile in the worker raise ("Cannot set
    NUMBA_NUM_THREADS ... once the threads have been launched"), failing any run whose kernels
    were not in the cache. The worker compiles and runs on one thread."""
    with local_executor(1) as ex:
        assert ex.submit(compile_fresh, 1.0).result() == (11.0, 1)


def test_a_dask_worker_can_compile_on_its_one_thread():
    """As above, for the Dask workers (set up by ``client.run`` after they imported numba).
    Before, numba there also kept both threads, and each worker's simulations used two."""
    pytest.importorskip("distributed")
    from rigidflock.runs.executors import dask_executor

    with dask_executor(local_workers=1) as ex:
        assert ex.submit(compile_fresh, 2.0).result() == (12.0, 1)


def test_killed_sweep_resumes_to_the_same_table(straight, tmp_path):
    """A sweep killed (SIGKILL) after a few rows, its last line left half-written, then resumed:
    the finished file equals the one of a sweep run straight through, and the resumed part ran
    only the missing runs."""
    _, rows, _ = straight
    path = make(tmp_path, ticks=30)
    out = tmp_path / "rows.csv"
    slow = make(tmp_path, ticks=400, name="slow.toml")  # same runs, long enough to be caught
    cmd = [sys.executable, "-m", "rigidflock", "sweep", str(slow), "-o", str(out), "--workers",
           "1", "--quiet"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and out.read_text().count("\n") >= 3:  # header + 2 rows
                break
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    kept = out.read_text().count("\n") - 1
    assert 2 <= kept < 8
    # the slow sweep's rows are other numbers: keep only their keys' count, use the quick file
    head = out.read_text().splitlines()[0]
    quick = (straight[2]).read_text().splitlines()
    out.write_text("\n".join([head, *quick[1 : 1 + kept]]) + "\n" + quick[1 + kept][:9])
    seen = []
    again = run_sweep(load_sweep(path), out=out, resume=True, progress=lambda d, t: seen.append(d))
    assert seen[0] == kept and seen[-1] == 8  # resumed at the rows kept
    assert numbers(again) == numbers(rows)
    assert numbers(read_rows(out)) == numbers(rows)


def test_failed_run_is_a_row_with_its_error(tmp_path):
    """An obstacle field that cannot fit fails that run only; the others finish."""
    text = SWEEP.replace('"rules.view" = ["narrow", "wide"]', '"obstacle_field.count" = [0, 400]')
    text = text.replace("[grid]", "[set]\n'obstacle_field.radius' = 40.0\n[grid]")
    rows = run_sweep(load_sweep(make(tmp_path, text, ticks=5)))
    bad = [r for r in rows if r["status"] == "failed"]
    assert len(bad) == 4 and all("obstacle_field" in r["error"] for r in bad)
    assert all(r["polarization_mean"] is None for r in bad)
    assert sum(r["status"] == "ok" for r in rows) == 4


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ('"rules.view" = ["narrow", "sideways"]', "view"),
        ('"rules.weights.separation" = ["x"]', "separation"),
        ('"groups[3].count" = [1]', "groups[3]"),
    ],
)
def test_bad_value_in_grid_names_file_and_field(tmp_path, change, field):
    """Every changed scene is validated when the file is read: one line naming the sweep file
    and the field."""
    text = SWEEP.replace('"rules.view" = ["narrow", "wide"]', change)
    with pytest.raises(SceneError) as e:
        load_sweep(make(tmp_path, text))
    assert len(e.value.errors) == 1
    assert "sweep.toml" in e.value.errors[0] and field in e.value.errors[0]


def test_latin_hypercube_and_sobol_samples(tmp_path):
    """Ranges are sampled inside [low, high] (whole numbers for whole bounds), the same samples
    for the same sample seed; LHS puts exactly one sample in each of n equal strata."""
    ranges = '[ranges]\n"rules.weights.alignment" = [0.5, 2.5]\n"groups[0].count" = [4, 12]\n'
    for method in ("lhs", "sobol"):
        text = f"scene = 'base.toml'\nseeds = 1\n{ranges}[sample]\nmethod = '{method}'\nn = 8\n"
        spec = load_sweep(make(tmp_path, text))
        again = load_sweep(make(tmp_path, text))
        assert spec.points == again.points and len(spec.points) == 8
        assert all(0.5 <= a <= 2.5 and isinstance(c, int) and 4 <= c <= 12 for a, c in spec.points)
        if method == "lhs":
            strata = sorted(int((a - 0.5) / 2.0 * 8) for a, _ in spec.points)
            assert strata == list(range(8))
