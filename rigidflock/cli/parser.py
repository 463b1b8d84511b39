"""The argument parser: one function per subcommand."""

from __future__ import annotations

import argparse

from rigidflock.cli import experiments, replay, run, scenes
from rigidflock.cli.args import (
    Parser,
    count,
    fps,
    overlays,
    positive_int,
    record_args,
    scene_args,
    scene_options,
    seed,
    seed_list,
    set_arg,
    size,
    unit_list,
    worker_count,
)


def _add_run(sub) -> None:
    r = sub.add_parser("run", help="run a scene headless and print a summary")
    scene_args(r)
    r.add_argument(
        "--ticks",
        type=positive_int,
        default=None,
        help="ticks to run (default: the scene's [run] ticks, 1800 unless it says)",
    )
    r.add_argument("--seed", type=seed, default=None, help="override the scene's seed")
    r.add_argument("--metrics", metavar="FILE.json", help="write the run's metrics as JSON")
    r.add_argument("--trace", metavar="FILE.csv", help="write per-unit states as CSV")
    r.add_argument(
        "--trace-every", type=positive_int, default=None, metavar="K",
        help="with --trace: trace every K-th tick (default 1)",
    )  # fmt: skip
    r.add_argument(
        "--series",
        metavar="FILE.csv",
        help="write metrics over time, one row per sampled tick (CSV, or .parquet with pyarrow)",
    )
    r.add_argument(
        "--every",
        type=positive_int,
        default=None,
        metavar="K",
        help="with --series: sample it every K ticks (default 10)",
    )
    r.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    record_args(r)
    r.set_defaults(func=run.cmd_run)


def _add_view(sub) -> None:
    v = sub.add_parser("view", help="watch a scene in a window, or save a screenshot of it")
    scene_args(v)
    v.add_argument("--seed", type=seed, default=None, help="override the scene's seed")
    v.add_argument(
        "--ticks",
        type=count,
        default=None,
        metavar="N",
        help="with --screenshot: ticks to run before the picture (default 0); "
        "in the window: pause at tick N",
    )
    v.add_argument(
        "--screenshot",
        metavar="FILE.png",
        help="draw the frame after --ticks N without a visible window, save it (PNG or JPEG, "
        "by the extension), exit",
    )
    v.add_argument(
        "--size", type=size, default=(1280, 800), metavar="WxH", help="window/picture size"
    )
    v.add_argument(
        "--show",
        type=overlays,
        default=None,
        metavar="LIST",
        help="overlays to start with: vectors,arcs,feelers,links,targets (or all)",
    )
    v.add_argument(
        "--save-tuned",
        metavar="FILE.toml",
        help="write the scene as tuned (the panel's sliders, keys, --watch edits) to FILE when "
        "the window closes and when W is pressed; with --screenshot, after the ticks",
    )
    v.add_argument(
        "--watch",
        action="store_true",
        help="reload the scene file when it is saved: changed settings apply live, other "
        "changes restart it at tick 0 with the same camera; errors show in the window",
    )
    v.add_argument(
        "--no-tuning", action="store_true", help="start with the tuning panel hidden (P shows it)"
    )
    record_args(v)
    v.set_defaults(func=run.cmd_view)


def allow_behaviours(p) -> None:
    p.add_argument(
        "--allow-behaviours",
        action="store_true",
        help="import the recording's behaviours to re-simulate it (their modules run code); "
        "registered entry points and rigidflock's examples need no leave",
    )


def _add_replay(sub) -> None:
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
        "--size", type=size, default=(1280, 800), metavar="WxH", help="window/picture size"
    )
    rp.add_argument(
        "--show", type=overlays, default=None, metavar="LIST", help="overlays to start with"
    )
    allow_behaviours(rp)
    rp.set_defaults(func=replay.cmd_replay)


def _add_verify(sub) -> None:
    vf = sub.add_parser(
        "verify",
        help="re-simulate a replay and compare every stored tick",
        description="Re-simulate a replay and compare every stored tick. Exit status: 0 "
        "identical, 1 a difference, 2 not a readable replay, 3 damaged or cut short (the "
        "readable part is identical).",
    )
    vf.add_argument("file", help="replay file")
    vf.add_argument("--quiet", action="store_true", help="no progress bar")
    allow_behaviours(vf)
    vf.set_defaults(func=replay.cmd_verify)


