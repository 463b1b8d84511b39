"""Frames as plain arrays: interpolation between ticks, the overlay switches (no OpenGL)."""

import numpy as np
import pytest

from rigidflock.render.frame import Overlays, interpolate


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
