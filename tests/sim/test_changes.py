"""Settings changed while a scene runs (``Command(changes=...)``): validated like ``--set``
before anything changes, refused for keys that cannot change mid-run, recorded and replayed bit
for bit, and the tuned scene runs the same from tick zero."""

import numpy as np
import pytest

from rigidflock import Simulation, load_scene
from rigidflock.replay import ReplayReader, verify
from rigidflock.scene.budget import check_runs
from rigidflock.scene.keys import runtime_keys
from rigidflock.scene.overrides import derive
from rigidflock.sim import Command, CommandError
from tests.conftest import ROOT
from tests.replay.recording import record_run

AIDEMO4 = ROOT / "scenes" / "aidemo4.toml"


def _state(sim):
    st = sim.state
    return np.concatenate([st.pos.ravel(), st.vel.ravel(), st.angle, st.omega])


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"rules.weights.cohesion": -1}, "rules.weights.cohesion: must be a number >= 0"),
        ({"rules.weights.cohsion": 1}, 'did you mean "cohesion"'),
        ({"rules.view": "sideways"}, "rules.view: must be one of"),
        ({"groups[7].thrust": 5}, "groups[7].thrust: index 7 is out of range"),
        ({"groups[0].count": 5}, "groups[0].count cannot change while the scene runs"),
        ({"world.dt": 0.01}, "world.dt cannot change while the scene runs"),
        ({"physics.friction": 0.1}, "physics.friction cannot change while the scene runs"),
        ({"seed": 3}, "seed cannot change while the scene runs"),
        ({"rules..view": 1}, "is not a key path"),
        # valid alone, but the physics cannot take it (the stability check `check` makes)
        ({"groups[0].thrust": 1e6}, "would make the motion diverge"),
    ],
)
def test_a_bad_change_is_refused_naming_it_before_anything_changes(changes, said):
    sim = Simulation(AIDEMO4)
    sim.step()
    before, rules, thrust = _state(sim), sim.rules, sim.units.thrust.copy()
    with pytest.raises(CommandError, match=r"Command\.changes: ") as e:
        # a good change beside the bad one is not taken either
        sim.step(Command(changes={"rules.weights.alignment": 3, **changes}))
    assert said in str(e.value) and "\n" not in str(e.value)
    assert sim.tick == 1 and np.array_equal(_state(sim), before)
    assert sim.rules is rules and np.array_equal(sim.units.thrust, thrust)
    assert sim.tuned_scene().text == sim.scene.text  # nothing taken


def test_a_change_takes_effect_at_its_tick_and_toggles_are_the_same_as_changes():
    a, b, c = Simulation(AIDEMO4), Simulation(AIDEMO4), Simulation(AIDEMO4)
    for _ in range(20):
        a.step(), b.step(), c.step()
    a.step(Command(changes={"rules.view": "narrow", "rules.flocking": False}))
    b.step(Command(toggles=(("view", "narrow"), ("flocking", False))))
    c.step()
    assert a.rules.view == "narrow" and not a.rules.flocking
    for _ in range(30):
        a.step(), b.step(), c.step()
    assert np.array_equal(_state(a), _state(b))  # the old spelling: the same run
    assert not np.array_equal(_state(a), _state(c))  # and the switch changed it
    assert a.tuned_scene().rules == b.tuned_scene().rules == a.rules


def test_paths_that_can_change_are_the_rules_and_the_units_forces():
    keys = set(runtime_keys())
    assert {"rules.view", "rules.weights.cohesion", "rules.radius_factor.wide",
            "rules.steering_force", "rules.feeler_factor", "groups[].thrust",
            "player.max_steering_force", "physics.air_density"} <= keys  # fmt: skip
    assert not keys & {"groups[].count", "world.dt", "physics.collisions", "seed"}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_scene_tuned_at_tick_zero_runs_as_that_run(seed):
    # rule changes at tick 0: the tuned scene is the same run (units spawn at their cruise
    # speed, so a thrust or drag change at tick 0 starts them at another: settings test below)
    changes = {"rules.weights.cohesion": 1.7, "rules.radius_factor": {"wide": 90.0, "limited": 30.0,
               "narrow": 40.0}, "rules.feeler_factor": 12.5}  # fmt: skip
    live = Simulation(AIDEMO4, seed=seed)
    live.step(Command(changes=changes, toggles=(("chase", False),)))
    scene = live.tuned_scene()
    fresh = Simulation(scene, seed=seed)
    fresh.step()
    for _ in range(40):
        live.step(), fresh.step()
    assert np.array_equal(_state(live), _state(fresh))


