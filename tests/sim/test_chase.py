"""The AIDemo4 chase: obstacles and feelers, leaders, interceptors, families, the player.

Figures in the docstrings: ``PYTHONPATH=$PWD python tools/behaviour_figures.py forest intercept
leader families``."""

import numpy as np
import pytest

from rigidflock import load_scene
from rigidflock.cli import main
from rigidflock.model.measures.alignment import polarization
from rigidflock.runs.runner import run_scene
from rigidflock.sim import Command, Simulation
from tests.conftest import ROOT


def test_feelers_avoid_the_forest(scene_from):
    """Forest scene, 2000 ticks, seeds 1 and 2. Measured obstacle contacts: avoidance on 0 + 0,
    off 52 + 351 (with AIDemo4's feelers simply added to flocking, 1 + 3 against 99 + 300, a
    ratio of 1%); the bound allows 10%."""
    text = (ROOT / "scenes" / "forest.toml").read_text()
    off_text = text.replace("chase = false", "chase = false\navoidance = false")
    on = sum(run_scene(scene_from(text), 2000, seed=s).metrics["obstacle_contacts"] for s in (1, 2))
    off = sum(
        run_scene(scene_from(off_text), 2000, seed=s).metrics["obstacle_contacts"] for s in (1, 2)
    )
    assert off >= 50  # the forest is dense enough to matter
    assert on <= 0.1 * off


FLOCK_AWAY = """
[world]
size = [2000.0, 2000.0]
bounds = "open"
[rules]
avoidance = false
[[groups]]
count = 6
heading = 0
spawn = { positions = [[1000.0, 1000.0], [985.0, 1012.0], [985.0, 988.0], [970.0, 1000.0],
                       [955.0, 1012.0], [955.0, 988.0]] }
[player]
position = [500.0, 1000.0]
control = "none"
"""


def toward_player(sim):
    to_p = sim.state.pos[-1] - sim.state.pos[:-1]
    to_p /= np.hypot(*to_p.T)[:, None]
    return np.einsum("ij,ij->i", sim.steering.heading[:-1], to_p)


def test_the_leader_of_a_flock_heading_away_turns_toward_the_player(scene_from):
    """Six units in a column heading away (+x) from a player 500 behind. Only the front unit has
    nobody ahead, so it alone leads; measured: it faces the player (cos 0.93) after 600 ticks
    and the whole flock follows it (every cos > 0.9) by 1200."""
    sim = Simulation(scene_from(FLOCK_AWAY))
    assert np.flatnonzero(sim.steering.leader).tolist() == [0]
    assert (toward_player(sim) < -0.99).all()
    for _ in range(600):
        sim.step()
    assert toward_player(sim)[0] > 0.8
    for _ in range(600):
        sim.step()
    assert (toward_player(sim) > 0.5).all()


def test_without_chase_the_flock_ignores_the_player(scene_from):
    sim = Simulation(scene_from(FLOCK_AWAY.replace("avoidance = false", "chase = false")))
    for _ in range(600):
        sim.step()
    assert (toward_player(sim) < -0.5).all()


def test_leaders_exist_and_change_over_time():
    sim = Simulation(load_scene(ROOT / "scenes" / "aidemo4.toml"))
    sets = set()
    counts = []
    for k in range(900):
        sim.step()
        if k % 30 == 0:
            leaders = sim.steering.leader
            sets.add(tuple(np.flatnonzero(leaders)))
            counts.append(leaders.sum())
    assert min(counts) >= 1  # a flock always has someone in front
    assert max(counts) < sim.units.n_ai
    assert len(sets) >= 10  # of 30 samples: leadership moves around
    assert not sim.steering.leader[-1]  # the player never leads


def test_role_none_never_leads(scene_from):
    sim = Simulation(scene_from('[rules]\nflocking = false\n[[groups]]\ncount = 4\nrole = "none"'))
    sim.step()
    assert not sim.steering.leader.any()


PURSUIT = """
[world]
size = [3000.0, 3000.0]
bounds = "open"
[rules]
flocking = false
[[groups]]
count = 1
role = "{role}"
thrust = 15.0
heading = {heading}
spawn = {{ positions = [[{x}, {y}]] }}
[player]
position = [200.0, 1500.0]
heading = 0.0
control = "script"
script = [{{ tick = 0, throttle = 1.0, steer = 0.0 }}]
"""


@pytest.mark.parametrize("x,y,heading", [(1000, 1800, -90), (800, 1200, 90), (600, 1800, 0)])
def test_interceptors_reach_a_straight_running_player_sooner(scene_from, x, y, heading):
    """One pursuer (same thrust for both roles) against a player on a straight course. Measured
    first contact ticks, chase vs intercept: 4288 vs 3278, 4066 vs 2666, 4111 vs 2271 (intercept
    0.55-0.76 x chase)."""
    first = {}
    for role in ("chase", "intercept"):
        sc = scene_from(PURSUIT.format(role=role, x=x, y=y, heading=heading))
        first[role] = run_scene(sc, 6000).metrics["first_player_contact_tick"]
    assert first["chase"] is not None and first["intercept"] is not None
    assert first["intercept"] < 0.9 * first["chase"]


