"""One tick of a group's movement: the helpers of the move-order rules (:mod:`rigidflock.rts.rules`)
on small hand-made arrays, and :func:`~rigidflock.rts.control.control_group` end to end."""

import copy

import numpy as np
import pytest

from rigidflock.rts import control as C
from rigidflock.rts.rules.arrive import (
    ARRIVED_WITHIN,
    LEAVE_SLOT,
    VELOCITY_TIME,
    arrive_control,
    at_formation,
    update_arrived,
)
from rigidflock.rts.rules.body import Body
from rigidflock.rts.rules.cruise import BRAKE_GAIN, FLOCK_EN_ROUTE, QUEUE_GAP, cruise_throttle
from rigidflock.rts.rules.follow_path import PATH_LEASH, PATH_WINDOW, path_target
from rigidflock.rts.rules.passing import ONCOMING_AHEAD, oncoming_ahead
from rigidflock.sim import Simulation

L = np.ones(3)  # unit lengths


def body(vel, angle=0.0, pos=None):
    """Members at ``pos`` heading ``angle`` with velocities ``vel`` (m, 2)."""
    vel = np.asarray(vel, float)
    m = len(vel)
    ang = np.full(m, angle)
    fwd = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    left = np.stack([-fwd[:, 1], fwd[:, 0]], axis=1)
    return Body(
        pos=np.zeros((m, 2)) if pos is None else np.asarray(pos, float),
        vel=vel,
        angle=ang,
        fwd=fwd,
        left=left,
        v_fwd=np.einsum("ij,ij->i", vel, fwd),
        v_lat=np.einsum("ij,ij->i", vel, left),
        speed=np.hypot(*vel.T),
    )


# -- path following ------------------------------------------------------------------------------

PATH = np.stack([np.arange(40.0), np.zeros(40)], axis=1)  # along y = 0, one cell per unit


def test_path_target_looks_ahead_of_each_units_place_on_the_path():
    """A unit near x = 5 takes its place at cell 5 and steers at cell 5 + lookahead; one near
    the end steers at the last cell."""
    pos = np.array([[5.2, 0.5], [38.6, -0.3], [0.0, 1.0]])
    idx, target = path_target(
        PATH, np.array([0, 30, 0], np.intp), pos, L, np.zeros(3, bool), np.full((3, 2), -1.0), 4
    )
    np.testing.assert_array_equal(idx, [5, 39, 0])
    np.testing.assert_array_equal(target, [[9.0, 0.0], [39.0, 0.0], [4.0, 0.0]])


def test_path_target_searches_only_a_window_ahead():
    """A unit's place moves at most PATH_WINDOW - 1 cells per tick and never back: the path
    may pass near itself, and a unit must not jump to a later (or earlier) stretch of it."""
    pos = np.array([[35.0, 0.0]])
    idx, _ = path_target(PATH, np.array([0]), pos, L[:1], np.zeros(1, bool), np.zeros((1, 2)), 4)
    assert idx[0] == PATH_WINDOW - 1
    idx, _ = path_target(
        PATH, np.array([20]), np.array([[3.0, 0.0]]), L[:1], np.zeros(1, bool), np.zeros((1, 2)), 4
    )
    assert idx[0] == 20


def test_path_target_descends_the_field_when_off_the_leash_or_detouring():
    """Farther than PATH_LEASH lengths from the path, or on a detour after being stuck, a unit
    steers at its point down the distance field instead."""
    pos = np.array([[5.0, PATH_LEASH + 1.0], [5.0, 1.0], [5.0, 1.0]])
    descend = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    detouring = np.array([False, True, False])
    _, target = path_target(PATH, np.zeros(3, np.intp), pos, L, detouring, descend, 4)
    np.testing.assert_array_equal(target, [[1.0, 2.0], [3.0, 4.0], [9.0, 0.0]])


def test_at_formation_is_two_formation_radii_plus_the_arrival_radius_by_route():
    slots = np.array([[0.0, 0.0], [3.0, 4.0]])  # formation radius 5
    close = at_formation(slots, np.zeros(2), np.array([15.9, 16.1, 9.0]), np.array([6.0, 6.0, 0.0]))
    np.testing.assert_array_equal(close, [True, False, True])


# -- speed and queueing --------------------------------------------------------------------------


def test_queueing_gives_zero_throttle_behind_a_close_unit_going_our_way():
    """A unit at rest, pointing its way (|steer| < 1), with a unit QUEUE_GAP lengths ahead
    wants speed 0: throttle exactly 0 (it waits instead of ramming). Already moving, it brakes."""
    thr = cruise_throttle(
        steer=np.array([0.2, 0.2]),
        gap=QUEUE_GAP * L[:2],
        length=L[:2],
        approach=np.zeros(2, bool),
        group_speed=5.0,
        cruise=np.full(2, 8.0),
        v_fwd=np.array([0.0, 4.0]),
    )
    assert thr[0] == 0.0
    assert thr[1] < 0.0


