"""The background thread: jobs run there, hand back results and errors, and are not waited
for when their thread is gone."""

import threading
import time

from rigidflock.model import background


def test_a_job_runs_on_the_background_thread_and_hands_back_its_result():
    job = background.submit(background.Job(lambda a, b: (a + b, threading.current_thread()), 2, 3))
    assert job.wait()
    total, thread = job.result
    # not the caller's thread: the point is to run beside it
    assert total == 5 and thread is not threading.current_thread() and job.error is None
    assert job.seconds >= 0.0


def test_a_job_that_raises_hands_back_the_error_and_the_thread_goes_on():
    def fail():
        raise MemoryError("no room")

    job = background.submit(background.Job(fail))
    assert job.wait() and isinstance(job.error, MemoryError) and job.result is None
    assert background.submit(background.Job(lambda: 7)).wait()  # the thread survived it


def test_waiting_on_a_job_whose_worker_is_gone_returns():
    """A job queued to a worker thread that no longer runs (it died, or the process is a forked
    child) is not waited for: wait() says it was not done, and the caller does the work."""
    job = background.Job(lambda: 1)
    job.worker = threading.Thread(target=lambda: None)
    job.worker.start()
    job.worker.join()
    t = time.perf_counter()
    assert job.wait() is False
    assert time.perf_counter() - t < 5.0 and job.result is None


def test_waiting_on_a_job_never_handed_to_a_thread_returns_at_once():
    """The simulation runs such a job itself (one numba thread): no wait for a thread first."""
    job = background.Job(lambda: 1)

    class NoPoll(threading.Event):
        def wait(self, timeout=None):
            raise AssertionError("polled for a thread that was never given the job")

    job.done = NoPoll()
    assert job.wait() is False and job.result is None
    job.run()
    assert job.wait() is True and job.result == 1
