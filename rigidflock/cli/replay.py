"""The commands that take replay files: replay, verify, export."""

from __future__ import annotations

import sys

from rigidflock.cli.args import EXIT_DAMAGED, EXIT_FAILED, EXIT_OK, UsageError, plural
from rigidflock.cli.progress_bars import progress_bar
from rigidflock.outputs import check_writable
from rigidflock.replay import ReplayError


def cmd_replay(args) -> int:
    from rigidflock.replay import ReplayReader, format_info, info

    if args.screenshot_at:
        tick_text, shot = args.screenshot_at
        try:
            tick = int(tick_text)
        except ValueError:
            raise UsageError(
                f"rigidflock replay: --screenshot-at: expected a tick number, got {tick_text!r}"
            ) from None
        from rigidflock.render.png import image_format  # Pillow only, no pyglet

        image_format(shot)
        check_writable(shot, "--screenshot-at")
    with ReplayReader(args.file) as reader:
        if args.info:
            print(format_info(info(reader)))
            if not args.screenshot_at:
                return EXIT_OK
        if not reader.chunks:
            raise ReplayError(f"{args.file}: no readable ticks ({reader.problem})")
        if not reader.complete:
            print(f"rigidflock: {args.file}: {reader.problem}", file=sys.stderr)
        from rigidflock.replay.playback import Playback

        playback = Playback(reader, args.allow_behaviours)
        if args.screenshot_at:
            if not reader.first_tick <= tick <= reader.last_tick:
                raise UsageError(
                    f"rigidflock replay: --screenshot-at: tick {tick} is not in the file "
                    f"({reader.first_tick}..{reader.last_tick})"
                )
            from rigidflock.render.replay_window import replay_screenshot

            replay_screenshot(playback, tick, shot, args.size, args.show)
            print(f"{shot}: {args.size[0]}x{args.size[1]}, tick {tick}")
            return EXIT_OK
        from rigidflock.render import backend

        if backend.HEADLESS:
            print(
                f"rigidflock: {args.file}: the window needs a display "
                f"({backend.no_display_reason() or 'headless mode'}); "
                "use --screenshot-at TICK FILE.png, --info or rigidflock export",
                file=sys.stderr,
            )
            return EXIT_FAILED
        from rigidflock.render.replay_window import ReplayViewer

        ReplayViewer(playback, args.size, overlays=args.show).run()
    return EXIT_OK


def cmd_verify(args) -> int:
    from rigidflock.replay import ReplayReader, verify

    with ReplayReader(args.file) as reader:
        if not reader.chunks:
            raise ReplayError(f"{args.file}: no readable ticks ({reader.problem})")
        enabled = not args.quiet and sys.stderr.isatty()
        with progress_bar(reader.last_tick + 1, "tick", enabled) as bar:
            result = verify(reader, bar, allow_behaviours=args.allow_behaviours)
    if result.unverifiable is not None:
        print(f"rigidflock: {args.file}: {result.unverifiable}", file=sys.stderr)
        return EXIT_FAILED
    for note in result.notes:
        print(f"rigidflock: {args.file}: note: {note}", file=sys.stderr)
    if not result.complete:
        print(
            f"rigidflock: {args.file}: {result.problem}; verified the readable part",
            file=sys.stderr,
        )
    if result.difference is not None:
        print(
            f"rigidflock: {args.file}: differs at {result.difference.describe()}", file=sys.stderr
        )
        return EXIT_FAILED
    checked = plural(result.ticks_checked, "tick")
    if not result.complete:  # a script must not take a damaged recording for a good one
        are = "is" if result.ticks_checked == 1 else "are"
        print(
            f"{args.file}: damaged or cut short: the readable {checked} {are} identical "
            f"({reader.precision} precision)"
        )
        return EXIT_DAMAGED
    print(f"{args.file}: identical: {checked} re-simulated ({reader.precision} precision)")
    return EXIT_OK


def cmd_export(args) -> int:
    from rigidflock.runs.export import export_video, parse_target, video_fps

    kind = parse_target(args.out, args.size)
    rate = video_fps(kind, args.fps)
    if args.fps is not None and abs(rate - args.fps) > 1e-9 and not args.quiet:
        print(
            f"rigidflock export: GIF frame delays are whole centiseconds: {args.fps:g} fps is "
            f"made at {rate:.4g} fps ({round(100 / rate)} cs a frame), exactly",
            file=sys.stderr,
        )
    check_writable(args.out, "export")
    from rigidflock.replay import ReplayReader

    with ReplayReader(args.file) as reader:
        if not reader.chunks:
            raise ReplayError(f"{args.file}: no readable ticks ({reader.problem})")
        first, last = reader.first_tick, reader.last_tick
        start = first if args.start is None else args.start
        stop = last if args.stop is None else args.stop
        for name, t in (("--from", start), ("--to", stop)):
            if not first <= t <= last:
                raise UsageError(
                    f"rigidflock export: {name} {t}: the file holds ticks {first}..{last}"
                )
        if stop < start:
            raise UsageError(f"rigidflock export: --to {stop} is before --from {start}")
        if not reader.complete:
            print(f"rigidflock: {args.file}: {reader.problem}", file=sys.stderr)
        from rigidflock.replay.playback import Playback

        playback = Playback(reader, args.allow_behaviours)
        with progress_bar(None, "frame", not args.quiet and sys.stderr.isatty()) as bar:
            frames = export_video(
                playback, args.out, kind, fps=rate, start=start, stop=stop, size=args.size,
                overlays=args.show, progress=bar, panel=args.panel,
            )  # fmt: skip
    if not args.quiet:
        w, h = args.size
        print(
            f"{args.out}: {plural(frames, 'frame')}, {w}x{h}, {rate:.4g} fps, ticks {start}..{stop}"
        )
    return EXIT_OK
