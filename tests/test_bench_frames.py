"""``rigidflock bench --frames``: the RTS frame-time world and its report."""

import json

import numpy as np
import pytest

from rigidflock.bench_frames import LEAD_TICKS, frames_one, frames_scene
from rigidflock.cli import main
from rigidflock.sim import Simulation


def test_the_frames_world_orders_its_army_past_a_building_and_drops_one_across_the_route():
    """One order after LEAD_TICKS, to the east of the disc; one building in the way; another
    dropped between the building and the goal, across the straight line from the disc."""
    scene = frames_scene(200)
    (order,) = scene.orders
    (event,) = scene.events
    assert order.tick == LEAD_TICKS and event.tick > order.tick
    spawn = np.asarray(scene.groups[0].spawn.center)
    goal = np.asarray(order.goal)
    (fixed,) = scene.buildings
    for poly in (fixed.polygon, event.add_building.polygon):
        p = np.asarray(poly)
        assert spawn[0] < p[:, 0].min() and p[:, 0].max() < goal[0]
        assert p[:, 1].min() < goal[1] < p[:, 1].max()
    assert not frames_scene(200, orders=False).orders
    assert Simulation(frames_scene(200, orders=False)).units.n == 200


def test_frames_reports_the_documented_fields():
    r = frames_one(60, 400)
    assert r["ticks"] <= 400 and r["units"] == 60
    for key in ("median_seconds", "p99_seconds", "max_seconds", "orders_ratio"):
        assert r[key] > 0, key
    assert r["p99_ratio"] >= 1.0 and r["max_ratio"] >= r["p99_ratio"]
    assert r["slowest_cause"] in ("order", "building", "slot deal", "other")
    assert len(r["top"]) == 5 and r["top"][0]["seconds"] == r["max_seconds"]


def test_bench_frames_writes_json(tmp_path, capsys):
    out = tmp_path / "f.json"
    assert main(["bench", "--frames", "60", "--frame-ticks", "60", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())
    assert row["units"] == 60 and row["ticks"] == 60
    assert "p99 x" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args", [["--frame-ticks", "10"], ["--frames", "60", "--set", "world.substeps=2"]]
)
def test_bench_frames_bad_combination_is_one_line_and_exit_2(capsys, args):
    assert main(["bench", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ("--frame" in err[0] or "--set" in err[0])
