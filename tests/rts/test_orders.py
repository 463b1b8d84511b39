"""RTS group movement end to end: the bundled scenes arrive in formation, orders through commands,
a new building, bad input, metrics ("Group Movement in RTS"; "Steering Behaviours: Flocking").
Unit tests of the parts: test_navigation, test_slots, test_groups, test_control."""

import numpy as np
import pytest

from rigidflock import load_scene
from rigidflock.cli import main
from rigidflock.rts.slots import has_room
from rigidflock.scene import OrderSpec, SelectSpec
from rigidflock.scene.geometry import polygon_distance, segment_distance
from rigidflock.sim import Command, Simulation
from tests.conftest import ROOT

RTS = ["rts_doorway", "rts_crossing", "rts_maze", "rts_chokepoint"]


def time_limit(group, length: float) -> float:
    """Seconds a group may take: twice its route at the group's speed (detours, turns, queues
    at corners), plus one unit length per unit at that speed (single file through the narrowest
    place), plus 20 s to slow down and form up. Measured, the bundled scenes reach 95% within
    45-60% of this limit."""
    n = len(group.members)
    return 2 * group.route_length / group.speed + n * length / group.speed + 20.0


class Outcome:
    """A scene run until its groups' time limit."""

    def __init__(self, name):
        self.scene = load_scene(ROOT / "scenes" / f"{name}.toml")
        sim = self.sim = Simulation(self.scene)
        sim.step()
        while not sim.orders.groups:
            sim.step()
        self.groups = list(sim.orders.groups.values())
        L = float(sim.units.length.max())
        limit = max(time_limit(g, L) for g in self.groups)
        self.limit_ticks = int(limit / self.scene.world.dt)
        self.inside_ticks = 0  # unit-ticks spent inside a wall or building
        total = sum(len(g.members) for g in self.groups)
        self.tick_95 = None
        for _ in range(self.limit_ticks):
            sim.step()
            arrived = sum(int(g.arrived.sum()) for g in self.groups)
            if self.tick_95 is None and arrived >= 0.95 * total:
                self.tick_95 = sim.tick
            if sim.tick % 30 == 0:
                self.inside_ticks += self.inside(sim.state.pos).sum()

    def inside(self, pos):
        hit = np.zeros(len(pos), dtype=bool)
        for b in self.sim.orders.buildings:
            hit |= polygon_distance(pos, b) < 0
        for w in self.scene.walls:
            hit |= segment_distance(pos, w.start, w.end) < w.thickness / 2
        return hit


@pytest.fixture(scope="module", params=RTS)
def outcome(request):
    return Outcome(request.param)


def test_ordered_units_reach_their_slots_in_time(outcome):
    assert outcome.tick_95 is not None, "fewer than 95% arrived within the time limit"
    for g in outcome.groups:
        L = outcome.sim.units.length[g.members]
        d = np.hypot(*(g.slots - outcome.sim.state.pos[g.members]).T)
        # none stuck: every unit ends within its arrival radius of its slot
        assert (d < outcome.scene.navigation.arrive_radius * L).all()
    assert outcome.inside_ticks == 0
    assert not outcome.inside(outcome.sim.state.pos).any()


def test_arrival_without_piling(outcome):
    """Measured on every bundled scene: arrived units sit on their slots, 2.5 L apart (the slot
    spacing), and the formation's radius is 0.50-0.58 x spacing x sqrt(units)."""
    sim = outcome.sim
    for g in outcome.groups:
        p = sim.state.pos[g.members]
        L = float(sim.units.length[g.members].max())
        d = np.hypot(*(p[:, None] - p[None]).transpose(2, 0, 1))
        d[np.diag_indices(len(p))] = np.inf
        assert d.min() >= L
        spacing = sim.scene.navigation.slot_spacing * L
        radius = np.hypot(*(p - g.goal).T).max()
        assert radius <= 0.8 * spacing * np.sqrt(len(p))


def test_a_new_building_across_the_route_is_gone_around():
    sc = load_scene(ROOT / "scenes" / "rts_maze.toml")
    sim = Simulation(sc)
    event = sc.events[0]
    poly = np.asarray(event.add_building.polygon)
    while sim.tick < event.tick:
        sim.step()
    g = next(iter(sim.orders.groups.values()))
    assert (polygon_distance(g.path, poly) < 0).any()  # the route ran through it
    sim.step()
    assert not (polygon_distance(g.path, poly) < 0).any()  # re-routed around it
    # within the RTS time limit of the order (as the bundled scenes' arrival test): the way
    # round the new building is longer than the route the limit was reckoned on, yet measured
    # (seed 8) 95% arrive by tick 9,907 of the limit's 15,626
    limit = int(time_limit(g, float(sim.units.length.max())) / sc.world.dt)
    while sim.tick < g.tick + limit and g.arrived.mean() < 0.95:
        sim.step()
        assert not (polygon_distance(sim.state.pos, poly) < 0).any()
    assert g.arrived.mean() >= 0.95


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_new_building_beside_a_slot_moves_it(scene_from, seed):
    """A building landing 11 from the formation's edge, at an order's goal (slots 10 apart,
    units 4 long): every slot's own cell keeps the route clearance, but the end of the unit
    standing on the outermost slots would lie in a cell without it, against the building. The
    slots are made again, as when the order was given, so every one has room for its unit
    (:func:`rigidflock.rts.slots.has_room`); before, only the slots' own cells were checked."""
    text = (
        f'seed = {seed}\n[rules]\nchase = false\n[world]\nbounds = "walls"\n[[groups]]\n'
        "count = 9\nspawn = { center = [100.0, 300.0], radius = 40.0 }\n[[orders]]\n"
        "select = { rect = [0.0, 0.0, 800.0, 600.0] }\ngoal = [500.0, 300.0]\n"
    )
    sim = Simulation(scene_from(text))
    sim.step()
    g = next(iter(sim.orders.groups.values()))
    before = g.slots.copy()
    b = scene_from(text + "[[buildings]]\nrect = [521.0, 250.0, 551.0, 350.0]\n").buildings[0]
    sim.step(Command(add_buildings=(b,)))
    grid = sim.orders.grid
    assert grid.is_roomy(before).all()  # the old check kept them
    assert not has_room(grid, before, g.facing, 2.0).all()
    assert has_room(grid, g.slots, g.facing, 2.0).all()
    assert len({tuple(p) for p in g.slots}) == len(g.members)


