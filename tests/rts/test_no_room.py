"""Orders in places with no room are runs, not crashes: a goal no route reaches (walled off on
every side) has its route length reported as none, in the summary and as null in the metrics
JSON (which allows no infinities); a formation with no free point for its units shares them."""

import json

from rigidflock.cli import main

SEALED = """
[world]
size = [200.0, 200.0]
bounds = "walls"
[[walls]]
start = [120.0, 120.0]
end = [180.0, 120.0]
thickness = 4.0
[[walls]]
start = [180.0, 120.0]
end = [180.0, 180.0]
thickness = 4.0
[[walls]]
start = [180.0, 180.0]
end = [120.0, 180.0]
thickness = 4.0
[[walls]]
start = [120.0, 180.0]
end = [120.0, 120.0]
thickness = 4.0
[[groups]]
family = "a"
count = 4
spawn = { center = [50.0, 50.0], radius = 10.0 }
[[orders]]
tick = 1
select = { family = "a" }
goal = [150.0, 150.0]
"""


def test_a_walled_off_goal_is_reported_not_crashed(tmp_path, capsys):
    scene, out = tmp_path / "sealed.toml", tmp_path / "m.json"
    scene.write_text(SEALED)
    assert main(["run", str(scene), "--ticks", "30", "--metrics", str(out)]) == 0
    assert "no route reaches the goal" in capsys.readouterr().out
    (order,) = json.loads(out.read_text())["metrics"]["orders"]
    assert order["route_length"] is None and order["arrived"] == 0


def test_a_formation_with_no_room_for_its_units_runs(tmp_path, capsys):
    """Units as long as the maze is wide leave no free formation point near the goal: the units
    share the points there are (the goal itself when none is free) and the run goes on, as
    ``check`` promised, instead of stopping on the first order."""
    out = tmp_path / "m.json"
    args = ["run", "rts_maze", "--set", "groups[0].length=1000", "--ticks", "40"]
    assert main(["check", "rts_maze", "--set", "groups[0].length=1000"]) == 0
    assert main([*args, "--metrics", str(out), "--quiet"]) == 0
    (order,) = json.loads(out.read_text())["metrics"]["orders"]
    assert order["units"] == 24
