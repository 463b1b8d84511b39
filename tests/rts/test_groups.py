"""A group's per-member arrays: set up when it forms, kept in step when members leave."""

import numpy as np

from rigidflock.rts.groups import PER_MEMBER, Group


def group(members, tick=7):
    m = len(members)
    return Group(
        id=0,
        members=np.asarray(members, np.intp),
        goal=np.zeros(2),
        facing=np.array([1.0, 0.0]),
        field=None,
        slots=np.arange(2.0 * m).reshape(m, 2),
        speed=3.0,
        tick=tick,
        route_length=10.0,
    )


def test_a_new_group_starts_everyone_on_the_way():
    """Nobody arrived, no distance seen, progress clocks at the order's tick, no backing or
    detour, everyone at the start of the path."""
    g = group([4, 2, 9])
    assert not g.arrived.any()
    assert np.isinf(g.best).all()
    assert (g.progress_tick == 7).all()
    assert (g.backing_until == -1).all() and (g.detour_until == -1).all()
    assert (g.path_index == 0).all()
    for name in PER_MEMBER:
        assert len(getattr(g, name)) == 3, name


def test_drop_removes_the_leaving_members_from_every_per_member_array():
    """Rows stay aligned: the remaining members keep their own slots and progress."""
    g = group([4, 2, 9])
    g.arrived[:] = [True, False, True]
    g.best[:] = [1.0, 2.0, 3.0]
    g.drop(np.array([2, 11]))
    np.testing.assert_array_equal(g.members, [4, 9])
    np.testing.assert_array_equal(g.slots, [[0.0, 1.0], [4.0, 5.0]])
    np.testing.assert_array_equal(g.arrived, [True, True])
    np.testing.assert_array_equal(g.best, [1.0, 3.0])
    for name in PER_MEMBER:
        assert len(getattr(g, name)) == 2, name