def test_orders_through_commands_and_one_search_per_order(scene_from):
    sim = Simulation(scene_from("[rules]\nchase = false\n[[groups]]\ncount = 40\n"))
    searches = sim.orders.searches
    order = OrderSpec(select=SelectSpec(rect=(0.0, 0.0, 800.0, 600.0)), goal=(700.0, 500.0))
    events = sim.step(Command(orders=(order,)))
    assert events.orders_given == 1
    assert sim.orders.searches == searches + 1  # one route for 40 units
    assert (sim.orders.group_of[:40] >= 0).all()
    # a second order takes half of them into a new group; the first keeps the rest
    half = OrderSpec(select=SelectSpec(ids=tuple(range(20))), goal=(100.0, 100.0))
    sim.step(Command(orders=(half,)))
    groups = sim.orders.groups
    assert sorted(len(g.members) for g in groups.values()) == [20, 20]
    # ordered units flock with their group only and lead nobody
    assert not sim.steering.leader[:40].any()
    # and feel the world's walls 2 lengths ahead (navigation.wall_feeler), not 25: their
    # route keeps off them
    _, _, wall_feeler = sim.orders.steering_keys()
    np.testing.assert_array_equal(wall_feeler[:40], 2.0 * sim.units.length[:40])
    assert np.isinf(wall_feeler[40:]).all()


BAD_RTS = [
    (
        '[[groups]]\ncount = 3\n[[orders]]\nselect = { family = "reds" }\ngoal = [10.0, 10.0]',
        "orders[0].select.family",
    ),
    (
        "[[groups]]\ncount = 3\n[[orders]]\nselect = { ids = [7] }\ngoal = [10.0, 10.0]",
        "orders[0].select.ids",
    ),
    (
        '[[groups]]\ncount = 3\n[[orders]]\nselect = { family = "regular" }\ngoal = [900.0, 10.0]',
        "orders[0].goal",
    ),
    (
        "[[groups]]\ncount = 3\n[[buildings]]\nrect = [10.0, 10.0, 50.0, 50.0]\n[[orders]]\n"
        'select = { family = "regular" }\ngoal = [20.0, 20.0]',
        "orders[0].goal",
    ),
    (
        "[[groups]]\ncount = 3\n[[buildings]]\nrect = [10.0, 10.0, 50.0, 50.0]\n[[buildings]]\n"
        "rect = [40.0, 40.0, 90.0, 90.0]",
        "buildings[1]",
    ),
    (
        "[[groups]]\ncount = 3\n[[buildings]]\npolygon = [[0.0, 0.0], [10.0, 0.0], [5.0, 1.0], "
        "[5.0, 10.0]]",
        "buildings[0].polygon",
    ),
    (
        "[[groups]]\ncount = 3\nspawn = { positions = [[10.0, 10.0], [30.0, 30.0], [50.0, 50.0]] }"
        "\n[[orders]]\nselect = { rect = [300.0, 300.0, 400.0, 400.0] }\ngoal = [20.0, 20.0]",
        "orders[0].select.rect",
    ),
    ("[[groups]]\ncount = 3\n[[walls]]\nstart = [10.0, 10.0]\nend = [10.0, 10.0]", "walls[0]"),
    (
        "[[groups]]\ncount = 3\n[[events]]\ntick = 5\nadd_building = { rect = [1.0, 2.0] }",
        "events[0].add_building.rect",
    ),
]


@pytest.mark.parametrize("text,field", BAD_RTS)
def test_bad_rts_input_is_one_clear_line(tmp_path, capsys, text, field):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    assert main(["run", str(p), "--ticks", "5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.toml" in err[0] and field in err[0], err


def test_run_reports_orders_in_metrics(tmp_path, capsys):
    import json

    out = tmp_path / "m.json"
    scene = ROOT / "scenes" / "rts_doorway.toml"
    assert main(["run", str(scene), "--ticks", "200", "--metrics", str(out)]) == 0
    m = json.loads(out.read_text())["metrics"]
    assert [g["units"] for g in m["orders"]] == [30]
    assert m["route_searches"] >= 1
    assert "order group 0" in capsys.readouterr().out
