"""Where a scenario's units get pinned: every spell of one unit pinned for at least ``--min``
seconds (touching static geometry while slower than 0.1 x cruise, the run metrics' definition),
longest first, with where it ended and the unit's heading then.

    python tools/pin_spells.py bottleneck_squeeze --seed 13 [--reaction-ticks 0|1] [--min 3]
        [--crowd] [--set PATH=VALUE ...]

Runs one scenario scene of ``scenes/scenarios`` until every group has arrived, or for ``--until``
simulated seconds at most (default 300). Run it with ``NUMBA_NUM_THREADS=1`` beside other work:
the figures are the same either way. Found this way (seed 13, 1,000-unit bottleneck): the long
pins are units lying along the wall's face 2-10 lengths from the jamb.

``--crowd`` also lists the spells of ordered units not yet on their slots that are as slow for as
long without touching static geometry at any time in the spell: the crowd's own stalls, which the
pin measure does not count, to set the pins against.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rigidflock.bundled import scenario_path  # noqa: E402
from rigidflock.cli.args import set_arg  # noqa: E402
from rigidflock.model.measures.pins import pin_tick  # noqa: E402
from rigidflock.runs.scenarios import scenario_scene  # noqa: E402
from rigidflock.scene import SceneError  # noqa: E402
from rigidflock.sim import Simulation  # noqa: E402


def stall_tick(vel, touching, cruise, on_slot, slow, touched, dt):
    """One tick of the crowd's stalls, in place: ``slow`` (n,) seconds each unit has been slower
    than the pin speed (touching or not; 0 on its slot, ``on_slot`` (n,) bool: standing there
    is no stall) and ``touched`` (n,) bool, whether its spell so far touched static geometry
    (``touching`` (n,) > 0); ``vel`` (n, 2), ``cruise`` (n,), ``dt`` s. Returns (ended (n,)
    bool: spells that ended this tick, by speed or on the slot, without touching anything
    static; their lengths (n,) s)."""
    before = slow.copy()
    pin_tick(vel, np.ones_like(touching), cruise, slow, dt)
    slow[on_slot] = 0.0
    ended = (slow == 0) & (before > 0) & ~touched
    touched[:] = (touched | (touching > 0)) & (slow > 0)
    return ended, before


def spells(
    name: str, seed: int, reaction: int | None, least: float, until: float, overrides=(),
    crowd: bool = False,
) -> tuple[list, list]:  # fmt: skip
    """(pins, stalls): [(seconds, unit, end seconds, x, y, heading degrees)] of every pin of
    ``least`` s+, and with ``crowd`` of every such :func:`stall_tick` stall of an ordered unit
    (else empty); those still under way when the run ends count as ending then.
    ``overrides``: ``PATH=VALUE`` changes to the scene, as ``--set`` takes them."""
    scene = scenario_scene(scenario_path(name), reaction, overrides)
    sim = Simulation(scene, seed=seed)
    dt, n = scene.world.dt, sim.units.n_ai
    run, slow = np.zeros(n), np.zeros(n)
    touched = np.zeros(n, dtype=bool)
    cruise = np.ascontiguousarray(sim.units.cruise_speed[:n])
    pins, stalls = [], []

    def keep(found, length, which):
        st = sim.state
        for k in np.flatnonzero(which & (length >= least)):
            heading = float(np.degrees(st.angle[k])) % 360
            found.append((length[k], int(k), sim.tick * dt, *st.pos[k], heading))

    while sim.tick * dt < until:
        sim.step()
        st, touching = sim.state, sim.world.touching[:n]
        before = run.copy()
        pin_tick(st.vel[:n], touching, cruise, run, dt)
        keep(pins, before, run == 0)
        if crowd:
            on_slot = np.ones(n, dtype=bool)  # units without an order count as on theirs
            for g in sim.orders.groups.values():
                on_slot[g.members] = g.arrived
            ended, length = stall_tick(st.vel[:n], touching, cruise, on_slot, slow, touched, dt)
            keep(stalls, length, ended)
        groups = sim.orders.groups.values()
        if groups and all(g.arrival_tick is not None for g in groups):
            break
    keep(pins, run, run > 0)
    keep(stalls, slow, (slow > 0) & ~touched)
    return sorted(pins, reverse=True), sorted(stalls, reverse=True)


def show(what: str, found: list, least: float, most: int | None = None) -> None:
    """Print the spells ``found`` (longest first), the first ``most`` of them (None: all)."""
    print(f"{what}: {len(found)} of {least} s or more, {sum(s[0] > 5 for s in found)} over 5 s")
    for length, unit, end, x, y, heading in found[:most]:
        print(f"  {length:6.2f} s  unit {unit:4d}  ended {end:6.1f} s  at ({x:6.1f}, {y:6.1f})  "
              f"heading {heading:3.0f}")  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reaction-ticks", type=int, choices=(0, 1), default=None)
    ap.add_argument("--min", type=float, default=3.0, help="shortest spell shown, seconds")
    ap.add_argument("--until", type=float, default=300.0, help="simulated seconds at most")
    ap.add_argument(
        "--crowd", action="store_true", help="also the crowd's stalls away from static geometry"
    )
    set_arg(ap, "change a key of the scene, as rigidflock run --set")
    a = ap.parse_args()
    try:
        pins, stalls = spells(
            a.scenario, a.seed, a.reaction_ticks, a.min, a.until, a.set, crowd=a.crowd
        )
    except SceneError as e:
        print("\n".join(e.errors), file=sys.stderr)
        return 2
    print(f"{a.scenario} seed {a.seed}:")
    show("pins", pins, a.min)
    if a.crowd:
        show("stalls touching nothing static (the longest 20)", stalls, a.min, most=20)
    return 0


if __name__ == "__main__":
    sys.exit(main())
