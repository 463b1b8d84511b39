"""validation/fuzzing.md: what ``tools/fuzz_scenes.py`` feeds the command line and what it
answered, tables made from ``docs/results/fuzz.json``.

    python tools/fuzz_scenes.py --cases 1200 --jobs 1 --replays --json docs/results/fuzz.json
    python docs/generate.py
"""

from __future__ import annotations

import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULT = "docs/results/fuzz.json"

# the counts of a part of the run, in the order the tables show them: (key, heading)
PROBLEMS = [
    ("internal_error", "internal errors"),
    ("memory_error", "MemoryErrors"),
    ("hang", "hangs"),
    ("check_accepts_run_refuses", "`check` accepts, `run` refuses"),
    ("check_refuses_run_accepts", "`check` refuses, `run` accepts"),
    ("numpy_warning", "numpy warnings"),
    ("long_echo", "lines over 300 characters"),
    ("output_left", "metrics written by a refused run"),
]
OUTCOMES = [
    ("checked_ok_and_ran", "accepted and ran"),
    ("refused_by_check_and_run", "refused by both (exit 2)"),
    ("run_failed_exit_1", "`run` failed in one line (exit 1)"),
]
GENERATED = (
    "This page is generated (`python docs/generate.py`) from the result JSON in `docs/results/`; "
    "a test fails when it is stale."
)


def table(head: list[str], rows: list[list[str]], left: int = 1) -> str:
    """A markdown table, the first ``left`` columns left-aligned, the rest right-aligned."""
    align = ["---"] * left + ["---:"] * (len(head) - left)
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def n(x: int) -> str:
    return f"{x:,}"


def number_text(text: str) -> str:
    """A value as the JSON records it, shorter: ``2^63``, ``2^64 + 1``, ``10^400``, ``5e-324``."""
    try:
        v = int(text)
    except ValueError:
        return text
    sign, v = ("-" if v < 0 else ""), abs(v)
    for base in (2, 10):
        for off, tail in ((0, ""), (1, " - 1"), (-1, " + 1")):
            k = v + off
            e = round(math.log(k, base)) if k > 0 else 0
            if e >= 10 and base**e == k:
                if sign:  # -(2^63 + 1) is -2^63 - 1
                    return f"-{base}^{e}" + {" - 1": " + 1", " + 1": " - 1", "": ""}[tail]
                return f"{base}^{e}{tail}"
    return f"{sign}{v:,}" if v >= 10**5 else text


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} minutes" if seconds >= 90 else f"{seconds:.0f} s"


def load() -> dict:
    path = ROOT / RESULT
    again = "run tools/fuzz_scenes.py with --json docs/results/fuzz.json (docs/_gen/fuzzing.py)"
    if not path.exists():
        raise SystemExit(f"docs/_gen/fuzzing.py: {RESULT} is missing; {again}")
    data = json.loads(path.read_text())
    if "commit" not in data or "command" not in data:
        raise SystemExit(f"docs/_gen/fuzzing.py: {RESULT} names no command or commit; {again}")
    return data


def _provenance(data: dict) -> str:
    changes = " (with changes not yet committed)" if data["changes_not_committed"] else ""
    return (
        f"Produced by `{data['command']}` at commit `{data['commit']}`{changes} on {data['date']}: "
        f"{_minutes(data['seconds'])} of wall time on a shared {data['cores']}-core machine "
        f"(load average {data['load_average_at_start']} at the start, "
        f"{data['load_average_at_end']} at the end), {data['runner']}, {data['jobs']} at a time."
    )


def _counts_table(columns: list[tuple[str, dict]]) -> str:
    """Rows: tried, handled cleanly, the outcomes, then each problem; one column per part."""
    rows = [
        ["tried", *(n(c["tried"]) for _, c in columns)],
        ["**handled cleanly**", *(f"**{n(c['handled_cleanly'])}**" for _, c in columns)],
    ]
    rows += [[f"- {head}", *(n(c[key]) for _, c in columns)] for key, head in OUTCOMES]
    rows += [[head, *(n(c[key]) for _, c in columns)] for key, head in PROBLEMS]
    return table(["", *(name for name, _ in columns)], rows)


