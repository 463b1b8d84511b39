"""The observation, field by field, on states set by hand: a policy relies on each slot meaning
what the docstring says (body frame, nearest first, minimum image, padding, feeler distances).
Needs no gymnasium: the observation is numpy (the reference) and numba (the kernel)."""

import numpy as np
import pytest

from rigidflock import Command, Simulation
from rigidflock.envs.observation import (
    OWN,
    PER_PURSUER,
    Observer,
    observation_size,
    ray_circles,
    ray_segments,
)
from tests.conftest import ROOT

TWO = """
[world]
size = [400.0, 300.0]
bounds = "{bounds}"
[[groups]]
count = 2
spawn = {{ positions = [[50.0, 50.0], [300.0, 200.0]] }}
[player]
position = [200.0, 150.0]
"""


def place(sim, pos, angle, vel=None):
    """Put the units (player last) where a test wants them."""
    st = sim.state
    st.pos[:] = pos
    st.angle[:] = angle
    st.vel[:] = 0.0 if vel is None else vel
    st.omega[:] = 0.0


def test_size_and_padding_mask_when_fewer_pursuers_than_slots(scene_from):
    """Slots past the last pursuer are all zero, mask included; the vector is float32 in
    [-1, 1] and of the documented length."""
    sim = Simulation(scene_from(TWO.format(bounds="wrap")))
    obs = Observer(sim, k=4, rays=3)
    o = obs(sim)
    assert o.shape == (observation_size(4, 3),) == (OWN + 4 * PER_PURSUER + 3,)
    assert o.dtype == np.float32 and np.all(np.abs(o) <= 1)
    slots = o[OWN : OWN + 4 * PER_PURSUER].reshape(4, PER_PURSUER)
    assert list(slots[:, 5]) == [1, 1, 0, 0]
    assert not slots[2:].any()


def test_pursuers_in_the_body_frame_nearest_first(scene_from):
    """Player facing +y: a unit 20 units to its east is 20 to starboard (y = -20), one 10 units
    to its north is 10 ahead; the nearer comes first; velocities relative and rotated too."""
    sim = Simulation(scene_from(TWO.format(bounds="open")))
    obs = Observer(sim, k=2, rays=0)
    place(sim, [[220.0, 150.0], [200.0, 160.0], [200.0, 150.0]], [0.0, 0.0, np.pi / 2])
    sim.state.vel[:] = [[0.0, 3.0], [0.0, 0.0], [0.0, 1.0]]
    o = obs(sim).astype(float)
    s = obs.sense_range
    slots = o[OWN:].reshape(2, PER_PURSUER)
    np.testing.assert_allclose(slots[0, :2] * s, [10.0, 0.0], atol=1e-4)
    np.testing.assert_allclose(slots[1, :2] * s, [0.0, -20.0], atol=1e-4)
    # unit 0 moves +y at 3, the player +y at 1: 2 ahead, relative
    np.testing.assert_allclose(slots[1, 2:4] * obs.speed_scale, [2.0, 0.0], atol=1e-4)
    np.testing.assert_allclose(o[0:2] * obs.speed_scale, [1.0, 0.0], atol=1e-4)
    np.testing.assert_allclose(o[3:5], [0.0, 1.0], atol=1e-6)


def test_wrap_around_offsets_are_minimum_image(scene_from):
    """In a 400-wide wrap world a unit at x = 395 is 10 units west of a player at x = 5, not 390
    east: the flock closing in across the edge must look close."""
    sim = Simulation(scene_from(TWO.format(bounds="wrap")))
    obs = Observer(sim, k=1, rays=0)
    place(sim, [[395.0, 150.0], [200.0, 20.0], [5.0, 150.0]], [0.0, 0.0, 0.0])
    o = obs(sim).astype(float)
    np.testing.assert_allclose(o[OWN : OWN + 2] * obs.sense_range, [-10.0, 0.0], atol=1e-4)


def test_feelers_read_obstacles_and_walls(scene_from):
    """Ray 0 (ahead) stops at the obstacle's surface, the ray behind at the world's wall, the
    others read 1 (nothing within range)."""
    text = TWO.format(bounds="walls") + "\n[[obstacles]]\ncenter = [260.0, 150.0]\nradius = 10.0\n"
    sim = Simulation(scene_from(text))
    obs = Observer(sim, k=0, rays=4, ray_range=100.0)
    place(sim, [[50.0, 50.0], [300.0, 250.0], [230.0, 150.0]], [0.0, 0.0, 0.0])
    o = obs(sim).astype(float)
    np.testing.assert_allclose(o[OWN:] * 100.0, [20.0, 100.0, 100.0, 100.0], atol=1e-4)
    place(sim, [[50.0, 50.0], [300.0, 250.0], [40.0, 150.0]], [0.0, 0.0, 0.0])
    o = obs(sim).astype(float)
    np.testing.assert_allclose(o[OWN + 2] * 100.0, 40.0, atol=1e-4)  # the west wall, behind


