"""Calling the behaviours for one snapshot: :class:`Behaviours`.

Each behaviour is called once per decision with a :class:`~.view.UnitsView` of the units it
applies to and its ``params``. Its direction u (n, 2) per unit becomes a bow force the way
cohesion's direction does (*AI for Game Developers*, chapter 4 (AIDemo4)):
``weight * S * side(u) * angle(h, u) / pi`` (``flocking.turn_toward``: side judged in the
body frame, angle from the direction of travel h; a zero row gives 0). The forces of every
behaviour add up per unit and join the rules' sum before the avoidance priority
(``Steerer.decide``), so a felt obstacle still overrides them. A throttle (n,) in [0, 1], when
returned, caps the unit's throttle: the least of the behaviours' throttles applies, and the
simulation's own rules (orders, backing out of contact, giving way) still act on it.

State: each behaviour has a dict of its own, ``units.memory``, kept from call to call and
emptied when the run is reset (a wandering rule keeps its wander direction there).

Reproducibility: each behaviour gets its own generator, ``numpy.random.SeedSequence(seed,
spawn_key=(BEHAVIOUR_STREAM, k))`` for the k-th behaviour, reset with the run: the same seed
gives the same draws, and the run's own generator is never drawn from.
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.behaviours.errors import BehaviourError
from rigidflock.model.behaviours.loading import Resolved
from rigidflock.model.behaviours.view import Snapshot, UnitsView
from rigidflock.model.state import Units, read_only

BEHAVIOUR_STREAM = 0x62656876  # "behv": the spawn key's first word, apart from any other stream


def _shape_text(a) -> str:
    shape = getattr(a, "shape", None)
    return f"shape {tuple(shape)}" if shape is not None else f"a {type(a).__name__}"


class Behaviours:
    """The behaviours of a run: ``resolved`` (from :func:`~.loading.resolve`), the run's
    ``units``, the world's ``size`` (2,), ``bounds`` and ``dt``. Call :meth:`reset` with the
    run's seed, then :meth:`__call__` per decision."""

    def __init__(self, resolved: list[Resolved], units: Units, size, bounds: str, dt: float):
        self.resolved = list(resolved)
        self.units = units
        n, n_ai = units.n, units.n_ai
        family = np.asarray(units.family, np.int64).copy()
        is_player = np.zeros(n, bool)
        if units.has_player:
            family[-1] = -1
            is_player[-1] = True
        self._family, self._is_player = read_only(family), read_only(is_player)
        names = tuple(units.family_names)
        self._context = {
            "dt": float(dt),
            "size": read_only(np.asarray(size, float).copy()),
            "bounds": bounds,
            "family_names": names,
            "box": np.asarray(size, float) if bounds == "wrap" else None,
        }
        self._rows = []  # per behaviour: (rows: slice or index array, index, row_of)
        for r in self.resolved:
            if r.spec.families is None:
                index = np.arange(n_ai)
                rows = slice(0, n_ai)
            else:
                codes = [names.index(f) for f in r.spec.families if f in names]
                index = np.flatnonzero(np.isin(family[:n_ai], codes))
                rows = index
            row_of = np.full(n, -1, np.int64)
            row_of[index] = np.arange(len(index))
            self._rows.append((rows, read_only(index), row_of))
        self.rngs: list[np.random.Generator] = []
        self.memories: list[dict] = []

    def __len__(self) -> int:
        return len(self.resolved)

    def reset(self, seed: int) -> None:
        """New generators and empty memories for a run with ``seed``."""
        seeds = [
            np.random.SeedSequence(int(seed), spawn_key=(BEHAVIOUR_STREAM, k))
            for k in range(len(self.resolved))
        ]
        self.rngs = [np.random.default_rng(s) for s in seeds]
        self.memories = [{} for _ in self.resolved]

    def __call__(
        self, st, steering_force: float, trig=None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The behaviours' bow forces (N,) newtons on snapshot ``st`` (0 for the units none
        applies to), and their throttle caps (N,) (None when no behaviour gave one). ``trig``:
        the rules' (N, 3) cache of cos, sin and their angle, used where it holds. Raises
        :class:`~.errors.BehaviourError` naming the behaviour and the tick when one raises or
        returns the wrong shape, a non-finite value or a throttle outside [0, 1]."""
        n = self.units.n
        force = np.zeros(n)
        throttle = None
        everyone = Snapshot(st, self._family, self._is_player, trig)
        pair_cache: dict = {}
        tick = int(st.tick)
        for k, r in enumerate(self.resolved):
            rows, index, row_of = self._rows[k]
            if len(index) == 0:
                continue
            context = dict(self._context, index=index, tick=tick, row_of=row_of)
            view = UnitsView(everyone, rows, context, self.rngs[k], pair_cache, self.memories[k])
            try:
                out = r.function(view, r.spec.params)
            except Exception as e:
                raise BehaviourError(r.name, tick, f"raised {type(e).__name__}: {e}") from e
            dirs, thr = self._checked(r.name, tick, out, len(index))
            force[rows] += (
                r.spec.weight * steering_force * turn_toward(dirs, view.heading, view.bow)
            )
            if thr is not None:
                if throttle is None:
                    throttle = np.ones(n)
                throttle[rows] = np.minimum(throttle[rows], thr)
        return force, throttle

    @staticmethod
    def _checked(name: str, tick: int, out, n: int):
        """``out`` as (directions (n, 2), throttle (n,) or None), float64; BehaviourError when
        it is not that."""
        thr = None
        if isinstance(out, tuple):
            if len(out) != 2:
                raise BehaviourError(
                    name, tick, f"returned a tuple of {len(out)}; expected directions (n, 2) "
                    "or (directions, throttle)",
                )  # fmt: skip
            out, thr = out
        try:
            dirs = np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError):
            raise BehaviourError(
                name, tick, f"returned {_shape_text(out)}; expected directions ({n}, 2)"
            ) from None
        if dirs.shape != (n, 2):
            raise BehaviourError(
                name, tick, f"returned directions of {_shape_text(dirs)}; expected ({n}, 2)"
            )
        # a sum is finite only when every term is: the common case costs one sum
        if not np.isfinite(dirs.sum()) and not np.isfinite(dirs).all():
            bad = int(np.flatnonzero(~np.isfinite(dirs).all(axis=1))[0])
            raise BehaviourError(name, tick, f"returned a non-finite direction (row {bad})")
        if thr is not None:
            try:
                thr = np.asarray(thr, dtype=np.float64)
            except (TypeError, ValueError):
                thr = np.asarray(None)
            if thr.shape != (n,):
                raise BehaviourError(
                    name, tick, f"returned a throttle of {_shape_text(thr)}; expected ({n},)"
                )
            if not (np.isfinite(thr).all() and (thr >= 0).all() and (thr <= 1).all()):
                raise BehaviourError(name, tick, "returned a throttle outside [0, 1]")
        return dirs, thr


def turn_toward(u: np.ndarray, heading: np.ndarray, bow: np.ndarray) -> np.ndarray:
    """side(u) * angle(h, u) / pi per row, (n,), for directions ``u`` (n, 2) of any length
    (|u| <= 1e-9: 0), headings h (n, 2) and bows (n, 2) (cos, sin: the side is judged in the
    body frame, as the rules judge it): ``flocking.turn_toward``, with numpy's arctan2 for the
    angle (the rules' polynomial is within 1e-11 rad of it, and arctan2 is one pass)."""
    ux, uy, hx, hy = u[:, 0], u[:, 1], heading[:, 0], heading[:, 1]
    angle = np.arctan2(np.abs(hx * uy - hy * ux), hx * ux + hy * uy)
    lateral = bow[:, 0] * uy - bow[:, 1] * ux  # u . port, port = (-sin, cos)
    turn = np.where(lateral >= 0.0, angle, -angle) * (1.0 / np.pi)
    turn[ux * ux + uy * uy <= 1e-18] = 0.0
    return turn