def _add_export(sub) -> None:
    ex = sub.add_parser("export", help="render a replay into a video (MP4 or GIF)")
    ex.add_argument("file", help="replay file")
    ex.add_argument("out", metavar="OUT.mp4|OUT.gif", help="video file to write")
    ex.add_argument(
        "--fps",
        type=fps,
        default=None,
        metavar="F",
        help="frames per second (default 30 for MP4, 25 for GIF; a GIF takes the nearest rate "
        "whole-centisecond delays give exactly, 100/k: 50, 33.3, 25, 20 ...)",
    )
    ex.add_argument(
        "--panel",
        choices=("side", "none"),
        default="side",
        help="the side panel scaled with the frame (default), or none: the world alone",
    )
    ex.add_argument(
        "--from", dest="start", type=count, default=None, metavar="T", help="first tick"
    )
    ex.add_argument("--to", dest="stop", type=count, default=None, metavar="T", help="last tick")
    ex.add_argument(
        "--size",
        type=size,
        default=(1280, 800),
        metavar="WxH",
        help="video size (default 1280x800)",
    )
    ex.add_argument("--show", type=overlays, default=None, metavar="LIST", help="overlays to draw")
    ex.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    allow_behaviours(ex)
    ex.set_defaults(func=replay.cmd_export)


def _add_bench(sub) -> None:
    b = sub.add_parser("bench", help="time the tick against bare pymunk at several unit counts")
    b.add_argument(
        "--units",
        type=unit_list,
        default=(1000, 10000, 100000),
        metavar="N,N,...",
        help="unit counts (default 1000,10000,100000)",
    )
    b.add_argument("--ticks", type=positive_int, default=200, help="timed ticks per size")
    b.add_argument("--warmup", type=count, default=30, help="untimed ticks first")
    b.add_argument(
        "--orders",
        type=count,
        default=1000,
        metavar="N",
        help="also time N units under move orders, with route search times (0: skip)",
    )
    b.add_argument(
        "--reaction-ticks",
        type=int,
        choices=(0, 1),
        default=None,
        help="the timed worlds' world.reaction_ticks (1: the steering decided beside the "
        "physics step, on the snapshot one tick old; default 0)",
    )
    b.add_argument(
        "--behaviour",
        metavar="FUNCTION",
        help='time each size again with this behaviour ("module:name") steering every unit, '
        "and print its cost against the tick without it",
    )
    b.add_argument(
        "--frames",
        type=unit_list,
        default=None,
        metavar="N,N,...",
        help="instead, the RTS frame times at these unit counts: each tick timed from a move "
        "order until every unit is on its slot, with a building dropped across the route "
        "(median, p99 and slowest tick, and the tick under orders over the tick without)",
    )
    b.add_argument(
        "--frame-ticks",
        type=positive_int,
        default=None,
        metavar="N",
        help="with --frames: at most N ticks from the order (default 12000)",
    )
    b.add_argument("--json", metavar="FILE.json", help="write the results as JSON")
    b.add_argument("--plot", metavar="FILE.png", help="plot ticks/s against units (matplotlib)")
    set_arg(
        b,
        "change a key of the timed flock worlds, e.g. --set world.neighbour_ticks=0",
    )
    # The scored suite's old spelling, kept for one release (rigidflock score is the command).
    b.add_argument("--scenarios", nargs="?", const="all", help=argparse.SUPPRESS)
    b.add_argument("--seeds", type=seed_list, default=None, help=argparse.SUPPRESS)
    b.add_argument("--workers", type=worker_count, default=None, help=argparse.SUPPRESS)
    b.set_defaults(func=run.cmd_bench)


def _add_score(sub) -> None:
    sc = sub.add_parser(
        "score",
        help="run the scored scenario suite (SteerSuite-style crowds) and print its table",
        description="Run the scored scenario suite: each scenario until every ordered unit "
        "stands on its slot or its time limit passes, scored on arrival, time, contacts and "
        "pinned time.",
    )
    sc.add_argument(
        "scenarios",
        nargs="*",
        metavar="NAME",
        help="scenarios to run (names, or comma-separated lists; default: all of them)",
    )
    sc.add_argument(
        "--seeds",
        type=seed_list,
        default=None,
        metavar="N,N,...",
        help="run each scenario on each of these seeds (default: its own)",
    )
    sc.add_argument(
        "--workers", type=worker_count, default=None, metavar="N",
        help="N runs at a time, each in its own process with one numba thread, at most the "
        "core count or 2 (default 1: one after another in this process)",
    )  # fmt: skip
    sc.add_argument(
        "--reaction-ticks",
        type=int,
        choices=(0, 1),
        default=None,
        help="the scenarios' world.reaction_ticks (1: the steering decided beside the physics "
        "step, on the snapshot one tick old; default: the scenes' own, 0)",
    )
    sc.add_argument("--json", metavar="FILE.json", help="write the rows as JSON")
    set_arg(sc, "change a key of every scenario scene, e.g. --set physics.corners=0.25")
    sc.set_defaults(func=run.cmd_score)


