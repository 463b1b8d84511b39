"""Where a sweep's runs execute: local processes or a Dask cluster, both as a
:class:`concurrent.futures.Executor` (what :func:`rigidflock.runs.sweep.run_sweep` takes).

Each worker runs one simulation at a time with one numba thread: the parallelism is across runs,
and one thread per run keeps N workers on N cores from oversubscribing them.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor


def single_thread() -> None:
    """Worker set-up: one numba thread (before numba is imported, or after). Numba reads
    NUMBA_NUM_THREADS at import (importing this module imports it) and again at every compile,
    raising once threads run if the value changed: so it re-reads it here, before any thread
    starts. In a worker whose threads already run (a long-lived Dask worker that ran numba
    before), the variable keeps their count so compiles still work, and only the thread
    calling this is set to one (Dask runs tasks on another: those may use them all)."""
    os.environ["NUMBA_NUM_THREADS"] = "1"
    nb = sys.modules.get("numba")
    if nb is None:
        return
    from numba.np.ufunc import parallel

    if parallel._is_initialized:
        os.environ["NUMBA_NUM_THREADS"] = str(nb.config.NUMBA_NUM_THREADS)
    else:
        nb.config.reload_config()
    nb.set_num_threads(1)


def warm_worker(_=None) -> int:
    """Import the simulation and load its kernels in a worker (a 2-tick run); returns the pid."""
    from rigidflock.runs.warmup import warm_up
    from rigidflock.scene import parse_scene

    warm_up(parse_scene("[[groups]]\ncount = 3\n", "warm.toml"))
    return os.getpid()


def cores() -> int:
    """The cores this process may run on (its affinity: a container or ``taskset`` may allow
    fewer than the machine has)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def local_executor(workers: int | None = None) -> ProcessPoolExecutor:
    """``workers`` processes (default: :func:`cores`) started with spawn: a fresh interpreter
    each, nothing inherited from a parent that may hold threads (numba's, pymunk's)."""
    return ProcessPoolExecutor(
        max_workers=workers or cores(),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_local_worker,
        initargs=(os.getpid(),),
    )


def _local_worker(parent: int) -> None:
    """A local worker of the ``rigidflock`` command: one numba thread, the command's heap
    setting (:mod:`rigidflock.heap`; spawn inherits neither), and an end when the command ends
    (``parent``, its pid: one read here could already be of the process that adopted it)."""
    from rigidflock.heap import fix_mmap_threshold

    fix_mmap_threshold()
    single_thread()
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()


PARENT_POLL = 0.5  # seconds between a worker's checks that the command that started it still runs


def _exit_with_parent(parent: int) -> None:
    """Ends this worker once ``parent`` is gone: a command killed by a signal (SIGTERM, SIGKILL)
    runs no clean-up, and its workers would simulate on, each at a full core, until their queued
    runs were done. An orphan is adopted by another process, so its parent id changes."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(1)


def _need_dask():
    try:
        import distributed
    except ImportError:
        from rigidflock.outputs import OutputError

        raise OutputError(
            "rigidflock sweep: --scheduler/--dask-local need dask.distributed "
            '(pip install ".[dask]" in the rigidflock checkout)'
        ) from None
    return distributed


# Worker settings for the LocalCluster we start: Dask's statistical profiler samples the task
# thread's stack every 10 ms and the monitors poll psutil, all holding the GIL the simulation
# needs; measured (tools/bench_sweep.py), runs took ~10% longer with them at their defaults.
QUIET_WORKERS = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "5s",
}


@contextlib.contextmanager
def dask_executor(scheduler: str | None = None, local_workers: int | None = None):
    """Yields a Dask client's executor: of the scheduler at ``scheduler`` (``tcp://HOST:PORT``),
    or of a LocalCluster of ``local_workers`` processes with one thread each (without the
    profiler: :data:`QUIET_WORKERS`), closed after."""
    distributed = _need_dask()
    import dask

    with contextlib.ExitStack() as stack:
        if scheduler is not None:
            client = stack.enter_context(distributed.Client(scheduler))
        else:
            with dask.config.set(QUIET_WORKERS):  # the nannies pass it on to their workers
                cluster = stack.enter_context(
                    distributed.LocalCluster(
                        n_workers=local_workers or 2,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                    )
                )
            client = stack.enter_context(distributed.Client(cluster))
        client.run(single_thread)
        yield client.get_executor(pure=False)
