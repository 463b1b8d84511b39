"""The camera: world <-> screen, zoom at the cursor, pan, fit (no OpenGL)."""

import numpy as np

from rigidflock.render.camera import Camera, fit_camera


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


def test_camera_without_a_panel():
    cam = fit_camera((100.0, 100.0), (400, 400), panel=False)
    np.testing.assert_allclose(cam.world_to_screen((50.0, 50.0)), (200.0, 200.0))
    assert Camera(10, 10).zoom == 1.0


def test_the_panel_scales_with_a_small_picture():
    from rigidflock.render.camera import side_panel_width

    assert side_panel_width(1280, 800) == 250 and side_panel_width(1920, 1080) == 250
    assert side_panel_width(640, 400) == 150  # never below 0.6 of it: text stays legible
    cam = fit_camera((100.0, 100.0), (640, 400))
    x, _ = cam.world_to_screen((0.0, 0.0))
    assert x >= 150  # the world right of the panel, not under it
