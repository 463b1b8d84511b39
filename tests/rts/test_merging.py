"""Units waiting against a wall are let into the stream (:mod:`rigidflock.rts.merging`): who
waits to merge, and who queues for them."""

from types import SimpleNamespace

import numpy as np
import pytest

from rigidflock.rts import merging as M
from rigidflock.rts.orders import Orders
from rigidflock.rts.wall_slide import Walls, wall_contact

L = 4.0
EAST = np.array([1.0, 0.0])
# the lane's head against the bottleneck's wall (face at x = 299), above the gap's upper jamb
HEAD = (297.5, 212.0)


def gap_of(
    stream_pos, lane_pos, waited_stream, waited_lane, gap=np.inf, fwd=EAST, lane_fwd=(0.0, -1.0)
):
    """The stream unit's gap with one lane unit (waiting to merge, heading ``lane_fwd``: down
    the wall's face by default) beside its way."""
    pos = np.array([stream_pos, lane_pos], float)
    out = M.merge_gap(
        np.array([gap, np.inf]),
        pos,
        np.array([fwd, lane_fwd], float),
        np.full(2, L),
        np.array([waited_stream, waited_lane], float),
        np.array([False, True]),
    )
    return out[0]


def test_the_stream_queues_for_the_lane_head_beside_its_bow():
    """The bottleneck's jamb: the stream passes the lane's head 1.25-1.75 lengths off its bow
    line, outside the one-length corridor its queue looks down; a head that has waited 3 s
    there is ahead of a stream unit that has waited none, at its distance (the queue's own
    rule then stops it at one length)."""
    stream, head = (294.0, 206.0), HEAD
    assert gap_of(stream, head, 0.0, 3.0) == pytest.approx(np.hypot(3.5, 6.0))
    # a nearer unit ahead in its own queue stays the gap
    assert gap_of(stream, head, 0.0, 3.0, gap=3.0) == 3.0


@pytest.mark.parametrize(
    ("stream", "waited_stream", "waited_lane", "why"),
    [
        ((294.0, 206.0), 2.8, 3.0, "the lane head has not waited MERGE_MARGIN longer"),
        ((298.5, 206.0), 0.0, 3.0, "the lane head is behind the stream unit's bow"),
        ((287.0, 212.0), 0.0, 3.0, "beyond the queue's reach (two lengths)"),
    ],
)
def test_no_queueing_for_a_unit_it_need_not_let_in(stream, waited_stream, waited_lane, why):
    assert gap_of(stream, HEAD, waited_stream, waited_lane) == np.inf, why


def test_the_lane_head_is_ahead_by_its_bow_not_its_centre():
    """The lane's head turned 45 degrees off the face toward the jamb, down the stream's way
    (as the slide along the wall turns it): its centre a quarter length behind the stream
    unit's centre line, its bow (half a length ahead of its centre) 0.10 lengths in front. It
    would go there, so the stream unit lets it in. Turned the other way (up the face, away
    from the gap), with its centre a quarter length in front and its bow 0.10 lengths behind,
    it would not: the stream unit passes."""
    s = np.sqrt(0.5)
    behind, ahead = (HEAD[0] + 0.25 * L, 206.0), (HEAD[0] - 0.25 * L, 206.0)
    assert gap_of(behind, HEAD, 0.0, 3.0, lane_fwd=(s, -s)) == pytest.approx(np.hypot(L / 4, 6))
    assert gap_of(ahead, HEAD, 0.0, 3.0, lane_fwd=(-s, s)) == np.inf


