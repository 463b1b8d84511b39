"""Colours: the role palette of the book's AIDemo4, a family palette, and the legend.

Player green, leaders red, interceptors magenta, regular units blue; when a scene has more
families of non-intercepting units, the second and later get the next colours of
:data:`FAMILY_PALETTE`. Colours are RGBA uint8.
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.state import PLAYER_FAMILY, ROLE_INTERCEPT, ROLE_PLAYER

BACKGROUND = (13, 16, 23, 255)
PLAYER = (70, 225, 95, 255)
LEADER = (240, 60, 50, 255)
INTERCEPTOR = (215, 70, 225, 255)
FAMILY_PALETTE = (
    (70, 140, 255, 255),  # blue: the first family ("regular")
    (40, 205, 205, 255),  # cyan
    (255, 170, 40, 255),  # orange
    (235, 225, 90, 255),  # yellow
    (165, 130, 255, 255),  # violet
    (150, 200, 120, 255),  # sage
    (205, 150, 110, 255),  # tan
    (225, 225, 230, 255),  # white
)

OBSTACLE_FILL = (38, 45, 58, 255)
OBSTACLE_RIM = (150, 165, 190, 255)
WORLD_EDGE = {"wrap": (70, 82, 105, 255), "walls": (200, 205, 215, 255), "open": (45, 52, 66, 255)}
GRID = (24, 29, 40, 255)
WALL = (178, 184, 198, 255)
BUILDING_FILL = (62, 57, 50, 255)
BUILDING_RIM = (196, 170, 128, 255)

# RTS: the viewer's selection and move orders.
SELECTION = (120, 255, 140, 255)  # the ring round a selected unit
ROUTE = (105, 225, 125, 255)  # a selected group's route ahead, ending in a cross at the goal
SLOT_ALPHA = 120  # formation slots: hollow squares in their unit's colour
SLOT_SELECTED_ALPHA = 235
MARQUEE = (120, 255, 140, 200)  # the drag rectangle
MARQUEE_FILL = (120, 255, 140, 30)

# Overlays.
VELOCITY = (235, 235, 240, 255)
THRUST = (250, 210, 60, 255)
DRAG = (255, 140, 50, 255)
BOW = (255, 90, 150, 255)
FEELER = (120, 125, 80, 150)
FEELER_HIT = (255, 200, 40, 255)
LINK_ALPHA = 70
ARC = (120, 200, 255, 150)
ARC_FILL = (90, 170, 255, 28)
TARGET_ALPHA = 220
SELECTED = (255, 255, 255, 255)
PLAYER_RING = (70, 225, 95, 150)

PANEL = (8, 10, 15, 215)
PANEL_EDGE = (55, 64, 82, 255)
TEXT = (215, 222, 235, 255)
TEXT_DIM = (125, 135, 155, 255)
ERROR_TEXT = (255, 150, 130, 255)  # a scene file's errors over the world


def family_colors(family_names: tuple[str, ...], roles_by_family: dict[int, int]) -> np.ndarray:
    """(F, 4) uint8: a colour per family index: player green, intercepting families magenta,
    the others through :data:`FAMILY_PALETTE` in order."""
    out = np.zeros((max(len(family_names), 1), 4), np.uint8)
    k = 0
    for f, name in enumerate(family_names):
        role = roles_by_family.get(f)
        if name == PLAYER_FAMILY or role == ROLE_PLAYER:
            out[f] = PLAYER
        elif role == ROLE_INTERCEPT:
            out[f] = INTERCEPTOR
        else:
            out[f] = FAMILY_PALETTE[k % len(FAMILY_PALETTE)]
            k += 1
    return out


def _roles_by_family(family: np.ndarray, role: np.ndarray) -> dict[int, int]:
    fams, first = np.unique(family, return_index=True)
    return {int(f): int(role[i]) for f, i in zip(fams, first, strict=True)}


def unit_colors(
    family: np.ndarray,
    role: np.ndarray,
    leader: np.ndarray,
    family_names: tuple[str, ...],
) -> np.ndarray:
    """(N, 4) uint8 fill colour per unit: the family colour, red for current leaders."""
    palette = family_colors(family_names, _roles_by_family(family, role))
    out = palette[family]
    if len(leader):
        out[leader.astype(bool)] = LEADER
    return out


def legend_entries(
    family: np.ndarray, role: np.ndarray, family_names: tuple[str, ...]
) -> list[tuple[tuple[int, int, int, int], str]]:
    """(colour, label) pairs for the legend: each family present, then leaders."""
    roles = _roles_by_family(family, role)
    palette = family_colors(family_names, roles)
    entries = []
    present = {int(f) for f in np.unique(family)}
    order = sorted(range(len(family_names)), key=lambda f: roles.get(f) != ROLE_PLAYER)
    for f in order:
        name = family_names[f]
        if f not in present:
            continue
        r = roles.get(f)
        label = "player" if r == ROLE_PLAYER else name
        if r == ROLE_INTERCEPT and "intercept" not in name:
            label += " (interceptor)"
        entries.append((tuple(int(c) for c in palette[f]), label))
    steers = ROLE_PLAYER in roles.values()
    entries.append((LEADER, "leader (steers at the player)" if steers else "leader"))
    return entries