def test_the_tuned_scene_passes_check_and_has_the_tuned_settings():
    sim = Simulation(AIDEMO4)
    for _ in range(10):
        sim.step()
    sim.step(Command(changes={"rules.weights.cohesion": 1.7, "groups[1].thrust": 17.5,
                              "physics.air_density": 0.12, "player.thrust": 14}))  # fmt: skip
    sim.step(Command(toggles=(("view", "limited"),)))
    scene = sim.tuned_scene()
    check_runs(scene)  # what `check` accepts
    reread = load_scene_text(scene.text)
    assert reread.rules == sim.rules and reread.physics.air_density == 0.12
    assert reread.rules.view == "limited" and reread.groups[1].thrust == 17.5
    fresh = Simulation(reread)
    for name in ("thrust", "max_steer", "drag_k", "angular_damping"):
        np.testing.assert_array_equal(getattr(fresh.units, name), getattr(sim.units, name))


def load_scene_text(text):
    from rigidflock.scene import parse_scene

    return parse_scene(text, "tuned.toml")


def test_a_group_thrust_change_changes_that_groups_cruise_speed():
    sim = Simulation(AIDEMO4)
    first = slice(0, sim.scene.groups[0].count)
    v0 = sim.units.cruise_speed.copy()
    sim.step(Command(changes={"groups[0].thrust": 40.0}))
    v1 = sim.units.cruise_speed
    # cruise speed sqrt(T / k): four times the thrust, twice the speed; the other group keeps it
    np.testing.assert_allclose(v1[first], 2 * v0[first])
    np.testing.assert_array_equal(v1[first.stop :], v0[first.stop :])
    for _ in range(240):
        sim.step()
    speed = np.hypot(*sim.state.vel[first].T)
    assert np.median(speed) > 1.5 * v0[0]  # four seconds on, they are that much faster


def test_a_tuned_recording_verifies_bit_for_bit(tmp_path):
    path = tmp_path / "tuned.rfr"
    commands = {
        5: Command(changes={"rules.weights.cohesion": 2.5}),
        30: Command(changes={"rules.view": "limited", "groups[0].max_steering_force": 25}),
        31: Command(toggles=(("avoidance", False),)),
        60: Command(changes={"rules.weights": {"separation": 3.0}}),
    }
    live = record_run(path, AIDEMO4, 90, commands)
    with ReplayReader(path) as reader:
        result = verify(reader)
        assert reader.inputs()[30].changes == commands[30].changes
    assert result.ok and result.complete and result.ticks_checked == 91
    untuned = Simulation(AIDEMO4)
    for _ in range(90):
        untuned.step()
    assert not np.array_equal(untuned.state.pos, live[-1].pos)  # the changes changed the run


def test_a_changed_table_drops_the_earlier_changes_inside_it():
    sim = Simulation(AIDEMO4)
    sim.step(Command(changes={"rules.weights.cohesion": 3}))
    sim.step(Command(changes={"rules.weights": {"alignment": 2}}))
    sim.step(Command(changes={"rules.weights.chase": 4}))
    w = sim.rules.weights
    # as --set: a table given whole takes the defaults for what it leaves out
    assert (w.cohesion, w.alignment, w.chase) == (1.0, 2.0, 4.0)
    assert sim.tuned_scene().rules == derive(sim.scene, sim.tuning.changes).rules == sim.rules


def test_reset_starts_again_from_the_scene():
    sim = Simulation(load_scene(AIDEMO4))
    thrust = sim.units.thrust.copy()
    sim.step(Command(changes={"rules.weights.cohesion": 3, "groups[0].thrust": 20}))
    sim.reset()
    assert sim.rules == sim.scene.rules and sim.tuned_scene() is sim.scene
    np.testing.assert_array_equal(sim.units.thrust, thrust)


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), 10**400, None, [1, 2], "2", {"x": 1}]
)
def test_a_value_that_is_not_a_weight_is_refused(value):
    with pytest.raises(CommandError, match=r"Command\.changes: rules\.weights\.cohesion"):
        Simulation(AIDEMO4).step(Command(changes={"rules.weights.cohesion": value}))


def test_a_whole_table_of_live_keys_can_change_and_numpy_values_are_taken():
    sim = Simulation(AIDEMO4)
    sim.step(Command(changes={"rules": {"view": "narrow"}, "rules.weights.chase": np.float32(3)}))
    assert sim.rules.view == "narrow" and sim.rules.weights.chase == 3.0
    with pytest.raises(CommandError, match="player cannot change while the scene runs"):
        sim.step(Command(changes={"player": {"thrust": 5}}))


def test_a_replay_shows_the_rules_a_change_set(tmp_path):
    from rigidflock.replay.playback import Playback

    path = tmp_path / "tuned.rfr"
    record_run(path, AIDEMO4, 20, {5: Command(changes={"rules.weights.cohesion": 2.5})})
    with ReplayReader(path) as reader:
        playback = Playback(reader)
        # the command of tick 5 steered the state of tick 6
        assert playback.rules_at(5).weights.cohesion == 1.0
        assert playback.rules_at(6).weights.cohesion == 2.5