def test_queueing_fades_out_between_one_and_two_gaps():
    """Half way between the gaps the wanted speed is half the group's; from two gaps on, the
    group's: at rest the throttle is the feed-forward (v / cruise)^2 plus the brake gain's push."""
    gap = np.array([1.5, 2.0, 10.0]) * QUEUE_GAP
    thr = cruise_throttle(np.zeros(3), gap, L, np.zeros(3, bool), 4.0, np.full(3, 8.0), np.zeros(3))
    want = np.array([2.0, 4.0, 4.0])
    np.testing.assert_allclose(thr, (want / 8.0) ** 2 + BRAKE_GAIN * want / 8.0)


def test_a_unit_still_turning_or_approaching_its_slot_does_not_queue():
    """One not yet pointing its way (|steer| = 1) may be side by side with the unit 'ahead';
    one approaching its slot is in the formation, where units stand close: both keep the
    group's speed."""
    thr = cruise_throttle(
        steer=np.array([1.0, -1.0, 0.0]),
        gap=np.zeros(3),
        length=L,
        approach=np.array([False, False, True]),
        group_speed=4.0,
        cruise=np.full(3, 8.0),
        v_fwd=np.full(3, 4.0),
    )
    np.testing.assert_allclose(thr, 0.25)


# -- arrival -------------------------------------------------------------------------------------


def test_arrival_marks_a_slow_unit_within_arrived_within_as_arrived():
    """On its slot means within ARRIVED_WITHIN lengths and slow (below 0.3 of the group's
    speed): a unit passing through at speed, or slow but farther, has not arrived."""
    d = np.array([0.9, 0.9, 1.2]) * ARRIVED_WITHIN
    speed = np.array([0.1, 2.0, 0.1])
    arrived = update_arrived(np.zeros(3, bool), d, speed, L, group_speed=5.0)
    np.testing.assert_array_equal(arrived, [True, False, False])


def test_an_arrived_unit_stays_so_until_pushed_leave_slot_away():
    """Neighbours nudge units in formation: an arrived unit stays arrived (whatever its
    speed) until LEAVE_SLOT lengths from its slot, then drives back."""
    d = np.array([1.5, 0.99 * LEAVE_SLOT, LEAVE_SLOT])
    arrived = update_arrived(np.ones(3, bool), d, np.full(3, 9.0), L, group_speed=5.0)
    np.testing.assert_array_equal(arrived, [True, True, False])


def test_arrive_control_closes_the_velocity_error_in_the_body_frame():
    """At rest on the slot: no force. At rest with the slot ahead / to port: forward thrust /
    a force to port. Too fast toward a near slot: it brakes (negative throttle)."""
    mass, drag, thrust = np.ones(4), np.zeros(4), np.full(4, 10.0)
    to_slot = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0], [1.0, 0.0]])
    b = body([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [5.0, 0.0]])
    thr, lat = arrive_control(to_slot, np.hypot(*to_slot.T), b, 5.0, mass, drag, thrust)
    assert thr[0] == 0.0 and lat[0] == 0.0
    # wanted speed e / ARRIVE_TIME = 2, closed within VELOCITY_TIME
    assert thr[1] == pytest.approx(2.0 / VELOCITY_TIME / 10.0) and lat[1] == 0.0
    assert thr[2] == 0.0 and lat[2] == pytest.approx(2.0 / VELOCITY_TIME)
    assert thr[3] < 0.0


def test_arrive_control_caps_the_wanted_speed_at_the_groups():
    """Far from the slot the wanted speed is the group's, not e / ARRIVE_TIME."""
    to_slot = np.array([[100.0, 0.0]])
    thr, _ = arrive_control(
        to_slot, np.array([100.0]), body([[0.0, 0.0]]), 3.0, np.ones(1), np.zeros(1), np.ones(1)
    )
    assert thr[0] == pytest.approx(3.0 / VELOCITY_TIME)


# -- the group's speed end to end ----------------------------------------------------------------