def _add_check(sub) -> None:
    c = sub.add_parser("check", help="validate scene files and report every error")
    c.add_argument("scenes", nargs="*", help="scene files, or bundled scenes' or scenarios' names")
    scene_options(c)
    c.add_argument(
        "--seed", type=seed, default=None, help="place the obstacle field as run --seed would"
    )
    c.add_argument("--record", action="store_true", help="count the replay buffers of --record")
    c.add_argument(
        "--keys", action="store_true", help="print every scene key: type, default, limits, meaning"
    )
    c.add_argument(
        "--markdown", action="store_true", help="with --keys: as docs/reference/scene-keys.md"
    )
    c.set_defaults(func=run.cmd_check)


def _add_sweep(sub) -> None:
    s = sub.add_parser("sweep", help="run a scene over parameters x seeds, one row per run")
    s.add_argument("sweep", help="sweep file (TOML), or a bundled sweep's name (forest_cohesion)")
    s.add_argument(
        "-o", "--out", metavar="FILE.csv", help="row file (default: the sweep's name, .csv, here)"
    )
    set_arg(s, "change a key of the base scene for every run, e.g. --set rules.chase=false")
    s.add_argument(
        "--workers", type=worker_count, default=None, metavar="N",
        help="local worker processes, at most the core count or 2 (default: the core count; 1: in "
        "this process)",
    )  # fmt: skip
    s.add_argument(
        "--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask scheduler (dask extra)"
    )
    s.add_argument(
        "--dask-local", type=worker_count, default=None, metavar="N",
        help="start a Dask LocalCluster of N worker processes and run on it",
    )  # fmt: skip
    s.add_argument(
        "--resume", action="store_true", help="keep the rows already in the file; run the rest"
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    s.set_defaults(func=experiments.cmd_sweep)


def _add_plot(sub) -> None:
    p = sub.add_parser("plot", help="plot a series (run --series) or a sweep's rows")
    p.add_argument("input", help="series file (CSV/Parquet) or sweep row file (CSV)")
    p.add_argument("-o", "--out", required=True, metavar="FILE.png", help="picture to write")
    p.add_argument("--metric", help="sweep: the metric to plot (default: the first)")
    p.add_argument("--x", help="sweep: the parameter on the x axis (default: the first)")
    p.add_argument(
        "--hue", help="sweep: one line per value of this parameter (default: the second)"
    )
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(func=experiments.cmd_plot)


def _global_flags(p: argparse.ArgumentParser, default) -> None:
    """The flags every command takes, before or after the subcommand (``rigidflock --debug run``
    and ``rigidflock run --debug`` alike); a subparser's default never overwrites the main one."""
    p.add_argument(
        "--debug", action="store_true", default=default, help="show tracebacks on errors"
    )


class _SubParser(Parser):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _global_flags(self, argparse.SUPPRESS)


def _add_scenes(sub) -> None:
    s = sub.add_parser(
        "scenes", help="list the bundled scenes, scenarios and sweeps, or copy one out to edit"
    )
    s.set_defaults(func=scenes.cmd_list)
    ss = s.add_subparsers(dest="scenes_command", metavar="[list | copy]", parser_class=type(s))
    ls = ss.add_parser(
        "list", help="list the bundled scenes, scenarios and sweeps, each with a line about it "
        "(the default)",
    )  # fmt: skip
    ls.set_defaults(func=scenes.cmd_list)
    cp = ss.add_parser(
        "copy",
        help="copy a bundled scene, scenario or sweep into a folder (never overwrites; a sweep "
        "comes with its base scene)",
    )
    cp.add_argument("name", help="bundled scene, scenario or sweep, e.g. aidemo4")
    cp.add_argument(
        "dest", nargs="?", default=".", help="folder (default: here) or a new FILE.toml"
    )
    cp.set_defaults(func=scenes.cmd_copy)


def build_parser() -> argparse.ArgumentParser:
    from rigidflock import __version__

    p = Parser(
        prog="rigidflock",
        description="Rigid-body, physics-based flocking simulator. "
        "Start with: rigidflock scenes; rigidflock run aidemo4; rigidflock view aidemo4",
    )
    _global_flags(p, False)
    p.add_argument("--version", action="version", version=f"rigidflock {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_SubParser)
    _add_run(sub)
    _add_view(sub)
    _add_replay(sub)
    _add_verify(sub)
    _add_export(sub)
    _add_bench(sub)
    _add_score(sub)
    _add_check(sub)
    _add_sweep(sub)
    _add_plot(sub)
    _add_scenes(sub)
    return p