def _failures(failures: list[dict]) -> str:
    if not failures:
        return ""
    rows = [
        [
            f"`{f['name']}`",
            ", ".join(f["problems"]),
            str(f["check"]),
            str(f["run"]),
            f["last_line"].replace("|", "\\|")[:160],
        ]
        for f in failures[:40]
    ]
    more = f" (the first 40 of {len(failures)})" if len(failures) > 40 else ""
    return f"Cases not handled cleanly{more}:\n\n" + table(
        ["case", "problems", "`check`", "`run`", "the last line"], rows, left=5
    )


def scenes_part(data: dict) -> list[str]:
    sc = data["scenes"]
    total = sc["total"]
    targets = ", ".join(f"`{t['scene']}` ({t['kind']})" for t in sc["targets"])
    floats = ", ".join(f"`{v}`" for v in sc["float_extremes"])
    ints = ", ".join(f"`{number_text(v)}`" for v in sc["int_extremes"])
    corpus_numbers = ", ".join(f"`{number_text(v)}`" for v in sc["corpus_numbers"])
    parts = [
        "## Scenes",
        "Each case is a scene file, run through `rigidflock check FILE` and then `rigidflock run "
        f"FILE --ticks {sc['run_ticks']} --quiet --metrics FILE.json`, "
        f"{sc['timeout_seconds']:.0f} s per command. The cases come in two parts.",
        f"**Targeted**, in full: every numeric key of the scene key reference, on one bundled "
        f"scene of each kind: {targets}. Each key is set to {floats} (the smallest positive "
        "floats, subnormal and normal, the largest float, and the smallest negative one); an "
        f"integer key also to {ints}. Each component of a point, a rectangle or the first "
        "point of a list is set on its own, and keys a scene does not write are added (an "
        "`obstacle_field` or `player` table where there was none). Then values that make a "
        "size derived from the keys overflow or blow up: navigation grids of 10^600 cells (a "
        "cell of 1e-300 or 5e-324 over the scene's world), past 2^63 cells (1e-7), of 10^15 and "
        "10^9 cells, a 10^6 x 10^6 world with the default cell and a cell of 1, worlds of "
        "5e-324 a side, one cell bigger than the world; unit lengths and widths of 1e-9, 1e-12 "
        "and 5e-324 (the neighbour and obstacle rasters are sized by them), view radii and "
        "feelers of 5e-324, 2,000 obstacles of radius 5e-324 and of 10^6; tables at their "
        "longest (100,000 units in a group where there are no orders, 1,000 groups of them, "
        "100,000 selected ids, 100,000 script entries, 10,000 waypoints), a building of 10,000 "
        "corners, one of 5e-324 a side, one covering the world; `dt` at 10^-4 with 100 "
        "substeps, `run.ticks` at 2^63, orders to (5e-324, 5e-324) and to the largest float.",
        f"**Corpus**, `--cases` of them: structured mutations of all {sc['bundled_scenes']} "
        "bundled scenes, the scored scenarios included: each number replaced by one of "
        f"{corpus_numbers}; wrong types; dropped keys; 200,000 spawn positions, 50,000 "
        "obstacles, 100,000 waypoints; tables and arrays nested 10,000 deep; a 10 MB key; a "
        "5,000-digit integer; raw byte damage of the text (a byte changed, the text cut, bytes "
        "inserted or deleted). The fixed mutations (world sizes, counts, `dt`, cells, lengths "
        "and forces at extremes, the huge arrays, the nesting) make at most half the cases; "
        "random choices of key and value, seeded, make the rest.",
        "A case is handled cleanly when both commands answer in time with exit 0, or 2 and "
        "errors of one line each naming the file and the key (`run` may also exit 1: a run "
        'that failed, said in one line), with no traceback or "internal error", no '
        "MemoryError, no numpy warning on the terminal and no line over 300 characters; when "
        "`check` and `run` agree (`check` 0 and `run` not 0 is a scene `check` should have "
        "refused, `check` 2 and `run` 0 one it should have accepted); and when a refused `run` "
        "leaves no metrics file.",
        f"**{n(total['tried'])} cases tried, {n(total['handled_cleanly'])} handled cleanly.**",
        _counts_table([(k.capitalize(), c) for k, c in sc["by_part"].items()] + [("all", total)]),
        "By kind of scene (the targeted scene of each kind, and the corpus's mutations of the "
        "scenes of that kind):",
        _counts_table(list(sc["by_kind"].items())),
        _failures(sc["failures"]),
    ]
    slow = sc.get("slowest", [])
    if slow:
        rows = [[f"`{s['name']}`", f"{s['seconds']:.1f}"] for s in slow]
        parts += ["The slowest cases (both commands):", table(["case", "seconds"], rows)]
    return parts


