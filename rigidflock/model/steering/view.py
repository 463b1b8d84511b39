"""The field of view: which neighbours a unit sees (*AI for Game Developers*, chapter 4
(AIDemo4)), in one place.

A neighbour at offset (f, s) in the looking unit's frame (f forward along the bow, s to port):

- wide: f > 0, or f < 0 with |s| > |f| * back_factor (everything but a blind cone astern);
- limited: f > 0 (the front half-plane);
- narrow: f > 0 and |s| < f * front_factor (a cone ahead).

:func:`in_view` is the numpy definition, :func:`seen` its compiled scalar twin for the kernels
(views as the codes ``VIEW_*``), :func:`view_half_angle` the sector it covers, for drawing. The
radius is not part of the test.
"""

from __future__ import annotations

import numba as nb
import numpy as np

VIEW_WIDE, VIEW_LIMITED, VIEW_NARROW = 0, 1, 2
VIEW_CODES = {"wide": VIEW_WIDE, "limited": VIEW_LIMITED, "narrow": VIEW_NARROW}


def in_view(
    f: np.ndarray, s: np.ndarray, view: str, back_factor: float = 1.0, front_factor: float = 1.0
) -> np.ndarray:
    """The field-of-view test of the three visibility models: f, s (P,) -> (P,) bool."""
    if view == "wide":
        return (f > 0) | ((f < 0) & (np.abs(s) > np.abs(f) * back_factor))
    if view == "limited":
        return f > 0
    if view == "narrow":
        return (f > 0) & (np.abs(s) < f * front_factor)
    raise ValueError(f"unknown view {view!r}")


@nb.njit(cache=True, inline="always")
def in_narrow_cone(f: float, abs_s: float, front_factor: float) -> bool:
    """The narrow view for one offset (|s| given): also the leader rule's cone ahead."""
    return (f > 0) & (abs_s < f * front_factor)  # &, |: no branches in the pair loop


@nb.njit(cache=True, inline="always")
def seen(f: float, abs_s: float, view: int, back_factor: float, front_factor: float) -> bool:
    """:func:`in_view` for one offset (f, |s|) and a view code ``VIEW_*`` (compiled, scalar)."""
    if view == VIEW_WIDE:
        return (f > 0) | ((f < 0) & (abs_s > abs(f) * back_factor))
    if view == VIEW_LIMITED:
        return f > 0
    return in_narrow_cone(f, abs_s, front_factor)


def view_half_angle(view: str, back_factor: float, front_factor: float) -> float:
    """Half-angle of the view sector in radians from the bow (what the view arcs draw).

    wide: everything but the rear cone abs(s) <= abs(f) * back_factor (half-angle
    atan(back_factor)); limited: the front half-plane; narrow: abs(s) < f * front_factor."""
    if view == "wide":
        return float(np.pi - np.arctan(back_factor))
    if view == "limited":
        return float(np.pi / 2)
    return float(np.arctan(front_factor))
