"""Another unit ahead in line: the head-on tests between groups (:func:`.control.oncoming_ahead`,
:func:`.right_of_way.find_standoffs`) share this geometry and the reach of their k-d tree search.

Units: world units; P: pairs.
"""

from __future__ import annotations

import numpy as np


def in_line_reach(length: np.ndarray, ahead: float) -> float:
    """World units within which every pair :func:`ahead_in_line` can accept lies, for units of
    ``length`` (n,) looking ``ahead`` of their lengths: ahead within A L and within L of the
    bow line is within L sqrt(A^2 + 1) (a hair more, for rounding)."""
    return float(np.max(length)) * np.hypot(ahead, 1.0) * (1.0 + 1e-9)


def ahead_in_line(d: np.ndarray, fwd: np.ndarray, length: np.ndarray, ahead: float) -> np.ndarray:
    """(P,) bool: the offsets ``d`` (P, 2) from a unit to another lie ahead along its heading
    ``fwd`` (P, 2, unit vectors), closer than ``ahead`` of its ``length`` (P,), and less than
    one length from its bow line."""
    along = d[:, 0] * fwd[:, 0] + d[:, 1] * fwd[:, 1]
    side = np.abs(d[:, 0] * fwd[:, 1] - d[:, 1] * fwd[:, 0])
    return (along > 0) & (along < ahead * length) & (side < length)
