"""Fuzz the command line with bad scenes and damaged replays; report what it did with them.

    python tools/fuzz_scenes.py [--cases 850] [--jobs 2] [--timeout 60] [--replays]
                                [--only-replays] [--no-targeted] [--match TEXT] [--fresh]
                                [--memory-cap 8] [--json FILE]

The run of docs/validation/fuzzing.md: ``--cases 1200 --jobs 1 --replays --json
docs/results/fuzz.json`` (about 14 minutes on two loaded cores, one job).

Scenes, two parts, each case through ``rigidflock check`` and then ``rigidflock run --ticks 20
--metrics FILE``:

- targeted (always in full): every numeric key of the scene key reference, on one bundled scene
  of each kind (:data:`TARGETS`: a wrap-around world with a player and an obstacle field, one
  with walls and obstacles, an RTS scene with move orders between walls, one with buildings
  and an event, a scored scenario), set to the smallest positive floats (5e-324, subnormal, and
  2.2250738585072014e-308, the smallest normal), the largest float, -5e-324, and for integer
  keys 2^63 - 1, 2^63, 2^64 + 1 and -2^63 - 1 (each component of a point or rectangle on its
  own; keys a scene does not write are added); then values that make a derived size overflow
  or blow up (:data:`DERIVED`: navigation grids of 10^600 cells and past int64, neighbour and
  obstacle rasters of unit lengths near zero, tables at their longest, a many-cornered
  building, a 10^6 world);
- corpus (``--cases`` of them): structured mutations of every bundled scene, the scored
  scenarios included (each number replaced by 0, -1, 1e308, nan, inf, 10**12, 2**63, 10**400,
  5e-324 or 2.2250738585072014e-308; wrong types; dropped keys; huge arrays; deep nesting;
  long keys; raw byte damage of the text).

A case is handled cleanly when each command answers in time with exit 0, or 2 with one-line
errors (``run`` may also exit 1: a run that failed, said in one line), without a traceback or
"internal error", a MemoryError, a numpy warning on the terminal or a line over 300
characters, when ``check`` and ``run`` agree (``check`` 0 and ``run`` not 0 is a scene
``check`` should have refused; ``check`` 2 and ``run`` 0 one it should have accepted), and when
a refused ``run`` leaves no metrics file.

The commands run in worker processes that import rigidflock once and call its ``main`` with
stdout and stderr redirected (a fresh ``python -m rigidflock`` costs seconds of imports and
kernel loading a command): each worker first runs a few small scenes to load the compiled
kernels, runs under an address-space limit (``--memory-cap``, 8 GiB: an allocation the estimate
did not foresee is a MemoryError, not the machine's memory), and is replaced after any case
that timed out, died or ran out of memory. A command past ``--timeout`` is tried once more in a
fresh worker and counts as a hang only when it times out again (the first run of a kernel not
yet compiled can take that long on a loaded machine). ``--fresh``: each command in its own
``python -m rigidflock`` instead.

``--replays``: a recording of ``scenes/aidemo4.toml`` cut at 100 offsets and with one byte flipped
at 200 offsets spread over the file, each through ``verify`` and ``replay --info``: every answer
must come in time with exit 0 (intact), 3 (damaged or cut short) or 2 (unreadable), never a
traceback, and ``verify`` never 0 on a damaged file.

``--json FILE``: the counts (scenes by part and by kind of scene; replays when run), the command
line, the commit (``git rev-parse --short HEAD``, and whether the work tree had changes), the
date and the seconds taken. Exit status 0 when every count that must be 0 is 0.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import contextlib
import datetime
import json
import math
import os
import random
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rigidflock.scene.overrides import to_toml  # noqa: E402

TINY = 5e-324  # the smallest positive float (subnormal)
TINY_NORMAL = 2.2250738585072014e-308  # the smallest positive normal float
HUGE = 1.7976931348623157e308  # the largest float
FLOAT_EXTREMES = [TINY, TINY_NORMAL, HUGE, -TINY]
INT_EXTREMES = [2**63 - 1, 2**63, 2**64 + 1, -(2**63) - 1]
NUMBERS = [0, -1, 1e308, math.nan, math.inf, 10**12, 2**63, 10**400, TINY, TINY_NORMAL]
WRONG_TYPES = ["text", True, [1, 2, 3], {"a": 1}, [], -(2**63)]

# one bundled scene of each kind: (kind, scene)
TARGETS = [
    ("wrap", "aidemo4"),
    ("walls", "walls"),
    ("RTS, orders", "rts_doorway"),
    ("RTS, buildings", "rts_maze"),
    ("scenario", "scenarios/doorway_two_way"),
]
RUN_TICKS = "20"
PROBLEMS = (
    "internal_error", "memory_error", "hang", "check_accepts_run_refuses",
    "check_refuses_run_accepts", "numpy_warning", "long_echo", "output_left",
)  # fmt: skip
MUST_BE_ZERO = PROBLEMS
LONG_LINE = 300


# -- scenes -------------------------------------------------------------------------------------


def scene_files() -> dict[str, Path]:
    """name -> file of every bundled scene: ``aidemo4``, ``scenarios/doorway_two_way``, ..."""
    scenes = ROOT / "scenes"
    files = sorted(scenes.glob("*.toml")) + sorted((scenes / "scenarios").glob("*.toml"))
    return {str(p.relative_to(scenes).with_suffix("")): p for p in files}


def kind_of(data: dict) -> str:
    """The kind of a bundled scene, as in :data:`TARGETS`."""
    if data.get("navigation") is not None and data.get("physics") is not None:
        return "scenario"
    if data.get("buildings"):
        return "RTS, buildings"
    if data.get("orders"):
        return "RTS, orders"
    if data.get("world", {}).get("bounds") == "walls":
        return "walls"
    return "wrap"


def leaves(node, path=()):
    """Every (path, value) of a TOML document, tables and arrays included."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield (*path, k), v
            yield from leaves(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield (*path, i), v
            yield from leaves(v, (*path, i))


def put(data, path, value):
    """Set ``value`` at ``path``, making the tables on the way that are missing."""
    node = data
    for p in path[:-1]:
        if isinstance(p, str) and isinstance(node, dict) and p not in node:
            node[p] = {}
        node = node[p]
    node[path[-1]] = value


def drop(data, path):
    node = data
    for p in path[:-1]:
        node = node[p]
    del node[path[-1]]


def copy(data):
    return tomllib.loads(to_toml(data))


def _label(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


def _value_text(value) -> str:
    return f"{value!r}"[:24]


def numeric_sites(data: dict) -> list[tuple[tuple, str]]:
    """``(path, kind)`` of every numeric key of the key reference that ``data`` (a scene) can
    hold: keys of tables it has (the first of an array of tables holding the key, else the
    first), including keys it does not write; each component of a point, rectangle or point
    list on its own. ``kind``: ``"float"`` or ``"int"``."""
    from rigidflock.scene.keys import reference

    scalar = {"number": "float", '"auto" or number': "float", "number (degrees)": "float",
              'number (degrees) or "random"': "float", "integer": "int",
              '"auto" or integer': "int"}  # fmt: skip
    sites = []
    for row in reference():
        if row.type not in scalar and row.type not in (
            "[x, y]",
            "[x0, y0, x1, y1]",
            "array of [x, y]",
            "array of integers",
        ):
            continue
        parts = row.path.split(".")
        path: list = []
        node = data
        ok = True
        for i, part in enumerate(parts):
            name = part.removesuffix("[]")
            if part.endswith("[]"):
                tables = node.get(name) if isinstance(node, dict) else None
                if not tables:
                    ok = False
                    break
                rest = parts[i + 1] if i + 1 < len(parts) else None
                k = next((j for j, t in enumerate(tables) if rest in t), 0)
                path += [name, k]
                node = tables[k]
            else:
                path.append(name)
                node = node.get(name, {}) if isinstance(node, dict) else {}
        if not ok:
            continue
        path = tuple(path)
        if row.type in scalar:
            sites.append((path, scalar[row.type]))
            continue
        value = node if not isinstance(node, dict) else None
        if value is None:  # a point or rectangle the scene does not write: skip it
            continue
        if row.type == "[x, y]":
            sites += [((*path, 0), "float"), ((*path, 1), "float")]
        elif row.type == "[x0, y0, x1, y1]":
            sites += [((*path, k), "float") for k in range(4)]
        elif row.type == "array of [x, y]" and value:
            sites += [((*path, 0, 0), "float"), ((*path, 0, 1), "float")]
        elif row.type == "array of integers" and value:
            sites.append(((*path, 0), "int"))
    return sites


def _ring(n: int, centre, radius) -> list[list[float]]:
    """A convex polygon of ``n`` corners, counter-clockwise."""
    cx, cy = centre
    turns = [2 * math.pi * k / n for k in range(n)]
    return [[cx + radius * math.cos(t), cy + radius * math.sin(t)] for t in turns]


def derived(name: str, data: dict) -> list[tuple[str, dict]]:
    """Scenes of ``data`` whose derived sizes (grid cells, raster cells, array lengths)
    overflow or blow up: ``(label, scene data)``."""
    out = []

    def case(label, *changes):
        d = copy(data)
        for path, value in changes:
            put(d, path, value)
        out.append((f"{name}:{label}", d))

    for cell in (1e-300, 1e-7, 1e-5, 0.01, TINY):  # 10^600, > 2^63, 10^15, 10^9 cells; inf
        case(f"navigation.cell={cell!r}", (("navigation", "cell"), cell))
    case("world.size=1e6 x 1e6", (("world", "size"), [1e6, 1e6]))
    case("world.size=1e6 x 1e6, cell 1", (("world", "size"), [1e6, 1e6]),
         (("navigation", "cell"), 1.0))  # fmt: skip
    case("world.size=1e6 x 5e-324", (("world", "size"), [1e6, TINY]))
    case("world.size=5e-324 x 5e-324", (("world", "size"), [TINY, TINY]))
    case("navigation.cell=1e6", (("navigation", "cell"), 1e6))
    case("navigation.lookahead=10000", (("navigation", "lookahead"), 10_000))
    case("navigation.clearance=5e-324", (("navigation", "clearance"), TINY))
    for length in (1e-9, 1e-12, TINY):  # neighbour raster cells of a near-zero radius
        case(f"groups[0].length={length!r}", (("groups", 0, "length"), length))
        case(f"groups[0].length+width={length!r}", (("groups", 0, "length"), length),
             (("groups", 0, "width"), length))  # fmt: skip
    case(
        "radius_factor all 5e-324",
        (("rules", "radius_factor"), {"wide": TINY, "limited": TINY, "narrow": TINY}),
    )
    case("radius_factor all 1000, separation 5e-324",
         (("rules", "radius_factor"), {"wide": 1000.0, "limited": 1000.0, "narrow": 1000.0}),
         (("rules", "separation_factor"), TINY))  # fmt: skip
    case("feeler_factor=5e-324", (("rules", "feeler_factor"), TINY))
    case("feeler_factor=1000, length 1000", (("rules", "feeler_factor"), 1000.0),
         (("groups", 0, "length"), 1000.0))  # fmt: skip
    case(
        "obstacle_field 2000 of radius 5e-324",
        (("obstacle_field",), {"count": 2000, "radius": TINY, "margin": 0.0}),
    )
    case(
        "obstacle_field 2000 of radius 1e6",
        (("obstacle_field",), {"count": 2000, "radius": 1e6, "margin": 0.0}),
    )
    case(
        "obstacle_field radius 5e-324, world 1e6",
        (("obstacle_field",), {"count": 8, "radius": TINY}),
        (("world", "size"), [1e6, 1e6]),
    )
    if not data.get("orders"):  # with orders, 100,000 units take minutes to deal their slots
        case("groups[0].count=100000", (("groups", 0, "count"), 100_000))
    case("1000 groups of 100000", (("groups",), [dict(data["groups"][0], count=100_000)] * 1000))
    case("world.dt=1e-4, substeps 100", (("world", "dt"), 1e-4), (("world", "substeps"), 100))
    case("world.dt=1, substeps 1", (("world", "dt"), 1.0), (("world", "substeps"), 1))
    case("run.ticks=2^63", (("run", "ticks"), 2**63))
    case("run.ticks=10^18", (("run", "ticks"), 10**18))
    case("seed=2^63-1", (("seed",), 2**63 - 1))
    w, h = data.get("world", {}).get("size", [800.0, 600.0])
    centre = (w / 2, h / 2)
    case(
        "a building of 10000 corners",
        (("buildings",), [*data.get("buildings", []), {"polygon": _ring(10_000, centre, 5.0)}]),
    )
    goal = [w * 0.9, h * 0.9]
    family = data["groups"][0].get("family", "regular")
    case("20 orders to 5e-324",
         (("orders",), [{"tick": k, "select": {"family": family}, "goal": [TINY, TINY]}
                        for k in range(20)]))  # fmt: skip
    case(
        "a building of 5e-324 sides at tick 1",
        (("events",), [{"tick": 1, "add_building": {"rect": [0.0, 0.0, TINY, TINY]}}]),
    )
    case("a building of the world's size", (("buildings",), [{"rect": [0.0, 0.0, w, h]}]))
    case(
        "order to the largest float",
        (("orders",), [{"tick": 0, "select": {"family": family}, "goal": [HUGE, HUGE]}]),
    )
    case(
        "order selecting 100000 ids",
        (("orders",), [{"tick": 0, "select": {"ids": list(range(100_000))}, "goal": goal}]),
    )
    case("player with 100000 script entries",
         (("player",), {"control": "script", "position": [w / 3, h / 3],
                        "script": [{"tick": k, "steer": 1.0}
                                   for k in range(100_000)]}))  # fmt: skip
    case("player with 10000 waypoints at 5e-324",
         (("player",), {"control": "waypoints", "position": [w / 3, h / 3],
                        "waypoints": [[TINY, TINY]] * 10_000}))  # fmt: skip
    return out


def targeted() -> list[tuple[str, str, str]]:
    """``(kind, name, scene text)``: every numeric key of each of :data:`TARGETS` at each of the
    extremes, then :func:`derived`."""
    files = scene_files()
    cases = []
    for kind, scene in TARGETS:
        data = tomllib.loads(files[scene].read_text())
        for path, k in numeric_sites(data):
            for value in FLOAT_EXTREMES + (INT_EXTREMES if k == "int" else []):
                d = copy(data)
                put(d, path, value)
                cases.append((kind, f"{scene}:{_label(path)}={_value_text(value)}", to_toml(d)))
        cases += [(kind, label, to_toml(d)) for label, d in derived(scene, data)]
    return cases


def _changed(data, path, value):
    """A function making the text of ``data`` with ``value`` at ``path``."""

    def make():
        d = copy(data)
        put(d, path, value)
        return to_toml(d)

    return make


def corpus(n_cases: int, seed: int = 12) -> list[tuple[str, str, str | bytes]]:
    """``(kind, name, scene text or bytes)``: structured mutations of every bundled scene."""
    rng = random.Random(seed)
    files = scene_files()
    base = {s: tomllib.loads(p.read_text()) for s, p in files.items()}
    texts = {s: p.read_text() for s, p in files.items()}
    kinds = {s: kind_of(d) for s, d in base.items()}
    cases: list[tuple[str, str, str | bytes]] = []

    def add(s, name, data):
        cases.append((kinds[s], name, to_toml(data)))

    # Every number of every scene, each replaced by each of NUMBERS (sampled to fit the budget).
    numeric = [(s, p) for s, d in base.items() for p, v in leaves(d)
               if isinstance(v, int | float) and not isinstance(v, bool)]  # fmt: skip
    typed = [(s, p) for s, d in base.items() for p, v in leaves(d)]
    fixed = []  # (kind, name, a function making the text): made only when sampled
    for s in base:
        # sizes, counts, dt, cells, lengths, forces
        for path, value in [
            (("world", "size"), [10**48, 600]), (("world", "size"), [1e12, 1e12]),
            (("world", "size"), [1e308, 1e308]), (("world", "dt"), 5e-324),
            (("navigation", "cell"), 0.001), (("navigation", "lookahead"), 2**63),
            (("obstacle_field",), {"count": 10**6}), (("obstacle_field",), {"count": 400}),
            (("obstacle_field",), {"count": 60, "radius": 60}),
            (("groups", 0, "count"), 10**6), (("groups", 0, "count"), 10**12),
            (("groups", 0, "count"), 2**63), (("groups", 0, "thrust"), 1e308),
            (("groups", 0, "length"), 1e308), (("groups", 0, "mass"), 1e-300),
            (("seed",), 10**400), (("rules", "steering_force"), 1e308),
        ]:  # fmt: skip
            fixed.append(
                (s, f"{s}:{_label(path)}={str(value)[:20]}", _changed(base[s], path, value))
            )
        # huge arrays
        fixed.append(
            (
                s,
                f"{s}:huge positions",
                _changed(base[s], ("groups", 0, "spawn"), {"positions": [[1.0, 1.0]] * 200_000}),
            )
        )
        fixed.append(
            (
                s,
                f"{s}:huge obstacles",
                _changed(
                    base[s], ("obstacles",), [{"center": [10.0, 10.0], "radius": 1.0}] * 50_000
                ),
            )
        )
        fixed.append(
            (
                s,
                f"{s}:huge waypoints",
                _changed(
                    base[s],
                    ("player",),
                    {"control": "waypoints", "waypoints": [[5.0, 5.0]] * 100_000},
                ),
            )
        )
        # deep nesting, long keys
        t = texts[s]
        fixed.append(
            (s, f"{s}:deep inline", lambda t=t: t + "\nx = " + "{a=" * 10_000 + "1" + "}" * 10_000)
        )
        fixed.append((s, f"{s}:deep array", lambda t=t: t + "\nx = " + "[" * 10_000 + "]" * 10_000))
        fixed.append((s, f"{s}:long key", lambda t=t: t + "\n" + "k" * 10_000_000 + " = 1\n"))
        fixed.append((s, f"{s}:huge int", lambda t=t: t + "\nseed = 1" + "0" * 5000 + "\n"))
    if n_cases < 2 * len(fixed):  # half the cases at most from the fixed list, the rest random
        fixed = [fixed[i] for i in sorted(rng.sample(range(len(fixed)), n_cases // 2))]
    cases += [(kinds[s], name, make()) for s, name, make in fixed]
    per_kind = max(1, (n_cases - len(cases)) // 4)
    for _ in range(per_kind * 2):
        s, path = rng.choice(numeric)
        d = copy(base[s])
        value = rng.choice(NUMBERS)
        put(d, path, value)
        add(s, f"{s}:{_label(path)}={str(value)[:20]}", d)
    for _ in range(per_kind // 2):
        s, path = rng.choice(typed)
        d = copy(base[s])
        value = rng.choice(WRONG_TYPES)
        put(d, path, value)
        add(s, f"{s}:{_label(path)}:={type(value).__name__}", d)
    for _ in range(per_kind // 2):
        s, path = rng.choice(typed)
        d = copy(base[s])
        drop(d, path)
        add(s, f"{s}:drop {_label(path)}", d)
    while len(cases) < n_cases:  # raw byte damage of the text
        s = rng.choice(list(texts))
        raw = bytearray(texts[s].encode())
        kind = rng.choice(["flip", "cut", "insert", "delete"])
        at = rng.randrange(len(raw))
        if kind == "flip":
            raw[at] = rng.randrange(256)
        elif kind == "cut":
            raw = raw[:at]
        elif kind == "insert":
            raw[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            del raw[at : at + rng.randint(1, 40)]
        cases.append((kinds[s], f"{s}:bytes {kind} at {at}", bytes(raw)))
    return cases[:n_cases]


# -- running commands ---------------------------------------------------------------------------


def _limit_memory(cap: int | None) -> None:
    if cap:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


WARM = [  # small runs that load (or compile) the kernels the cases use
    ["run", "aidemo4", "--ticks", "3", "--quiet"],
    ["run", "walls", "--ticks", "3", "--quiet"],
    ["run", "forest", "--ticks", "3", "--quiet", "--set", "world.reaction_ticks=1"],
    ["run", "rts_maze", "--ticks", "3", "--quiet"],
    ["run", "scenes/scenarios/doorway_two_way.toml", "--ticks", "3", "--quiet"],
    ["run", "view_narrow", "--ticks", "3", "--quiet", "--set", "world.bounds=open",
     "--set", "world.neighbour_ticks=1"],
]  # fmt: skip


def worker_main() -> int:
    """``--worker``: read one JSON array of arguments a line from stdin, run ``rigidflock``'s
    ``main`` with them (stdout discarded, stderr caught), answer one JSON line."""
    import warnings

    import numpy as np

    reply = os.fdopen(os.dup(1), "w", buffering=1)
    _limit_memory(int(os.environ.get("FUZZ_MEMORY_CAP", "0")))
    from rigidflock.cli import main

    filters = warnings.filters[:]
    err_state = np.geterr()
    null = os.open(os.devnull, os.O_WRONLY)

    def call(args):
        warnings.filters[:] = filters
        # a fresh process's warning registries (a private hook: absent, the registries stay)
        getattr(warnings, "_filters_mutated", lambda: None)()
        np.seterr(**err_state)
        with tempfile.TemporaryFile() as err:
            sys.stdout.flush()
            sys.stderr.flush()
            saved = os.dup(1), os.dup(2)
            os.dup2(null, 1)
            os.dup2(err.fileno(), 2)
            try:
                status = main(args)
            except BaseException as e:
                import traceback

                traceback.print_exc()
                status = 99 if not isinstance(e, MemoryError) else 98
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
                os.close(saved[0])
                os.close(saved[1])
            err.seek(0)
            text = err.read().decode(errors="replace")
        return status, text

    for args in WARM:
        call(args)
    reply.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        status, text = call(json.loads(line))
        reply.write(json.dumps({"status": status, "stderr": text}) + "\n")
    return 0


class Worker:
    """A ``--worker`` process; :meth:`call` runs one command in it."""

    def __init__(self, cap: int | None):
        env = dict(os.environ, FUZZ_MEMORY_CAP=str(cap or 0))
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker"], cwd=ROOT, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        self.buf = b""
        if self._read(3600) is None:  # loading kernels: compiling them can take minutes
            self.kill()
            raise RuntimeError("a fuzz worker did not start")

    def _read(self, timeout: float):
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return "died"
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def call(self, args: list[str], timeout: float):
        """(exit status, stderr); (None, "") on a timeout; ("died", "") when the worker died."""
        try:
            self.proc.stdin.write((json.dumps(args) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            return "died", ""
        answer = self._read(timeout)
        if answer is None:
            return None, ""
        if answer == "died":
            self.proc.wait()
            return "died", f"worker died: {self.proc.returncode}"
        return answer["status"], answer["stderr"]

    def kill(self):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


class Runner:
    """Runs commands for one job: in a :class:`Worker` (replaced after a timeout, a death or a
    MemoryError), or each in a fresh ``python -m rigidflock`` (``fresh``)."""

    def __init__(self, fresh: bool, cap: int | None):
        self.fresh, self.cap = fresh, cap
        self.worker = None if fresh else Worker(cap)

    def _once(self, args, timeout):
        if self.fresh:
            try:
                p = subprocess.run(
                    [sys.executable, "-m", "rigidflock", *args], check=False, cwd=ROOT,
                    capture_output=True, text=True, errors="replace", timeout=timeout,
                    preexec_fn=lambda: _limit_memory(self.cap),
                )  # fmt: skip
            except subprocess.TimeoutExpired:
                return None, ""
            return p.returncode, p.stderr
        status, err = self.worker.call(args, timeout)
        if status is None or status == "died" or status == 98 or "MemoryError" in err:
            self.worker.kill()
            self.worker = Worker(self.cap)
        return status, err

    def cli(self, args: list[str], timeout: float) -> tuple[int | str | None, str]:
        """(exit status, or None after two timeouts, or "died"; stderr)."""
        status, err = self._once(args, timeout)
        if status is None:  # again in a fresh process: a first compile is not a hang
            status, err = self._once(args, timeout)
        return status, err

    def close(self):
        if self.worker is not None:
            self.worker.kill()


def problems(status, err: str, allowed: set[int]) -> list[str]:
    out = []
    if status is None:
        return ["hang"]
    if "MemoryError" in err or status == 98:
        out.append("memory_error")
    elif "Traceback" in err or "internal error" in err or status not in allowed:
        out.append("internal_error")
    if "Warning" in err and "warning: " not in err.replace("Warning", ""):
        out.append("numpy_warning")
    if any(len(line) > LONG_LINE for line in err.splitlines()):
        out.append("long_echo")
    return out


def one_scene(runner: Runner, case, workdir: Path, timeout: float) -> dict:
    kind, name, text = case
    path = workdir / "case.toml"
    metrics = workdir / "case-metrics.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    metrics.unlink(missing_ok=True)
    t0 = time.perf_counter()
    try:
        c_status, c_err = runner.cli(["check", str(path)], timeout)
        found = problems(c_status, c_err, {0, 2})
        r_status, r_err = runner.cli(["run", str(path), "--ticks", RUN_TICKS, "--quiet",
                                      "--metrics", str(metrics)], timeout)  # fmt: skip
        found += problems(r_status, r_err, {0, 1, 2})
        if c_status == 0 and r_status not in (0, None):
            found.append("check_accepts_run_refuses")
        if c_status == 2 and r_status == 0:
            found.append("check_refuses_run_accepts")
        if r_status not in (0, None) and metrics.exists():
            found.append("output_left")
    finally:
        path.unlink(missing_ok=True)
        metrics.unlink(missing_ok=True)
    last = (r_err if r_status != 2 or c_status == 0 else c_err).strip().splitlines()[-1:]
    return {"kind": kind, "name": name, "problems": sorted(set(found)), "check": c_status,
            "run": r_status, "last_line": (last[0] if last else "")[:300],
            "seconds": round(time.perf_counter() - t0, 2)}  # fmt: skip


def _counts(results: list[dict]) -> dict:
    out = {"tried": len(results), "handled_cleanly": sum(not r["problems"] for r in results)}
    for key in PROBLEMS:
        out[key] = sum(key in r["problems"] for r in results)
    out["checked_ok_and_ran"] = sum(r["check"] == 0 and r["run"] == 0 for r in results)
    out["refused_by_check_and_run"] = sum(r["check"] == 2 and r["run"] == 2 for r in results)
    out["run_failed_exit_1"] = sum(r["run"] == 1 for r in results)
    return out


def fuzz_scenes(n: int, jobs: int, timeout: float, with_targeted: bool, fresh: bool,
                cap: int | None, match: str | None = None) -> dict:  # fmt: skip
    cases = [(k, name, text) for k, name, text in targeted()] if with_targeted else []
    cases = [c for c in cases if match is None or match in c[1]]
    n_targeted = len(cases)
    cases += [c for c in corpus(n) if match is None or match in c[1]]
    parts = ["targeted"] * n_targeted + ["corpus"] * (len(cases) - n_targeted)
    print(f"scenes: {n_targeted} targeted cases, {len(cases) - n_targeted} from the corpus",
          flush=True)  # fmt: skip
    results: list[dict | None] = [None] * len(cases)
    start = time.perf_counter()
    lock = threading.Lock()
    queue = list(range(len(cases)))[::-1]
    done = [0]

    def job():
        runner = Runner(fresh, cap)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                while True:
                    with lock:
                        if not queue:
                            return
                        i = queue.pop()
                    r = one_scene(runner, cases[i], Path(tmp), timeout)
                    r["part"] = parts[i]
                    with lock:
                        results[i] = r
                        done[0] += 1
                        for f in r["problems"]:
                            print(f"  {f}: {r['name']}: {r['last_line']}", flush=True)
                        if done[0] % 100 == 0:
                            print(f"  {done[0]}/{len(cases)} cases, "
                                  f"{time.perf_counter() - start:.0f} s", flush=True)  # fmt: skip
        finally:
            runner.close()

    with cf.ThreadPoolExecutor(jobs) as ex:
        for fut in [ex.submit(job) for _ in range(jobs)]:
            fut.result()
    seconds = time.perf_counter() - start
    total = _counts(results)
    print(f"scenes: {total['tried']} cases tried, {total['handled_cleanly']} handled cleanly "
          f"({seconds:.0f} s)")  # fmt: skip
    for key in PROBLEMS:
        print(f"  {key}: {total[key]}")
    by_kind = {}
    for kind in dict.fromkeys(r["kind"] for r in results):
        by_kind[kind] = _counts([r for r in results if r["kind"] == kind])
    return {
        "seconds": round(seconds, 1),
        "timeout_seconds": timeout,
        "run_ticks": int(RUN_TICKS),
        "targets": [{"kind": k, "scene": s} for k, s in TARGETS] if with_targeted else [],
        "float_extremes": [repr(v) for v in FLOAT_EXTREMES],
        "int_extremes": [str(v) for v in INT_EXTREMES],
        "corpus_numbers": [repr(v) if isinstance(v, float) else str(v) for v in NUMBERS],
        "bundled_scenes": len(scene_files()),
        "total": total,
        "by_part": {
            p: _counts([r for r in results if r["part"] == p]) for p in dict.fromkeys(parts)
        },
        "by_kind": by_kind,
        "failures": [r for r in results if r["problems"]][:200],
        "slowest": [
            {"name": r["name"], "seconds": r["seconds"]}
            for r in sorted(results, key=lambda r: -r["seconds"])[:10]
        ],
    }


# -- replays ------------------------------------------------------------------------------------


def one_replay(runner: Runner, name: str, path: Path, timeout: float) -> tuple[str, list[str]]:
    found = []
    v_status, v_err = runner.cli(["verify", str(path), "--quiet"], timeout)
    i_status, i_err = runner.cli(["replay", str(path), "--info"], timeout)
    found += problems(v_status, v_err, {0, 2, 3})
    found += problems(i_status, i_err, {0, 2})
    if v_status == 0:
        found.append("verify_0_on_damaged")
    path.unlink()
    return name, sorted(set(found))


def fuzz_replays(jobs: int, timeout: float, fresh: bool, cap: int | None) -> dict:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        good = tmp / "good.rfr"
        runner = Runner(fresh, cap)
        status, err = runner.cli(["run", "scenes/aidemo4.toml", "--ticks", "300", "--quiet",
                                  "--record", str(good)], 600)  # fmt: skip
        assert status == 0, err
        v_status, _ = runner.cli(["verify", str(good), "--quiet"], timeout)
        assert v_status == 0, "the intact recording must verify"
        runner.close()
        raw = good.read_bytes()
        cases = []
        for k in range(100):
            at = (k * (len(raw) - 1)) // 100  # 0 .. size - 1: always shorter than the file
            p = tmp / f"cut{k}.rfr"
            p.write_bytes(raw[:at])
            cases.append((f"cut at {at}", p))
        for k in range(200):
            at = (k * len(raw)) // 200 + k % 7
            at = min(at, len(raw) - 1)
            damaged = bytearray(raw)
            damaged[at] ^= 0x5A
            p = tmp / f"flip{k}.rfr"
            p.write_bytes(bytes(damaged))
            cases.append((f"flip at {at}", p))
        counts: dict[str, int] = {}
        clean = 0
        lock = threading.Lock()
        queue = cases[::-1]

        def job():
            nonlocal clean
            runner = Runner(fresh, cap)
            try:
                while True:
                    with lock:
                        if not queue:
                            return
                        name, p = queue.pop()
                    name, found = one_replay(runner, name, p, timeout)
                    with lock:
                        clean += not found
                        for f in found:
                            counts[f] = counts.get(f, 0) + 1
                            print(f"  {f}: {name}", flush=True)
            finally:
                runner.close()

        with cf.ThreadPoolExecutor(jobs) as ex:
            for fut in [ex.submit(job) for _ in range(jobs)]:
                fut.result()
    seconds = time.perf_counter() - start
    print(f"replays: {len(cases)} damaged files ({len(raw):,} bytes), {clean} answered as the "
          f"contract says ({seconds:.0f} s)")  # fmt: skip
    keys = ("internal_error", "memory_error", "hang", "verify_0_on_damaged", "numpy_warning",
            "long_echo")  # fmt: skip
    for key in keys:
        print(f"  {key}: {counts.get(key, 0)}")
    return {
        "seconds": round(seconds, 1),
        "recording": "scenes/aidemo4.toml, 300 ticks",
        "recording_bytes": len(raw),
        "cuts": 100,
        "flips": 200,
        "tried": len(cases),
        "answered_as_the_contract_says": clean,
        **{key: counts.get(key, 0) for key in keys},
    }


# -- the report ---------------------------------------------------------------------------------


def _git(*args) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return ""


def _ok(report: dict) -> bool:
    ok = True
    if "scenes" in report:
        ok &= report["scenes"]["total"]["handled_cleanly"] == report["scenes"]["total"]["tried"]
    if "replays" in report:
        r = report["replays"]
        ok &= r["answered_as_the_contract_says"] == r["tried"]
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=850, help="cases from the corpus")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per command")
    ap.add_argument("--replays", action="store_true", help="the replay damage run too")
    ap.add_argument("--only-replays", action="store_true")
    ap.add_argument("--no-targeted", action="store_true", help="only the corpus")
    ap.add_argument("--fresh", action="store_true", help="each command in its own process")
    ap.add_argument("--memory-cap", type=float, default=8.0,
                    help="GiB of address space a command may take (0: no limit)")  # fmt: skip
    ap.add_argument("--json", metavar="FILE", help="write the counts as JSON")
    ap.add_argument("--match", metavar="TEXT", help="only the cases whose name has TEXT")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        return worker_main()
    cap = int(a.memory_cap * (1 << 30)) or None
    argv = sys.argv[1:] if argv is None else argv
    report: dict = {
        "command": "python tools/fuzz_scenes.py " + shlex.join(argv),
        "commit": _git("rev-parse", "--short", "HEAD"),
        "changes_not_committed": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "jobs": a.jobs,
        "cores": os.cpu_count(),
        "load_average_at_start": round(os.getloadavg()[0], 1),
        "runner": "fresh process per command" if a.fresh else "worker processes",
        "memory_cap_gib": a.memory_cap,
    }
    start = time.perf_counter()
    if not a.only_replays:
        report["scenes"] = fuzz_scenes(a.cases, a.jobs, a.timeout, not a.no_targeted, a.fresh,
                                       cap, a.match)  # fmt: skip
    if a.replays or a.only_replays:
        report["replays"] = fuzz_replays(a.jobs, a.timeout, a.fresh, cap)
    report["seconds"] = round(time.perf_counter() - start, 1)
    report["load_average_at_end"] = round(os.getloadavg()[0], 1)
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0 if _ok(report) else 1


if __name__ == "__main__":
    sys.exit(main())
