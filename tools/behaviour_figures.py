"""The figures of the docs' validation page "The book's behaviour claims" and of the docstrings of
tests/sim/test_behaviour.py and tests/sim/test_chase.py: the tests' own setups, run over the
seeds the docstrings quote, each case's per-seed values with min, median and max, and each test's
own check on the test's own seeds.

    PYTHONPATH=$PWD python tools/behaviour_figures.py [align separation narrow views forest
        intercept leader families] [--json FILE]

``--json FILE`` writes every case as JSON (docs/validation/behaviour.md is made from it): per case
its title, the test it measures, the setup, its series (label, seeds, values) and the test's
checks (what, value, bound, pass). The bounds are the tests' own, written again here: a change to
a test's bound is a change here too.

Runs on one process; run it with ``NUMBA_NUM_THREADS=1 nice -n 19`` on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import operator
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rigidflock.model.measures.alignment import polarization  # noqa: E402
from rigidflock.runs.runner import run_scene  # noqa: E402
from rigidflock.scene import parse_scene  # noqa: E402
from rigidflock.sim import Simulation  # noqa: E402
from tests.sim.test_behaviour import cloud  # noqa: E402
from tests.sim.test_chase import FLOCK_AWAY, PURSUIT, toward_player  # noqa: E402

OPS = {">": operator.gt, "<": operator.lt, ">=": operator.ge, "<=": operator.le, "==": operator.eq}


def scene_from(text: str, name: str = "figures.toml"):
    return parse_scene(text, name)


class Case:
    """One case's figures, printed as they come and kept for ``--json``."""

    def __init__(self, name: str, title: str, test: str, setup: str):
        self.out = {"name": name, "title": title, "test": test, "setup": setup}
        self.out.update(series=[], checks=[], notes=[])

    def show(self, label: str, seeds, values) -> None:
        """One line: the label, seed -> value pairs, then min / median / max."""
        v = np.asarray(values, dtype=float)
        pairs = ", ".join(f"{s}: {x:.3g}" for s, x in zip(seeds, v, strict=True))
        print(f"{label}: {pairs} | min {v.min():.3g} median {np.median(v):.3g} max {v.max():.3g}")
        self.out["series"].append(
            {"label": label, "seeds": [int(s) for s in seeds], "values": [float(x) for x in v]}
        )

    def check(self, what: str, value, op: str, bound) -> None:
        """The test's assertion ``value op bound``; a value of None (no contact, say) fails."""
        ok = value is not None and bool(OPS[op](value, bound))
        print(f"  check: {what} = {value} {op} {bound}: {'pass' if ok else 'FAIL'}")
        value = value if value is None or isinstance(value, bool) else float(value)
        self.out["checks"].append(
            {"what": what, "value": value, "op": op, "bound": bound, "pass": ok}
        )

    def note(self, text: str) -> None:
        print(text)
        self.out["notes"].append(text)


def metric(scene, ticks, seeds, key):
    return [run_scene(scene, ticks, seed=s).metrics[key] for s in seeds]


def pick(seeds, values, chosen):
    return [v for s, v in zip(seeds, values, strict=True) if s in chosen]


def align_and_narrow() -> list[dict]:
    """test_flocking_aligns_a_random_cloud and test_narrow_view_strings_flocks_out_into_lines;
    the limited view beside them (no test bounds it)."""
    seeds = list(range(1, 6))
    runs = {
        name: [run_scene(sc, 3000, seed=s).metrics for s in seeds]
        for name, sc in (
            ("wide", cloud(scene_from)),
            ("off", cloud(scene_from, flocking=False)),
            ("limited", cloud(scene_from, view="limited")),
            ("narrow", cloud(scene_from, view="narrow")),
        )
    }
    setup = "30 units of one family, random headings, 800 x 600 wrap-around, 3,000 ticks (50 s)"
    align = Case(
        "align", "Flocking aligns a random cloud", "test_flocking_aligns_a_random_cloud", setup
    )
    on = [m["polarization_final"] for m in runs["wide"]]
    off = [m["polarization_final"] for m in runs["off"]]
    align.show("polarization_final, flocking on (wide)", seeds, on)
    align.show("polarization_final, flocking off", seeds, off)
    test_seeds = (1, 2, 3)
    pol_on, pol_off = np.mean(pick(seeds, on, test_seeds)), np.mean(pick(seeds, off, test_seeds))
    align.check("mean polarization_final on, seeds 1-3", pol_on, ">", 0.55)
    align.check("mean polarization_final off, seeds 1-3", pol_off, "<", 0.35)
    align.check("on - off, seeds 1-3", pol_on - pol_off, ">", 0.35)

    views = Case(
        "views",
        "The three view models",
        "test_narrow_view_strings_flocks_out_into_lines",
        setup + "; flocking on in each view",
    )
    for view in ("wide", "limited", "narrow"):
        views.show(f"elongation_final, {view}", seeds, [m["elongation_final"] for m in runs[view]])
    for view in ("wide", "limited", "narrow"):
        views.show(f"flocks_final, {view}", seeds, [m["flocks_final"] for m in runs[view]])
    for view in ("wide", "limited", "narrow"):
        views.show(
            f"polarization_final, {view}", seeds, [m["polarization_final"] for m in runs[view]]
        )
    wide = [m["elongation_final"] for m in runs["wide"]]
    narrow = [m["elongation_final"] for m in runs["narrow"]]
    longer = sum(n > w for n, w in zip(narrow, wide, strict=True))
    views.note(f"narrow longer than wide on {longer} of {len(wide)} seeds")
    test_seeds = (1, 3, 4)
    w3, n3 = pick(seeds, wide, test_seeds), pick(seeds, narrow, test_seeds)
    views.check(
        "median elongation narrow / wide, seeds 1, 3, 4", np.median(n3) / np.median(w3), ">", 1.5
    )
    views.check(
        "seeds of 1, 3, 4 with narrow longer than wide",
        sum(n > w for n, w in zip(n3, w3, strict=True)),
        ">=",
        2,
    )
    return [align.out, views.out]


