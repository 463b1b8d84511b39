"""The field-of-view rule (*AI for Game Developers*, chapter 4 (AIDemo4)): numpy, compiled and
drawn, one definition."""

import numpy as np
import pytest

from rigidflock.model.steering import flocking
from rigidflock.model.steering import view as fov


@pytest.mark.parametrize(
    "view,f,s,expected",
    [
        ("wide", 1.0, 0.0, True),
        ("wide", -1.0, 0.0, False),  # dead astern: the blind spot
        ("wide", -1.0, 1.01, True),  # just outside the 45 degree blind cone
        ("wide", -1.0, 0.99, False),  # just inside it
        ("wide", 0.0, 1.0, False),  # exactly abeam: neither f > 0 nor f < 0
        ("limited", 1e-9, 100.0, True),
        ("limited", -1e-9, 100.0, False),
        ("narrow", 1.0, 0.99, True),  # inside the 45 degree cone ahead
        ("narrow", 1.0, 1.01, False),
        ("narrow", -1.0, 0.0, False),
    ],
)
def test_view_mask_boundaries(view, f, s, expected):
    got = fov.in_view(np.array([f]), np.array([s]), view)
    assert bool(got[0]) is expected


def test_view_angle_factors_move_the_cone_edges():
    # back factor 2: the blind cone widens, |s| must exceed 2|f|
    assert not fov.in_view(np.array([-1.0]), np.array([1.5]), "wide", back_factor=2.0)[0]
    assert fov.in_view(np.array([-1.0]), np.array([2.5]), "wide", back_factor=2.0)[0]
    # front factor 2: the narrow cone widens to |s| < 2f
    assert fov.in_view(np.array([1.0]), np.array([1.5]), "narrow", front_factor=2.0)[0]


def test_flocking_still_offers_in_view():
    assert flocking.in_view is fov.in_view


@pytest.mark.parametrize("name", ["wide", "limited", "narrow"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_view_test_agrees_with_numpy(name, seed):
    rng = np.random.default_rng(seed)
    f, s = rng.normal(0, 1, (2, 3000))
    f[:20] = 0.0  # abeam
    s[20:40] = f[20:40] * 1.5  # on a cone edge for factor 1.5
    back, front = rng.uniform(0.3, 2.0, 2) if seed else (1.5, 1.5)
    ref = fov.in_view(f, s, name, back, front)
    code = fov.VIEW_CODES[name]
    got = np.array([fov.seen(a, abs(b), code, back, front) for a, b in zip(f, s, strict=True)])
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("name", ["wide", "limited", "narrow"])
def test_the_drawn_sector_is_the_view(name):
    """Directions inside the half-angle from the bow are seen, those outside are not."""
    half = fov.view_half_angle(name, 0.7, 0.4)
    a = np.linspace(-np.pi, np.pi, 3601)
    a = a[np.abs(np.abs(a) - half) > 1e-6]
    a = a[np.abs(np.abs(a) - np.pi / 2) > 1e-6]  # abeam is unseen in every view
    seen = fov.in_view(np.cos(a), np.sin(a), name, 0.7, 0.4)
    np.testing.assert_array_equal(seen, np.abs(a) < half)


def test_unknown_view_is_refused():
    with pytest.raises(ValueError, match="unknown view 'sideways'"):
        fov.in_view(np.zeros(1), np.zeros(1), "sideways")
