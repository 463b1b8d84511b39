"""The error a behaviour's call raises when it fails (:class:`BehaviourError`)."""

from __future__ import annotations


class BehaviourError(RuntimeError):
    """A behaviour raised, or returned the wrong shape or non-finite values: the run stops.
    ``str()`` is one line naming the behaviour and the tick; ``function`` and ``tick`` hold
    them."""

    def __init__(self, function: str, tick: int, problem: str):
        super().__init__(f"behaviour {function!r} at tick {tick}: {problem}")
        self.function, self.tick, self.problem = function, tick, problem
