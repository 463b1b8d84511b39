"""The clear map (``clearmap.py``): no obstacle within reach of a clear point, and the unit pass
gives the same bits with it as with every cell marked (the search run for every unit)."""

import numpy as np
import pytest

from rigidflock.model.steering import clearmap, unit_pass
from rigidflock.model.torus import min_image
from rigidflock.sim import Simulation
from tests.sim.test_forests import FOREST  # 30 units in a forest of 30 trees


@pytest.mark.parametrize("wrap", [False, True])
def test_no_obstacle_within_reach_of_a_clear_point(wrap):
    rng = np.random.default_rng(5)
    size = np.array([500.0, 300.0])
    centres = rng.uniform(0.0, 1.0, (25, 2)) * size
    reach = clearmap.reach(20.0, 8.0, 3.0, 3.2)
    cm = clearmap.build(centres, reach, size, wrap)
    layout = (cm.origin[0], cm.origin[1], cm.cell[0], cm.cell[1], cm.shape[0], cm.shape[1])
    # points everywhere, some beyond the world, many right on cell edges
    pts = rng.uniform(-60.0, 1.0, (40000, 2)) + rng.uniform(0.0, 1.0, (40000, 2)) * (size + 60)
    edges = cm.origin + np.round((pts - cm.origin) / cm.cell) * cm.cell
    pts = np.concatenate([pts, edges, np.nextafter(edges, -np.inf)])
    if wrap:
        pts = pts % size
    box = size if wrap else None
    clear = np.array([clearmap.is_clear.py_func(x, y, cm.marked, layout, wrap) for x, y in pts])
    d = min_image(pts[:, None, :] - centres[None, :, :], box)
    nearest = np.hypot(d[..., 0], d[..., 1]).min(axis=1)
    assert not (clear & (nearest <= reach)).any()
    assert 0.5 < clear.mean() < 0.99  # the map does skip most of the world


@pytest.mark.parametrize("bounds", ["wrap", "walls", "open"])
def test_the_unit_pass_is_the_same_with_or_without_the_map(scene_from, bounds):
    sim = Simulation(scene_from(FOREST.format(view="limited", bounds=bounds, avoid="true")), seed=2)
    steer = sim.steerer
    skipped = 0
    for tick in range(1, 601):
        sim.step()
        if tick % 30:
            continue
        fast = steer(sim.state, sim.rules)
        grid = steer.obstacle_grid(sim.rules)
        steer.clear_map = False  # every cell searched
        slow = steer(sim.state, sim.rules)
        steer.clear_map = True
        for name in ("force", "heading", "leader", "feeler_end", "felt", "target"):
            a, b = getattr(fast, name), getattr(slow, name)
            assert a.tobytes() == b.tobytes(), name
        c = grid.clear
        layout = (c.origin[0], c.origin[1], c.cell[0], c.cell[1], c.shape[0], c.shape[1])
        skipped += sum(clearmap.is_clear.py_func(x, y, c.marked, layout, c.wrap)
                       for x, y in sim.state.pos)  # fmt: skip
    assert skipped > 0
    assert isinstance(grid, unit_pass.ObstacleGrid)
