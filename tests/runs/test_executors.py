"""The local executor's workers end with the command that started them."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from rigidflock.runs.executors import PARENT_POLL

# A command with one local worker busy for two minutes; it prints the worker's pid and waits.
PARENT = textwrap.dedent(
    """
    import os, sys, time
    from rigidflock.runs.executors import local_executor

    if __name__ == "__main__":
        ex = local_executor(1)
        pid = ex.submit(os.getpid).result()
        ex.submit(time.sleep, 120)
        print(pid, flush=True)
        time.sleep(120)
    """
)


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper that may never come in a container counts as gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return not any(line.startswith("State:") and "Z" in line for line in f)
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_command_leaves_no_worker_running(tmp_path, sig):
    """A command ended by a signal runs no clean-up: its workers used to simulate on at a full
    core each until their queued runs were done (minutes for a bench). Now each notices within
    PARENT_POLL seconds that its parent is gone and exits; 10 s allows for a loaded machine."""
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    worker = 0
    try:
        ready, _, _ = select.select([parent.stdout], [], [], 120)
        assert ready, "the command did not start its worker"
        worker = int(parent.stdout.readline())
        assert _alive(worker)
        parent.send_signal(sig)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(PARENT_POLL / 2)
        assert not _alive(worker), "the worker outlived its command"
    finally:
        parent.kill()
        if worker and _alive(worker):
            os.kill(worker, signal.SIGKILL)
