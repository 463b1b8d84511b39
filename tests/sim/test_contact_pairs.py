"""Contact events name the units that touched (``StepEvents.unit_pairs``)."""

import numpy as np
import pytest

from rigidflock import Simulation
from rigidflock.bundled import bundled_scene
from rigidflock.scene import load_scene
from rigidflock.scene.overrides import apply_overrides

CROWD = """
name = "crowd"
[world]
size = [80.0, 80.0]
bounds = "walls"
[[groups]]
count = 150
role = "none"
spawn = { center = [40.0, 40.0], radius = 36.0 }
"""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pairs_match_the_counts_and_touch(tmp_path, seed):
    path = tmp_path / "crowd.toml"
    path.write_text(CROWD)
    sim = Simulation(load_scene(path), seed=seed)
    reach = float(np.hypot(sim.units.length.max(), sim.units.width.max()))  # box diagonal
    total = 0
    for _ in range(240):
        e = sim.step()
        p = e.unit_pairs
        assert p.shape == (e.unit_contacts + e.player_contacts, 2) and p.dtype == np.int64
        if len(p):
            assert (p[:, 0] < p[:, 1]).all() and p.min() >= 0 and p.max() < sim.units.n
            # two boxes that began touching this tick are closer than one box diagonal
            # (plus what they moved in the tick: speed x dt, well under a length)
            d = np.hypot(*(sim.state.pos[p[:, 0]] - sim.state.pos[p[:, 1]]).T)
            assert (d < reach + 1.0).all()
        total += len(p)
    assert total > 20  # 150 units in an 80 x 80 box collide often: the test has pairs to check


def test_player_contacts_name_the_player():
    # aidemo4 with a chase weight high enough that the flock catches the player within 40 s
    scene = apply_overrides(load_scene(bundled_scene("aidemo4")), {"rules.weights.chase": 6.0})
    player = 0
    for seed in (1, 2, 3):
        sim = Simulation(scene, seed=seed)
        for _ in range(2400):
            e = sim.step()
            if e.player_contacts:
                with_player = e.unit_pairs[e.unit_pairs[:, 1] == sim.units.n - 1]
                assert len(with_player) == e.player_contacts
                player += 1
                break
    assert player >= 2
