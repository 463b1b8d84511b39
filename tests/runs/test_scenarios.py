"""The scored scenario suite (scenes/scenarios, ``rigidflock score``): every scenario
arrives within the RTS time limit with nobody pinned for more than 5 s. The fast scenarios run
here on seeds 1-3; the longer ones and the bottleneck are marked slow."""

import numpy as np
import pytest

from rigidflock.bundled import scenario_folder, scenario_path
from rigidflock.cli import main
from rigidflock.runs import scenarios
from rigidflock.scene import load_scene
from rigidflock.sim import Simulation

# under ~10 s each (one core); seeds 1-3 (spawn places and headings are drawn from the seed)
FAST = (
    "doorway_one_way",
    "doorway_two_way",
    "wall_squeeze",
    "double_squeeze",
    "four_way_oncoming",
    "oncoming_groups",
)
SMALL_SLOW = ("hallway_one_way", "hallway_two_way", "four_way_confusion")  # 15-30 s each
SEEDS = (1, 2, 3)


def heavy(name: str) -> tuple[str, ...]:
    """``--set`` overrides giving every group of scenario ``name`` rigidflock's default unit
    (10 kg) instead of the scenes' pedestrians (0.7 kg)."""
    groups = load_scene(scenario_path(name)).groups
    return tuple(f"groups[{i}].mass=10" for i in range(len(groups)))


def check(r):
    """The suite's bar: everyone on their slot within the RTS time limit (2 x route at
    the group's speed + N x L / speed + 20 s), nobody pressed still against a wall for more
    than 5 s at a time."""
    assert r["arrived_fraction"] == 1.0, r
    assert r["t100"] is not None and r["t100"] <= r["limit"], r
    assert r["longest_pin_seconds"] <= 5.0, r


# the two-way door also on seeds 4-16: which group gets there first, and how askew, depends on
# the seed, and the right of way has to hold for either (its margins are thin: seed 9 was once
# lost by a change that seeds 1-8 passed)
MORE_SEEDS = {"doorway_two_way": tuple(range(4, 17))}
CASES = [(name, seed) for name in FAST for seed in SEEDS + MORE_SEEDS.get(name, ())]


@pytest.mark.parametrize(("name", "seed"), CASES)
def test_a_scenario_completes_unpinned(name, seed):
    check(scenarios.run_scenario(scenario_path(name), seed))


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", SMALL_SLOW)
def test_a_longer_scenario_completes_unpinned(name, seed):
    check(scenarios.run_scenario(scenario_path(name), seed))


# runs that failed on fresh seeds with the 10 kg unit, traced (and run so here: the scenes'
# pedestrians take other ways): a pin of 7.02 s at the hallway's mouth (a unit pushed back in as
# it backed out; with units giving way to a unit backing out, sim/give_way.py: 1.87 s); the
# double squeeze's last unit late (run past the west gap; the give-way re-drew its run, which
# arrives at 0.73 of the limit: kept as a case a change may lose again, not as a mechanism shown
# fixed); the double squeeze's seed 44 late: a unit by the east gap turned from it by the rules'
# feel of the top wall 100 world units away, against its order (with ordered units' short wall
# feeler, navigation.wall_feeler: in at 0.48 of the limit)
TRACED = (("hallway_one_way", 54), ("double_squeeze", 66), ("double_squeeze", 44))


@pytest.mark.slow
@pytest.mark.parametrize(("name", "seed"), TRACED)
def test_a_traced_failure_stays_fixed(name, seed):
    check(scenarios.run_scenario(scenario_path(name), seed, None, heavy(name)))


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_the_bottleneck_clears_completely(seed):
    """1,000 units through a 4.2 m gap: every one on its slot in time, nobody pinned over 5 s
    (about a minute each on one core). Held to 2 s besides, so that a longer tail shows long
    before the bound: the scenes' pedestrians have at most 1.40 s on seeds 85-140 (0.55-0.62 s
    on seeds 1-3)."""
    r = scenarios.run_scenario(scenario_path("bottleneck_squeeze"), seed)
    check(r)
    assert r["longest_pin_seconds"] <= 2.0, r


@pytest.mark.slow
def test_the_bottleneck_with_the_10_kg_unit_clears_completely():
    """rigidflock's default unit, 14 times as slow to gather speed: every one through and on
    its slot in time (the scene's seed). The 5 s bound on pins is not met across seeds with it:
    the crowd's stop-and-go holds the lane along the wall's face still for longer on about one
    seed in six (3.2 s on this seed, over 5 s on 10 of seeds 85-140, the longest 6.18 s). Held
    to 7 s here, so a longer tail shows (earlier versions of the steering reached 8.78 s)."""
    r = scenarios.run_scenario(
        scenario_path("bottleneck_squeeze"), None, None, heavy("bottleneck_squeeze")
    )
    assert r["arrived_fraction"] == 1.0, r
    assert r["t100"] is not None and r["t100"] <= r["limit"], r
    assert r["longest_pin_seconds"] <= 7.0, r


