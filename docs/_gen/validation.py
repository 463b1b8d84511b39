"""validation/*.md: the validation pages, tables made from the result JSON in ``docs/results/``.

Each result file is written by one command and recorded with the commit and date it ran at:

    python docs/_gen/validation.py record NAME     # NAME: one of RECORDS; runs its command
    python docs/generate.py                        # then the pages

``record`` runs the command from the repository's root with one numba thread, reads the JSON it
wrote and rewrites the file as ``{"command", "commit", "date", "wall_seconds", "results"}``.
"""

from __future__ import annotations

import ast
import datetime
import inspect
import json
import os
import statistics
import subprocess
import sys
import textwrap
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SMALL = (
    "doorway_one_way,doorway_two_way,wall_squeeze,double_squeeze,hallway_one_way,"
    "hallway_two_way,four_way_oncoming,oncoming_groups,four_way_confusion"
)

# name -> (the command, the JSON file it writes, relative to the repository's root)
RECORDS: dict[str, tuple[tuple[str, ...], str]] = {
    "scenarios": (
        ("rigidflock", "score", "--json", "docs/results/scenarios.json"),
        "docs/results/scenarios.json",
    ),
    "scenario_seeds": (
        (
            "rigidflock",
            "score",
            SMALL,
            "--seeds",
            "1,2,3,4",
            "--json",
            "docs/results/scenario_seeds.json",
        ),
        "docs/results/scenario_seeds.json",
    ),
    "forests": (
        ("python", "tools/forest_matrix.py", "--procs", "1", "--json", "docs/results/forests.json"),
        "docs/results/forests.json",
    ),
    "behaviour": (
        ("python", "tools/behaviour_figures.py", "--json", "docs/results/behaviour.json"),
        "docs/results/behaviour.json",
    ),
}

# The scenario suite's requirement, as tests/runs/test_scenarios.py checks it (``check``): every
# unit on its slot within the time limit, nobody pinned longer than this at a time.
PIN_BOUND = 5.0


def _git(*args: str) -> str:
    return subprocess.run(
        ("git", *args), cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def record(name: str) -> int:
    """Run ``RECORDS[name]``'s command (one numba thread) and store its JSON with the commit, the
    date and the wall-clock seconds."""
    command, out = RECORDS[name]
    commit = _git("rev-parse", "--short", "HEAD")
    date = datetime.datetime.now(datetime.UTC).date().isoformat()
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        print(f"record {name}: the command exited {done.returncode}", file=sys.stderr)
        return 1
    path = ROOT / out
    results = json.loads(path.read_text())
    text = json.dumps(
        {
            "command": " ".join(command),
            "commit": commit,
            "date": date,
            "wall_seconds": round(seconds, 1),
            "results": results,
        },
        indent=1,
    )
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(text + "\n")
    tmp.replace(path)
    print(f"{out}: recorded at {commit}, {seconds:.0f} s")
    return 0


# ---------------------------------------------------------------------------------------------
# shared pieces


def load(name: str) -> dict:
    """The recorded result file of ``RECORDS[name]``."""
    rel = RECORDS[name][1]
    path = ROOT / rel
    again = f"run: python docs/_gen/validation.py record {name}"
    if not path.exists():
        raise SystemExit(f"docs/_gen/validation.py: {rel} is missing; {again}")
    data = json.loads(path.read_text())
    if not isinstance(data, dict) or "commit" not in data:
        raise SystemExit(f"docs/_gen/validation.py: {rel} has no commit recorded; {again}")
    return data


def produced(data: dict, name: str) -> str:
    minutes = data["wall_seconds"] / 60
    took = f"{minutes:.0f} minutes" if minutes >= 1.5 else f"{data['wall_seconds']:.0f} s"
    return (
        f"Produced by `{data['command']}` at commit `{data['commit']}` on {data['date']} "
        f"({took} of wall time on a shared two-core machine, one numba thread; recorded with "
        f"`python docs/_gen/validation.py record {name}`)."
    )


def table(head: list[str], rows: list[list[str]], left: int = 1) -> str:
    """A markdown table; the first ``left`` columns left-aligned (-1: all), the rest
    right-aligned."""
    left = len(head) if left < 0 else left
    align = ["---"] * left + ["---:"] * (len(head) - left)
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def num(x, digits: int = 1) -> str:
    return "-" if x is None else f"{x:,.{digits}f}"


def sig(x) -> str:
    """Three significant figures."""
    return "-" if x is None else f"{x:.3g}"


def pct(x: float) -> str:
    return "100%" if x == 1.0 else f"{100 * x:.1f}%"


def seeds_text(seeds) -> str:
    seeds = sorted(seeds)
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}-{seeds[-1]}"
    return ", ".join(str(s) for s in seeds)