def separation() -> list[dict]:
    """test_separation_keeps_units_apart."""
    seeds = list(range(1, 9))
    case = Case(
        "separation",
        "Separation keeps units apart",
        "test_separation_keeps_units_apart",
        "30 units spawned heading the same way (disc of radius 60), collisions off so only "
        "steering keeps them apart, 1,200 ticks",
    )
    kw = {"collisions": False, "heading": "heading = 0", "radius": 60.0}
    on = metric(cloud(scene_from, **kw), 1200, seeds, "min_separation")
    off = metric(cloud(scene_from, separation=0.0, **kw), 1200, seeds, "min_separation")
    case.show("min_separation, separation on", seeds, on)
    case.show("min_separation, separation off", seeds, off)
    test_seeds = (1, 3, 4, 5)
    m_on, m_off = np.median(pick(seeds, on, test_seeds)), np.median(pick(seeds, off, test_seeds))
    case.check("median min_separation on, seeds 1, 3, 4, 5", m_on, ">", 1.0)
    case.check("median min_separation off, seeds 1, 3, 4, 5", m_off, "<", 0.3)
    case.check("median on / median off", m_on / m_off if m_off else None, ">", 5)
    return [case.out]


def forest() -> list[dict]:
    """test_feelers_avoid_the_forest."""
    text = (ROOT / "scenes" / "forest.toml").read_text()
    off_text = text.replace("chase = false", "chase = false\navoidance = false")
    seeds = [1, 2]
    case = Case(
        "forest",
        "Feelers avoid the forest",
        "test_feelers_avoid_the_forest",
        "the bundled forest scene, 2,000 ticks, avoidance on against off",
    )
    on = metric(scene_from(text), 2000, seeds, "obstacle_contacts")
    off = metric(scene_from(off_text), 2000, seeds, "obstacle_contacts")
    case.show("obstacle_contacts, avoidance on", seeds, on)
    case.show("obstacle_contacts, avoidance off", seeds, off)
    case.check("obstacle contacts off, seeds 1 + 2", sum(off), ">=", 50)
    case.check(
        "contacts on / off, seeds 1 + 2", sum(on) / sum(off) if sum(off) else None, "<=", 0.1
    )
    return [case.out]


def intercept() -> list[dict]:
    """test_interceptors_reach_a_straight_running_player_sooner."""
    case = Case(
        "intercept",
        "Interceptors reach a straight-running player sooner",
        "test_interceptors_reach_a_straight_running_player_sooner",
        "one pursuer (thrust 15 for either role), flocking off, against a player running "
        "straight from (200, 1500), 3000 x 3000 open world, up to 6,000 ticks",
    )
    case.out["starts"] = []
    for x, y, heading in [(1000, 1800, -90), (800, 1200, 90), (600, 1800, 0)]:
        first = {}
        for role in ("chase", "intercept"):
            sc = scene_from(PURSUIT.format(role=role, x=x, y=y, heading=heading))
            first[role] = run_scene(sc, 6000).metrics["first_player_contact_tick"]
        c, i = first["chase"], first["intercept"]
        ratio = f"{i / c:.2f}" if c and i else "-"
        print(f"pursuer at ({x}, {y}) heading {heading}: chase {c}, intercept {i}, ratio {ratio}")
        case.out["starts"].append(
            {"start": [x, y], "heading": heading, "chase_tick": c, "intercept_tick": i}
        )
        case.check(
            f"intercept / chase first contact tick, from ({x}, {y})",
            i / c if c and i else None,
            "<",
            0.9,
        )
    return [case.out]


