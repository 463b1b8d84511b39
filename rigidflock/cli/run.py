"""The commands that take scene files: check, run, view, and bench."""

from __future__ import annotations

import sys

from rigidflock.cli.args import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    load,
    plural,
    record_precision,
    scene_path,
)
from rigidflock.cli.progress_bars import progress_bar
from rigidflock.outputs import check_writable
from rigidflock.scene import SceneError


def cmd_check(args) -> int:
    """Every step that can refuse a scene before ``run`` starts (the same as ``run``'s: reading,
    ``--set``, the memory estimate, the obstacle field placement with ``--seed``); or, with
    ``--keys``, the scene key reference."""
    if args.keys:
        from rigidflock.scene.reference_doc import markdown, text

        print(markdown() if args.markdown else text(), end="" if args.markdown else "\n")
        return EXIT_OK
    if args.markdown or not args.scenes:
        raise UsageError("rigidflock check: give scene files, or --keys [--markdown]")
    status = EXIT_OK
    for path in args.scenes:
        try:
            scene = load(args, path)
        except SceneError as e:
            for line in e.errors:
                print(line, file=sys.stderr)
            status = EXIT_BAD_INPUT
            continue
        units, groups = plural(scene.unit_count, "unit"), plural(len(scene.groups), "group")
        print(f"{path}: ok ({units}, {groups})")
    return status


def _summary(result, command_seconds: float | None = None, compile_seconds: float = 0.0) -> str:
    """The run's summary; the first line's time is the ticks alone (``ticks/s``), the whole
    command's (scene, setup, compiling, outputs) follows when given."""
    m = result.metrics
    name = result.scene.name or result.scene.source
    first = m["first_player_contact_tick"]

    def f(x, fmt=".3f"):
        return "-" if x is None else format(x, fmt)

    whole = ""
    if command_seconds is not None:
        whole = f"; the command {command_seconds:.1f} s"
        if compile_seconds:
            whole += f", {compile_seconds:.1f} s of it compiling kernels (first run only)"
    lines = [
        f"{name}: {plural(result.units, 'unit')}, seed {result.seed}: "
        f"{plural(result.ticks, 'tick')} in "
        f"{result.wall_seconds:.2f} s ({result.ticks_per_second:.0f} ticks/s){whole}",
        f"  polarization {f(m['polarization_final'])} (mean {f(m['polarization_mean'])}), "
        f"nn distance {f(m['nn_distance_mean'], '.2f')}, "
        f"min separation {f(m['min_separation'], '.2f')}, flocks {m['flocks_final']}, "
        f"leaders {f(m['leader_fraction_mean'], '.0%')}",
        f"  contacts: unit {m['unit_contacts']}, obstacle {m['obstacle_contacts']}, "
        f"wall {m['wall_contacts']}, player {f(m['player_contacts'], 'd')}"
        + (f" (first at tick {first})" if first is not None else ""),
        f"  pinned {m['pinned_seconds']:.1f} unit-s (longest {m['longest_pin_seconds']:.1f} s), "
        f"stuck {m['stuck_seconds']:.1f} unit-s",
    ]
    for g in m.get("orders", []):
        if g["arrival_tick"] is not None:
            when = f"all at tick {g['arrival_tick']}"
        elif g["route_length"] is None:
            when = "no route reaches the goal (walled off)"
        else:
            done = g.get("route_done")
            along = f", {done:.0%} of the route" if done is not None else ""
            when = f"still moving{along} (run longer: --ticks)"
        route = "none" if g["route_length"] is None else f"{g['route_length']:.0f}"
        lines.append(
            f"  order group {g['group']} (tick {g['tick']}): {g['arrived']}/{g['units']} on their "
            f"slots, {when}; route {route} at {g['speed']:.1f}/s, "
            f"{plural(g['reroutes'], 're-route')}"
        )
    return "\n".join(lines)


def compile_kernels(scene, quiet: bool) -> float:
    """On a machine's first run, say that the kernels are being compiled and compile them now
    (before any progress bar or clock starts); returns the seconds it took (0: cached)."""
    from rigidflock.runs.warmup import kernels_cold, warm_up

    if not kernels_cold(scene):
        return 0.0
    if quiet:
        return warm_up(scene)
    print(
        "rigidflock: compiling the kernels this scene needs (once, then cached; about a minute "
        "for a small world, more for a large one) ...",
        file=sys.stderr,
        flush=True,
    )
    live = sys.stderr.isatty()
    compiled = [0]

    def report(e) -> None:
        compiled[0] = e.compiled
        if live:  # one line, rewritten in place: what compiles now and how far it is
            what = "compiled" if e.done else "compiling"
            line = f"  {e.compiled} kernels compiled, {e.seconds:.0f} s; {what} {e.kernel}"
            print(f"\r\x1b[K{line[:100]}", end="", file=sys.stderr, flush=True)

    seconds = warm_up(scene, report=report)
    end = "\r\x1b[K" if live else ""
    print(f"{end}rigidflock: {compiled[0]} kernels compiled in {seconds:.1f} s", file=sys.stderr,
          flush=True)  # fmt: skip
    return seconds


