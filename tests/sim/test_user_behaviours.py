"""Users' own behaviours (``[[behaviours]]``, ``Simulation(scene, behaviours=[...])``): what a
behaviour sees, how its directions steer, and the runs it makes are reproducible."""

import numpy as np
import pytest

from rigidflock.model.behaviours import BehaviourError
from rigidflock.scene import BehaviourSpec, SceneError
from rigidflock.scene.overrides import derive
from rigidflock.sim import Simulation
from tests import behaviour_rules
from tests.conftest import trajectory

FREE = """
seed = {seed}
[world]
size = [600.0, 600.0]
bounds = "walls"
[rules]
flocking = false
chase = false
[[groups]]
count = 24
role = "none"
spawn = {{ center = [300.0, 300.0], radius = 120.0 }}
"""


def behaviour(function, **keys):
    return {"function": f"tests.behaviour_rules:{function}", **keys}


def mean_heading_degrees(sim) -> float:
    h = sim.steering.heading[: sim.units.n_ai].mean(axis=0)
    return float(np.degrees(np.arctan2(h[1], h[0])))


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_rule_pointing_east_turns_a_free_flock_east(scene_from, seed):
    """With flocking off, units start in random headings; a behaviour saying "east" to all turns
    them: after 20 s (a unit turns about 1 rad/s at the steering force S = 20, half its most:
    a half turn takes ~3 s) the mean heading is within 20 degrees of east and the headings
    agree (polarization > 0.8; random headings give ~0.2 for 24 units). Walls keep the flock in
    the world; the few units turning off a wall keep it from 1.0."""
    sim = Simulation(scene_from(FREE.format(seed=seed)), behaviours=[behaviour("east")])
    before = np.hypot(*sim.steering.heading[:24].mean(axis=0))
    for _ in range(1200):
        sim.step()
    h = sim.steering.heading[:24].mean(axis=0)
    assert abs(mean_heading_degrees(sim)) < 20.0
    assert np.hypot(*h) > 0.8 > before


def test_without_the_rule_the_same_flock_keeps_no_common_heading(scene_from):
    """The control: the same scenes with no behaviour do not turn east (so the test above
    measures the behaviour, not the scene)."""
    easts = 0
    for seed in (1, 2, 3, 4):
        sim = Simulation(scene_from(FREE.format(seed=seed)))
        for _ in range(1200):
            sim.step()
        easts += (
            abs(mean_heading_degrees(sim)) < 20.0
            and np.hypot(*sim.steering.heading[:24].mean(axis=0)) > 0.8
        )
    assert easts == 0


def test_the_weight_scales_the_bow_force_like_cohesion(scene_from):
    """The bow force of a direction u is weight * S * side(u) * angle(h, u) / pi: for "east",
    a unit heading north (angle pi/2, east to starboard) gets -weight * S / 2 before any other
    rule (flocking, chase off; no obstacle near)."""
    sc = scene_from(FREE.format(seed=1).replace('role = "none"', 'role = "none"\nheading = 90.0'))
    for weight in (0.5, 2.0):
        sim = Simulation(sc, behaviours=[behaviour("east", weight=weight)])
        S = sc.rules.steering_force
        np.testing.assert_allclose(sim.steering.force[:24], -weight * S / 2, rtol=1e-9)
    assert np.all(Simulation(sc).steering.force[:24] == 0.0)


def test_no_opinion_and_the_generator_leave_the_run_as_it_was(scene_from):
    """A behaviour that draws from its generator and returns zero rows changes nothing, bit for
    bit: its generator is its own (the run's draws are untouched) and a zero row adds no
    force."""
    sc = scene_from(FREE.format(seed=5).replace("flocking = false", "flocking = true"))
    plain = trajectory(Simulation(sc), 120)
    with_it = trajectory(Simulation(sc, behaviours=[behaviour("no_opinion_drawing")]), 120)
    assert np.array_equal(plain.view(np.uint64), with_it.view(np.uint64))


