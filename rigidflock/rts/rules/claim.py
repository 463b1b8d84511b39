"""What a move-order rule returns, and how one ordered list of rules decides for every unit.

A rule is a pure function over one group's members (arrays (m,), no loop over units) returning
a :class:`Claim`: the units it claims and, for those, its command on each channel it decides.
A channel it leaves as None it does not decide, and the next rule in the list that claims the
unit does. :func:`decide` reads one channel through a precedence list
(:mod:`.precedence`): each unit gets the value of the first rule that claims it and commands
that channel.

Channels: ``aim`` (m, 2), the point to steer at, world units; ``throttle`` (m,), unclipped
(clipped to [-1, 1] once, after the decision); ``force`` (m,), the bow force, newtons
(positive: to port); ``flock`` (m,), the factor on the flocking rules' force (cohesion,
alignment, separation). A command may be a scalar, the same for every unit claimed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

CHANNELS = ("aim", "throttle", "force", "flock")


@dataclass(frozen=True)
class Claim:
    """The units a rule claims (``mask`` (m,) bool) and its command for them; None: the rule
    does not decide that channel. Outside ``mask`` a command's values are never read."""

    mask: np.ndarray
    aim: np.ndarray | None = None  # (m, 2) world units
    throttle: np.ndarray | float | None = None  # (m,), unclipped
    force: np.ndarray | float | None = None  # (m,) newtons
    flock: np.ndarray | float | None = None  # (m,) factor on the flocking rules' force


def nobody(m: int) -> Claim:
    """The claim of a rule that takes none of ``m`` members this tick (it commands nothing)."""
    return Claim(np.zeros(m, dtype=bool))


def decide(claims: Mapping[Callable, Claim], order: Sequence[Callable], channel: str) -> np.ndarray:
    """``channel`` (one of ``CHANNELS``) for every member: the command of the first rule in
    ``order`` whose claim (``claims[rule]``) takes the unit and commands the channel. The last
    rule of ``order`` commanding the channel must claim every unit (the default); ``claims``
    must hold a claim for exactly the rules of ``order``. Returns a new array, (m, 2) for
    ``aim``, else (m,), of the commands' values as they are (selected, never recomputed)."""
    _check(claims, order, channel)
    commanding = [r for r in order if getattr(claims[r], channel) is not None]
    if not commanding:
        raise ValueError(f"no rule of the list commands {channel}")
    *firsts, last = commanding
    if not claims[last].mask.all():
        raise ValueError(f"{last.__name__}, the last rule for {channel}, must claim all")
    m = len(claims[last].mask)
    shape = (m, 2) if channel == "aim" else (m,)
    out = np.broadcast_to(np.asarray(getattr(claims[last], channel), dtype=float), shape)
    for rule in reversed(firsts):  # the earlier rule's command written over the later's
        c = claims[rule]
        out = np.where(c.mask[:, None] if channel == "aim" else c.mask, getattr(c, channel), out)
    return out if firsts else np.array(out)


def _check(claims: Mapping[Callable, Claim], order: Sequence[Callable], channel: str) -> None:
    """ValueError unless ``channel`` is one of ``CHANNELS`` and ``claims`` holds a claim for
    exactly the rules of ``order``, each once."""
    if channel not in CHANNELS:
        raise ValueError(f"unknown channel {channel!r}; one of {CHANNELS}")
    if set(claims) != set(order) or len(order) != len(set(order)):
        named = sorted(r.__name__ for r in set(claims) ^ set(order))
        raise ValueError(f"claims and precedence list differ (or repeat a rule): {named}")
