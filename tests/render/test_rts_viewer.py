"""The viewer's RTS side in pictures: the static world and orders in screenshots and frames
(selection math: test_selection.py; the mouse: test_rts_mouse.py). Runs headless."""

import numpy as np
import pytest

from rigidflock import Simulation, load_scene
from rigidflock.render import colors as C
from rigidflock.render import selection as S
from rigidflock.render import vertices as G
from rigidflock.render.camera import fit_camera
from rigidflock.scene.geometry import polygon_distance
from tests.conftest import ROOT

MAZE = ROOT / "scenes" / "rts_maze.toml"
DOORWAY = ROOT / "scenes" / "rts_doorway.toml"


def near(image, color, tol=40):
    diff = np.abs(image[..., :3].astype(int) - np.asarray(color[:3], int))
    return (diff <= tol).all(axis=-1)


def triangle_area(tri) -> float:
    t = np.asarray(tri, float).reshape(-1, 3, 2)
    u, w = t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]
    return float(0.5 * np.abs(u[:, 0] * w[:, 1] - u[:, 1] * w[:, 0]).sum())


def test_shape_vertices_cover_what_they_should():
    tri = G.polygon_triangles([S.square((0, 0), 10.0), [(0, 0), (4, 0), (0, 3)]])
    assert triangle_area(tri) == pytest.approx(100.0 + 6.0)
    assert G.square_outlines([(0, 0), (5, 5)], 3.0, 1.0).shape == (48, 2)
    assert triangle_area(G.thick_segments([(0, 0)], [(10, 0)], 2.0)) == pytest.approx(20.0)


# -- pictures ------------------------------------------------------------------------------------


def interior_points(poly, inset, k=5):
    """A k x k lattice of points inside the convex polygon, at least ``inset`` from its edges."""
    lo, hi = poly.min(axis=0), poly.max(axis=0)
    xs, ys = np.meshgrid(np.linspace(lo[0], hi[0], k + 2), np.linspace(lo[1], hi[1], k + 2))
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1)
    return pts[polygon_distance(pts, poly) < -inset]


def test_maze_screenshot_shows_every_building_and_the_one_dropped_later(tmp_path):
    from rigidflock.render.offscreen import screenshot

    sim = Simulation(load_scene(MAZE))
    for _ in range(620):  # the scene's event adds a building at tick 600
        sim.step()
    assert len(sim.orders.buildings) == len(sim.scene.buildings) + 1
    size = (1200, 800)
    image = screenshot(sim, tmp_path / "maze.png", size)
    cam = fit_camera(sim.scene.world.size, size)
    L = float(sim.units.length.max())
    for poly in sim.orders.buildings:
        pts = interior_points(poly, 3.0 / cam.zoom)
        pts = pts[np.hypot(*(pts[:, None] - sim.state.pos[None]).transpose(2, 0, 1)).min(1) > 2 * L]
        assert len(pts) >= 3
        px = np.floor(cam.world_to_pixel(pts)).astype(int)
        inside = near(image[px[:, 1], px[:, 0]], C.BUILDING_FILL, tol=6)
        assert inside.all(), f"building {poly.tolist()}: {inside.sum()}/{len(pts)} filled"
    # the formation slots are drawn: hollow squares in the squad's colour near the goal
    goal = np.asarray(sim.scene.orders[0].goal)
    col, row = np.floor(cam.world_to_pixel(goal)).astype(int)
    patch = image[row - 60 : row + 60, col - 60 : col + 60]
    assert (patch[..., 2].astype(int) - patch[..., 0] > 40).sum() > 30  # blue-ish slot edges


def test_doorway_screenshot_shows_the_walls(tmp_path):
    from rigidflock.render.offscreen import screenshot

    sim = Simulation(load_scene(DOORWAY))
    size = (1000, 700)
    image = screenshot(sim, tmp_path / "doorway.png", size)
    cam = fit_camera(sim.scene.world.size, size)
    for w in sim.scene.walls:
        a, b = np.asarray(w.start), np.asarray(w.end)
        pts = a + np.linspace(0.05, 0.95, 15)[:, None] * (b - a)
        px = np.floor(cam.world_to_pixel(pts)).astype(int)
        assert near(image[px[:, 1], px[:, 0]], C.WALL, tol=8).all()
    # the doorway between them is open floor
    col, row = np.floor(cam.world_to_pixel((200.0, 120.0))).astype(int)
    assert not near(image[row, col], C.WALL, tol=40)


def test_frame_carries_the_world_and_orders_as_arrays():
    from rigidflock.render.frame import frame_from_sim

    sim = Simulation(load_scene(MAZE))
    sim.step()
    f = frame_from_sim(sim)
    assert len(f.buildings) == 4 and f.walls.shape == (0, 5)
    g = next(iter(sim.orders.groups.values()))
    assert f.slots.shape == (len(g.members), 2) and sorted(f.slot_unit) == sorted(g.members)
    assert len(f.paths) == 1 and np.allclose(f.paths[0][-1], g.path[-1])  # no viewer: all routes
    f = frame_from_sim(sim, selected=[])
    assert f.paths == () and not f.selected.any()  # a viewer with nothing selected
    f = frame_from_sim(sim, selected=[3])
    assert len(f.paths) == 1 and f.selected.tolist() == [i == 3 for i in range(sim.units.n)]
    d = frame_from_sim(Simulation(load_scene(DOORWAY)))
    assert d.walls.shape == (2, 5) and d.walls[0, 4] == 6.0 and d.paths == ()


def test_a_recorded_building_is_drawn_in_the_replay(tmp_path):
    from rigidflock.render.frame import frame_from_sim
    from rigidflock.render.offscreen import render_frame
    from rigidflock.render.replay_window import replay_hud
    from rigidflock.replay import Recorder, ReplayReader
    from rigidflock.replay.playback import Playback
    from rigidflock.scene import BuildingSpec
    from rigidflock.sim import Command

    sim = Simulation(load_scene(DOORWAY))
    square = S.square((300.0, 200.0), 32.0)
    placed = Command(add_buildings=(BuildingSpec(tuple(map(tuple, square))),))
    path = tmp_path / "b.rfr"
    with Recorder(path, sim) as rec:
        for _ in range(20):
            cmd = placed if sim.tick == 10 else None
            rec.record(cmd, sim.step(cmd))
    with ReplayReader(path) as r:
        pb = Playback(r)
        assert pb.view(10).buildings == ()
        (b,) = pb.view(11).buildings
        np.testing.assert_allclose(b, square)
        view = pb.view(15)
        f = frame_from_sim(view)
        assert f.walls.shape == (2, 5) and len(f.buildings) == 1
        image = render_frame(f, (1000, 700), hud=replay_hud(pb, view))
    cam = fit_camera(sim.scene.world.size, (1000, 700))
    col, row = np.floor(cam.world_to_pixel((300.0, 200.0))).astype(int)
    assert near(image[row, col], C.BUILDING_FILL, tol=6)