@pytest.mark.parametrize(("reaction", "late"), [(0, 0), (1, 1), (0, 1)])
def test_wander_twice_with_one_seed_is_the_same_run(scene_from, reaction, late):
    """The shipped wander draws from the behaviour's generator and keeps its wander point in
    its memory: the same seed gives the same states bit for bit (deciding before or beside the
    step, neighbours found on the snapshot before or not), another seed another run, and a
    reset starts both again."""
    wander = {"function": "rigidflock.behaviours.examples:wander", "weight": 3.0}
    changes = {"world.reaction_ticks": reaction, "world.neighbour_ticks": late}
    sc = derive(scene_from(FREE.format(seed=1).replace("flocking = false", "")), changes)
    a = trajectory(Simulation(sc, seed=7, behaviours=[wander]), 150)
    b = trajectory(Simulation(sc, seed=7, behaviours=[wander]), 150)
    c = trajectory(Simulation(sc, seed=8, behaviours=[wander]), 150)
    assert np.array_equal(a.view(np.uint64), b.view(np.uint64))
    assert not np.array_equal(a, c)
    sim = Simulation(sc, seed=7, behaviours=[wander])
    sim.step()
    sim.reset(7)  # reset starts the behaviour's generator again too
    assert np.array_equal(trajectory(sim, 150).view(np.uint64), a.view(np.uint64))


def test_the_view_is_the_snapshot_read_only_with_its_families(scene_from):
    """``units`` holds the rows of the units the behaviour applies to (its families), read-only
    views of the snapshot the rules decide on; ``neighbours`` returns the same pairs as a
    brute-force search over every unit."""
    text = FREE.format(seed=2) + (
        '[[groups]]\ncount = 6\nfamily = "wolf"\nrole = "none"\n'
        "spawn = { center = [300.0, 300.0], radius = 60.0 }\n"
    )
    behaviour_rules.SEEN.clear()
    sim = Simulation(
        scene_from(text), behaviours=[behaviour("record", families=["wolf"], params={"radius": 80})]
    )
    seen = behaviour_rules.SEEN[-1]
    wolves = np.flatnonzero(np.asarray(sim.units.family_names)[sim.units.family] == "wolf")
    assert seen["n"] == 6 and np.array_equal(seen["index"], wolves)
    assert np.array_equal(seen["pos"], sim.state.pos[wolves]) and not seen["pos_writeable"]
    assert seen["tick"] == 0 and seen["bounds"] == "walls" and seen["size"] == (600.0, 600.0)
    # the pairs: (row of a wolf, any unit) within the radius, never a unit with itself
    pos = seen["everyone_pos"]
    d = np.hypot(*(pos[None, :, :] - pos[wolves][:, None, :]).transpose(2, 0, 1))
    want = {(i, j) for i, j in zip(*np.nonzero(d < 80.0), strict=True) if wolves[i] != j}
    pairs = seen["pairs"]
    assert set(zip(pairs.i.tolist(), pairs.j.tolist(), strict=True)) == want
    np.testing.assert_allclose(pairs.distance, d[pairs.i, pairs.j])
    sim.step()
    assert behaviour_rules.SEEN[-1]["tick"] == 1


def test_a_behaviour_cannot_write_the_snapshot(scene_from):
    with pytest.raises(BehaviourError, match=r"writes.*at tick 0.*read-only"):
        Simulation(scene_from(FREE.format(seed=1)), behaviours=[behaviour("writes")])


@pytest.mark.parametrize(
    ("function", "params", "message"),
    [
        ("raises", {"at": 3}, r"'tests.behaviour_rules:raises' at tick 3: raised RuntimeError: "),
        (
            "wrong_shape",
            {},
            r"at tick 0: returned directions of shape \(24, 3\); expected \(24, 2\)",
        ),
        ("not_finite", {}, r"at tick 5: returned a non-finite direction \(row 2\)"),
        ("bad_throttle", {}, r"at tick 0: returned a throttle outside \[0, 1\]"),
    ],
)
@pytest.mark.parametrize("reaction", [0, 1])
def test_a_failing_behaviour_stops_the_run_naming_it_and_the_tick(
    scene_from, function, params, message, reaction
):
    """Deciding beside the physics step too (the error comes from the background thread)."""
    sc = derive(scene_from(FREE.format(seed=1)), {"world.reaction_ticks": reaction})
    with pytest.raises(BehaviourError, match=message) as e:
        sim = Simulation(sc, behaviours=[behaviour(function, params=params)])
        for _ in range(10):
            sim.step()
    assert "\n" not in str(e.value)