def test_group_moves_at_its_slowest_members_speed(scene_from):
    sc = scene_from(
        '[world]\nsize = [1200.0, 400.0]\nbounds = "walls"\n[rules]\nchase = false\n'
        '[[groups]]\nfamily = "fast"\ncount = 6\nthrust = 20.0\nheading = 0\n'
        "spawn = { center = [100.0, 200.0], radius = 30.0 }\n"
        '[[groups]]\nfamily = "slow"\ncount = 6\nthrust = 8.0\nheading = 0\n'
        "spawn = { center = [100.0, 200.0], radius = 30.0 }\n"
        "[[orders]]\nselect = { ids = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }\n"
        "goal = [1050.0, 200.0]\n"
    )
    sim = Simulation(sc)
    sim.step()
    g = next(iter(sim.orders.groups.values()))
    slow_cruise = float(sim.units.cruise_speed[6])
    assert g.speed == pytest.approx(slow_cruise)
    for _ in range(900):
        sim.step()
    fast = np.hypot(*sim.state.vel[:6].T)
    # the fast units hold back to the group's pace (well below their own cruise of 14.1)
    assert fast.mean() < 1.2 * slow_cruise


# -- faster searches, the same answers ---------------------------------------------------------


def oncoming_reference(pos, angle, group_of, members, length, ignore=()):
    """The definition of :func:`~rigidflock.rts.rules.passing.oncoming_ahead` over all pairs."""
    out = np.zeros(len(members), dtype=bool)
    me = group_of[members[0]]
    for a, i in enumerate(members):
        f = np.array([np.cos(angle[i]), np.sin(angle[i])])
        for j in range(len(pos)):
            if group_of[j] < 0 or group_of[j] == me or group_of[j] in ignore:
                continue
            d = pos[j] - pos[i]
            ahead = d @ f
            side = abs(d[0] * f[1] - d[1] * f[0])
            facing = f @ np.array([np.cos(angle[j]), np.sin(angle[j])]) < 0
            hit = 0 < ahead < ONCOMING_AHEAD * length[a] and side < length[a] and facing
            out[a] |= hit
    return out


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_oncoming_ahead_finds_every_unit_the_all_pairs_definition_finds(seed):
    """The head-on test takes its candidates from a k-d tree within the reach of the longest
    unit (all pairs cost ~6 ms a group at 1,000 units); crowded units of four groups, lengths
    1-6, some ignored groups: the same answer as the definition unit by unit, with hits and
    misses both (so neither an empty nor a full answer passes)."""
    rng = np.random.default_rng(seed)
    n = 150
    pos = rng.uniform(0.0, 40.0, (n, 2))
    angle = rng.uniform(-np.pi, np.pi, n)
    group_of = rng.integers(-1, 4, n)
    length = rng.uniform(1.0, 6.0, n)
    hits = 0
    for g in range(4):
        members = np.flatnonzero(group_of == g)
        for ignore in ((), ((g + 1) % 4,)):
            got = oncoming_ahead(pos, angle, group_of, members, length[members], ignore)
            want = oncoming_reference(pos, angle, group_of, members, length[members], ignore)
            np.testing.assert_array_equal(got, want)
            hits += int(want.sum())
    assert 0 < hits < 8 * n


def test_oncoming_ahead_needs_a_unit_ahead_close_in_line_and_heading_at_it():
    """Unit 0 (group 0, facing +x, length 1) meets unit 1 (group 1) only when unit 1 is ahead
    within 3 lengths, less than a length off the bow line, and heading against it."""
    group_of = np.array([0, 1])

    def meets(p1, a1):
        pos = np.array([[0.0, 0.0], p1])
        return bool(oncoming_ahead(pos, np.array([0.0, a1]), group_of, np.array([0]), L[:1])[0])

    assert meets([2.5, 0.5], np.pi)
    assert meets([2.9, 0.9], np.pi)  # 3.04 away: the k-d tree's reach is L sqrt(3^2 + 1)
    assert not meets([3.5, 0.0], np.pi)  # too far ahead
    assert not meets([2.0, 1.5], np.pi)  # off the bow line
    assert not meets([2.0, 0.0], 0.0)  # going the same way
    assert not meets([-2.0, 0.0], np.pi)  # behind


