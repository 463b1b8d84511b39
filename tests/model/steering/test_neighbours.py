"""The fast pair search must return exactly the brute-force reference's pairs."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rigidflock.model.steering.neighbours import (
    VerletPairs,
    directed,
    min_image,
    pairs_brute,
    pairs_cells,
    pairs_kdtree,
)


def assert_same(a, b):
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 80),
    seed=st.integers(0, 2**32 - 1),
    radius=st.floats(0.5, 700.0),
    wrap=st.booleans(),
)
def test_kdtree_matches_brute_force(n, seed, radius, wrap):
    rng = np.random.default_rng(seed)
    box = np.array([400.0, 300.0])
    pos = rng.random((n, 2)) * box
    if n > 4:  # clusters and exact duplicates, the hard cases
        pos[: n // 4] = pos[0] + rng.normal(0, 1.0, (n // 4, 2))
        pos[1] = pos[0]
        pos = np.mod(pos, box) if wrap else pos
    b = box if wrap else None
    ref = pairs_brute(pos, radius, b)
    assert_same(pairs_kdtree(pos, radius, b), ref)
    assert_same(pairs_cells(pos, radius, b), ref)


def test_wrap_around_pairs_across_the_edge():
    box = np.array([100.0, 100.0])
    pos = np.array([[1.0, 50.0], [99.0, 50.0], [50.0, 50.0]])
    i, j = pairs_kdtree(pos, 5.0, box)
    assert list(zip(i, j, strict=True)) == [(0, 1)]
    assert pairs_kdtree(pos, 5.0, None)[0].size == 0
    np.testing.assert_allclose(min_image(pos[1] - pos[0], box), [-2.0, 0.0])


def test_directed_lists_both_ways():
    i, j = directed(np.array([0, 1]), np.array([2, 3]))
    assert list(zip(i, j, strict=True)) == [(0, 2), (1, 3), (2, 0), (3, 1)]


def test_cells_on_an_open_world_with_far_outliers():
    rng = np.random.default_rng(2)
    pos = np.concatenate([rng.random((200, 2)) * 50, [[1e5, -3e4], [1e5 + 1, -3e4]]])
    assert_same(pairs_cells(pos, 3.0), pairs_brute(pos, 3.0))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), wrap=st.booleans(), skin=st.floats(0.5, 20.0))
def test_verlet_candidates_filtered_equal_a_fresh_search(seed, wrap, skin):
    """Move a cloud step by step; the reused candidate list, filtered by the true radius, must
    hold exactly the pairs of a fresh search at every step."""
    rng = np.random.default_rng(seed)
    box = np.array([200.0, 150.0])
    b = box if wrap else None
    pos = rng.random((120, 2)) * box
    vel = rng.normal(0, 0.3, (120, 2))
    verlet = VerletPairs(skin)
    radius = 12.0
    for _ in range(30):
        ci, cj = verlet.candidates(pos, radius, b)
        d = min_image(pos[cj] - pos[ci], b)
        keep = np.einsum("ij,ij->i", d, d) < radius * radius
        assert_same((ci[keep], cj[keep]), pairs_brute(pos, radius, b))
        pos = pos + vel
        if wrap:
            pos = np.mod(pos, box)
    if skin >= 10.0:  # steps of ~1 at most: a wide skin must have been reused
        assert verlet.builds < 30


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), wrap=st.booleans(), n=st.integers(0, 400))
def test_cell_rows_equal_the_rows_of_the_pair_list(seed, wrap, n):
    """The parallel row builder gives the arrays ``to_rows`` makes of the serial pair list."""
    from rigidflock.model.steering.cells import cell_pairs, cell_rows, to_rows

    rng = np.random.default_rng(seed)
    box = np.array([200.0, 150.0])
    pos = rng.random((n, 2)) * box
    if n > 10:
        pos[:5] = pos[5:10] + 1e-3  # near-duplicates
    w, h = (200.0, 150.0) if wrap else (0.0, 0.0)
    if n < 2:
        return
    ptr, nbr = cell_rows(pos, 13.0, w, h, wrap)
    ref_ptr, ref_nbr = to_rows(*cell_pairs(pos, 13.0, w, h, wrap), n)
    np.testing.assert_array_equal(ptr, ref_ptr)
    np.testing.assert_array_equal(nbr, ref_nbr)


def test_verlet_rows_equal_the_rows_of_the_candidates():
    from rigidflock.model.steering.cells import to_rows

    rng = np.random.default_rng(3)
    box = np.array([200.0, 150.0])
    for b in (box, None):
        pos = rng.random((300, 2)) * box
        a, c = VerletPairs(2.0), VerletPairs(2.0)
        for k in range(10):
            ptr, nbr = a.rows(pos, 12.0, b, parallel=k % 2 == 0)
            ref = to_rows(*c.candidates(pos, 12.0, b), len(pos))
            np.testing.assert_array_equal(ptr, ref[0])
            np.testing.assert_array_equal(nbr, ref[1])
            pos = np.mod(pos + rng.normal(0, 0.5, pos.shape), box)
        assert a.builds == c.builds


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), wrap=st.booleans(), n=st.integers(2, 400))
def test_ordered_rows_are_the_rows_of_the_pair_list_renumbered(seed, wrap, n):
    """Rows of units renumbered in cell order: row p is unit order[p] with the partners (and
    their sequence) ``to_rows`` gives that unit, as row numbers; ``row_pairs`` names them."""
    from rigidflock.model.steering.cells import (
        cell_pairs,
        ordered_rows,
        ordered_rows_serial,
        row_pairs,
        to_rows,
    )

    rng = np.random.default_rng(seed)
    box = np.array([200.0, 150.0])
    pos = rng.random((n, 2)) * box
    if n > 10:
        pos[:5] = pos[5:10] + 1e-3  # near-duplicates
    w, h = (200.0, 150.0) if wrap else (0.0, 0.0)
    ptr, nbr, order = ordered_rows(pos, 13.0, w, h, wrap)
    owner, partner = row_pairs(ptr, nbr, order)
    ref_ptr, ref_nbr = to_rows(*cell_pairs(pos, 13.0, w, h, wrap), n)
    one_pass = ordered_rows_serial(pos, 13.0, w, h, wrap)  # the one-thread build: same arrays
    for a, b in zip(one_pass, (ptr, nbr, order), strict=True):
        np.testing.assert_array_equal(a, b)
    assert sorted(order) == list(range(n))
    for p in range(n):
        u = order[p]
        row = nbr[ptr[p] : ptr[p + 1]]
        np.testing.assert_array_equal(order[row], ref_nbr[ref_ptr[u] : ref_ptr[u + 1]])
        assert (owner[ptr[p] : ptr[p + 1]] == u).all()
        np.testing.assert_array_equal(partner[ptr[p] : ptr[p + 1]], order[row])
    if n > 50:  # cell order: consecutive rows are mostly close together
        step = np.hypot(*(pos[order[1:]] - pos[order[:-1]]).T)
        assert np.median(step) < np.median(np.hypot(*(pos[1:] - pos[:-1]).T)) / 2
