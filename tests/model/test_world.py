"""The pymunk world: the units' collision outline (``physics.corners``)."""

import math

import pymunk
import pytest

from rigidflock.model.world import unit_shape
from rigidflock.scene import SceneError
from rigidflock.sim import Simulation


@pytest.mark.parametrize("corners", [0.0, 0.25, 0.45])
@pytest.mark.parametrize("length, width", [(4.0, 2.0), (1.0, 4.0)])
def test_rounded_corners_keep_the_units_length_and_width(corners, length, width):
    """Rounding shrinks the inner box by the radius, so the outline is still L x W, whichever
    side is the shorter (the radius is a share of it)."""
    body = pymunk.Body(1.0, 1.0)
    shape = unit_shape(body, length, width, corners)
    bb = shape.cache_bb()
    half = (length / 2, width / 2)
    assert (bb.left, bb.bottom, bb.right, bb.top) == pytest.approx((-half[0], -half[1], *half))
    r = corners * min(length, width)
    assert shape.radius == pytest.approx(r)
    # the corners are cut: the box's area less (4 - pi) r^2, a corner square's outside its arc
    assert shape.area == pytest.approx(length * width - (4.0 - math.pi) * r * r, rel=1e-9)


def test_square_corners_are_the_plain_box():
    """corners = 0 is pymunk's box exactly: runs without the key are as before, bit for bit."""
    body = pymunk.Body(1.0, 1.0)
    plain = pymunk.Poly.create_box(body, (4.0, 2.0))
    assert unit_shape(body, 4.0, 2.0, 0.0).get_vertices() == plain.get_vertices()


# Two units side by side, heading the same way, their square corners overlapping by 0.2 world
# units in x and y; rounded by 0.45 of the width (radius 0.9) the corners are 0.46 apart.
CORNER_TO_CORNER = """
[world]
size = [200.0, 200.0]
bounds = "open"
[physics]
corners = {corners}
[rules]
flocking = false
avoidance = false
[[groups]]
count = 2
heading = 0
spawn = {{ positions = [[100.0, 100.0], [103.8, 101.8]] }}
"""


@pytest.mark.parametrize("corners, touch", [(0.0, True), (0.45, False)])
def test_rounded_corners_do_not_collide_where_square_ones_overlap(scene_from, corners, touch):
    sim = Simulation(scene_from(CORNER_TO_CORNER.format(corners=corners)))
    assert (sim.step().unit_contacts >= 1) is touch


def test_corners_beyond_half_the_width_are_refused(scene_from):
    with pytest.raises(SceneError, match=r"physics\.corners: must be a number in \[0, 0\.45\]"):
        scene_from("[physics]\ncorners = 0.5\n[[groups]]\ncount = 1\n")
