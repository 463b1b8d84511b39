"""The ``rigidflock`` command line.

Exit status: 0 success, 1 a run that failed or a verification that found a difference, 2 bad
input (usage, scene, replay file, output path). Errors are one line each on stderr; ``--debug``
shows the traceback instead.
"""

from __future__ import annotations

import sys

from rigidflock.cli.args import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, UsageError
from rigidflock.cli.parser import build_parser
from rigidflock.outputs import OutputError
from rigidflock.replay import ReplayError
from rigidflock.scene import SceneError

__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILED", "EXIT_OK", "build_parser", "main"]


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    debug = "--debug" in argv
    if not argv:
        parser.print_help()
        return EXIT_OK
    try:
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
    except KeyboardInterrupt:
        print("rigidflock: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a bug: still one line unless --debug
        if debug:
            raise
        print(
            f"rigidflock: internal error: {type(e).__name__}: {e} (rerun with --debug)",
            file=sys.stderr,
        )
        return EXIT_FAILED
