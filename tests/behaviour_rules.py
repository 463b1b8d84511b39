"""Behaviours the tests name in scenes ("tests.behaviour_rules:east"): small, whole-array."""

import numpy as np

SEEN: list = []  # what ``record`` saw, one dict a call


def east(units, params):
    """Every unit: steer east."""
    out = np.zeros((units.n, 2))
    out[:, 0] = 1.0
    return out


def toward(units, params):
    """Steer at the point ``params["at"]`` (no wrap: the tests' worlds are walled)."""
    return np.asarray(params["at"], float) - units.pos


def no_opinion_drawing(units, params):
    """Draws from its generator, and has no opinion (zero rows): must change nothing."""
    units.rng.normal(size=(units.n, 3))
    return np.zeros((units.n, 2))


def record(units, params):
    """Keeps what it was shown, then has no opinion."""
    SEEN.append({
        "index": units.index.copy(), "family": units.family.copy(), "tick": units.tick,
        "pos": units.pos.copy(), "pos_writeable": units.pos.flags.writeable, "n": units.n,
        "draw": units.rng.random(), "bounds": units.bounds, "size": tuple(units.size),
        "pairs": units.neighbours(float(params.get("radius", 30.0))),
        "everyone_pos": units.everyone.pos.copy(),
    })  # fmt: skip
    return np.zeros((units.n, 2))


def writes(units, params):
    units.pos[0, 0] = 1.0
    return np.zeros((units.n, 2))


def raises(units, params):
    if units.tick >= int(params.get("at", 0)):
        raise RuntimeError("the rule broke")
    return np.zeros((units.n, 2))


def wrong_shape(units, params):
    return np.zeros((units.n, 3))


def not_finite(units, params):
    out = np.zeros((units.n, 2))
    if units.tick >= 5:
        out[2] = np.nan
    return out


def crawl(units, params):
    """No opinion on direction; throttle ``params["throttle"]``."""
    return np.zeros((units.n, 2)), np.full(units.n, float(params["throttle"]))


def bad_throttle(units, params):
    return np.zeros((units.n, 2)), np.full(units.n, 1.5)


NOT_A_FUNCTION = 3
