"""Ordered units against a scene wall (:mod:`rigidflock.rts.wall_slide`): the nearest wall beside
a unit, the slide heading along it toward the route, and the control that replaces the order's
bow force, the rules' share and a nose-in unit's throttle."""

from types import SimpleNamespace

import numpy as np

from rigidflock.rts import wall_slide as W
from rigidflock.rts.control import GroupControl

# the bottleneck's wall: x = 300, a gap between y = 190.6 and 209.4, 2 thick
WALLS = W.Walls.of_scene(
    [((300.0, 0.0), (300.0, 190.6), 2.0), ((300.0, 209.4), (300.0, 400.0), 2.0)], []
)
L = 4.0


def test_nearest_measures_from_the_surface_beside_the_wall_only():
    """Beside the wall the gap is the distance from its face (centre distance less the half
    thickness) with the normal pointing back at the unit; past a wall's end (rounding the jamb,
    into the gap) or beside no wall, inf."""
    gap, normal = WALLS.nearest(np.array([[297.0, 220.0], [303.5, 100.0], [297.0, 200.0]]))
    np.testing.assert_allclose(gap[:2], [2.0, 2.5])
    np.testing.assert_allclose(normal[:2], [[-1.0, 0.0], [1.0, 0.0]], atol=1e-12)
    assert gap[2] == np.inf


def test_a_building_edge_counts_as_a_wall_without_thickness():
    w = W.Walls.of_scene([], [[(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)]])
    gap, normal = w.nearest(np.array([[5.0, -1.5]]))
    np.testing.assert_allclose(gap, [1.5])
    np.testing.assert_allclose(normal, [[0.0, -1.0]], atol=1e-12)


def test_wall_contact_is_within_reach_of_a_unit_length():
    """REACH lengths from the face: a unit touching it (centre half a width off) is against,
    one two lengths off is not."""
    pos = np.array([[298.0, 230.0], [291.0, 230.0]])
    against, _ = W.wall_contact(WALLS, pos, np.full(2, L))
    np.testing.assert_array_equal(against, [True, False])


def test_slide_heading_goes_along_the_wall_toward_the_route_drifting_off():
    """Against the wall's left face (normal -x), route down (toward the gap at y = 200 from
    above): the heading is -y with OFF_WALL of -x; a route straight away from the wall
    gives straight away; headings are unit vectors."""
    normal = np.array([[-1.0, 0.0], [-1.0, 0.0], [-1.0, 0.0]])
    downhill = np.array([[0.3, -1.0], [-0.2, 5.0], [-1.0, 0.1]])
    h = W.slide_heading(normal, downhill)
    np.testing.assert_allclose(np.hypot(*h.T), 1.0)
    want = np.array([-W.OFF_WALL, -1.0]) / np.hypot(W.OFF_WALL, 1.0)
    np.testing.assert_allclose(h[0], want)
    # up the wall, still off it
    np.testing.assert_allclose(h[1], np.array([-W.OFF_WALL, 1.0]) / np.hypot(W.OFF_WALL, 1.0))
    np.testing.assert_allclose(h[2], [-1.0, 0.0])


def test_slide_heading_of_a_row_beside_no_wall_is_finite():
    """Rows beside no wall have a zero normal; their heading is unused but must not be NaN (a
    warning in every tick of every run)."""
    h = W.slide_heading(np.zeros((1, 2)), np.zeros((1, 2)))
    assert np.isfinite(h).all()


def test_slide_control_turns_along_the_wall_and_eases_a_nose_in_unit_back():
    """Three units: against the wall nose-in (bow +x into the wall, normal -x), against it
    already sliding (bow -y), and one away from it. The first two get the slide's bow force
    and no rules' share; only the nose-in one has its throttle cut to NOSE_IN_THROTTLE; the
    third keeps everything."""
    against = np.array([True, True, False])
    normal = np.array([[-1.0, 0.0]] * 3)
    downhill = np.array([[0.0, -1.0]] * 3)
    ang = np.array([0.0, -np.pi / 2, 0.0])
    fwd = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    left = np.stack([-fwd[:, 1], fwd[:, 0]], axis=1)
    force, throttle, flock = W.slide_control(
        against, normal, downhill, fwd, left, 40.0,
        np.full(3, 7.0), np.full(3, 1.0), np.full(3, 0.5),
    )  # fmt: skip
    # nose-in with the way down (-y) to starboard: full turn to starboard
    assert force[0] == -40.0
    # sliding down, bow along the wall: a turn off it (to starboard, -x), at most full
    assert -40.0 <= force[1] < 0.0
    assert force[2] == 7.0
    np.testing.assert_array_equal(throttle, [W.NOSE_IN_THROTTLE, 1.0, 1.0])
    np.testing.assert_array_equal(flock, [0.0, 0.0, 0.5])
    # the geometry alone: the third's bow points at the wall too, from afar
    np.testing.assert_array_equal(W.points_into(fwd, normal), [True, False, True])


def test_slide_along_walls_marks_side_on_members_on_the_way_only():
    """Four members beside the bottleneck's wall (its west face, normal -x): side-on (bow +y),
    nose-in (bow +x), side-on but arrived, and side-on 18 world units off the wall. Only the
    first is marked ``side_on`` (the unpin rule spares it). Their slots are where they stand,
    within the arrival radius: the side-on mark holds there too (the lane before a gap is
    within that radius of slots beyond the wall), and the slide itself needs no route."""
    pos = np.array([[298.0, 100.0], [298.0, 120.0], [298.0, 140.0], [280.0, 160.0]])
    angle = np.array([np.pi / 2, 0.0, np.pi / 2, np.pi / 2])
    length = np.full(4, 4.0)
    g = SimpleNamespace(
        members=np.arange(4), arrived=np.array([False, False, True, False]), slots=pos.copy()
    )
    c = GroupControl(np.zeros(4), np.ones(4), np.ones(4), False)
    out = W.slide_along_walls(
        c, g, SimpleNamespace(pos=pos, angle=angle), SimpleNamespace(length=length),
        SimpleNamespace(arrive_radius=1.0, seek=1.0), W.wall_contact(WALLS, pos, length), None,
        1.0,
    )  # fmt: skip
    assert out.side_on.dtype == bool
    np.testing.assert_array_equal(out.side_on, [True, False, False, False])