def replays_part(data: dict) -> list[str]:
    r = data.get("replays")
    if not r:
        return []
    recording, _, ticks = r["recording"].partition(", ")
    rows = [
        ["damaged files", n(r["tried"])],
        ["**answered as the contract says**", f"**{n(r['answered_as_the_contract_says'])}**"],
        ["internal errors", n(r["internal_error"])],
        ["MemoryErrors", n(r["memory_error"])],
        ["hangs", n(r["hang"])],
        ["`verify` exit 0 on a damaged file", n(r["verify_0_on_damaged"])],
        ["numpy warnings", n(r["numpy_warning"])],
        ["lines over 300 characters", n(r["long_echo"])],
    ]
    return [
        "## Replays",
        f"A recording of `{recording}` ({ticks}, {n(r['recording_bytes'])} bytes) is cut at "
        f"{r['cuts']} offsets spread over the file and has one byte flipped (xor 0x5A) at "
        f"{r['flips']} others; each damaged file goes through `rigidflock verify FILE --quiet` "
        "and `rigidflock replay FILE --info`. Every answer must come in time, with exit 0 "
        "(intact), 3 (damaged or cut short: the ticks before the damage still read) or 2 "
        "(unreadable), never a traceback, and `verify` never 0 on a damaged file. The "
        "preamble's flags and reserved bytes, which no checksum covers, must be 0, so a flip "
        f"there reads as damage too. ({_minutes(r['seconds'])}.)",
        table(["", "files"], rows),
    ]


def pages() -> dict[str, str]:
    data = load()
    parts = [
        "# Fuzzing",
        "`tools/fuzz_scenes.py` feeds the command line hostile input, bad scene files and "
        "damaged replays, and counts what it answered. The contract it checks is the one the "
        "scene reader and `rigidflock/scene/budget.py` keep: every number has limits that say "
        "what can run, not just what parses (the key reference shows them), integers that do "
        "not fit and numbers that are not finite are errors, arrays and keys have a longest "
        "length, nesting is bounded, and messages quote at most 40 characters of what they "
        "echo. Before anything is allocated, `check` and `run` both refuse physics that cannot "
        "run (and ordered units with no turn rate to follow a route with), a unit length so "
        "near 0 against the world that the steering's rasters would overflow, a navigation "
        "grid that cannot be built (named by `navigation.cell`, its cells counted in floats "
        "and logarithms so that no value overflows the count) and a scene whose memory "
        "estimate is over the budget, and place the obstacle field as the run will: a scene "
        "`check` passes is one `run` starts. `tests/test_fuzz.py` is its bounded "
        "counterpart in the test suite: hypothesis over any value at any key, the targeted "
        "cases below through every pre-run check in full, and a sample of those that pass run "
        "for a few ticks.",
        _provenance(data),
        *(scenes_part(data) if "scenes" in data else []),
        *replays_part(data),
        "## How the commands run",
        "The commands run in worker processes that import rigidflock once and call its `main` "
        "with standard output discarded and standard error caught, warning filters and numpy's "
        "error state reset before each (a fresh `python -m rigidflock` costs seconds of imports "
        "and kernel loading a command; `--fresh` runs each command so instead). A worker first "
        "runs a few small scenes to load the compiled kernels, runs under an address-space "
        f"limit ({data['memory_cap_gib']:g} GiB, `--memory-cap`: an allocation the memory "
        "estimate did not foresee is a MemoryError, not the machine's memory), and is replaced "
        "after any command that timed out, died or ran out of memory. A command past the "
        "timeout is tried once more in a fresh worker and counts as a hang only when it times "
        "out again: the first run of a kernel not yet compiled can take that long on a loaded "
        "machine. The exit status is 0 when every count that must be 0 is.",
        GENERATED,
    ]
    text = "\n\n".join(p.strip("\n") for p in parts if p) + "\n"
    return {"validation/fuzzing.md": text}