def test_waiting_to_merge_takes_a_second_against_a_wall_on_the_way():
    against = np.array([True, True, True, False])
    arrived = np.array([False, False, True, False])
    waited = np.array([M.MERGE_WAIT + 0.1, M.MERGE_WAIT - 0.1, 5.0, 5.0])
    np.testing.assert_array_equal(
        M.waiting_to_merge(against, arrived, waited), [True, False, False, False]
    )


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_tree_finds_every_pair_the_queue_would_feel(seed):
    """Against every pair looked at (m x k, dense): the same gap wherever it is within the
    queue's reach, 2 lengths (farther, no throttle changes, so the tree skips those pairs)."""
    rng = np.random.default_rng(seed)
    m = 300
    pos = rng.uniform(0.0, 80.0, (m, 2))
    a = rng.uniform(0.0, 2 * np.pi, m)
    fwd = np.stack([np.cos(a), np.sin(a)], axis=1)
    length = rng.uniform(3.0, 5.0, m)
    waited = rng.uniform(0.0, 5.0, m)
    waiting = rng.random(m) < 0.2
    gap = np.where(rng.random(m) < 0.5, np.inf, rng.uniform(0.0, 20.0, m))
    got = M.merge_gap(gap, pos, fwd, length, waited, waiting)

    w = np.flatnonzero(waiting)
    d = pos[w][None, :, :] - pos[:, None, :]
    bow = d + 0.5 * (length[w][:, None] * fwd[w])[None, :, :]
    ahead = np.einsum("mkc,mc->mk", bow, fwd)
    ok = ahead > 0
    ok &= waited[w][None, :] > waited[:, None] + M.MERGE_MARGIN
    dense = np.minimum(gap, np.where(ok, np.hypot(d[..., 0], d[..., 1]), np.inf).min(axis=1))
    felt = dense < M.REACH * length
    assert felt.sum() > 10  # the comparison compares something
    np.testing.assert_array_equal(got[felt], dense[felt])
    assert (got[~felt] >= M.REACH * length[~felt]).all()


def test_orders_let_in_writes_only_the_groups_rows():
    """Through ``Orders._let_in``: members are unit rows 7, 2 and 5 of 10. Row 2, the lane's
    head against the wall 3 s without progress, is let in by row 7, passing east below it;
    row 5, also against the wall but backing (its progress clock set a second ahead), waits
    for nothing and is let in by no one; rows outside the group keep their gap."""
    n, tick, dt = 10, 600, 1.0 / 60.0
    pos = np.zeros((n, 2))
    pos[[7, 2, 5]] = [(294.0, 206.0), HEAD, (297.5, 222.0)]
    angle = np.zeros(n)
    angle[[2, 5]] = -np.pi / 2  # down the wall, toward the gap
    state = SimpleNamespace(pos=pos, angle=angle)
    g = SimpleNamespace(
        members=np.array([7, 2, 5]),
        progress_tick=np.array([tick, tick - 180, tick + 60]),
        arrived=np.zeros(3, dtype=bool),
    )
    walls = Walls.of_scene([((300.0, 209.4), (300.0, 400.0), 2.0)], [])
    against, _ = wall_contact(walls, pos[g.members], np.full(3, L))
    np.testing.assert_array_equal(against, [False, True, True])
    gap = np.full(n, np.inf)
    fake = SimpleNamespace(units=SimpleNamespace(length=np.full(n, L)))
    letting = Orders._let_in(fake, g, state, gap, against, tick, dt)
    assert gap[7] == pytest.approx(np.hypot(3.5, 6.0))
    assert np.isinf(np.delete(gap, 7)).all()
    # the members letting one in (rows over members), which queue even at their formation
    np.testing.assert_array_equal(letting, [True, False, False])
    # nobody waiting (the head's clock restarted): nobody lets anyone in
    g.progress_tick[1] = tick
    assert Orders._let_in(fake, g, state, np.full(n, np.inf), against, tick, dt) is None


def test_orders_control_hands_who_lets_in_to_the_groups_control(scene_from, monkeypatch):
    """``Orders.control`` passes each group's ``_let_in`` mask on to ``control_group``, whose
    throttle (model 19) queues those members at the formation too."""
    from rigidflock.rts import orders as O
    from rigidflock.sim import Simulation

    sim = Simulation(
        scene_from(
            '[rules]\nchase = false\n[[groups]]\nfamily = "crowd"\ncount = 6\n'
            '[[orders]]\nselect = { family = "crowd" }\ngoal = [400.0, 300.0]\n'
        )
    )
    sim.step()
    g = next(iter(sim.orders.groups.values()))
    mask = np.arange(len(g.members)) % 2 == 0
    seen = []
    real = O.control_group

    def spy(*args):
        seen.append(args[-1])
        return real(*args)

    monkeypatch.setattr(Orders, "_let_in", lambda self, *a: mask)
    monkeypatch.setattr(O, "control_group", spy)
    sim.step()
    assert len(seen) == 1 and seen[0] is mask