LOCK_BOUND = 2.0  # seconds a pair of crossing units may stay pressed together


@pytest.mark.parametrize("mass", ["scene", "10 kg"])
def test_crossing_units_do_not_lock_in_pairs(mass):
    """four_way_oncoming, its seed: the four units meet at the centre. Without a rule for it
    the scenes' pedestrians locked in two pairs side by side, each turning toward its goal into
    the other, and ground along together to the world's wall (a pair pressed together 16.9 s,
    129 unit contacts). Of two units converging across each other the one with the other on its
    right gives way (rts/rules/crossing.py): no pair pressed together longer than 2 s, with the
    pedestrians and with the 10 kg unit, and few contacts."""
    name = "four_way_oncoming"
    sets = heavy(name) if mass != "scene" else ()
    r = scenarios.run_scenario(scenario_path(name), None, None, sets)
    assert r["longest_lock_seconds"] <= LOCK_BOUND, r
    assert r["unit_contacts"] <= 20, r
    check(r)


# the crossing scenarios whose pairs stay unlocked on every seed measured (four_way_oncoming:
# seeds 1-24 with the pedestrians, at most 0.93 s; 1-8 with the 10 kg unit, 1.58 s;
# oncoming_groups: seeds 1-4 with either, 1.63 s)
CROSSINGS = ("four_way_oncoming", "oncoming_groups")


@pytest.mark.slow
@pytest.mark.parametrize("mass", ["scene", "10 kg"])
@pytest.mark.parametrize("seed", range(1, 25))
@pytest.mark.parametrize("name", CROSSINGS)
def test_crossings_never_lock_on_any_seed(name, seed, mass):
    """The crossing scenarios on seeds 1-24, with the scenes' pedestrians and the 10 kg unit:
    no pair of units of different orders pressed together longer than 2 s."""
    sets = heavy(name) if mass != "scene" else ()
    r = scenarios.run_scenario(scenario_path(name), seed, None, sets)
    assert r["longest_lock_seconds"] <= LOCK_BOUND, r


DOOR_SHARE = 0.75  # of the time limit: the two-way door's slowest run, with margin to spare


@pytest.mark.slow
@pytest.mark.parametrize("mass", ["scene", "10 kg"])
@pytest.mark.parametrize("seed", range(1, 25))
def test_the_two_way_door_comes_through_well_within_its_limit(seed, mass):
    """doorway_two_way on seeds 1-24, with the scenes' pedestrians and the 10 kg unit: every
    unit on its slot within three quarters of the time limit. The group that waits for the
    other stands beside the way, not on it; when it waited on the door's axis, the other
    group's last unit out threaded through it for several seconds (10 kg, seed 20: 0.81 of
    the limit, seed 11: 0.75; the pedestrians at most 0.45, on seeds 1-24 then and now)."""
    name = "doorway_two_way"
    sets = heavy(name) if mass != "scene" else ()
    r = scenarios.run_scenario(scenario_path(name), seed, None, sets)
    check(r)
    assert r["t100"] <= DOOR_SHARE * r["limit"], r


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="four groups crossing in a crowd: pairs pressed together 2.8-2.9 s with the "
    "pedestrians (seeds 1, 2), 6.9 s with the 10 kg unit (seed 1); measured, not fixed",
)
@pytest.mark.parametrize("mass", ["scene", "10 kg"])
def test_the_four_way_confusion_does_not_lock_in_pairs(mass):
    """four_way_confusion, seed 1: no pair of units of different orders pressed together longer
    than 2 s. Strict, so that a fix shows."""
    name = "four_way_confusion"
    sets = heavy(name) if mass != "scene" else ()
    r = scenarios.run_scenario(scenario_path(name), 1, None, sets)
    assert r["longest_lock_seconds"] <= LOCK_BOUND, r


def test_the_scenario_units_gather_speed_as_pedestrians_do():
    """SteerSuite's cases are crowds of pedestrians. In the social force model a pedestrian from
    rest accelerates at its walking speed over the relaxation time, 0.5 s. By the closed form of
    m dv/dt = T - k v^2 from rest at full throttle, v = v_c tanh(t T / (m v_c)): every unit of
    every scenario scene is at 3/4 of its cruise speed v_c within 0.5 s (rigidflock's default
    unit, 10 kg: 6.9 s)."""
    for name in scenarios.NAMES:
        u = Simulation(scenario_path(name), seed=1).units
        n = u.n_ai
        t75 = u.mass[:n] * u.cruise_speed[:n] / u.thrust[:n] * np.arctanh(0.75)
        assert n > 0 and (t75 <= 0.5).all(), name


