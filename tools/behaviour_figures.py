"""The figures of the README's "Behaviour, measured" section and of the docstrings of
tests/sim/test_behaviour.py and tests/sim/test_chase.py: the tests' own setups, run over the
seeds the docstrings quote, each case's per-seed values with min, median and max.

    PYTHONPATH=$PWD python tools/behaviour_figures.py [align separation narrow forest intercept
        leader families]

Runs on one process; run it with ``NUMBA_NUM_THREADS=1 nice -n 19`` on a shared machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rigidflock.model.metrics import polarization  # noqa: E402
from rigidflock.runs.runner import run_scene  # noqa: E402
from rigidflock.scene import parse_scene  # noqa: E402
from rigidflock.sim import Simulation  # noqa: E402
from tests.sim.test_behaviour import cloud  # noqa: E402
from tests.sim.test_chase import FLOCK_AWAY, PURSUIT, toward_player  # noqa: E402


def scene_from(text: str, name: str = "figures.toml"):
    return parse_scene(text, name)


def show(label: str, seeds, values) -> None:
    """One line: the label, seed -> value pairs, then min / median / max."""
    v = np.asarray(values, dtype=float)
    pairs = ", ".join(f"{s}: {x:.3g}" for s, x in zip(seeds, v, strict=True))
    print(f"{label}: {pairs} | min {v.min():.3g} median {np.median(v):.3g} max {v.max():.3g}")


def metric(scene, ticks, seeds, key):
    return [run_scene(scene, ticks, seed=s).metrics[key] for s in seeds]


def align_and_narrow() -> None:
    """test_flocking_aligns_a_random_cloud and test_narrow_view_strings_flocks_out_into_lines."""
    seeds = range(1, 6)
    runs = {
        name: [run_scene(sc, 3000, seed=s).metrics for s in seeds]
        for name, sc in (
            ("wide", cloud(scene_from)),
            ("off", cloud(scene_from, flocking=False)),
            ("narrow", cloud(scene_from, view="narrow")),
        )
    }
    show(
        "polarization_final, flocking on (wide)",
        seeds,
        [m["polarization_final"] for m in runs["wide"]],
    )
    show("polarization_final, flocking off", seeds, [m["polarization_final"] for m in runs["off"]])
    wide = [m["elongation_final"] for m in runs["wide"]]
    narrow = [m["elongation_final"] for m in runs["narrow"]]
    show("elongation_final, wide", seeds, wide)
    show("elongation_final, narrow", seeds, narrow)
    longer = sum(n > w for n, w in zip(narrow, wide, strict=True))
    print(f"narrow longer than wide in {longer}/{len(wide)} seeds")


def separation() -> None:
    """test_separation_keeps_units_apart."""
    seeds = range(1, 9)
    kw = {"collisions": False, "heading": "heading = 0", "radius": 60.0}
    show(
        "min_separation, separation on",
        seeds,
        metric(cloud(scene_from, **kw), 1200, seeds, "min_separation"),
    )
    off = cloud(scene_from, separation=0.0, **kw)
    show("min_separation, separation off", seeds, metric(off, 1200, seeds, "min_separation"))


def forest() -> None:
    """test_feelers_avoid_the_forest."""
    text = (ROOT / "scenes" / "forest.toml").read_text()
    off_text = text.replace("chase = false", "chase = false\navoidance = false")
    seeds = (1, 2)
    show(
        "forest obstacle_contacts, avoidance on",
        seeds,
        metric(scene_from(text), 2000, seeds, "obstacle_contacts"),
    )
    show(
        "forest obstacle_contacts, avoidance off",
        seeds,
        metric(scene_from(off_text), 2000, seeds, "obstacle_contacts"),
    )


def intercept() -> None:
    """test_interceptors_reach_a_straight_running_player_sooner."""
    for x, y, heading in [(1000, 1800, -90), (800, 1200, 90), (600, 1800, 0)]:
        first = {}
        for role in ("chase", "intercept"):
            sc = scene_from(PURSUIT.format(role=role, x=x, y=y, heading=heading))
            first[role] = run_scene(sc, 6000).metrics["first_player_contact_tick"]
        c, i = first["chase"], first["intercept"]
        ratio = f"{i / c:.2f}" if c and i else "-"
        print(f"pursuer at ({x}, {y}) heading {heading}: chase {c}, intercept {i}, ratio {ratio}")


def leader() -> None:
    """test_the_leader_of_a_flock_heading_away_turns_toward_the_player."""
    sim = Simulation(scene_from(FLOCK_AWAY))
    for _ in range(600):
        sim.step()
    print(f"leader cos toward player at 600 ticks: {toward_player(sim)[0]:.3f}")
    for _ in range(600):
        sim.step()
    print(f"every unit's cos at 1200 ticks: min {toward_player(sim).min():.3f}")


def families() -> None:
    """test_two_families_flock_apart_each_aligned."""
    sc = scene_from(
        "[rules]\nchase = false\n"
        '[[groups]]\nfamily = "a"\ncount = 12\nspawn = { radius = 80.0 }\n'
        '[[groups]]\nfamily = "b"\ncount = 12\nspawn = { radius = 80.0 }\n'
    )
    seeds = range(1, 6)
    pols, flocks = [], []
    for s in seeds:
        sim = Simulation(sc, seed=s)
        for _ in range(3000):
            sim.step()
        fam = sim.units.family
        pols.append([polarization(sim.steering.heading[fam == f]) for f in (0, 1)])
        flocks.append(run_scene(sc, 3000, seed=s).metrics["flocks_final"])
    pols = np.asarray(pols)
    show("family polarization (lower of the two)", seeds, pols.min(axis=1))
    show("family polarization (higher of the two)", seeds, pols.max(axis=1))
    show("flocks_final", seeds, flocks)


CASES = {
    "align": align_and_narrow,
    "narrow": align_and_narrow,
    "separation": separation,
    "forest": forest,
    "intercept": intercept,
    "leader": leader,
    "families": families,
}


def main(argv=None) -> int:
    names = (sys.argv[1:] if argv is None else argv) or list(dict.fromkeys(CASES.values()))
    done = set()
    for name in names:
        fn = CASES[name] if isinstance(name, str) else name
        if fn not in done:
            done.add(fn)
            fn()
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
