"""The viewer's RTS side: selection math, the static world and orders in screenshots, and the
mouse / B key path into the simulation's commands. Runs headless (pyglet's EGL mode)."""

import numpy as np
import pytest

from rigidflock import Simulation, load_scene
from rigidflock.render import colors as C
from rigidflock.render import geometry as G
from rigidflock.render import selection as S
from rigidflock.render.camera import fit_camera
from rigidflock.rts import navigation
from rigidflock.scene.geometry import polygon_distance, signed_area
from tests.conftest import ROOT

MAZE = ROOT / "scenes" / "rts_maze.toml"
DOORWAY = ROOT / "scenes" / "rts_doorway.toml"


def near(image, color, tol=40):
    diff = np.abs(image[..., :3].astype(int) - np.asarray(color[:3], int))
    return (diff <= tol).all(axis=-1)


# -- selection math (no window) ------------------------------------------------------------------


def test_pick_takes_the_nearest_selectable_unit_within_the_radius():
    pos = np.array([[0.0, 0.0], [10.0, 0.0], [3.0, 0.0], [50.0, 50.0]])
    ok = np.array([True, True, False, True])  # row 2: the player
    assert S.pick(pos, ok, (2.5, 0.0), 5.0) == 0  # row 2 is nearer but not selectable
    assert S.pick(pos, ok, (8.0, 0.0), 5.0) == 1
    assert S.pick(pos, ok, (30.0, 30.0), 5.0) is None
    assert S.pick(pos, ok, (30.0, 30.0), np.array([1, 1, 1, 40.0])) == 3  # per-unit radius
    assert S.pick(np.zeros((0, 2)), np.zeros(0, bool), (0, 0), 5.0) is None


def test_in_rect_takes_centres_inside_whatever_the_drag_direction():
    pos = np.array([[1.0, 1.0], [5.0, 5.0], [9.0, 1.0], [5.0, 10.5], [2.0, 2.0]])
    ok = np.array([True, True, True, True, False])
    assert S.in_rect(pos, ok, (0, 0), (6, 6)).tolist() == [0, 1]
    assert S.in_rect(pos, ok, (6, 6), (0, 0)).tolist() == [0, 1]  # dragged up-left
    assert S.in_rect(pos, ok, (0, 6), (10, 0)).tolist() == [0, 1, 2]
    assert S.in_rect(pos, ok, (20, 20), (30, 30)).tolist() == []


def test_combine_replaces_or_adds_and_is_sorted_unique():
    assert S.combine([4, 2], [7, 1], add=False).tolist() == [1, 7]
    assert S.combine([4, 2], [7, 2], add=True).tolist() == [2, 4, 7]
    assert S.combine([4, 2], [], add=False).tolist() == []
    assert S.combine([4, 2], [], add=True).tolist() == [2, 4]


def test_is_click_allows_a_few_pixels_of_jitter():
    assert S.is_click((100, 100), (102, 103))
    assert not S.is_click((100, 100), (106, 100))


def test_free_goal_moves_a_goal_out_of_a_building_and_into_the_world():
    building = np.array([[40.0, 40.0], [60.0, 40.0], [60.0, 60.0], [40.0, 60.0]])
    grid = navigation.build_grid((100.0, 100.0), 2.0, 1.0, buildings=[building])
    g, moved = S.free_goal(grid, (20.0, 30.0), (100.0, 100.0))
    assert not moved and g.tolist() == [20.0, 30.0]
    g, moved = S.free_goal(grid, (50.0, 58.0), (100.0, 100.0))
    assert moved and grid.is_free(g[None])[0]
    assert polygon_distance(g[None], building)[0] >= 1.0  # outside, clear of the wall
    assert abs(g[1] - 61.0) < 2.5  # to the nearest side (the top), not across the building
    g, moved = S.free_goal(grid, (150.0, -5.0), (100.0, 100.0))
    assert moved and 0 <= g[0] <= 100 and 0 <= g[1] <= 100


def test_placement_problem_names_what_is_in_the_way():
    size = (200.0, 100.0)
    sq = S.square((50.0, 50.0), 20.0)
    assert signed_area(sq) == pytest.approx(400.0)  # counter-clockwise, 20 x 20
    other = S.square((100.0, 50.0), 20.0)
    wall = ((150.0, 0.0), (150.0, 100.0), 4.0)
    units = np.array([[10.0, 10.0]])
    assert S.placement_problem(sq, [other], units, size, 2.0, [wall]) is None
    assert "building" in S.placement_problem(S.square((85, 50), 20), [other], units, size)
    assert "wall" in S.placement_problem(S.square((140, 50), 20), [], units, size, 0, [wall])
    assert "unit" in S.placement_problem(S.square((14, 14), 20), [], units, size, 2.0)
    assert "unit" in S.placement_problem(S.square((21, 21), 20), [], units, size, 2.5)  # near
    assert "world" in S.placement_problem(S.square((195, 50), 20), [], units, size)


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


# -- the mouse and the B key ---------------------------------------------------------------------


@pytest.fixture
def doorway_viewer():
    from rigidflock.render.window import Viewer

    v = Viewer(Simulation(load_scene(DOORWAY)), (1000, 700), visible=False)
    v.commands = []
    v.on_command = lambda tick, command: v.commands.append((tick, command))
    v.step_ticks(5)  # the scene's own order comes at tick 30
    yield v
    v.close()


def send(viewer, name, *args):
    viewer.window.dispatch_event(name, *args)
    viewer.window.dispatch_events()  # outside pyglet.app.run events are only queued


def screen(viewer, xy):
    return tuple(float(v) for v in viewer.camera.world_to_screen(xy))


