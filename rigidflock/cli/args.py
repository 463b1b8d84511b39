"""Argument types and shared options of the command line: each bad value is one usage line."""

from __future__ import annotations

import argparse
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_DAMAGED = 3  # verify: the readable part matches, but the file is damaged or cut short


class UsageError(Exception):
    pass


def plural(n: int, word: str) -> str:
    """``n`` and ``word``, with an "s" unless ``n`` is 1: "1 group", "2 groups"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, no usage dump
        raise UsageError(f"{self.prog}: {message}")


def whole_number(minimum: int):
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


positive_int = whole_number(1)
seed = count = whole_number(0)


def max_workers() -> int:
    """The most worker processes a command starts here: one per core, and two on a one-core
    machine (where commands and tests written for two still run)."""
    from rigidflock.runs.executors import cores

    return max(2, cores())


def worker_count(text: str) -> int:
    """An argparse type: a number of worker processes on this machine, 1 to
    :func:`max_workers`. Each worker is a simulation on a core of its own (~200 MB with numba
    and pymunk loaded); more than the cores only slows every run, and hundreds would exhaust
    the memory."""
    value = positive_int(text)
    if value > max_workers():
        raise argparse.ArgumentTypeError(
            f"at most {max_workers()} on this machine (a run per core), got {value}"
        )
    return value


def size(text: str) -> tuple[int, int]:
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


def overlays(text: str):
    from rigidflock.render.frame import Overlays  # no pyglet: frame.py is numpy only

    try:
        return Overlays.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def unit_list(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated unit counts, e.g. 1000,10000, got {text!r}"
        ) from None
    if not sizes or min(sizes) < 2:
        raise argparse.ArgumentTypeError(f"unit counts must be at least 2, got {text!r}")
    return sizes


def seed_list(text: str) -> tuple[int, ...]:
    parse = whole_number(0)
    try:
        seeds = tuple(parse(part) for part in text.split(","))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated seeds (whole numbers 0 or more), e.g. 1,2,3, got {text!r}"
        ) from None
    return seeds


def fps(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.1 <= value <= 240:
        raise argparse.ArgumentTypeError(f"must be between 0.1 and 240, got {text}")
    return value


def scene_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "scene",
        help="scene file (TOML), or a bundled scene's or scenario's name (rigidflock scenes "
        "lists them)",
    )
    scene_options(p)


def scene_options(p: argparse.ArgumentParser) -> None:
    """--set and --memory-budget: what changes a scene, or what it may take."""
    set_arg(
        p,
        "change a scene key, e.g. --set rules.weights.cohesion=2 --set groups[0].count=200 "
        "(validated like the file; recordings store the changed scene)",
    )
    budget_arg(p)


def set_arg(p: argparse.ArgumentParser, help: str) -> None:
    """``--set PATH=VALUE``, as often as wanted (scene.overrides reads them)."""
    p.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", help=help)


def missing_hint(arg: str, kind: str) -> str:
    """What to add, in brackets, to "no such ... file" for ``arg``, which names no file and no
    bundled file of ``kind`` (``"scene"``: a scene or scenario; ``"sweep"``): the command that
    takes ``arg`` when it is a bundled file of the other kind, the closest bundled name, or for a
    name (not a path elsewhere) where the names are listed; "" for nothing."""
    from rigidflock.bundled import SCENE_KINDS, closest_name, find_bundled

    if kind == "scene":
        kinds, other, other_name, command = SCENE_KINDS, "sweep", "sweep", "sweep"
    else:
        kinds, other, other_name, command = "sweep", SCENE_KINDS, "scene", "run"
    if find_bundled(arg, other) is not None:
        stem = Path(arg).stem
        return f" ({stem} is a bundled {other_name}: rigidflock {command} {stem})"
    near = closest_name(arg, kinds)
    if near is not None:
        return f" (did you mean {near}?)"
    parts = Path(arg).parts
    return " (rigidflock scenes lists them)" if len(parts) == 1 or parts[0] == "scenes" else ""


def scene_path(arg: str, command: str = "run"):
    """The file of a scene argument: a path, else a bundled scene's or scenario's name
    (SceneError: neither, with a did-you-mean)."""
    from rigidflock.bundled import is_missing, resolve_scene
    from rigidflock.scene import SceneError

    if is_missing(arg):
        raise SceneError(
            [
                f"rigidflock {command}: no such scene file or bundled scene: {arg}"
                + missing_hint(arg, "scene")
            ]
        )
    return resolve_scene(arg)


def memory_budget(text: str) -> int:
    """An argparse type: a size such as 8G or 512M (rigidflock.scene.budget.parse_size)."""
    from rigidflock.scene.budget import parse_size

    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def budget_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--memory-budget", type=memory_budget, default=None, metavar="SIZE",
        help="refuse scenes estimated to need more memory than SIZE (e.g. 8G; default 4G or "
        "$RIGIDFLOCK_MEMORY_BUDGET; never more than the machine has)",
    )  # fmt: skip


def load(args, path=None):
    """The scene of ``args.scene`` (or ``path``; a file or a bundled scene's name) with
    ``args.set`` applied, after every check that can refuse it before the run
    (rigidflock.scene.budget.check_runs: stability, memory, obstacle field); warnings go to
    stderr. The one place the command line reads a scene."""
    import sys

    from rigidflock.model.behaviours import resolve
    from rigidflock.scene import load_scene
    from rigidflock.scene.budget import check_runs
    from rigidflock.scene.overrides import apply_overrides

    arg = args.scene if path is None else path
    scene = apply_overrides(load_scene(scene_path(arg, args.command)), args.set)
    resolve(scene)  # the behaviours' functions import (a scene the user runs: SceneError if not)
    record = bool(getattr(args, "record", None))
    check_runs(scene, getattr(args, "seed", None), record, getattr(args, "memory_budget", None))
    for line in scene.warnings:
        print(f"warning: {line}", file=sys.stderr)
    return scene


def record_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--record", metavar="FILE", help="record a replay of the run into FILE")
    p.add_argument(
        "--exact",
        action="store_true",
        help="with --record: store float64 states bit for bit (about 15x larger) instead of "
        "fixed point",
    )


def record_precision(args) -> str:
    if args.exact and not args.record:
        raise UsageError(f"rigidflock {args.command}: --exact needs --record FILE")
    return "exact" if args.exact else "compact"