def cmd_run(args) -> int:
    import time

    from rigidflock.runs.runner import RunFailed, run_scene

    started = time.perf_counter()
    # an option that only shapes another one's output, given without it, would do nothing
    for option, given, needs, output in (
        ("--trace-every", args.trace_every, "--trace", args.trace),
        ("--every", args.every, "--series", args.series),
    ):
        if given is not None and not output:
            raise UsageError(f"rigidflock run: {option} goes with {needs}")
    scene = load(args)
    if args.metrics:
        check_writable(args.metrics, "--metrics")
    if args.trace:
        check_writable(args.trace, "--trace")
    if args.series:
        from rigidflock.runs.series import series_format

        series_format(args.series)
        check_writable(args.series, "--series")
    precision = record_precision(args)
    if args.record:
        check_writable(args.record, "--record")
    compiling = compile_kernels(scene, args.quiet)
    ticks = scene.run.ticks if args.ticks is None else args.ticks
    try:
        with progress_bar(ticks, "tick", not args.quiet and sys.stdout.isatty()) as bar:
            result = run_scene(
                scene,
                ticks,
                seed=args.seed,
                metrics_path=args.metrics,
                trace_path=args.trace,
                trace_every=args.trace_every or 1,
                progress=bar,
                record_path=args.record,
                record_precision=precision,
                series_path=args.series,
                series_every=(args.every or 10) if args.series else None,
            )
    except RunFailed as e:
        print(f"rigidflock: {args.scene}: run failed: {e}", file=sys.stderr)
        return EXIT_FAILED
    if not args.quiet:
        print(_summary(result, time.perf_counter() - started, compiling))
    return EXIT_OK


def cmd_view(args) -> int:
    from rigidflock.sim import Simulation

    if args.screenshot:
        from rigidflock.render.png import image_format  # Pillow only, no pyglet

        image_format(args.screenshot)  # a clear error before any work
    scene = load(args)
    if args.screenshot:
        check_writable(args.screenshot, "--screenshot")
    precision = record_precision(args)
    if args.record:
        check_writable(args.record, "--record")
    if args.save_tuned:
        check_writable(args.save_tuned, "--save-tuned")
    compile_kernels(scene, quiet=False)
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
        if args.save_tuned:
            from rigidflock.sim import save_scene

            print(f"{save_scene(sim.tuned_scene(), args.save_tuned)}: the scene as run")
        return EXIT_OK
    from rigidflock.render import backend

    if backend.HEADLESS:
        print(
            f"rigidflock: {args.scene}: the window needs a display "
            f"({backend.no_display_reason() or 'headless mode'}); use --screenshot FILE.png "
            "[--ticks N]",
            file=sys.stderr,
        )
        return EXIT_FAILED
    from rigidflock.render.window import Viewer

    viewer = Viewer(sim, args.size, overlays=args.show, pause_at=args.ticks,
                    tuning=not args.no_tuning, tuned_path=args.save_tuned)  # fmt: skip
    viewer.record_precision = precision
    if args.watch:
        viewer.watch(scene_path(args.scene, "view"), args.set, args.seed)
    if args.record:
        viewer.start_recording(args.record)
    try:
        viewer.run()
    finally:
        viewer.stop_recording()
        if args.save_tuned:
            viewer.save_tuned()
    return EXIT_OK


BESIDE = ", the steering decided beside the physics step"  # bench's first line, --reaction-ticks 1


def _sets_key(assignments, key: tuple) -> bool:
    """Whether one of the ``--set`` ``assignments`` sets ``key`` (a parsed key path); a bad
    one sets nothing here (applying it reports it, naming the scene)."""
    from rigidflock.scene.overrides import parse_assignment, parse_path

    for text in assignments:
        try:
            if parse_path(parse_assignment(text)[0]) == key:
                return True
        except ValueError:
            continue
    return False


def _scenario_names(given: list[str]) -> tuple[str, ...]:
    """The scenarios named (each argument a name or a comma-separated list; none: all)."""
    from rigidflock.runs import scenarios

    names = tuple(n for arg in given for n in arg.split(",")) or scenarios.NAMES
    unknown = [n for n in names if n not in scenarios.NAMES]
    if unknown:
        raise UsageError(
            f"rigidflock score: unknown scenario {unknown[0]!r} "
            f"(one of {', '.join(scenarios.NAMES)})"
        )
    return names