def test_every_scenario_is_tested():
    assert set(FAST) | set(SMALL_SLOW) | {"bottleneck_squeeze"} == set(scenarios.NAMES)


def test_every_scenario_has_a_scene():
    assert {p.stem for p in scenario_folder().glob("*.toml")} == set(scenarios.NAMES)


def test_the_old_spelling_runs_the_same_suite_with_a_notice(tmp_path, capsys):
    """``bench --scenarios`` still works for one release: one notice line on stderr naming the
    new command, then the same rows as ``score``."""
    import json

    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert main(["bench", "--scenarios", "wall_squeeze", "--json", str(old)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "rigidflock score" in err[0]
    assert main(["score", "wall_squeeze", "--json", str(new)]) == 0
    assert capsys.readouterr().err == ""
    (a,), (b,) = json.loads(old.read_text()), json.loads(new.read_text())
    assert {**a, "seconds": 0} == {**b, "seconds": 0}


def test_score_prints_a_table_and_json(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert main(["score", "four_way_oncoming", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "four_way_oncoming" in text and "score" in text
    import json

    (r,) = json.loads(out.read_text())
    assert set(r) >= {"arrived_fraction", "t95", "t100", "unit_contacts", "wall_contacts",
                      "pinned_seconds", "stuck_seconds", "score"}  # fmt: skip


def test_an_unknown_scenario_is_one_clear_line(tmp_path, capsys):
    """A misspelt name is refused before anything runs: one line naming the flag and the name,
    exit status 2, no JSON written."""
    out = tmp_path / "s.json"
    assert main(["score", "doorway_one_way,hallway_3way", "--json", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "score" in err[0] and "'hallway_3way'" in err[0]
    assert not out.exists()


def test_score_on_several_seeds(tmp_path, capsys):
    """``--seeds`` runs every named scenario on each seed (how figures over many seeds are
    measured): one row per scenario and seed, the seed in the table and the JSON, and a
    run on a given seed is that seed's (spawn places differ, so do the figures)."""
    out = tmp_path / "s.json"
    assert main(["score", "wall_squeeze", "--seeds", "1,2", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    import json

    rows = json.loads(out.read_text())
    assert [r["seed"] for r in rows] == [1, 2]
    assert rows[0] == {**scenarios.run_scenario(scenario_path("wall_squeeze"), 1),
                       "seconds": rows[0]["seconds"]}  # fmt: skip
    assert rows[0]["t100"] != rows[1]["t100"]
    lines = [ln.split() for ln in text.splitlines() if ln.startswith("wall_squeeze")]
    assert [ln[1] for ln in lines] == ["1", "2"]


def test_score_with_workers_gives_the_same_rows(tmp_path, capsys):
    """``--workers 2`` runs two scenario runs at a time, each in its own process with one numba
    thread: the same rows in the same order as one after another here, all but the wall-clock
    seconds (each run has its own seeded generator; nothing is shared between runs)."""
    import json

    out = tmp_path / "s.json"
    args = ["score", "wall_squeeze", "--seeds", "1,2", "--workers", "2"]
    assert main([*args, "--json", str(out)]) == 0
    assert "2 runs at a time" in capsys.readouterr().out
    rows = json.loads(out.read_text())
    for row, seed in zip(rows, (1, 2), strict=True):
        here = scenarios.run_scenario(scenario_path("wall_squeeze"), seed)
        assert row == {**here, "seconds": row["seconds"]}


def test_seeds_without_scenarios_is_one_clear_line(capsys):
    assert main(["bench", "--seeds", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--seeds" in err[0] and "rigidflock score" in err[0]


@pytest.mark.parametrize(
    ("option", "bad"),
    [*[("--workers", b) for b in ("0", "-2", "x", "", "10000")],
     *[("--seeds", b) for b in ("1,x", "-1", "", "1,,2")]],
)  # fmt: skip
def test_a_bad_worker_count_or_seed_list_is_one_clear_line(option, bad, tmp_path, capsys):
    """Each bad value is one line naming the option, exit status 2, nothing written. 10,000
    workers would start a process each (~200 MB apiece): more than the cores is refused, as a
    bad number is."""
    out = tmp_path / "s.json"
    args = ["score", "wall_squeeze", option, bad, "--json", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and option in err[0]
    assert not out.exists()


def test_workers_without_scenarios_is_one_clear_line(capsys):
    assert main(["bench", "--workers", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--workers" in err[0] and "rigidflock score" in err[0]


def run_figures(r: dict) -> tuple:
    """What tells two runs of a scenario apart (two runs of one scene and seed give the same)."""
    return r["unit_contacts"], r["wall_contacts"], r["stuck_seconds"]


def test_score_with_the_steering_beside_the_step(tmp_path, capsys):
    """``--reaction-ticks 1`` runs the scenarios with ``world.reaction_ticks = 1`` (how figures
    with the steering beside the step are measured): the row says so and is the run of the
    scene so changed, a different run from the scene's own (units react a tick later)."""
    import json

    out = tmp_path / "s.json"
    args = ["score", "wall_squeeze", "--reaction-ticks", "1"]
    assert main([*args, "--json", str(out)]) == 0
    assert "beside the physics step" in capsys.readouterr().out
    (row,) = json.loads(out.read_text())
    path = scenario_path("wall_squeeze")
    assert row == {**scenarios.run_scenario(path, None, 1), "seconds": row["seconds"]}
    own = scenarios.run_scenario(path)
    assert row["reaction_ticks"] == 1 and own["reaction_ticks"] == 0
    assert run_figures(row) != run_figures(own)


def test_score_with_a_scene_key_set(tmp_path, capsys):
    """``--set PATH=VALUE`` changes every scenario scene it runs, in the worker processes too
    (how the scenarios are measured with rigidflock's default unit, one key a group):
    each row names the changes and is the run of the scene so changed, a different run from the
    scene's own (a 10 kg unit gathers speed a fourteenth as fast as the scenes' 0.7 kg ones)."""
    import json

    out = tmp_path / "s.json"
    args = ["score", "wall_squeeze", "--seeds", "1,2", "--workers", "2"]
    keys = heavy("wall_squeeze")
    assert keys == ("groups[0].mass=10", "groups[1].mass=10")
    sets = [a for k in keys for a in ("--set", k)]
    assert main([*args, *sets, "--json", str(out)]) == 0
    assert "--set groups[0].mass=10, --set groups[1].mass=10" in capsys.readouterr().out
    rows = json.loads(out.read_text())
    path = scenario_path("wall_squeeze")
    for row, seed in zip(rows, (1, 2), strict=True):
        here = scenarios.run_scenario(path, seed, None, keys)
        assert row == {**here, "seconds": row["seconds"]}
        assert row["set"] == list(keys)
    own = scenarios.run_scenario(path, 1)
    assert own["set"] == [] and run_figures(rows[0]) != run_figures(own)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("physics.corners=0.5", "physics.corners: must be a number in [0, 0.45], got 0.5"),
        ("physics.cornerz=0.2", "physics.cornerz"),
        ("no-equals-sign", "--set no-equals-sign"),
    ],
)
def test_a_bad_set_for_the_scenarios_is_one_clear_line(given, said, tmp_path, capsys):
    """Checked against the scenes before any run: one line naming the scene file and the key,
    exit status 2, nothing written."""
    out = tmp_path / "s.json"
    args = ["score", "wall_squeeze", "--set", given, "--json", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "wall_squeeze.toml" in err[0] and said in err[0]
    assert not out.exists()


def test_a_set_the_timed_worlds_cannot_take_stops_before_any_run(capsys):
    """Without --scenarios ``--set`` changes the timed worlds (one group): a key they lack is
    one line naming it, exit 2, before any size is timed."""
    assert main(["bench", "--units", "300", "--set", "groups[1].count=1"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "groups[1]" in err[0] and "done" not in captured.out


def test_a_set_one_of_the_scenes_cannot_take_stops_before_any_run(tmp_path, capsys):
    """``groups[1]`` exists in the wall squeeze (two groups), not in the one-way doorway (one):
    the doorway's error comes before the squeeze has run, so nothing runs at all."""
    out = tmp_path / "s.json"
    args = ["score", "wall_squeeze,doorway_one_way", "--set", "groups[1].count=1"]
    assert main([*args, "--json", str(out)]) == 2
    captured = capsys.readouterr()
    assert "done" not in captured.out
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "doorway_one_way.toml" in err[0] and "groups" in err[0]
    assert not out.exists()


@pytest.mark.parametrize("given", ["world.reaction_ticks=1", " world . reaction_ticks = 1"])
def test_reaction_ticks_given_twice_is_one_clear_line(capsys, given):
    """However the key path is spaced (the override parser strips each part)."""
    args = ["score", "wall_squeeze", "--reaction-ticks", "0"]
    assert main([*args, "--set", given]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--reaction-ticks" in err[0] and "world.reaction_ticks" in err[0]
