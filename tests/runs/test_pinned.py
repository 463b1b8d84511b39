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


@pytest.mark.parametrize("seed", [1, 2])
def test_the_series_counts_pins_as_the_run_metrics_do(scene_from, seed):
    """One definition of pinned: a series sampled every tick counts, tick by tick, the units the
    run metrics count (pymunk's contact state while slow), so its pinned ticks times dt are the
    run's pinned seconds (one unit, so a count is 0 or 1)."""
    scene = scene_from(PRESSED)
    res = run_scene(scene, 1500, seed=seed, series_every=1)
    dt = scene.world.dt
    pinned_ticks = sum(r["pinned"] for r in res.series[1:])  # row 0: the spawned state
    assert pinned_ticks > 30  # held against the wall for half a second or more
    assert pinned_ticks * dt == pytest.approx(res.metrics["pinned_seconds"], abs=1e-9)