def drag(viewer, button, a, b, modifiers=0, steps=5):
    send(viewer, "on_mouse_press", *a, button, modifiers)
    prev = a
    for t in np.linspace(0, 1, steps + 1)[1:]:
        p = (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
        send(viewer, "on_mouse_drag", *p, p[0] - prev[0], p[1] - prev[1], button, modifiers)
        prev = p
    send(viewer, "on_mouse_release", *b, button, modifiers)


def click(viewer, button, xy, modifiers=0):
    send(viewer, "on_mouse_press", *xy, button, modifiers)
    send(viewer, "on_mouse_release", *xy, button, modifiers)


def test_drag_selects_shift_click_adds_and_right_click_orders(doorway_viewer, tmp_path):
    from rigidflock.render.backend import key, mouse

    v = doorway_viewer
    sim = v.sim
    pos = sim.state.pos.copy()
    lo, hi = np.array([40.0, 100.0]), np.array([120.0, 180.0])
    inside = np.flatnonzero(((pos >= lo) & (pos <= hi)).all(axis=1))
    assert 3 <= len(inside) < sim.units.n_ai
    drag(v, mouse.LEFT, screen(v, lo), screen(v, hi))
    assert v.selection.tolist() == inside.tolist()
    assert v.marquee is None  # the rectangle goes when the button is released
    camera = (v.camera.center, v.camera.zoom)
    assert (v.camera.center, v.camera.zoom) == camera  # a left drag does not pan

    outside = [i for i in range(sim.units.n_ai) if i not in inside]
    extra = min(outside, key=lambda i: -np.hypot(*(pos[i] - pos[inside].mean(0))))  # far away
    click(v, mouse.LEFT, screen(v, pos[extra]), key.MOD_SHIFT)
    chosen = sorted([*inside.tolist(), extra])
    assert v.selection.tolist() == chosen

    goal = (320.0, 150.0)
    click(v, mouse.RIGHT, screen(v, goal))
    assert not sim.orders.groups  # orders wait for the next tick
    v.save_screenshot(tmp_path / "selected.png")
    v.step_ticks(1)
    tick, command = v.commands[-1]
    assert len(command.orders) == 1
    assert command.orders[0].select.ids == tuple(chosen)
    (group,) = sim.orders.groups.values()
    assert sorted(group.members.tolist()) == chosen
    np.testing.assert_allclose(group.goal, goal, atol=1e-6)
    assert v.input_log[-1] == (tick, command)  # what a recording started later replays
    v.step_ticks(30)
    v.draw()  # routes, slots and selection rings draw without error
    v.save_screenshot(tmp_path / "ordered.png")

    # a click on empty floor clears the selection; a right click then orders nobody
    click(v, mouse.LEFT, screen(v, (380.0, 20.0)))
    assert len(v.selection) == 0
    n = len(v.commands)
    click(v, mouse.RIGHT, screen(v, goal))
    v.step_ticks(1)
    assert v.commands[n][1].orders == ()
    assert "nothing selected" in v.message


def test_right_drag_pans_and_gives_no_order(doorway_viewer):
    from rigidflock.render.backend import mouse

    v = doorway_viewer
    v.selection = np.array([0, 1])
    before = v.camera.center
    drag(v, mouse.RIGHT, (600.0, 300.0), (700.0, 340.0))
    panned = v.camera.center
    assert panned[0] < before[0] and panned[1] < before[1]  # the picture follows the mouse
    v.step_ticks(1)
    assert v.commands[-1][1].orders == ()
    drag(v, mouse.MIDDLE, (600.0, 300.0), (500.0, 300.0))
    assert v.camera.center[0] > panned[0]


def test_an_order_into_a_wall_goes_to_the_nearest_free_spot(doorway_viewer):
    from rigidflock.render.backend import mouse

    v = doorway_viewer
    v.selection = np.arange(5)
    click(v, mouse.RIGHT, screen(v, (200.0, 50.0)))  # on the dividing wall
    v.step_ticks(1)
    (order,) = v.commands[-1][1].orders
    assert order.goal != (200.0, 50.0)
    assert v.sim.orders.grid.is_free(np.array([order.goal]))[0]
    assert abs(order.goal[0] - 200.0) < 3.0 + v.sim.orders.clearance + 4.0
    assert "goal moved" in v.message


def test_b_adds_a_building_at_the_cursor_through_the_command(doorway_viewer):
    from rigidflock.render.backend import key

    v = doorway_viewer
    sim = v.sim
    n = len(sim.orders.buildings)
    send(v, "on_mouse_motion", *screen(v, (300.0, 200.0)), 0, 0)
    send(v, "on_key_press", key.B, 0)
    assert len(sim.orders.buildings) == n  # placed at the next tick
    v.step_ticks(1)
    _, command = v.commands[-1]
    (b,) = command.add_buildings
    poly = np.asarray(b.polygon)
    np.testing.assert_allclose(poly.mean(axis=0), (300.0, 200.0), atol=1e-9)
    assert np.ptp(poly[:, 0]) == pytest.approx(8 * 4.0)  # 8 unit lengths
    assert len(sim.orders.buildings) == n + 1
    assert not sim.orders.grid.is_free(np.array([[300.0, 200.0]]))[0]  # routes avoid it
    # the same place again: refused, nothing queued
    send(v, "on_key_press", key.B, 0)
    v.step_ticks(1)
    assert v.commands[-1][1].add_buildings == () and "overlap another building" in v.message
    # on top of a unit: refused
    send(v, "on_mouse_motion", *screen(v, sim.state.pos[0]), 0, 0)
    send(v, "on_key_press", key.B, 0)
    v.step_ticks(1)
    assert v.commands[-1][1].add_buildings == () and "cover a unit" in v.message
    assert len(sim.orders.buildings) == n + 1
    v.draw()


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
