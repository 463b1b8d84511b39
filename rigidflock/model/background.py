"""The process's one background thread, for work done beside pymunk's step.

pymunk's step runs on one core with the GIL released (its C code), so work handed to this
thread just before the step runs on the other core meanwhile: a neighbour list built ahead
(:meth:`~rigidflock.model.steering.neighbours.VerletPairs.build_ahead`) or a whole steering
decision (``world.reaction_ticks = 1``, :mod:`rigidflock.sim.simulation`). Its compiled kernels
release the GIL too (``nogil=True``), or pymunk's contact callbacks, which need it, would wait.

One thread, kept: starting a thread per job made the caller wait for it to start (~0.3 ms,
while numba's idle workers still spin on both cores). Started again when gone: in a forked
child (where the parent's thread does not exist; the lock is made anew there too, as a fork may
have caught it held) or if it died.

While work runs beside the step, the thread holding the GIL should hand it over sooner than
Python's default 5 ms (pymunk's contact callbacks wait for it): :func:`switching` sets the
interpreter's switch interval for the time it is in use, in any number of threads at once, and
puts back the one it found when the last of them leaves (unless the program changed it
meanwhile: then the program's stays).
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
import time


class Job:
    """``fn(*args)`` to run in the background: ``result`` (or ``error``, what it raised) once
    ``done``; ``seconds``: how long it ran."""

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args
        self.result = None
        self.error: BaseException | None = None
        self.seconds = 0.0
        self.done = threading.Event()
        self.worker: threading.Thread | None = None  # the thread it was queued to

    def run(self) -> None:
        start = time.perf_counter()
        try:
            self.result = self.fn(*self.args)
        except BaseException as e:  # handed to whoever waits (e.g. a MemoryError)
            self.error = e
        finally:
            self.seconds = time.perf_counter() - start
            self.done.set()

    def wait(self) -> bool:
        """Until the job is done (True), or at once False when no thread will run it: never
        handed to one, or its worker is gone (a forked child whose parent had it under way)."""
        while not self.done.is_set():
            if self.worker is None or not self.worker.is_alive():
                return self.done.is_set()
            self.done.wait(0.05)
        return True


class _Worker:
    def __init__(self):
        self._reset()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue | None = None
        self._thread: threading.Thread | None = None

    def submit(self, job: Job) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._jobs = queue.SimpleQueue()
                self._thread = threading.Thread(
                    target=_serve, args=(self._jobs,), name="rigidflock-background", daemon=True
                )
                self._thread.start()
            job.worker = self._thread
            self._jobs.put(job)


def _serve(jobs: queue.SimpleQueue) -> None:
    while True:
        jobs.get().run()


_WORKER = _Worker()


def submit(job: Job) -> Job:
    """Queue ``job`` to the background thread (started if need be); returns it."""
    _WORKER.submit(job)
    return job


class _Switching:
    """The switch interval held by :func:`switching`: how many use it, what it was before."""

    def __init__(self):
        self._reset()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork)

    def _reset(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.before = 0.0
        self.held = 0.0

    def _after_fork(self) -> None:
        """In a forked child, the threads that held the interval are gone: put it back."""
        if self.users:
            self.release_all()
        self._reset()

    def acquire(self, interval: float) -> None:
        with self.lock:
            if self.users == 0:
                self.before = sys.getswitchinterval()
                sys.setswitchinterval(interval)
                self.held = sys.getswitchinterval()  # as the interpreter rounds it
            self.users += 1

    def release(self) -> None:
        with self.lock:
            if self.users == 0:  # held in a parent before a fork: given back already
                return
            self.users -= 1
            if self.users == 0:
                self.release_all()

    def release_all(self) -> None:
        if sys.getswitchinterval() == self.held:  # else the program set its own meanwhile
            sys.setswitchinterval(self.before)


_SWITCHING = _Switching()


@contextlib.contextmanager
def switching(interval: float | None):
    """Within the block, the interpreter's switch interval is ``interval`` seconds (None: left
    as it is); the one before comes back when the last block using it, in any thread, ends."""
    if interval is None:
        yield
        return
    _SWITCHING.acquire(interval)
    try:
        yield
    finally:
        _SWITCHING.release()
