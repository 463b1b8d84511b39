"""Users' own steering behaviours: Python functions over whole arrays, blended with the rules.

A behaviour is ``f(units, params) -> directions`` (shape (n, 2), world frame, a zero row: no
opinion) or ``(directions, throttle)`` (throttle (n,) in [0, 1]), called once per decision for
all the AI units it applies to. ``units`` is a :class:`~.view.UnitsView` of the snapshot the
rules read; each direction becomes a bow force as cohesion's does (side of the direction, times
the angle over pi, times the weight and the steering force S), added to the rules' force before
the avoidance priority, which stays on top. See :mod:`.loading` for how a name becomes a
function and :mod:`.evaluation` for the calls.
"""

from rigidflock.model.behaviours.errors import BehaviourError
from rigidflock.model.behaviours.evaluation import Behaviours
from rigidflock.model.behaviours.loading import (
    ENTRY_POINT_GROUP,
    Resolved,
    load_function,
    registered,
    resolve,
    source_hash,
    trusted,
)
from rigidflock.model.behaviours.view import Pairs, Snapshot, UnitsView

__all__ = [
    "ENTRY_POINT_GROUP",
    "BehaviourError",
    "Behaviours",
    "Pairs",
    "Resolved",
    "Snapshot",
    "UnitsView",
    "load_function",
    "registered",
    "resolve",
    "source_hash",
    "trusted",
]