def test_a_throttle_slows_the_units_it_applies_to(scene_from):
    """Throttle 0.25 of the thrust: drag balances it at half the cruise speed (drag goes with
    the square of the speed), approached from above (after 15 s, with the drag's time
    constant m / (drag_k v) ~ 14 s, a straight runner is at ~0.54 of cruise: measured), while
    the units without the behaviour keep cruising. Units turning off a wall go slower."""
    text = FREE.format(seed=3) + '[[groups]]\ncount = 8\nfamily = "fast"\nrole = "none"\n'
    sim = Simulation(
        scene_from(text),
        behaviours=[behaviour("crawl", families=["regular"], params={"throttle": 0.25})],
    )
    for _ in range(900):
        sim.step()
    speed = np.hypot(*sim.state.vel.T)
    cruise = sim.units.cruise_speed
    slow = speed[:24] / cruise[:24]
    assert 0.5 < np.median(slow) < 0.6 and slow.max() < 0.6
    fast = speed[24:] / cruise[24:]
    assert np.median(fast) > 0.95 and fast.min() > 0.75  # a few turning off a wall


def test_avoidance_keeps_its_priority_over_a_behaviour(scene_from):
    """Three units steered hard (weight 5: 2.5 x their largest bow force) straight at a tree for
    60 s. With avoidance off they reach it after ~36 s and stay pressed on it (all three within
    2.5 world units of its surface, a unit's half-length being 2: ~4,200 unit-ticks, measured);
    with the feelers' priority on top of the behaviour they circle it, touch it at most once or
    twice in passing (measured: once), and spend under a tenth of that time so near."""
    text = """
[world]
size = [800.0, 400.0]
bounds = "walls"
[rules]
flocking = false
chase = false
[[groups]]
count = 3
role = "none"
heading = 0.0
spawn = { positions = [[100.0, 200.0], [100.0, 190.0], [100.0, 212.0]] }
[[obstacles]]
center = [400.0, 200.0]
radius = 40.0
"""
    rule = behaviour("toward", weight=5.0, params={"at": [400.0, 200.0]})
    found = {}
    for avoidance in (True, False):
        sim = Simulation(
            derive(scene_from(text), {"rules.avoidance": avoidance}), behaviours=[rule]
        )
        contacts = near = 0
        for _ in range(3600):
            contacts += sim.step().obstacle_contacts
            near += int((np.hypot(*(sim.state.pos - (400.0, 200.0)).T) - 40.0 < 2.5).sum())
        found[avoidance] = contacts, near
    assert found[False][0] >= 10 and found[False][1] > 3000
    assert found[True][0] <= 2 and found[True][1] < 0.1 * found[False][1]


def test_python_behaviours_go_into_the_scene_text(scene_from):
    """``Simulation(scene, behaviours=[...])`` takes specs, dicts and module-level functions and
    writes them into the scene (what a recording stores); derive takes the table too."""
    sc = scene_from(FREE.format(seed=1))
    sim = Simulation(
        sc,
        behaviours=[
            behaviour_rules.east,
            BehaviourSpec("tests.behaviour_rules:crawl", 1.0, None, {"throttle": 1.0}),
        ],
    )
    assert [b.function for b in sim.scene.behaviours] == [
        "tests.behaviour_rules:east", "tests.behaviour_rules:crawl",
    ]  # fmt: skip
    assert "[[behaviours]]" in sim.scene.text
    derived = derive(sc, {"behaviours": [behaviour("east", weight=2.0)]})
    assert derived.behaviours[0].weight == 2.0
    assert [r["function"] for r in Simulation(derived).behaviours_used] == [
        "tests.behaviour_rules:east"
    ]
    with pytest.raises(ValueError, match="top level"):
        Simulation(sc, behaviours=[lambda units, params: None])


def test_a_missing_function_is_a_scene_error_naming_the_field(scene_from):
    sc = scene_from(FREE.format(seed=1))
    for function, message in (
        (
            "tests.no_such_module:f",
            "behaviours[0].function: no module named 'tests.no_such_module'",
        ),
        ("tests.behaviour_rules:nope", "module 'tests.behaviour_rules' has no name 'nope'"),
        ("tests.behaviour_rules:NOT_A_FUNCTION", "is not a function"),
        ("unregistered", "no behaviour named 'unregistered' is registered"),
    ):
        with pytest.raises(SceneError) as e:
            Simulation(derive(sc, {"behaviours": [{"function": function}]}))
        assert e.value.errors == [e.value.errors[0]] and message in e.value.errors[0]
