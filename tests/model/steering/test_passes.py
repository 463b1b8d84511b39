"""The compiled passes (pair_pass.py: the pair pass; unit_pass.py: the unit pass) against the
numpy definitions of the rules, per view and seed, and their argument bundles."""

import numpy as np
import pytest

from rigidflock.model.steering import pair_pass, unit_pass
from rigidflock.model.steering.blend import World
from rigidflock.model.steering.reference import steer_reference
from rigidflock.sim import Simulation

# the forest of tests/sim/test_forests.py, with a pocket between two trees 1.5 apart that units
# reach on seed 3
from tests.sim.test_forests import FOREST

SCENE = """
seed = {seed}
[world]
size = [260.0, 200.0]
bounds = "{bounds}"
[rules]
view = "{view}"
back_view_angle_factor = 0.8
front_view_angle_factor = 1.3
radius_factor = {{ wide = 10.0, limited = 9.0, narrow = 12.0 }}
[[groups]]
family = "a"
count = 50
spawn = {{ radius = 90.0 }}
[[groups]]
family = "b"
role = "intercept"
count = 30
spawn = {{ radius = 90.0 }}
[[obstacles]]
center = [60.0, 50.0]
radius = 15.0
[player]
position = [130.0, 30.0]
control = "none"
"""


@pytest.mark.parametrize("view", ["wide", "limited", "narrow"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kernels_agree_with_the_reference(scene_from, view, seed):
    bounds = ("wrap", "walls", "open")[seed % 3]
    sim = Simulation(scene_from(SCENE.format(seed=seed, bounds=bounds, view=view)))
    world = World(sim.obstacles, sim.size, sim.box, bounds == "walls")
    for _ in range(60):
        sim.step()
    fast = sim.steerer(sim.state, sim.rules)
    ref = steer_reference(sim.state, sim.units, sim.rules, world)
    np.testing.assert_allclose(fast.force, ref.force, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(fast.leader, ref.leader)
    np.testing.assert_array_equal(fast.felt, ref.felt)
    np.testing.assert_array_equal(fast.heading, ref.heading)
    np.testing.assert_allclose(fast.gap, ref.gap, rtol=1e-12)
    np.testing.assert_allclose(fast.target, ref.target, rtol=1e-12)
    assert set(zip(*fast.pairs, strict=True)) == set(zip(*ref.pairs, strict=True))


@pytest.mark.parametrize("bounds", ["wrap", "walls"])
def test_kernels_agree_where_blocked_intervals_merge(scene_from, bounds):
    """The blocked interval (several trees, or trees and walls, merged) agrees too; the run is
    checked to have merged intervals, else the comparison would not test the merge."""
    from rigidflock.model.steering import avoidance
    from rigidflock.model.steering.blend import touch_distance

    sim = Simulation(scene_from(FOREST.format(view="limited", bounds=bounds, avoid="true")), seed=3)
    world = World(sim.obstacles, sim.size, sim.box, bounds == "walls")
    u, merged = sim.units, 0
    for tick in range(1, 1201):
        sim.step()
        if tick % 40:
            continue
        fast = sim.steerer(sim.state, sim.rules)
        ref = steer_reference(sim.state, u, sim.rules, world)
        np.testing.assert_allclose(fast.force, ref.force, rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(fast.felt, ref.felt)
        feeler = u.length * sim.rules.feeler_factor
        bow = np.stack([np.cos(sim.state.angle), np.sin(sim.state.angle)], axis=1)
        _, _, (unit, lo, hi), _ = avoidance.obstacle_priority(
            sim.state.pos, ref.heading, bow, feeler, u.width / 2 + u.length / 2,
            touch_distance(u), u.length, sim.obstacles, sim.box,
        )  # fmt: skip
        blo, bhi = avoidance.blocked(u.n, unit, lo, hi)
        inside = (lo >= blo[unit]) & (hi <= bhi[unit]) & (blo[unit] < bhi[unit])
        merged += int((np.bincount(unit[inside], minlength=u.n) >= 2).sum())
    assert merged > 0


def test_kernel_signatures_stay_short():
    """Named bundles instead of dozens of positional arguments."""
    import inspect

    for kernel in (pair_pass.pair_pass, unit_pass.unit_pass):
        assert len(inspect.signature(kernel.py_func).parameters) <= 12


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_renumbered_rows_give_the_same_sums_bit_for_bit(scene_from, seed):
    """The steerer renumbers units in cell order at each neighbour rebuild (memory locality);
    each unit keeps its partners' sequence, so its sums must be the bits of a pass over rows in
    the units' own numbering."""
    from rigidflock.model.steering import cells
    from rigidflock.model.steering.neighbours import pairs_cells

    bounds = ("wrap", "walls", "open")[seed % 3]
    view = ("wide", "limited", "narrow")[seed % 3]
    sim = Simulation(scene_from(SCENE.format(seed=seed, bounds=bounds, view=view)))
    for _ in range(40):
        sim.step()
    steerer, st, rules = sim.steerer, sim.state, sim.rules
    steering = steerer(st, rules)
    r = steerer.rows
    assert not np.array_equal(r.unit, np.arange(len(r.unit)))  # renumbered indeed
    renumbered = {k: v.copy() for k, v in steerer.sums._asdict().items() if k != "flock"}
    n_ai = sim.units.n_ai
    pair_rules = steerer.pair_rules(rules)
    verlet = steerer.verlet  # the rows of the last build in the units' own numbering
    ptr, nbr = cells.to_rows(
        *pairs_cells(verlet.reference, pair_rules.search_r + verlet.skin, sim.box), n_ai
    )
    sums = pair_pass.PairSums(*(np.zeros_like(a) for a in steerer.sums))
    sums.gap[:] = np.inf  # the player's row (no pair pass) stays inf
    pair_pass.pair_pass(
        pair_pass.Rows(ptr, nbr, np.arange(n_ai)),
        pair_pass.Bodies(st.pos[:n_ai].copy(), st.vel[:n_ai].copy(), st.angle),
        pair_rules, steerer.box, sums, np.full((sim.units.n, 3), np.nan),
    )  # fmt: skip
    for name, got in renumbered.items():
        assert getattr(sums, name).tobytes() == got.tobytes(), name
    # the same flocking pairs, numbered as the units are (the decision's own copy of them)
    s_ptr, s_nbr, s_unit, s_flock = steering.pair_source
    owner, partner = cells.row_pairs(s_ptr, s_nbr, s_unit)
    mine = set(zip(owner[s_flock], partner[s_flock], strict=True))
    plain = np.repeat(np.arange(n_ai), np.diff(ptr))
    assert mine == set(zip(plain[sums.flock], nbr[sums.flock], strict=True))


WALLED = """
seed = {seed}
[world]
size = [800.0, 600.0]
bounds = "walls"
[rules]
view = "wide"
feeler_factor = {feeler}
[[groups]]
family = "a"
count = 50
[[groups]]
family = "b"
count = 30
"""


@pytest.mark.parametrize("feeler", [5.0, 0.5])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_units_just_inside_and_outside_the_wall_reach_agree_with_the_reference(
    scene_from, seed, feeler
):
    """The unit pass skips the world's walls for a unit farther from all four than its feeler,
    its spans' reach and its contact distance (nothing there to feel, touch or block). Units
    placed within a length of that reach of one wall (the others far), at random headings and
    speeds, must steer as the reference (which always tests every wall) says: a wall skipped
    wrongly changes a force by a whole avoidance term, far beyond the comparison's 1e-9.
    Feeler factor 0.5: the contact distance (3.24) is longer than the feeler (2) and sets the
    reach."""
    from rigidflock.model.steering.avoidance import SPAN_REACH
    from rigidflock.model.steering.blend import touch_distance

    sim = Simulation(scene_from(WALLED.format(seed=seed, feeler=feeler)))
    world = World(sim.obstacles, sim.size, sim.box, True)
    st, u, rng = sim.state, sim.units, np.random.default_rng(seed)
    n = u.n_ai
    feel = u.length[:n] * sim.rules.feeler_factor
    reach = np.maximum(np.maximum(feel, SPAN_REACH * feel), touch_distance(u)[:n])
    d = reach + rng.uniform(-1.0, 1.0, n) * u.length[:n]  # from the nearest wall
    w, h = sim.size
    side = rng.integers(0, 4, n)
    along = rng.uniform(0.4, 0.6, n)  # the other walls 240 and more away
    x = np.select([side == 0, side == 1], [d, w - d], along * w)
    y = np.select([side == 2, side == 3], [d, h - d], along * h)
    st.pos[:n] = np.stack([x, y], axis=1)
    st.angle[:n] = rng.uniform(-np.pi, np.pi, n)
    st.vel[:n] = rng.uniform(-8.0, 8.0, (n, 2))
    fast = sim.steerer(st, sim.rules)
    ref = steer_reference(st, u, sim.rules, world)
    np.testing.assert_allclose(fast.force, ref.force, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(fast.felt, ref.felt)
    # both sides of the kernel's own test (all four walls at least the reach away) were placed
    skipped = np.min([x, w - x, y, h - y], axis=0) >= reach
    assert skipped.sum() > 10 and (~skipped).sum() > 10
