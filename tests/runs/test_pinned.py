"""Pinned and stuck time in the run metrics: pymunk's contact state, counted while slow."""

import pytest

from rigidflock.runs.runner import run_scene

PRESSED = """
name = "pressed"
seed = 1
[world]
size = [200.0, 200.0]
bounds = "walls"
[rules]
avoidance = false
flocking = false
chase = false
[[groups]]
count = 1
spawn = { center = [100.0, 100.0], radius = 1.0 }
[obstacle_field]
count = 0
radius = 10.0
margin = 0.0
"""


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_unit_driving_into_a_wall_is_pinned(scene_from, seed):
    m = run_scene(scene_from(PRESSED), 3000, seed=seed).metrics
    # without avoidance a unit crossing a 200-unit box reaches a wall within seconds and is
    # held there by its own thrust, sliding slowly along it or pressed still
    assert m["wall_contacts"] >= 1
    assert m["pinned_seconds"] > 1.0 and m["longest_pin_seconds"] <= m["pinned_seconds"] + 1e-9
    assert m["stuck_seconds"] == 0.0  # no orders


def test_pinned_and_stuck_in_the_cli_summary(tmp_path, capsys, scene_from):
    from rigidflock.cli import main

    path = tmp_path / "pressed.toml"
    path.write_text(PRESSED)
    assert main(["run", str(path), "--ticks", "60"]) == 0
    out = capsys.readouterr().out
    assert "pinned " in out and "stuck " in out and "unit-s" in out
