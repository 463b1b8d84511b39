"""The ``rigidflock`` command line.

Exit status: 0 success, 1 a run that failed or a verification that found a difference, 2 bad
input (usage, scene, replay file, output path), 3 ``verify`` of a damaged or cut-short replay whose
readable part matches, 130/143/129 interrupted (SIGINT/SIGTERM/SIGHUP: outputs finished or removed,
a recording closed at its last complete chunk), 141 the output's reader went away
(``rigidflock check --keys | head``: nothing more is printed, as a tool killed by SIGPIPE).
Errors are one line each on stderr; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import warnings

from rigidflock.cli.args import EXIT_BAD_INPUT, EXIT_DAMAGED, EXIT_FAILED, EXIT_OK, UsageError
from rigidflock.cli.parser import build_parser
from rigidflock.heap import fix_mmap_threshold, spin_openmp_workers
from rigidflock.model.behaviours import BehaviourError
from rigidflock.outputs import OutputError
from rigidflock.replay import ReplayError
from rigidflock.scene import SceneError

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_DAMAGED",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_OUTPUT_CLOSED",
    "EXIT_STATUSES",
    "build_parser",
    "main",
]

EXIT_OUTPUT_CLOSED = 128 + getattr(signal, "SIGPIPE", 13)  # as a tool killed by SIGPIPE: 141

# every exit status and what it means (the CLI reference lists them from here)
EXIT_STATUSES = (
    ("0", "success"),
    ("1", "a run that failed, or a verification that found a difference"),
    ("2", "bad input: usage, a scene, sweep or replay file, an output path"),
    ("3", "verify: the replay is damaged or cut short, and its readable part matches"),
    ("130, 143, 129", "interrupted (SIGINT, SIGTERM, SIGHUP): outputs finished or removed, a "
     "recording closed at its last complete chunk"),
    ("141", "the output's reader went away (`rigidflock check --keys | head`): nothing more is "
     "printed"),
)  # fmt: skip


@contextlib.contextmanager
def interrupt_signals():
    """SIGTERM and SIGHUP (what ``timeout``, ``kill`` and batch schedulers send, and a closed
    terminal) raise KeyboardInterrupt like Ctrl-C, so outputs are finished or removed and a
    recording is closed at its last complete chunk. Yields the list the signal number goes in."""
    received: list[int] = []

    def interrupt(signum, frame):
        received.append(signum)
        raise KeyboardInterrupt

    wanted = [signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])
    old = {}
    for sig in wanted:
        with contextlib.suppress(ValueError, OSError):  # not the main thread: leave them be
            old[sig] = signal.signal(sig, interrupt)
    try:
        yield received
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def interrupt_in(error: BaseException) -> bool:
    """Whether ``error`` was caused by a KeyboardInterrupt. A signal handled while a compiled
    kernel runs raises inside numba's dispatcher, which reports it as a SystemError ("returned
    a result with an exception set") whose cause is the KeyboardInterrupt: still an interrupt,
    not a bug. Only explicit causes count: a bug raised while cleaning up after an interrupt
    (its context) is still a bug."""
    seen: set[int] = set()
    e: BaseException | None = error
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__
    return False


def interrupted(received: list[int]) -> int:
    signum = received[0] if received else signal.SIGINT
    print(f"rigidflock: interrupted ({signal.Signals(signum).name})", file=sys.stderr)
    return 128 + signum


def output_closed() -> int:
    """The reader of stdout or stderr went away (``rigidflock check --keys | head -3``): stop
    quietly. What is left in stdout's buffer goes nowhere, and so does any later write (the
    interpreter flushes stdout once more at exit, which would fail again and print)."""
    with contextlib.suppress(OSError, ValueError):  # not a real file (a test's capture)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return EXIT_OUTPUT_CLOSED


def main(argv: list[str] | None = None) -> int:
    try:
        status = _main(argv)
        if sys.stdout is not None:
            sys.stdout.flush()  # a closed pipe shows here, while it can still be handled
        return status
    except BrokenPipeError:
        return output_closed()


def _main(argv: list[str] | None) -> int:
    fix_mmap_threshold()
    if argv is None:  # the command owns its process (not a call of main() from Python)
        spin_openmp_workers()  # OpenMP's idle workers spin before they sleep
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    debug = "--debug" in argv
    if not argv:
        parser.print_help()
        return EXIT_OK
    if not debug:  # a non-finite state is reported in one line (exit 1), not as numpy warnings
        warnings.simplefilter("ignore", RuntimeWarning)
    received: list[int] = []
    try:
        with interrupt_signals() as received:
            args = parser.parse_args(argv)
            if args.command is None:  # only global flags
                parser.print_help()
                return EXIT_OK
            return args.func(args)
    except SystemExit as e:  # --help, --version
        return EXIT_OK if e.code is None else int(e.code)
    except UsageError as e:
        print(str(e), file=sys.stderr)
        return EXIT_BAD_INPUT
    except SceneError as e:
        if debug:
            raise
        for line in e.errors:
            print(line, file=sys.stderr)
        return EXIT_BAD_INPUT
    except (OutputError, ReplayError) as e:
        if debug:
            raise
        print(f"rigidflock: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BehaviourError as e:  # a user's behaviour failed in a run: one line naming it
        if debug:
            raise
        print(f"rigidflock: run failed: {e}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return interrupted(received)
    except BrokenPipeError:  # the output's reader went away: main stops quietly
        raise
    except Exception as e:  # a bug: still one line unless --debug
        if interrupt_in(e):
            return interrupted(received)
        if debug:
            raise
        print(
            f"rigidflock: internal error: {type(e).__name__}: {e} (rerun with --debug)",
            file=sys.stderr,
        )
        return EXIT_FAILED