def test_two_families_flock_apart_each_aligned(scene_from):
    """Two families of 12 spawned together, 3000 ticks. Measured polarization per family over
    seeds 1-5: 0.66-0.98 (the less aligned family 0.66-0.91); flocks 11-15, never mixing
    families."""
    sc = scene_from(
        "[rules]\nchase = false\n"
        '[[groups]]\nfamily = "a"\ncount = 12\nspawn = { radius = 80.0 }\n'
        '[[groups]]\nfamily = "b"\ncount = 12\nspawn = { radius = 80.0 }\n'
    )
    result = run_scene(sc, 3000, seed=1)
    assert result.metrics["flocks_final"] >= 2
    sim = Simulation(sc, seed=1)
    for _ in range(3000):
        sim.step()
    fam = sim.units.family
    for f in (0, 1):
        assert polarization(sim.steering.heading[fam == f]) > 0.55


def test_cohesion_and_alignment_act_only_within_a_family(scene_from):
    # a neighbour ahead to port, beyond separation range, heading another way
    text = (
        '[rules]\nchase = false\n[[groups]]\nfamily = "{a}"\ncount = 1\nheading = 0\n'
        "spawn = {{ positions = [[400.0, 300.0]] }}\n"
        '[[groups]]\nfamily = "{b}"\ncount = 1\nheading = 90\n'
        "spawn = {{ positions = [[410.0, 340.0]] }}\n"
    )
    same = Simulation(scene_from(text.format(a="x", b="x")))
    other = Simulation(scene_from(text.format(a="x", b="y")))
    assert same.steering.force[0] > 0  # turns toward its kin to port
    assert other.steering.force[0] == 0


def test_script_commands_hold_until_the_next_entry(scene_from):
    sc = scene_from(
        "[[groups]]\ncount = 1\nspawn = { positions = [[700.0, 500.0]] }\n"
        '[player]\nposition = [100.0, 300.0]\ncontrol = "script"\n'
        "script = [{ tick = 0, throttle = 1.0, steer = 0.0 }, "
        "{ tick = 60, throttle = 0.5, steer = -1.0 }]"
    )
    sim = Simulation(sc)
    seen = []
    for _ in range(120):
        sim.step()
        seen.append(sim.player_command)
    assert seen[0] == (1.0, 0.0) and seen[59] == (1.0, 0.0)
    assert seen[60] == (0.5, -1.0) and seen[-1] == (0.5, -1.0)
    assert sim.state.omega[-1] < 0  # turning to starboard


def test_waypoint_autopilot_visits_every_point_in_order(scene_from):
    sc = scene_from(
        "[rules]\nchase = false\n[[groups]]\ncount = 1\nspawn = { positions = [[700.0, 500.0]] }\n"
        '[player]\nposition = [100.0, 100.0]\ncontrol = "waypoints"\n'
        "waypoints = [[300.0, 100.0], [300.0, 300.0], [100.0, 300.0]]"
    )
    sim = Simulation(sc)
    wps = np.array([[300.0, 100.0], [300.0, 300.0], [100.0, 300.0]])
    visits = []
    for _ in range(8000):  # the loop is ~850 long at 7.7 units/s: ~110 s
        sim.step()
        close = np.hypot(*(wps - sim.state.pos[-1]).T) < 20.0
        if close.any() and (not visits or visits[-1] != int(np.argmax(close))):
            visits.append(int(np.argmax(close)))
    assert visits[:4] == [0, 1, 2, 0]  # a loop, in order


def test_keyboard_control_headless_without_waypoints_is_idle_until_commanded(scene_from):
    sc = scene_from(
        "[[groups]]\ncount = 1\nspawn = { positions = [[700.0, 500.0]] }\n"
        '[player]\nposition = [100.0, 300.0]\ncontrol = "keyboard"'
    )
    sim = Simulation(sc)
    v0 = np.hypot(*sim.state.vel[-1])
    for _ in range(600):
        sim.step()
    # quadratic drag alone: v = v0 / (1 + k v0 t / m) = 0.39 v0 after 10 s
    assert np.hypot(*sim.state.vel[-1]) < 0.45 * v0
    assert sim.player_command == (0.0, 0.0)
    for _ in range(300):
        sim.step(Command(throttle=1.0, steer=1.0))
    assert np.hypot(*sim.state.vel[-1]) > 5.0 and sim.state.omega[-1] > 0


def test_aidemo4_chase_makes_contact_and_reports_it():
    m = run_scene(load_scene(ROOT / "scenes" / "aidemo4.toml"), 3000).metrics
    assert m["player_contacts"] >= 1
    assert m["first_player_contact_tick"] is not None
    assert 0 < m["leader_fraction_mean"] < 1


BAD = [
    (
        '[[groups]]\ncount = 2\n[player]\ncontrol = "waypoints"\nwaypoints = [[900.0, 10.0]]',
        "player.waypoints[0]",
    ),
    ('[[groups]]\ncount = 2\n[player]\ncontrol = "script"\nscript = []', "player.script"),
    ('[[groups]]\ncount = 2\nrole = "hunt"', "groups[0].role"),
]


@pytest.mark.parametrize("text,field", BAD)
def test_bad_chase_input_is_one_clear_line(tmp_path, capsys, text, field):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    assert main(["run", str(p), "--ticks", "5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.toml" in err[0] and field in err[0]


def test_obstacle_over_a_spawn_disc_warns_and_units_spawn_outside_it(tmp_path, capsys):
    p = tmp_path / "warn.toml"
    p.write_text(
        "[[groups]]\ncount = 20\nspawn = { center = [400.0, 300.0], radius = 100.0 }\n"
        "[[obstacles]]\ncenter = [450.0, 300.0]\nradius = 30.0\n"
    )
    assert main(["run", str(p), "--ticks", "5", "--quiet"]) == 0
    assert "warning" in capsys.readouterr().err
    sim = Simulation(load_scene(p))
    d = np.hypot(*(sim.state.pos - [450.0, 300.0]).T)
    assert (d > 30.0).all()
