"""The order xdist workers run their tests in (``claims.session._schedule``): costly tests first, spread over the
workers' chunks, the rest in file order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from claims.session._schedule import chunk_sizes, costly_first


def chunks(order: list[int], workers: int) -> list[list[int]]:
    sizes, start, cut = chunk_sizes(len(order), workers), 0, []
    for size in sizes:
        cut.append(order[start:start + size])
        start += size
    return cut


def test_chunk_sizes_are_xdists_first_handout():
    assert chunk_sizes(10, 2) == [5, 5] and chunk_sizes(11, 2) == [5, 6] and chunk_sizes(10, 3) == [3, 3, 4]


def test_costly_tests_start_every_chunk_largest_first_and_balanced():
    costs = [None, None, 5.0, None, 9.0, None, 4.0, None, None, 3.0]
    order = costly_first(costs, 2)
    first, second = chunks(order, 2)
    assert first[:2] == [4, 9] and second[:2] == [2, 6]  # 9 then 3 in one chunk, 5 then 4 in the other: 12 and 9
    assert [i for i in order if costs[i] is None] == [0, 1, 3, 5, 7, 8]  # the rest keep their file order


def test_one_worker_or_no_costly_test_keeps_file_order():
    assert costly_first([1.0, None, 2.0], 1) == [0, 1, 2]
    assert costly_first([None] * 5, 3) == list(range(5))


@given(st.lists(st.one_of(st.none(), st.floats(0.5, 100)), max_size=30), st.integers(1, 4))
def test_a_permutation_that_puts_costly_tests_before_the_rest_of_their_chunk(costs, workers):
    order = costly_first(costs, workers)
    assert sorted(order) == list(range(len(costs)))
    for chunk in chunks(order, workers) if workers > 1 else []:
        kinds = [costs[i] is not None for i in chunk]
        assert kinds == sorted(kinds, reverse=True)
