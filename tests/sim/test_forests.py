"""Feelers that beat the flock's pull: 30 units of one family in a forest of 30 trees (radius 16,
margin 20), 800 x 600, 3,000 ticks, avoidance on against off. Seed 3 of the wide view is the
worst case: with AIDemo4's feeler simply added to the flocking rules, cohesion outvotes a tree
and avoidance on touches the trees more often than off (179 contacts against 121). Seed 3 also
has a pocket between two trees 1.5 apart (narrower than a unit) where AIDemo4's summed feeler
pushes cancel; units sat pinned in it for up to 20 s unless the side to turn comes from the
blocked interval (model.steering.avoidance). tools/forest_matrix.py prints the whole matrix."""

import pytest

from rigidflock.runs.runner import run_scene

FOREST = """
name = "forest {view} {bounds}"
seed = 1
[world]
size = [800.0, 600.0]
bounds = "{bounds}"
[rules]
view = "{view}"
chase = false
avoidance = {avoid}
[[groups]]
count = 30
spawn = {{ center = [400.0, 300.0], radius = 100.0 }}
[obstacle_field]
count = 30
radius = 16.0
margin = 20.0
"""


def forest(scene_from, view, bounds, seed, avoid):
    text = FOREST.format(view=view, bounds=bounds, avoid=str(avoid).lower())
    return run_scene(scene_from(text), 3000, seed=seed).metrics


def test_the_wide_view_forest_of_the_issue(scene_from):
    on = forest(scene_from, "wide", "wrap", 3, True)
    off = forest(scene_from, "wide", "wrap", 3, False)
    # measured: 0 / 74 (AIDemo4's feeler simply added to flocking: 179 / 121; prioritised, with
    # AIDemo4's summed pushes: 16 / 74)
    assert on["obstacle_contacts"] <= 0.3 * off["obstacle_contacts"]
    # pinned at most 2 s; measured 0 s (3.4 s with the summed pushes)
    assert on["longest_pin_seconds"] <= 2.0


# 16 runs per case: 5 s each, 32 s for the six (measured on one core)
@pytest.mark.parametrize("view", ["wide", "limited", "narrow"])
@pytest.mark.parametrize("bounds", ["wrap", "walls"])
def test_every_forest_every_seed(scene_from, view, bounds):
    # the same bounds on every seed; measured worst: ratio 0.07, longest pin 0.4 s (seeds
    # 9-16 too: 0.07, 0.57 s)
    for seed in range(1, 9):
        on = forest(scene_from, view, bounds, seed, True)
        off = forest(scene_from, view, bounds, seed, False)
        assert on["obstacle_contacts"] <= 0.3 * off["obstacle_contacts"], (seed, on, off)
        assert on["longest_pin_seconds"] <= 2.0, (seed, on)
