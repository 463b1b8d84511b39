"""A goal that no route reaches (walled off on every side) is a run, not a crash: the order's
route length is reported as none, in the summary and as null in the metrics JSON (which allows
no infinities), and the run goes on."""

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