def test_ray_functions_against_brute_force():
    """The vectorised ray casts agree with marching along each ray."""
    rng = np.random.default_rng(0)
    p = np.array([50.0, 50.0])
    ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    dirs = np.column_stack([np.cos(ang), np.sin(ang)])
    circles = np.column_stack([rng.uniform(0, 100, (6, 2)), rng.uniform(3, 8, 6)])
    segs = np.array([[0.0, 90.0, 100.0, 95.0, 0.0], [10.0, 0.0, 10.0, 100.0, 0.0]])
    steps = np.arange(0, 150, 0.01)
    got = zip(dirs, ray_circles(p, dirs, circles), ray_segments(p, dirs, segs), strict=True)
    for d, tc, ts in got:
        pts = p + steps[:, None] * d
        gap = np.linalg.norm(pts[:, None] - circles[None, :, :2], axis=2)  # (steps, circles)
        inside = (gap < circles[:, 2]).any(axis=1)
        expect = steps[inside.argmax()] if inside.any() else np.inf
        assert tc == pytest.approx(expect, abs=0.02)
        y_line = 90.0 + 0.05 * pts[:, 0]
        on_first = (pts[:, 1] >= y_line) & (pts[:, 0] >= 0) & (pts[:, 0] <= 100)
        crossed = on_first | ((pts[:, 0] <= 10.0) & (pts[:, 1] >= 0) & (pts[:, 1] <= 100))
        expect = steps[crossed.argmax()] if crossed.any() else np.inf
        assert ts == pytest.approx(expect, abs=0.02)


def _with_player(path, position, edit=("", "")):
    """A bundled scene's text with a player added (and one text edit)."""
    text = (ROOT / "scenes" / path).read_text().replace(*edit)
    return text + f"\n[player]\nposition = {list(position)}\n"


# (scene text or bundled path, k, rays, ray_range): wrap-around and walled worlds, with and
# without obstacles, scene walls and buildings (one dropped in during the run), more slots than
# pursuers, no slots, no feelers, long feelers reaching across the wrap, and a crowd (> 64
# pursuers: the partial-selection path of the reference).
KERNEL_CASES = {
    "aidemo4": ("aidemo4.toml", 5, 8, None),
    "walls": ("walls.toml", 3, 16, None),
    "forest": (_with_player("forest.toml", (500.0, 20.0)), 40, 12, 900.0),
    "maze": (_with_player("rts_maze.toml", (180.0, 60.0), ("tick = 600", "tick = 5")), 4, 8, None),
    "open": (TWO.format(bounds="open"), 4, 5, None),
    "bare walls": (TWO.format(bounds="walls"), 0, 6, 300.0),
    "no feelers": (TWO.format(bounds="wrap"), 2, 0, None),
    "crowd": (_with_player("flock500.toml", (1000.0, 750.0)), 7, 8, None),
}


@pytest.mark.parametrize("case", list(KERNEL_CASES))
def test_kernel_matches_the_numpy_reference(case, scene_from):
    """The compiled observation is the reference's, bit for bit, tick after tick of random
    driving, on several seeds."""
    text, k, rays, ray_range = KERNEL_CASES[case]
    scene = scene_from(text) if "\n" in text else ROOT / "scenes" / text
    ticks = 12 if case == "crowd" else 40
    for seed in (0, 1, 2):
        sim = Simulation(scene, seed=seed)
        obs = Observer(sim, k=k, rays=rays, ray_range=ray_range)
        rng = np.random.default_rng(seed)
        for _ in range(ticks):
            got, want = obs(sim), obs.reference(sim)
            assert got.dtype == want.dtype == np.float32
            np.testing.assert_array_equal(got, want)
            throttle, steer = rng.uniform(-1, 1, 2)
            sim.step(Command(throttle=float(throttle), steer=float(steer)))
        if case == "maze":
            assert len(sim.orders.buildings) == 5  # the dropped building is felt too