def page(*parts: str) -> str:
    return "\n\n".join(p.strip("\n") for p in parts if p) + "\n"


WORDS = dict(enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight")))
WORDS |= {9: "nine", 10: "ten"}

GENERATED = (
    "This page is generated (`python docs/generate.py`) from the result JSON in `docs/results/`; "
    "a test fails when it is stale."
)


# ---------------------------------------------------------------------------------------------
# validation/scenarios.md


def _scenario_scenes():
    from rigidflock.bundled import scenario_path
    from rigidflock.runs import scenarios
    from rigidflock.scene import load_scene

    out = {}
    for name in scenarios.NAMES:
        path = scenario_path(name)
        first = path.read_text().splitlines()[0].lstrip("# ").strip()
        out[name] = (first, load_scene(path))
    return out


def _limit_expression() -> str:
    from rigidflock.runs import scenarios

    tree = ast.parse(textwrap.dedent(inspect.getsource(scenarios.time_limit)))
    last = tree.body[0].body[-1]  # the function's own return, after its helper
    if not isinstance(last, ast.Return):
        raise SystemExit("docs/_gen/validation.py: time_limit no longer ends in its return")
    text = ast.unparse(last.value)
    if text.startswith("max((") and text.endswith("))"):  # unparse brackets the generator
        text = f"max({text[5:-2]})"
    return text


def _passes(r: dict) -> bool:
    return (
        r["arrived_fraction"] == 1.0
        and r["t100"] is not None
        and r["t100"] <= r["limit"]
        and r["longest_pin_seconds"] <= PIN_BOUND
    )


RUN_HEAD = [
    "scenario",
    "seed",
    "units",
    "arrived",
    "t95 s",
    "t100 s",
    "limit s",
    "unit contacts",
    "wall contacts",
    "pinned unit-s",
    "longest pin s",
    "stuck unit-s",
    "score",
    "pass",
]


def _run_row(r: dict) -> list[str]:
    return [
        f"`{r['scenario']}`",
        str(r["seed"]),
        f"{r['units']:,}",
        pct(r["arrived_fraction"]),
        num(r["t95"]),
        num(r["t100"]),
        num(r["limit"]),
        f"{r['unit_contacts']:,}",
        f"{r['wall_contacts']:,}",
        num(r["pinned_seconds"]),
        num(r["longest_pin_seconds"], 2),
        num(r["stuck_seconds"]),
        num(r["score"]),
        "yes" if _passes(r) else "**no**",
    ]


def _settings(rows: list[dict]) -> str:
    """What, besides the seeds, the runs were run with, when not the scenes' own."""
    sets = sorted({a for r in rows for a in r["set"]})
    ticks = sorted({r["reaction_ticks"] for r in rows})
    out = []
    if sets:
        out.append("with " + ", ".join(f"`--set {a}`" for a in sets))
    if ticks != [0]:
        out.append(f"with `world.reaction_ticks` {', '.join(map(str, ticks))}")
    return "; ".join(out)


def _seed_summary(rows: list[dict]) -> str:
    by: dict[str, list[dict]] = {}
    for r in rows:
        by.setdefault(r["scenario"], []).append(r)
    out = []
    for name, rs in by.items():
        done = [r["t100"] for r in rs if r["t100"] is not None]
        slowest = max((r["t100"] or r["limit"]) / r["limit"] for r in rs)
        out.append(
            [
                f"`{name}`",
                seeds_text(r["seed"] for r in rs),
                f"{sum(_passes(r) for r in rs)} of {len(rs)}",
                pct(min(r["arrived_fraction"] for r in rs)),
                num(statistics.median(done)) if done else "-",
                f"{slowest:.2f}",
                num(max(r["longest_pin_seconds"] for r in rs), 2),
                num(statistics.mean(r["pinned_seconds"] for r in rs)),
                num(statistics.mean(r["unit_contacts"] for r in rs)),
                num(statistics.mean(r["wall_contacts"] for r in rs)),
                num(min(r["score"] for r in rs)),
                num(statistics.mean(r["score"] for r in rs)),
            ]
        )
    head = [
        "scenario",
        "seeds",
        "pass",
        "arrived, least",
        "t100 s, median",
        "slowest t100 / limit",
        "longest pin s",
        "pinned unit-s, mean",
        "unit contacts, mean",
        "wall contacts, mean",
        "score, least",
        "score, mean",
    ]
    return table(head, out)


def scenarios_page() -> str:
    from rigidflock.model.measures.pins import PIN_SLOW
    from rigidflock.rts.orders import STUCK_AFTER
    from rigidflock.runs import scenarios
    from rigidflock.scene import parse_scene

    scenes = _scenario_scenes()
    own = load("scenarios")
    rows = own["results"]
    default = parse_scene("[[groups]]\ncount = 1\n", "default.toml")
    masses = sorted({g.mass for _, sc in scenes.values() for g in sc.groups})
    friction = sorted({sc.physics.friction for _, sc in scenes.values()})
    what = table(
        ["scenario", "the scene"],
        [[f"`{n}`", first] for n, (first, _) in scenes.items()],
        left=-1,
    )
    score_doc = " ".join(inspect.getdoc(scenarios.score).split())
    own_table = table(RUN_HEAD, [_run_row(r) for r in rows])
    mean = statistics.mean(r["score"] for r in rows)
    passed = sum(_passes(r) for r in rows)
    settings = _settings(rows)
    parts = [
        "# Scored scenarios",
        "The scored scenario suite runs ten scenes modelled on SteerSuite's classic test cases "
        "(1 m is one unit length, 4 world units; walls are `[[walls]]` segments; every group "
        "is given one move order to a target it shares). SteerSuite's agents stand for people, "
        "and so do these units: every group's mass is "
        f"{' or '.join(f'{m:g}' for m in masses)} kg (rigidflock's default unit has "
        f"{default.groups[0].mass:g}), so "
        "that a unit gathers speed from rest as a pedestrian does, and the scenes are "
        f"frictionless (`[physics] friction = {' or '.join(f'{f:g}' for f in friction)}`, "
        f"default {default.physics.friction:g}), "
        "as SteerSuite's agents are. The scenes ship with the package "
        "(`rigidflock run scenes/scenarios/wall_squeeze.toml` runs one from any folder).",
        what,
        "## What is measured",
        "Each scenario runs until every ordered unit stands on its slot or its time limit "
        "passes. The limit is the one the RTS tests use, the largest over the scene's groups "
        "(`time_limit` in `rigidflock/runs/scenarios.py`, with `route` the group's route length "
        "and `length` the unit length):\n\n"
        f"```python\n{_limit_expression()}\n```",
        "The columns:\n\n"
        "- **arrived**: the share of the ordered units on their slots when the run ends.\n"
        "- **t95 s**, **t100 s**: seconds from the first order until 95% and all of the units "
        "stood on their slots (`-`: not within the limit).\n"
        "- **limit s**: the time limit.\n"
        "- **unit contacts**, **wall contacts**: contacts begun (counted by pymunk) between two "
        "units, and between a unit and a wall, building or obstacle.\n"
        "- **pinned unit-s**: the unit-seconds units spent touching static geometry while slower "
        f"than {PIN_SLOW:g} x their cruise speed; **longest pin s**: the longest such spell of "
        "one unit.\n"
        "- **stuck unit-s**: the unit-seconds ordered units not on their slot went more than "
        f"{STUCK_AFTER:g} s without getting half a route cell nearer their goal. It counts "
        "queueing and forming up as well as being stuck, so it is large even where every unit "
        "arrives early.\n"
        f"- **score** (`score` in `rigidflock/runs/scenarios.py`): {score_doc}\n"
        "- **pass**: the suite's requirement, which `tests/runs/test_scenarios.py` checks: "
        "every unit on its slot within the limit, and no unit pinned for more than "
        f"{PIN_BOUND:g} s at a time.",
        "## On each scene's own seed",
        f"{passed} of {len(rows)} scenarios pass; mean score {mean:.1f}"
        + (f" ({settings})" if settings else "")
        + ".",
        own_table,
        produced(own, "scenarios"),
    ]
    seeds_path = ROOT / RECORDS["scenario_seeds"][1]
    if seeds_path.exists():
        many = load("scenario_seeds")
        runs = many["results"]
        names = list(scenarios.NAMES)

        def order(r):
            return (names.index(r["scenario"]), r["seed"])

        seeds = sorted({r["seed"] for r in runs})
        n_scen = len({r["scenario"] for r in runs})
        settings = _settings(runs)
        parts += [
            f"## Seeds {seeds_text(seeds)}",
            f"The {WORDS.get(n_scen, n_scen)} smaller scenarios on seeds {seeds_text(seeds)} "
            "(the seed draws the "
            "spawn places and headings)"
            + (f", {settings}" if settings else "")
            + f": {sum(_passes(r) for r in runs)} of {len(runs)} runs pass. Per scenario, the "
            "least share arrived, the median time to 100%, the slowest run's time to 100% as a "
            "share of its limit, the longest pin of any run, and the means over the seeds:",
            _seed_summary(runs),
            "### Every run",
            table(RUN_HEAD, [_run_row(r) for r in sorted(runs, key=order)]),
            produced(many, "scenario_seeds"),
        ]
    parts.append(GENERATED)
    return page(*parts)


# ---------------------------------------------------------------------------------------------
# validation/forests.md


def forests_page() -> str:
    from rigidflock.model.measures.pins import PIN_SLOW

    data = load("forests")
    res = data["results"]
    cells = res["cells"]
    ratio_limit, pin_limit = res["ratio_limit"], res["pin_limit"]
    scene_text = res["scene"].format(view="wide", bounds="wrap", avoid="true")
    scene = tomllib.loads(scene_text)
    group, field = scene["groups"][0], scene["obstacle_field"]
    w, h = scene["world"]["size"]
    views = list(dict.fromkeys(c["view"] for c in cells))
    bounds = list(dict.fromkeys(c["bounds"] for c in cells))
    seeds = sorted({c["seed"] for c in cells})
    summary = []
    for v in views:
        for b in bounds:
            cs = [c for c in cells if c["view"] == v and c["bounds"] == b]
            ratios = [c["ratio"] for c in cs]
            worst = "inf" if None in ratios else f"{max(ratios):.2f}"
            summary.append(
                [
                    v,
                    b,
                    f"{sum(c['pass'] for c in cs)} of {len(cs)}",
                    f"{sum(c['on']['obstacle_contacts'] for c in cs):,}",
                    f"{sum(c['off']['obstacle_contacts'] for c in cs):,}",
                    worst,
                    num(max(c["on"]["longest_pin_seconds"] for c in cs), 2),
                    num(max(c["on"]["pinned_seconds"] for c in cs), 2),
                ]
            )
    every = [
        [
            c["view"],
            c["bounds"],
            str(c["seed"]),
            f"{c['on']['obstacle_contacts']:,}",
            f"{c['off']['obstacle_contacts']:,}",
            "inf" if c["ratio"] is None else f"{c['ratio']:.2f}",
            num(c["on"]["longest_pin_seconds"], 2),
            num(c["on"]["pinned_seconds"], 2),
            "yes" if c["pass"] else "**no**",
        ]
        for c in cells
    ]
    passed = sum(c["pass"] for c in cells)
    ratios = [c["ratio"] for c in cells]
    worst = "inf" if None in ratios else f"{max(ratios):.2f}"
    beside = (
        " The steering is decided beside the physics step (`world.reaction_ticks = 1`)."
        if res["reaction_ticks"]
        else ""
    )
    return page(
        "# Forests",
        "Obstacle avoidance follows *AI for Game Developers*, chapter 4: each unit's feeler "
        "runs ahead along its heading, and an obstacle the feeler hits turns the unit away. "
        "In the wide view the plain sum of the book's rules lets the flock's cohesion outvote "
        "a tree, so rigidflock gives avoidance priority when an obstacle is close ahead and "
        "steers a unit in contact off along the surface. The "
        "forest matrix measures that avoidance works in every view and both kinds of world "
        "edge.",
        "## What is measured",
        f"{group['count']} units of one family and no player in a world of {w:g} x {h:g} with "
        f"{field['count']} trees of radius {field['radius']:g} placed from the seed (at least "
        f"{field['margin']:g} from the world's edge and the spawn disc), {res['ticks']:,} ticks, "
        f"for each view ({', '.join(views)}), each kind of edge ({', '.join(bounds)}) and "
        f"seeds {seeds_text(seeds)}: every cell is run with avoidance on and off." + beside,
        f"A cell passes when the obstacle contacts with avoidance on are at most {ratio_limit:g} "
        "x those with it off (**ratio**; `inf` when only the run with avoidance on touched a "
        "tree), and no unit is pinned against a tree or wall (touching it while slower than "
        f"{PIN_SLOW:g} x its cruise speed) for more than {pin_limit:g} s at a time with avoidance "
        "on. The limits are `tools/forest_matrix.py`'s; `tests/sim/test_forests.py` checks "
        "every cell.",
        "The scene (the view, the edges and `avoidance` change per cell):\n\n"
        f"```toml\n{scene_text.strip()}\n```",
        "## Results",
        f"{passed} of {len(cells)} cells pass; the worst ratio is {worst}, the longest pin "
        f"{max(c['on']['longest_pin_seconds'] for c in cells):.2f} s. Per view and edge (sums "
        "of contacts over the seeds, the worst cell's ratio and pins):",
        table(
            [
                "view",
                "edges",
                "pass",
                "contacts, on",
                "contacts, off",
                "worst ratio",
                "longest pin s",
                "pinned unit-s, most",
            ],
            summary,
            left=2,
        ),
        "### Every cell",
        table(
            [
                "view",
                "edges",
                "seed",
                "contacts, on",
                "contacts, off",
                "ratio",
                "longest pin s",
                "pinned unit-s",
                "pass",
            ],
            every,
            left=2,
        ),
        produced(data, "forests"),
        GENERATED,
    )


# ---------------------------------------------------------------------------------------------
# validation/behaviour.md

# what the book shows, per case of tools/behaviour_figures.py
CLAIMS = {
    "align": "Flocking (cohesion, alignment and separation together) turns a cloud of units with "
    "random headings into flocks heading one way; without the rules the headings stay random.",
    "views": "The view model decides what a unit flocks with: the wide view sees all round but "
    "a sector behind, the limited view only ahead, the narrow view a cone ahead. With the narrow "
    "view a unit follows the unit in front of it, and flocks string out into lines. The test "
    "compares the narrow view with the wide; the limited view is measured beside them.",
    "separation": "Separation keeps units apart: with collisions off, so that only steering "
    "keeps them apart, units without it are pulled through each other by cohesion.",
    "forest": "Feelers steer units round obstacles.",
    "intercept": "An interceptor, steering at where the player will be, reaches a player "
    "running straight sooner than a chaser of equal thrust steering at where it is.",
    "leader": "A unit with nobody in front of it leads: it chases the player, and the flock "
    "follows it. Without the chase the flock ignores the player.",
    "families": "Cohesion and alignment act only within a family (separation with everyone): "
    "two families spawned together flock apart, each aligned.",
}


def _series_table(case: dict) -> str:
    seeds = case["series"][0]["seeds"]
    same = all(s["seeds"] == seeds for s in case["series"])
    if not same:  # not expected: every series of a case runs the same seeds
        raise SystemExit(f"docs/_gen/validation.py: case {case['name']}: series differ in seeds")
    rows = []
    for s in case["series"]:
        v = s["values"]
        rows.append([s["label"], *map(sig, v), sig(min(v)), sig(statistics.median(v)), sig(max(v))])
    return table(["measure", *(f"seed {x}" for x in seeds), "min", "median", "max"], rows)


def _check_value(c: dict) -> str:
    v = c["value"]
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return f"{v:.4g}"


def _checks_table(case: dict) -> str:
    rows = [
        [
            c["what"],
            _check_value(c),
            f"{c['op']} {'yes' if c['bound'] is True else sig(c['bound'])}",
            "yes" if c["pass"] else "**no**",
        ]
        for c in case["checks"]
    ]
    return table(["the test checks", "measured", "bound", "pass"], rows)


def _case_extra(case: dict) -> str:
    if case["name"] == "intercept":
        rows = [
            [
                f"({s['start'][0]}, {s['start'][1]})",
                f"{s['heading']}",
                "-" if s["chase_tick"] is None else f"{s['chase_tick']:,}",
                "-" if s["intercept_tick"] is None else f"{s['intercept_tick']:,}",
                f"{s['intercept_tick'] / s['chase_tick']:.2f}"
                if s["chase_tick"] and s["intercept_tick"]
                else "-",
            ]
            for s in case["starts"]
        ]
        return "First contact with the player, in ticks:\n\n" + table(
            ["pursuer starts at", "heading, degrees", "chase", "intercept", "intercept / chase"],
            rows,
            left=2,
        )
    if case["name"] == "leader":
        cos = case["cos"]
        n = len(cos["0"])
        rows = [
            [f"after {int(t):,} ticks" if int(t) else "at the start", *(f"{x:.2f}" for x in cos[t])]
            for t in sorted(cos, key=int)
        ]
        rows.append(
            ["chase off, after 600 ticks", *(f"{x:.2f}" for x in case["cos_chase_off_600"])]
        )
        return (
            "Cosine between each unit's heading and the direction to the player (1: facing it; "
            "unit 0 is the front of the column):\n\n"
            + table(["", *(f"unit {k}" for k in range(n))], rows)
        )
    return ""


def behaviour_page() -> str:
    data = load("behaviour")
    cases = data["results"]["cases"]
    checks = [c for case in cases for c in case["checks"]]
    parts = [
        "# Behaviour",
        "rigidflock's rules are those of *AI for Game Developers*, chapter 4 (the AIDemo4 "
        "example): cohesion, alignment and separation within a view model, leaders that chase "
        "or intercept the player, families that flock apart, and feelers that avoid obstacles. "
        "The book shows what these rules do; each of its results is a test "
        "(`tests/sim/test_behaviour.py`, `tests/sim/test_chase.py`) with bounds set inside the "
        "gap between the two cases it separates. `tools/behaviour_figures.py` runs each test's "
        "own setup, on the test's seeds and more, and the test's own checks on the test's "
        "seeds.",
        f"{sum(c['pass'] for c in checks)} of {len(checks)} checks pass.",
    ]
    for case in cases:
        parts += [
            f"## {case['title']}",
            CLAIMS.get(case["name"], ""),
            f"Setup: {case['setup']}. The test: `{case['test']}`.",
            _series_table(case) if case["series"] else "",
            _case_extra(case),
            "\n".join(f"{n[0].upper()}{n[1:]}." for n in case["notes"] if "leaders at" not in n),
            _checks_table(case),
        ]
    parts += [produced(data, "behaviour"), GENERATED]
    return page(*parts)


# ---------------------------------------------------------------------------------------------
# validation/index.md


def index_page() -> str:
    rows = []
    what = {
        "scenarios": "the scored scenario suite on each scene's own seed: arrivals, times, "
        "contacts, pins, score",
        "scenario_seeds": "the smaller scenarios on more seeds",
        "forests": "obstacle avoidance in every view and world edge: contacts with avoidance on "
        "against off, pins",
        "behaviour": "the book's behaviour claims, measured on the tests' setups",
    }
    pages_of = {
        "scenarios": "[Scored scenarios](scenarios.md)",
        "scenario_seeds": "[Scored scenarios](scenarios.md)",
        "forests": "[Forests](forests.md)",
        "behaviour": "[Behaviour](behaviour.md)",
    }
    for name in RECORDS:
        if not (ROOT / RECORDS[name][1]).exists() and name == "scenario_seeds":
            continue
        data = load(name)
        rows.append(
            [
                pages_of[name],
                f"`{data['command']}`",
                f"`python docs/_gen/validation.py record {name}`",
                f"`{data['commit']}`, {data['date']}",
                what[name],
            ]
        )
    rows.append(
        [
            "[Fuzzing](fuzzing.md)",
            "see the page",
            "",
            "",
            "the command line fed bad scenes and damaged replays",
        ]
    )
    rows.append(
        [
            "[Model 22 against model 21](before_after.md)",
            "see the page",
            "`python tools/before_after_json.py`",
            "",
            "the scored suite and the bundled RTS scenes before and after; the two-way door "
            "on seeds 1-24 with both masses",
        ]
    )
    return page(
        "# Validation",
        "What rigidflock is checked against, measured: the scored scenario suite modelled on "
        "SteerSuite's test cases, obstacle avoidance in forests, the behaviour *AI for Game "
        "Developers* (chapter 4) shows for its rules, and fuzzing. Every table on these pages "
        "is generated from result JSON in `docs/results/`; each page names the command that "
        "wrote its JSON and the commit it ran at.",
        "## Reproducing a page",
        "Run the page's command from the repository's root, or `python docs/_gen/validation.py "
        "record NAME`, which runs it with one numba thread and stores the commit, the date and "
        "the wall time in the JSON; then `python docs/generate.py` writes the pages again. "
        "Tools under `tools/` take `PYTHONPATH=$PWD`. Every run is seeded: the same command at "
        "the same commit gives the same figures, all but the wall-clock times.",
        table(
            ["page", "command", "recorded with", "commit, date", "what it measures"], rows, left=-1
        ),
        "```{toctree}\n:hidden:\n\nscenarios\nforests\nbehaviour\nfuzzing\nbefore_after\n```",
        GENERATED,
    )


def pages() -> dict[str, str]:
    return {
        "validation/index.md": index_page(),
        "validation/scenarios.md": scenarios_page(),
        "validation/forests.md": forests_page(),
        "validation/behaviour.md": behaviour_page(),
    }


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "record" or argv[1] not in RECORDS:
        print(f"usage: python docs/_gen/validation.py record {{{','.join(RECORDS)}}}")
        return 2
    return record(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
