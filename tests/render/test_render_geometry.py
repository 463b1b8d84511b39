"""The pure parts of the viewer: geometry, camera, colours, key map, PNG (no OpenGL)."""

import numpy as np
import pytest

from rigidflock.render import geometry as G
from rigidflock.render.camera import Camera, fit_camera
from rigidflock.render.frame import Overlays, interpolate
from rigidflock.render.png import encode_png, read_png


def test_hull_nose_and_stern_follow_the_angle():
    pos = np.array([[10.0, 20.0], [0.0, 0.0]])
    angle = np.array([0.0, np.pi / 2])
    v = G.hull_triangles(pos, angle, [4.0, 4.0], [2.0, 2.0], scale=[1.0, 3.0])
    assert v.shape == (18, 2) and v.dtype == np.float32
    np.testing.assert_allclose(v[0], (12.0, 20.0), atol=1e-5)  # nose, +x
    np.testing.assert_allclose(v[9], (0.0, 6.0), atol=1e-5)  # nose, +y, scaled 3x
    lo, hi = v[:9].min(axis=0), v[:9].max(axis=0)
    np.testing.assert_allclose(lo, (8.0, 19.0), atol=1e-5)
    np.testing.assert_allclose(hi, (12.0, 21.0), atol=1e-5)


def test_hull_triangles_write_into_a_given_buffer():
    out = np.zeros((9 * 3, 2), np.float32)
    res = G.hull_triangles(np.zeros((3, 2)), np.zeros(3), np.ones(3), np.ones(3), out=out)
    assert res is out and np.abs(out).max() > 0


def test_hull_scale_has_a_minimum_on_screen_size():
    s = G.hull_scale(np.array([4.0, 40.0]), zoom=1.0, min_pixels=12.0)
    np.testing.assert_allclose(s, (3.0, 1.0))


def test_camera_round_trip_zoom_at_cursor_and_fit():
    cam = fit_camera((800.0, 600.0), (1280, 800))
    world = np.array([[0.0, 0.0], [800.0, 600.0]])
    px = cam.world_to_pixel(world)
    assert (px[:, 0] >= 250).all() and (px[:, 0] <= 1280).all()  # right of the side panel
    assert (px[:, 1] >= 0).all() and (px[:, 1] <= 800).all()
    assert px[0, 1] > px[1, 1]  # y up in the world, rows down in the image
    s = cam.world_to_screen(world)
    np.testing.assert_allclose(cam.screen_to_world(s), world)
    p = cam.screen_to_world((700, 200))
    cam.zoom_at((700, 200), 2.5)
    np.testing.assert_allclose(cam.screen_to_world((700, 200)), p)
    cam.pan(10, -5)
    np.testing.assert_allclose(cam.world_to_screen(p), (710, 195))
    # The view matrix is the same transform (column-major).
    m = np.array(cam.view_matrix()).reshape(4, 4).T
    np.testing.assert_allclose((m @ [*p, 0, 1])[:2], cam.world_to_screen(p))


def test_camera_without_a_panel_on_a_small_screen():
    cam = fit_camera((100.0, 100.0), (400, 400))
    np.testing.assert_allclose(cam.world_to_screen((50.0, 50.0)), (200.0, 200.0))
    assert Camera(10, 10).zoom == 1.0


@pytest.mark.parametrize(
    "view, half", [("wide", 0.75 * np.pi), ("limited", np.pi / 2), ("narrow", np.pi / 4)]
)
def test_view_half_angles_follow_the_rules(view, half):
    assert G.view_half_angle(view, 1.0, 1.0) == pytest.approx(half)


def test_sector_lines_close_the_sector_unless_full():
    v = G.sector_lines([[0.0, 0.0]], [0.0], np.pi / 2, [10.0], segments=8)
    assert v.shape == (8 * 2 + 4, 2)
    full = G.sector_lines([[0.0, 0.0]], [0.0], np.pi, [10.0], segments=8)
    assert full.shape == (16, 2)


def test_discs_rings_rects_and_arrows_have_the_right_counts():
    assert G.disc_triangles([[0, 0], [5, 5]], [1, 2], 16).shape == (2 * 16 * 3, 2)
    assert G.ring_triangles([[0, 0]], 1.0, 2.0, 16).shape == (16 * 6, 2)
    assert G.frame_triangles((0, 0), (10, 10), 1.0).shape == (24, 2)
    a = G.arrows([[0, 0]], [[10, 0]], head=2.0)
    assert a.shape == (6, 2)
    np.testing.assert_allclose(a[1], (10, 0))
    assert (a[3:6:2, 0] < 10).all()  # head strokes point back


def test_per_vertex_repeats_colours():
    c = G.per_vertex(np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.uint8), 3)
    assert c.shape == (6, 4) and (c[3] == (5, 6, 7, 8)).all()


def test_interpolation_takes_the_short_way_across_a_wrap_edge():
    prev = np.array([[799.0, 300.0]])
    cur = np.array([[1.0, 300.0]])
    pos, ang = interpolate(prev, np.array([3.1]), cur, np.array([-3.1]), 0.5, box=(800, 600))
    np.testing.assert_allclose(pos, [[0.0, 300.0]])
    assert abs(abs(ang[0]) - 3.1 - (np.pi - 3.1)) < 1e-9 or abs(ang[0]) > 3.1


def test_overlays_parse():
    o = Overlays.parse("vectors, arcs")
    assert o.vectors and o.arcs == "all" and not o.links
    assert Overlays.parse("all").links
    with pytest.raises(ValueError, match="unknown overlay"):
        Overlays.parse("vectors,sparkles")


def test_png_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (7, 5, 3), dtype=np.uint8)
    path = tmp_path / "x.png"
    path.write_bytes(encode_png(img))
    np.testing.assert_array_equal(read_png(path), img)


def test_controls_map_keys_to_commands_without_a_window():
    from rigidflock.render.backend import key
    from rigidflock.render.input import Controls
    from rigidflock.scene import RulesSpec

    rules = RulesSpec()
    c = Controls("keyboard")
    assert c.command({}).throttle is None  # autopilot until an arrow is pressed
    c.key_press(key.LEFT, 0, rules)
    cmd = c.command({key.LEFT: True, key.UP: True})
    assert (cmd.throttle, cmd.steer) == (1.0, 1.0)
    c.key_press(key.F, 0, rules)
    c.key_press(key._2, 0, rules)
    assert c.command({}).toggles == (("flocking", False), ("view", "limited"))
    assert c.command({}).toggles == ()
    waypoints = Controls("waypoints")
    waypoints.key_press(key.UP, 0, rules)
    assert waypoints.command({key.UP: True}).throttle is None  # the scene's control drives
    assert c.key_press(key.ESCAPE, 0, rules) == "quit"
    assert c.key_press(key.PERIOD, 0, rules) is None  # single step only while paused
    c.key_press(key.SPACE, 0, rules)
    assert c.key_press(key.PERIOD, 0, rules) == "step"
