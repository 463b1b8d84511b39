"""Scene generation: the seeded obstacle field (rigidflock.scene.generation).

The expected arrays were computed by the code before the move: ``Simulation(scene, seed).obstacles``
of ``rigidflock/sim.py`` in a checkout from before the layer folders (commit 1926f70). They must
not change, or recorded replays stop verifying.
"""

from __future__ import annotations

import numpy as np
import pytest

from rigidflock.scene import SceneError, check_generation, load_scene, parse_scene, place_obstacles
from tests.conftest import ROOT

SMALL = """\
seed = 5
[world]
size = [400.0, 300.0]
[[groups]]
count = 2
spawn = { center = [100.0, 100.0], radius = 20.0 }
[[groups]]
count = 2
spawn = { positions = [[300.0, 250.0], [320.0, 250.0]] }
[[obstacles]]
center = [200.0, 150.0]
radius = 10.0
[obstacle_field]
count = 3
radius = 12.0
margin = 25.0
[player]
position = [350.0, 60.0]
"""

# seed -> Simulation(parse_scene(SMALL), seed=seed).obstacles.tolist() of the old code.
OLD_SMALL = {
    5: [[200.0, 150.0, 10.0], [306.75102331088306, 226.98519743412345, 12.0],
        [205.3639463647497, 96.4503450220354, 12.0],
        [43.87574583357975, 120.84222019637956, 12.0]],
    0: [[200.0, 150.0, 10.0], [247.936590562509, 92.44667844096757, 12.0],
        [39.340733377668144, 29.131908882132272, 12.0],
        [309.64458372009534, 253.18889431943043, 12.0]],
    123: [[200.0, 150.0, 10.0], [263.82315213685024, 38.45525470055567, 12.0],
          [86.56706537976062, 228.02362666394342, 12.0],
          [311.91409655755075, 247.4731732777965, 12.0]],
}  # fmt: skip

# Simulation(load_scene("scenes/aidemo4.toml")).obstacles.tolist() of the old code (seed 7).
OLD_AIDEMO4 = [
    [408.03870479617456, 516.222574236449, 32.0], [158.02853664935094, 515.351734625877, 32.0],
    [622.8377637979004, 256.4155854571974, 32.0], [433.7237076176805, 73.22837435667282, 32.0],
    [572.3889138988685, 318.30879034525356, 32.0], [284.21756721938266, 438.44577764563405, 32.0],
    [151.14835412807201, 253.49423349462202, 32.0], [198.34956365978175, 185.91040341208776, 32.0],
]  # fmt: skip


@pytest.mark.parametrize("seed", sorted(OLD_SMALL))
def test_same_obstacles_as_before_the_move(seed):
    got = place_obstacles(parse_scene(SMALL), np.random.default_rng(seed))
    assert got.shape == (4, 3)
    assert got.tolist() == OLD_SMALL[seed]  # bit for bit


def test_scene_files_place_as_before():
    got = check_generation(load_scene(ROOT / "scenes" / "aidemo4.toml"))
    assert got.tolist() == OLD_AIDEMO4
    forest = check_generation(load_scene(ROOT / "scenes" / "forest.toml"))
    assert forest.shape == (40, 3)
    assert float(forest.sum()) == 34103.459829915504  # old code, seed 11
    assert forest[-1].tolist() == [651.7869834546906, 542.2865389468436, 20.0]


def test_check_generation_uses_the_scene_seed_or_the_given_one():
    scene = parse_scene(SMALL)
    assert check_generation(scene).tolist() == OLD_SMALL[5]
    assert check_generation(scene, seed=123).tolist() == OLD_SMALL[123]


def test_without_a_field_nothing_is_drawn():
    for text in (SMALL.replace("count = 3", "count = 0"), "[[groups]]\ncount = 1\n"):
        rng = np.random.default_rng(3)
        before = rng.bit_generator.state
        got = place_obstacles(parse_scene(text), rng)
        assert rng.bit_generator.state == before
        assert got.shape[1] == 3 and got.dtype == float
    assert place_obstacles(parse_scene("[[groups]]\ncount = 1\n"), rng).shape == (0, 3)


def test_a_field_that_does_not_fit_is_a_scene_error():
    scene = parse_scene(SMALL.replace("count = 3", "count = 200"), "tight.toml")
    with pytest.raises(SceneError) as info:
        check_generation(scene)
    # The old simulation's message for the same scene and seed.
    assert info.value.errors == [
        "tight.toml: obstacle_field: only 93 of 200 obstacles fit (margin 25 from edges, spawn "
        "discs and the player); lower count, radius or margin"
    ]


def test_the_simulation_places_the_same_obstacles():
    from rigidflock.sim.simulation import Simulation

    sim = Simulation(parse_scene(SMALL), seed=0)
    assert sim.obstacles.tolist() == OLD_SMALL[0]