def path_target_reference(path, index, pos, look, grid):
    """The sight search of ``rules.follow_path.path_target`` as it was: every unit
    asked at every step (the sample count follows the whole batch's longest segment). Returns
    (target (m, 2), zeros where cut off; hidden (m,))."""
    K = len(path)
    follow = path[np.minimum(index + look, K - 1)]
    for k in range(look - 1, -2, -1):
        hidden = ~grid.sees(pos, follow)
        if not hidden.any() or k < 0:
            break
        follow = np.where(hidden[:, None], path[np.minimum(index + k, K - 1)], follow)
    return np.where(hidden[:, None], 0.0, follow), hidden


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_path_target_asks_again_only_for_the_hidden_units_when_nothing_else_changed(seed):
    """Random walled worlds, units scattered, paths to random goals: each unit steers at the
    farthest of the next lookahead cells in line of sight, the same as asking every unit at
    every step. Only the hidden units are asked again while the batch's sample count (its
    longest segment) stays; when it changes, a unit seen before may be hidden (a sample point
    lands in a wall), so all are asked. Cases where later asks were smaller occur."""
    from rigidflock.rts import navigation

    rng = np.random.default_rng(seed)
    compared = fewer = 0
    while compared < 60:
        W, H = 40.0, 30.0
        walls = []
        for _ in range(rng.integers(1, 6)):
            a = rng.uniform([0, 0], [W, H])
            walls.append((tuple(a), tuple(a + rng.uniform(-15, 15, 2)), rng.uniform(0.3, 1.5)))
        cell = float(rng.choice([1.0, 2.0]))
        grid = navigation.build_grid((W, H), cell, rng.uniform(0.3, 0.9) * cell, walls=walls)
        free = np.flatnonzero(~grid.blocked.ravel())
        if len(free) < 10:
            continue
        fld = navigation.distance_field(grid, grid.centre(rng.choice(free)[None])[0])
        start = grid.centre(rng.choice(free)[None])[0]
        if not np.isfinite(fld.dist[grid.cell_of(start[None])[0]]):
            continue
        path = navigation.path_from(grid, fld, start)
        pos = rng.uniform([0, 0], [W, H], (80, 2))
        pos = pos[grid.is_free(pos)]
        if len(path) < 5 or len(pos) == 0:
            continue
        m, look = len(pos), int(rng.integers(1, 12))
        index = rng.integers(0, len(path), m)
        sizes = []

        def sees(a, b, longest=None, grid=grid, sizes=sizes):
            sizes.append(len(a))
            return grid.sees(a, b, longest=longest)

        # lengths of 100: no unit is off the path's leash (the sight search alone decides)
        idx, got = path_target(path, index, pos, np.full(m, 100.0), np.zeros(m, bool),
                                 np.zeros((m, 2)), look, sees)  # fmt: skip
        want, _ = path_target_reference(path, idx, pos, look, grid)
        np.testing.assert_array_equal(got, want)
        compared += 1
        fewer += min(sizes) < m
    assert fewer > 10


CROWD_TO_FORMATION = (
    '[world]\nsize = [600.0, 400.0]\nbounds = "walls"\n[rules]\nchase = false\n'
    '[[groups]]\nfamily = "crowd"\ncount = 9\nheading = 0\n'
    "spawn = { center = [100.0, 200.0], radius = 25.0 }\n"
    '[[orders]]\nselect = { family = "crowd" }\ngoal = [260.0, 200.0]\n'
)


def until_arrival(sim):
    """The order's group of ``sim`` (a run of ``CROWD_TO_FORMATION``) every half second, on
    the way and at the formation, until every member has arrived (at most 20 s)."""
    for _ in range(40):
        for _ in range(30):
            sim.step()
        g = next(iter(sim.orders.groups.values()))
        if g.arrival_tick is not None:
            return
        yield g


def test_units_at_their_formation_follow_the_order_alone(scene_from):
    # the flocking rules' pull and push fight a unit's way to its slot, and in the
    # 1,000-unit bottleneck pressed the crowd into the walls; on the way the group still flocks
    sc = scene_from(CROWD_TO_FORMATION)
    sim = Simulation(sc)
    seen = set()
    for g in until_arrival(sim):
        state, tick = sim.state, sim.tick
        to_go = g.field.dist[sim.orders.grid.cell_of(state.pos[g.members])]
        arrive_r = sc.navigation.arrive_radius * sim.units.length[g.members]
        close = at_formation(g.slots, g.goal, to_go, arrive_r)
        # on copies of the group: control_group deals slots and tracks progress in place, so
        # calls on the simulation's own group would change the run the loop goes on with
        c = C.control_group(
            copy.deepcopy(g), state, sim.units, sc.navigation, 40.0, sim.orders.grid,
            np.full(len(state.pos), np.inf), tick, sc.world.dt,
        )  # fmt: skip
        assert (c.flock_scale[close] == 0.0).all()
        assert (c.flock_scale[~close] == FLOCK_EN_ROUTE).all()
        # meeting another group's unit head on, a unit keeps flocking short of its slot: there
        # separation turns both to starboard
        dealt = copy.deepcopy(g)
        c = C.control_group(
            dealt, state, sim.units, sc.navigation, 40.0, sim.orders.grid,
            np.full(len(state.pos), np.inf), tick, sc.world.dt, np.ones(len(g.members), bool),
        )  # fmt: skip
        d_slot = np.hypot(*(dealt.slots - state.pos[g.members]).T)
        assert ((c.flock_scale == FLOCK_EN_ROUTE) | (d_slot < arrive_r)).all()
        seen |= {bool(x) for x in close}
    assert seen == {True, False}  # both on the way and at the formation were looked at
