"""The steering by its numpy definitions: the reference the compiled passes are checked against.

:func:`steer_reference` finds the pairs afresh (a cell search, explicit directed pair lists) and
calls the documented rule functions of ``flocking``, ``pursuit`` and ``avoidance``;
:func:`blend_terms` blends their terms as the unit pass does. Slow, and never run by the
simulation: the tests compare :class:`~rigidflock.model.steering.blend.Steerer` with it.
"""

from __future__ import annotations

import numpy as np

from rigidflock.model.state import (
    ROLE_CHASE,
    ROLE_INTERCEPT,
    ROLE_NONE,
    ROLE_PLAYER,
    State,
    Units,
    headings,
)
from rigidflock.model.steering import avoidance, flocking, pursuit
from rigidflock.model.steering.blend import World, radii, touch_distance
from rigidflock.model.steering.decision import Steering
from rigidflock.model.steering.neighbours import directed, pairs_cells
from rigidflock.model.steering.view import in_view
from rigidflock.model.torus import min_image


def blend_terms(
    st, units, rules, world, h, left, coh_term, ali_term, sep_term, nf, push, felt, pairs, gap,
    priority, wall_feeler,
) -> Steering:  # fmt: skip
    """Blend the per-unit rule terms with weights; leaders, chase and feelers on top
    (``wall_feeler``: see :func:`steer_reference`)."""
    n, n_ai = units.n, units.n_ai
    S, w = rules.steering_force, rules.weights
    force = np.zeros(n)
    if rules.flocking and n_ai:
        force[:n_ai] = S * (
            w.cohesion * coh_term + w.alignment * ali_term + w.separation * sep_term
        )

    # Leaders: nobody in the narrow cone ahead; with flocking off every unit leads.
    leader = np.zeros(n, dtype=bool)
    leader[:n_ai] = (nf == 0) | (not rules.flocking)
    leader &= (units.role != ROLE_NONE) & (units.role != ROLE_PLAYER)
    target = np.full((n, 2), np.nan)
    if rules.chase and units.has_player:
        offset = min_image(st.pos[-1] - st.pos, world.box)
        intercept = units.role == ROLE_INTERCEPT
        aim = offset.copy()
        if intercept.any():
            aim[intercept] = pursuit.intercept_point(
                st.vel[intercept], st.vel[-1], offset[intercept]
            )
        steering_leader = leader & ((units.role == ROLE_CHASE) | intercept)
        force += np.where(steering_leader, w.chase * S * pursuit.steer_toward(aim, left), 0.0)
        target[steering_leader] = st.pos[steering_leader] + aim[steering_leader]

    feeler_len = units.length * rules.feeler_factor
    if rules.avoidance:
        urg, cgap, spans, guard = priority
        bow = np.stack([left[:, 1], -left[:, 0]], axis=1)
        if world.walls:
            wall_len = feeler_len if wall_feeler is None else np.minimum(feeler_len, wall_feeler)
            push = push + avoidance.wall_feelers(st.pos, h, wall_len, world.size)
            urg, cgap, wall_spans, guard = avoidance.wall_priority(
                st.pos, h, bow, wall_len, touch_distance(units), units.length, world.size,
                urg, cgap, guard,
            )  # fmt: skip
            spans = tuple(np.concatenate(pair) for pair in zip(spans, wall_spans, strict=True))
        # which way: toward the nearer end of the blocked interval (avoidance module docstring)
        lo, hi = avoidance.blocked(n, *spans)
        turn, cmd = avoidance.escape(lo, hi, avoidance.bow_angle(h, left))
        # priority: the other rules turn a unit away from a surface it touches beside it
        # and give way as a felt surface nears; touching one ahead, only the escape steers
        g_lo, g_hi = avoidance.guard_range(*guard, w.avoidance * S * avoidance.GUARD_TURN)
        other = np.clip(force[:n_ai], g_lo[:n_ai], g_hi[:n_ai])
        blended = (1.0 - urg[:n_ai]) * other + w.avoidance * S * turn[:n_ai] * push[:n_ai]
        force[:n_ai] = np.where(np.isfinite(cgap[:n_ai]), w.avoidance * S * cmd[:n_ai], blended)
        felt = felt.copy()
        felt[n_ai:] = -1
    else:
        felt = np.full(n, -1, dtype=np.intp)
    return Steering(
        force=force,
        heading=h,
        leader=leader,
        feeler_end=st.pos + h * feeler_len[:, None],
        felt=felt,
        target=target,
        gap=gap,
        pair_source=pairs,
    )


def steer_reference(
    st: State, units: Units, rules, world: World, wall_feeler: np.ndarray | None = None
) -> Steering:
    """The rules by their numpy definitions, on a fresh pair search (slow; for tests).
    ``wall_feeler`` (N,): the most each unit's feeler reaches for the world's walls, world
    units (default: as far as for obstacles)."""
    n_ai = units.n_ai
    fwd, left = flocking.forward_left(st.angle)
    h = headings(st.vel, st.angle)
    view_r, sep_r, lead_r = radii(units, rules)
    pos_ai = st.pos[:n_ai]
    search = float(max(view_r.max(), sep_r.max(), lead_r.max())) if n_ai else 0.0
    i, j = directed(*pairs_cells(pos_ai, search, world.box))
    d = min_image(pos_ai[j] - pos_ai[i], world.box)
    dist = np.hypot(d[:, 0], d[:, 1])
    f, s = flocking.local_offsets(d, st.angle[i])
    seen = in_view(f, s, rules.view, rules.back_view_angle_factor, rules.front_view_angle_factor)
    flock = seen & (dist < view_r[i]) & (units.family[i] == units.family[j])
    sep = seen & (dist < sep_r[i])
    hh, ll = h[:n_ai], left[:n_ai]
    coh = flocking.cohesion(n_ai, i[flock], d[flock], hh, ll)
    ali = flocking.alignment(n_ai, i[flock], st.vel[j[flock]], hh, ll)
    sep_term = flocking.separation(n_ai, i[sep], s[sep], dist[sep], sep_r[i[sep]])
    nf = pursuit.front_counts(n_ai, i, f, s, dist, lead_r[i], rules.front_view_angle_factor)
    feeler_len = units.length * rules.feeler_factor
    clearance = units.width / 2 + 0.5 * units.length
    push, felt = avoidance.obstacle_feelers(
        st.pos, h, feeler_len, clearance, world.obstacles, world.box
    )
    priority = avoidance.obstacle_priority(
        st.pos, h, fwd, feeler_len, clearance, touch_distance(units), units.length,
        world.obstacles, world.box,
    )  # fmt: skip
    return blend_terms(
        st,
        units,
        rules,
        world,
        h,
        left,
        coh,
        ali,
        sep_term,
        nf,
        push,
        felt,
        (i, j, flock),
        np.concatenate([
            flocking.gap_ahead(n_ai, i, f, s, dist, units.length[i],
                               np.einsum("ij,ij->i", st.vel[j], np.stack(
                                   [np.cos(st.angle[i]), np.sin(st.angle[i])], axis=1))),
            np.full(units.n - n_ai, np.inf)]),
        priority,
        wall_feeler,
    )  # fmt: skip