def leader() -> list[dict]:
    """test_the_leader_of_a_flock_heading_away_turns_toward_the_player and
    test_without_chase_the_flock_ignores_the_player."""
    case = Case(
        "leader",
        "The leader of a flock heading away turns toward the player",
        "test_the_leader_of_a_flock_heading_away_turns_toward_the_player",
        "six units in a column heading away (+x) from a still player 500 behind, avoidance off, "
        "open world",
    )
    sim = Simulation(scene_from(FLOCK_AWAY))
    leaders = np.flatnonzero(sim.steering.leader).tolist()
    case.note(f"leaders at the start: {leaders}")
    case.check("only the front unit leads at the start", leaders == [0], "==", True)
    cos = {0: toward_player(sim)}
    for t in (600, 1200):
        for _ in range(600):
            sim.step()
        cos[t] = toward_player(sim)
    print(f"leader cos toward player at 600 ticks: {cos[600][0]:.3f}")
    print(f"every unit's cos at 1200 ticks: min {cos[1200].min():.3f}")
    case.out["cos"] = {str(t): [float(x) for x in c] for t, c in cos.items()}
    case.check("every unit's cos toward the player at the start, max", cos[0].max(), "<", -0.99)
    case.check("the leader's cos toward the player at 600 ticks", cos[600][0], ">", 0.8)
    case.check("every unit's cos toward the player at 1,200 ticks, min", cos[1200].min(), ">", 0.5)
    sim = Simulation(scene_from(FLOCK_AWAY.replace("avoidance = false", "chase = false")))
    for _ in range(600):
        sim.step()
    away = toward_player(sim)
    case.out["cos_chase_off_600"] = [float(x) for x in away]
    case.check("chase off: every unit's cos at 600 ticks, max", away.max(), "<", -0.5)
    return [case.out]


def families() -> list[dict]:
    """test_two_families_flock_apart_each_aligned."""
    case = Case(
        "families",
        "Two families flock apart, each aligned",
        "test_two_families_flock_apart_each_aligned",
        "two families of 12 spawned together (disc of radius 80), chase off, 3,000 ticks",
    )
    sc = scene_from(
        "[rules]\nchase = false\n"
        '[[groups]]\nfamily = "a"\ncount = 12\nspawn = { radius = 80.0 }\n'
        '[[groups]]\nfamily = "b"\ncount = 12\nspawn = { radius = 80.0 }\n'
    )
    seeds = list(range(1, 6))
    pols, flocks = [], []
    for s in seeds:
        sim = Simulation(sc, seed=s)
        for _ in range(3000):
            sim.step()
        fam = sim.units.family
        pols.append([polarization(sim.steering.heading[fam == f]) for f in (0, 1)])
        flocks.append(run_scene(sc, 3000, seed=s).metrics["flocks_final"])
    pols = np.asarray(pols)
    case.show("family polarization (lower of the two)", seeds, pols.min(axis=1))
    case.show("family polarization (higher of the two)", seeds, pols.max(axis=1))
    case.show("flocks_final", seeds, flocks)
    case.check("flocks_final, seed 1", flocks[0], ">=", 2)
    case.check("the less aligned family's polarization, seed 1", pols[0].min(), ">", 0.55)
    return [case.out]


CASES = {
    "align": align_and_narrow,
    "narrow": align_and_narrow,
    "views": align_and_narrow,
    "separation": separation,
    "forest": forest,
    "intercept": intercept,
    "leader": leader,
    "families": families,
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", help=f"cases to run, of {', '.join(CASES)} (default: all)")
    ap.add_argument("--json", type=Path, help="write every case's figures and checks as JSON")
    a = ap.parse_args(argv)
    unknown = [n for n in a.cases if n not in CASES]
    if unknown:
        ap.error(f"unknown case {unknown[0]!r} (one of {', '.join(CASES)})")
    if a.json and not a.json.parent.is_dir():
        ap.error(f"--json {a.json}: directory {a.json.parent} does not exist")
    fns = [CASES[n] for n in a.cases] if a.cases else list(dict.fromkeys(CASES.values()))
    out = []
    for fn in dict.fromkeys(fns):
        out += fn()
        sys.stdout.flush()
    if a.json:
        tmp = a.json.with_name(a.json.name + ".part")
        tmp.write_text(json.dumps({"cases": out}, indent=1) + "\n")
        tmp.replace(a.json)
    failed = [c["what"] for case in out for c in case["checks"] if not c["pass"]]
    print(f"{len(failed)} of {sum(len(case['checks']) for case in out)} checks fail")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
