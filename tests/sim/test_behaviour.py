"""The book's qualitative results, measured (*AI for Game Developers*, chapter 4 (AIDemo4)).

Thresholds come from runs of these exact setups over several seeds (numbers in each docstring,
measured with ``PYTHONPATH=$PWD python tools/behaviour_figures.py``); each bound sits well inside
the gap between the two cases it separates.
"""

import numpy as np

from rigidflock.runs.runner import run_scene

CLOUD = """
[world]
size = [800.0, 600.0]
[physics]
collisions = {collisions}
[rules]
view = "{view}"
flocking = {flocking}
weights = {{ separation = {separation} }}
[[groups]]
count = 30
{heading}
spawn = {{ radius = {radius} }}
"""


def cloud(
    scene_from,
    view="wide",
    flocking=True,
    separation=1.0,
    collisions=True,
    heading="",
    radius=100.0,
):
    return scene_from(
        CLOUD.format(
            view=view,
            flocking=str(flocking).lower(),
            separation=separation,
            collisions=str(collisions).lower(),
            heading=heading,
            radius=radius,
        )
    )


def test_flocking_aligns_a_random_cloud(scene_from):
    """30 units, random headings, wide view, 3000 ticks (50 s). Measured polarization_final over
    seeds 1-5: flocking on 0.62-0.80, off 0.07-0.20. A random cloud of 30 has E|mean heading| =
    sqrt(pi / (4 * 30)) = 0.16, so "off" stays near random and "on" is far above it."""
    on = [run_scene(cloud(scene_from), 3000, seed=s).metrics for s in (1, 2, 3)]
    off = [run_scene(cloud(scene_from, flocking=False), 3000, seed=s).metrics for s in (1, 2, 3)]
    pol_on = np.mean([m["polarization_final"] for m in on])
    pol_off = np.mean([m["polarization_final"] for m in off])
    assert pol_on > 0.55
    assert pol_off < 0.35
    assert pol_on - pol_off > 0.35


def test_separation_keeps_units_apart(scene_from):
    """30 units spawned heading the same way, collisions off so only steering keeps them apart,
    1200 ticks. Measured min_separation over seeds 1-8: separation on 0.32-4.97 (median 3.2),
    off 0.03-0.25 (median 0.08): without it cohesion pulls units through each other."""
    kw = {"collisions": False, "heading": "heading = 0", "radius": 60.0}
    on = [
        run_scene(cloud(scene_from, **kw), 1200, seed=s).metrics["min_separation"]
        for s in (1, 3, 4, 5)
    ]
    off = [
        run_scene(cloud(scene_from, separation=0.0, **kw), 1200, seed=s).metrics["min_separation"]
        for s in (1, 3, 4, 5)
    ]
    assert np.median(on) > 1.0  # a quarter of a unit length
    assert np.median(off) < 0.3
    assert np.median(on) > 5 * np.median(off)


def test_narrow_view_strings_flocks_out_into_lines(scene_from):
    """Flock length-to-width ratio (elongation_final) after 3000 ticks. Measured over seeds 1-5:
    wide 1.45-4.96 (median 1.8), narrow 2.41-36 (median 5.1); narrow was longer in every seed."""
    wide = [
        run_scene(cloud(scene_from), 3000, seed=s).metrics["elongation_final"] for s in (1, 3, 4)
    ]
    narrow = [
        run_scene(cloud(scene_from, view="narrow"), 3000, seed=s).metrics["elongation_final"]
        for s in (1, 3, 4)
    ]
    assert np.median(narrow) > 1.5 * np.median(wide)
    assert sum(n > w for n, w in zip(narrow, wide, strict=True)) >= 2
