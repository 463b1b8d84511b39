"""The ``rigidflock`` command line (DESIGN.md section 6).

Exit status: 0 success, 1 a run that failed or a verification that found a difference, 2 bad
input (usage, scene, replay file, output path). Errors are one line each on stderr; ``--debug``
shows the traceback instead.
"""

from __future__ import annotations

import argparse
import sys

from rigidflock.outputs import OutputError, check_writable
from rigidflock.replay import ReplayError
from rigidflock.scene import SceneError, load_scene

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, no usage dump
        raise UsageError(f"{self.prog}: {message}")


def _whole_number(minimum: int):
    """An argparse type: a whole number of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


_positive_int = _whole_number(1)
_seed = _count = _whole_number(0)


def _size(text: str) -> tuple[int, int]:
    w, sep, h = text.lower().partition("x")
    try:
        size = (int(w), int(h))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected WIDTHxHEIGHT, e.g. 1280x800, got {text!r}"
        ) from None
    if not sep or not all(64 <= v <= 8192 for v in size):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT of 64..8192 pixels, got {text!r}")
    return size


def _overlays(text: str):
    from rigidflock.render.frame import Overlays  # no pyglet: frame.py is numpy only

    try:
        return Overlays.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _unit_list(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated unit counts, e.g. 1000,10000, got {text!r}"
        ) from None
    if not sizes or min(sizes) < 2:
        raise argparse.ArgumentTypeError(f"unit counts must be at least 2, got {text!r}")
    return sizes


def _fps(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.1 <= value <= 240:
        raise argparse.ArgumentTypeError(f"must be between 0.1 and 240, got {text}")
    return value


def _record_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--record", metavar="FILE", help="record a replay of the run into FILE")
    p.add_argument(
        "--exact",
        action="store_true",
        help="with --record: store float64 states bit for bit (about 15x larger) instead of "
        "fixed point",
    )


def _record_precision(args) -> str:
    if args.exact and not args.record:
        raise UsageError(f"rigidflock {args.command}: --exact needs --record FILE")
    return "exact" if args.exact else "compact"


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="rigidflock", description="Rigid-body, physics-based flocking simulator.")
    p.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    r = sub.add_parser("run", help="run a scene headless and print a summary")
    r.add_argument("scene", help="scene file (TOML)")
    r.add_argument("--ticks", type=_positive_int, default=1800, help="ticks to run (default 1800)")
    r.add_argument("--seed", type=_seed, default=None, help="override the scene's seed")
    r.add_argument("--metrics", metavar="FILE.json", help="write the run's metrics as JSON")
    r.add_argument("--trace", metavar="FILE.csv", help="write per-unit states as CSV")
    r.add_argument(
        "--trace-every", type=_positive_int, default=1, metavar="K", help="trace every K-th tick"
    )
    r.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    _record_args(r)
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("view", help="watch a scene in a window, or save a screenshot of it")
    v.add_argument("scene", help="scene file (TOML)")
    v.add_argument("--seed", type=_seed, default=None, help="override the scene's seed")
    v.add_argument(
        "--ticks",
        type=_count,
        default=None,
        metavar="N",
        help="with --screenshot: ticks to run before the picture (default 0); "
        "in the window: pause at tick N",
    )
    v.add_argument(
        "--screenshot",
        metavar="FILE.png",
        help="draw the frame after --ticks N without a visible window, save it, exit",
    )
    v.add_argument(
        "--size", type=_size, default=(1280, 800), metavar="WxH", help="window/picture size"
    )
    v.add_argument(
        "--show",
        type=_overlays,
        default=None,
        metavar="LIST",
        help="overlays to start with: vectors,arcs,feelers,links,targets (or all)",
    )
    _record_args(v)
    v.set_defaults(func=cmd_view)

    rp = sub.add_parser("replay", help="watch a replay file, print its --info, or picture a tick")
    rp.add_argument("file", help="replay file (from --record)")
    rp.add_argument(
        "--info", action="store_true", help="print the header, duration, size and completeness"
    )
    rp.add_argument(
        "--screenshot-at",
        nargs=2,
        metavar=("TICK", "FILE.png"),
        help="draw the stored tick TICK without a visible window, save it, exit",
    )
    rp.add_argument(
        "--size", type=_size, default=(1280, 800), metavar="WxH", help="window/picture size"
    )
    rp.add_argument(
        "--show", type=_overlays, default=None, metavar="LIST", help="overlays to start with"
    )
    rp.set_defaults(func=cmd_replay)

    vf = sub.add_parser("verify", help="re-simulate a replay and compare every stored tick")
    vf.add_argument("file", help="replay file")
    vf.add_argument("--quiet", action="store_true", help="no progress bar")
    vf.set_defaults(func=cmd_verify)

    ex = sub.add_parser("export", help="render a replay into a video (MP4 or GIF)")
    ex.add_argument("file", help="replay file")
    ex.add_argument("out", metavar="OUT.mp4|OUT.gif", help="video file to write")
    ex.add_argument(
        "--fps", type=_fps, default=30.0, metavar="F", help="frames per second (default 30)"
    )
    ex.add_argument(
        "--from", dest="start", type=_count, default=None, metavar="T", help="first tick"
    )
    ex.add_argument("--to", dest="stop", type=_count, default=None, metavar="T", help="last tick")
    ex.add_argument(
        "--size",
        type=_size,
        default=(1280, 800),
        metavar="WxH",
        help="video size (default 1280x800)",
    )
    ex.add_argument("--show", type=_overlays, default=None, metavar="LIST", help="overlays to draw")
    ex.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    ex.set_defaults(func=cmd_export)

    b = sub.add_parser("bench", help="time the tick against bare pymunk at several unit counts")
    b.add_argument(
        "--units",
        type=_unit_list,
        default=(1000, 10000, 50000),
        metavar="N,N,...",
        help="unit counts (default 1000,10000,50000)",
    )
    b.add_argument("--ticks", type=_positive_int, default=200, help="timed ticks per size")
    b.add_argument("--warmup", type=_count, default=30, help="untimed ticks first")
    b.add_argument(
        "--orders",
        type=_count,
        default=1000,
        metavar="N",
        help="also time N units under move orders, with route search times (0: skip)",
    )
    b.add_argument("--json", metavar="FILE.json", help="write the results as JSON")
    b.add_argument("--plot", metavar="FILE.png", help="plot ticks/s against units (matplotlib)")
    b.set_defaults(func=cmd_bench)

    c = sub.add_parser("check", help="validate scene files and report every error")
    c.add_argument("scenes", nargs="+", help="scene files")
    c.set_defaults(func=cmd_check)
    return p


def cmd_check(args) -> int:
    status = EXIT_OK
    for path in args.scenes:
        try:
            scene = load_scene(path)
        except SceneError as e:
            for line in e.errors:
                print(line, file=sys.stderr)
            status = EXIT_BAD_INPUT
            continue
        for line in scene.warnings:
            print(f"warning: {line}", file=sys.stderr)
        print(f"{path}: ok ({scene.unit_count} units, {len(scene.groups)} groups)")
    return status


def _summary(result) -> str:
    m = result.metrics
    name = result.scene.name or result.scene.source
    first = m["first_player_contact_tick"]

    def f(x, fmt=".3f"):
        return "-" if x is None else format(x, fmt)

    lines = [
        f"{name}: {result.ticks} ticks, {result.units} units, seed {result.seed}: "
        f"{result.wall_seconds:.2f} s ({result.ticks_per_second:.0f} ticks/s)",
        f"  polarization {f(m['polarization_final'])} (mean {f(m['polarization_mean'])}), "
        f"nn distance {f(m['nn_distance_mean'], '.2f')}, "
        f"min separation {f(m['min_separation'], '.2f')}, flocks {m['flocks_final']}, "
        f"leaders {f(m['leader_fraction_mean'], '.0%')}",
        f"  contacts: unit {m['unit_contacts']}, obstacle {m['obstacle_contacts']}, "
        f"wall {m['wall_contacts']}, player {f(m['player_contacts'], 'd')}"
        + (f" (first at tick {first})" if first is not None else ""),
    ]
    for g in m.get("orders", []):
        when = f"all at tick {g['arrival_tick']}" if g["arrival_tick"] is not None else "not all"
        lines.append(
            f"  order group {g['group']} (tick {g['tick']}): {g['arrived']}/{g['units']} on their "
            f"slots, {when}; route {g['route_length']:.0f} at {g['speed']:.1f}/s, "
            f"{g['reroutes']} re-routes"
        )
    return "\n".join(lines)


def cmd_run(args) -> int:
    from rigidflock.runs.runner import RunFailed, run_scene

    scene = load_scene(args.scene)
    for line in scene.warnings:
        print(f"warning: {line}", file=sys.stderr)
    if args.metrics:
        check_writable(args.metrics, "--metrics")
    if args.trace:
        check_writable(args.trace, "--trace")
    precision = _record_precision(args)
    if args.record:
        check_writable(args.record, "--record")
    bar = None
    progress = None
    if not args.quiet and sys.stdout.isatty():
        from tqdm import tqdm

        bar = tqdm(total=args.ticks, unit="tick", leave=False)
        progress = lambda k: bar.update(1)  # noqa: E731
    try:
        result = run_scene(
            scene,
            args.ticks,
            seed=args.seed,
            metrics_path=args.metrics,
            trace_path=args.trace,
            trace_every=args.trace_every,
            progress=progress,
            record_path=args.record,
            record_precision=precision,
        )
    except RunFailed as e:
        print(f"rigidflock: {args.scene}: run failed: {e}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        if bar is not None:
            bar.close()
    if not args.quiet:
        print(_summary(result))
    return EXIT_OK


def cmd_view(args) -> int:
    from rigidflock.sim import Simulation

    scene = load_scene(args.scene)
    for line in scene.warnings:
        print(f"warning: {line}", file=sys.stderr)
    if args.screenshot:
        check_writable(args.screenshot, "--screenshot")
    precision = _record_precision(args)
    if args.record:
        check_writable(args.record, "--record")
    sim = Simulation(scene, seed=args.seed)
    if args.screenshot:
        from rigidflock.replay import Recorder

        rec = Recorder(args.record, sim, precision=precision) if args.record else None
        try:
            for _ in range(args.ticks or 0):
                events = sim.step()
                if rec is not None:
                    rec.record(None, events)
        except BaseException:
            if rec is not None:
                rec.abandon()
            raise
        if rec is not None:
            rec.close()
        from rigidflock.render.offscreen import screenshot

        screenshot(sim, args.screenshot, args.size, args.show)
        print(f"{args.screenshot}: {args.size[0]}x{args.size[1]}, tick {sim.tick}")
        return EXIT_OK
    from rigidflock.render import backend

    if backend.HEADLESS:
        print(
            f"rigidflock: {args.scene}: no display to open a window on "
            "(DISPLAY is not set); use --screenshot FILE.png [--ticks N]",
            file=sys.stderr,
        )
        return EXIT_FAILED
    from rigidflock.render.window import Viewer

    viewer = Viewer(sim, args.size, overlays=args.show, pause_at=args.ticks)
    viewer.record_precision = precision
    if args.record:
        viewer.start_recording(args.record)
    try:
        viewer.run()
    finally:
        viewer.stop_recording()
    return EXIT_OK


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

        playback = Playback(reader)
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
                f"rigidflock: {args.file}: no display to open a window on (DISPLAY is not set); "
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
        bar = None
        progress = None
        if not args.quiet and sys.stderr.isatty():
            from tqdm import tqdm

            bar = tqdm(total=reader.last_tick + 1, unit="tick", leave=False)
            progress = lambda k, total: bar.update(k - bar.n)  # noqa: E731
        try:
            result = verify(reader, progress)
        finally:
            if bar is not None:
                bar.close()
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
    print(
        f"{args.file}: identical: {result.ticks_checked} ticks re-simulated "
        f"({reader.precision} precision)"
    )
    return EXIT_OK


def cmd_export(args) -> int:
    from rigidflock.runs.export import export_video, parse_target

    kind = parse_target(args.out, args.size)
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

        playback = Playback(reader)
        bar = None
        progress = None
        if not args.quiet and sys.stderr.isatty():
            from tqdm import tqdm

            bar = tqdm(unit="frame", leave=False)
            progress = lambda k, total: (setattr(bar, "total", total), bar.update(1))  # noqa: E731
        try:
            frames = export_video(
                playback, args.out, kind, fps=args.fps, start=start, stop=stop, size=args.size,
                overlays=args.show, progress=progress,
            )  # fmt: skip
        finally:
            if bar is not None:
                bar.close()
    if not args.quiet:
        w, h = args.size
        print(f"{args.out}: {frames} frames, {w}x{h}, {args.fps:g} fps, ticks {start}..{stop}")
    return EXIT_OK


def cmd_bench(args) -> int:
    from rigidflock import bench
    from rigidflock.outputs import write_json

    if args.json:
        check_writable(args.json, "--json")
    if args.plot:
        check_writable(args.plot, "--plot")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError(
                "rigidflock bench: --plot needs matplotlib (pip install 'rigidflock[plot]')"
            ) from None
    print(
        f"rigidflock bench: {args.ticks} ticks after {args.warmup} warm-up, each size in its own "
        "process",
        flush=True,
    )
    results = bench.run_bench(
        args.units,
        args.ticks,
        args.warmup,
        progress=lambda r: print(f"  {r['units']} units ({r['scenario']}) done", flush=True),
        orders=args.orders,
    )
    print(bench.format_table(results))
    if args.json:
        write_json(args.json, results)
    if args.plot:
        bench.plot(results, args.plot)
    return EXIT_FAILED if any("error" in r for r in results) else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    debug = "--debug" in argv
    try:
        args = parser.parse_args(argv)
        return args.func(args)
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


if __name__ == "__main__":
    sys.exit(main())
