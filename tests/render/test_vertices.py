"""Vertex geometry of the drawing (render/vertices.py): pure numpy, no OpenGL."""

import numpy as np
import pytest

from rigidflock.render import vertices as G


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