def cmd_score(args) -> int:
    """``rigidflock score``: the scored scenario suite, its table, and its rows as JSON."""
    from rigidflock.bundled import scenario_path
    from rigidflock.outputs import write_json
    from rigidflock.runs import scenarios

    if args.json:
        check_writable(args.json, "--json")
    sets = tuple(args.set or ())
    if args.reaction_ticks is not None and _sets_key(sets, ("world", "reaction_ticks")):
        raise UsageError(
            "rigidflock score: --reaction-ticks and --set world.reaction_ticks=... say the same "
            "thing: give one"
        )
    names = _scenario_names(args.scenarios)
    # every --set checked against every scene before any run: a bad one is one line, exit 2
    checked = [
        scenarios.scenario_scene(scenario_path(name), args.reaction_ticks, args.set)
        for name in names
    ]
    seeds = args.seeds or (None,)
    jobs = [(name, s) for s in seeds for name in names]
    workers = min(args.workers or 1, len(jobs))
    at_once = f", {workers} runs at a time" if workers > 1 else ""
    what = "scenario" if len(names) == 1 else "scenarios"
    beside = BESIDE if any(s.world.reaction_ticks for s in checked) else ""
    changed = "".join(f", --set {a}" for a in args.set)
    print(f"rigidflock score: {len(names)} {what}{at_once}{beside}{changed}", flush=True)
    results = scenarios.run_many(
        jobs,
        progress=lambda r: print(f"  {r['scenario']} (seed {r['seed']}) done", flush=True),
        workers=workers,
        reaction_ticks=args.reaction_ticks,
        overrides=tuple(args.set),
    )
    print(scenarios.format_table(results, seeds=args.seeds is not None))
    if args.json:
        write_json(args.json, results)
    return EXIT_OK


def _bench_frames(args, sets) -> int:
    """``rigidflock bench --frames``: the RTS world's tick-by-tick times."""
    from rigidflock import bench_frames
    from rigidflock.outputs import write_json

    for flag, given in (("--plot", args.plot), ("--set", sets), ("--reaction-ticks",
                        args.reaction_ticks)):  # fmt: skip
        if given:
            raise UsageError(f"rigidflock bench: {flag} does not go with --frames")
    ticks = args.frame_ticks or bench_frames.DEFAULT_FRAME_TICKS
    print(
        f"rigidflock bench --frames: each tick timed from the order until every unit is on its "
        f"slot (at most {plural(ticks, 'tick')}), each size in its own process",
        flush=True,
    )
    results = bench_frames.run_frames(
        args.frames,
        ticks,
        progress=lambda r: print(f"  {r['units']} units (frames) done", flush=True),
    )
    print(bench_frames.format_frames(results))
    if args.json:
        write_json(args.json, results)
    return EXIT_FAILED if any("error" in r for r in results) else EXIT_OK


def cmd_bench(args) -> int:
    from rigidflock import bench
    from rigidflock.outputs import write_json

    if args.json:
        check_writable(args.json, "--json")
    sets = tuple(getattr(args, "set", None) or ())
    if args.reaction_ticks is not None and _sets_key(sets, ("world", "reaction_ticks")):
        raise UsageError(
            "rigidflock bench: --reaction-ticks and --set world.reaction_ticks=... say the same "
            "thing: give one"
        )
    if getattr(args, "scenarios", None):
        print(
            "rigidflock: 'bench --scenarios' is now 'rigidflock score' (this spelling goes in "
            "the next release)",
            file=sys.stderr,
        )
        args.scenarios = [] if args.scenarios == "all" else [args.scenarios]
        return cmd_score(args)
    if getattr(args, "seeds", None) is not None:
        raise UsageError(
            "rigidflock bench: --seeds goes with rigidflock score (the timing is seeded)"
        )
    if getattr(args, "workers", None) is not None:
        raise UsageError(
            "rigidflock bench: --workers goes with rigidflock score (the timing runs each size "
            "in its own process, one at a time)"
        )
    if args.frame_ticks is not None and args.frames is None:
        raise UsageError("rigidflock bench: --frame-ticks goes with --frames")
    if args.frames is not None:
        return _bench_frames(args, sets)
    if args.plot:
        check_writable(args.plot, "--plot")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError(
                "rigidflock bench: --plot needs matplotlib "
                '(pip install ".[plot]" in the rigidflock checkout)'
            ) from None
    # checked on the smallest world before any run: a bad --set is one line, exit 2
    checked = bench.bench_scene(min(args.units), reaction_ticks=args.reaction_ticks, overrides=sets)
    if args.behaviour:  # the behaviour imports (or one line, exit 2), before any timing
        from rigidflock.model.behaviours import resolve

        with_it = (*sets, bench.behaviour_override(args.behaviour))
        resolve(bench.bench_scene(min(args.units), overrides=with_it))
    beside = BESIDE if checked.world.reaction_ticks else ""
    changed = "".join(f", --set {a}" for a in sets)
    if args.behaviour:
        changed += f", each size again with the behaviour {args.behaviour}"
    print(
        f"rigidflock bench: {plural(args.ticks, 'tick')} after {args.warmup} warm-up, each size "
        f"in its own process{beside}{changed}",
        flush=True,
    )
    results = bench.run_bench(
        args.units,
        args.ticks,
        args.warmup,
        progress=lambda r: print(f"  {r['units']} units ({r['scenario']}) done", flush=True),
        orders=args.orders,
        reaction_ticks=args.reaction_ticks,
        overrides=sets,
        behaviour=args.behaviour,
    )
    print(bench.format_table(results))
    if args.json:
        write_json(args.json, results)
    if args.plot:
        bench.plot(results, args.plot)
    return EXIT_FAILED if any("error" in r for r in results) else EXIT_OK
