"""The order an xdist worker runs its tests in: the costly ones first, spread over the workers.

pytest-xdist's ``worksteal`` scheduler (the project's ``--dist``) hands each of the W workers one contiguous chunk of
the collection (the first ``N // W`` tests, then ``(N - N // W) // (W - 1)`` of the rest, ...) and lets an idle
worker steal the second half of the longest queue. In file order the SGD designs' training, the suite's costliest
work, all sits in one worker's chunk and runs there one design after another while the other worker runs unit
tests. Tests marked ``costly(units)`` (``tests/claims/gp22/test_gp22_arms.py``: one training arm each, its units
the arm's work) are therefore moved to the front of the chunks, the largest first, each into the chunk with the
least work so far (longest-processing-time first): every worker starts by training arms, side by side, and the
claim tests that read them later find them trained (``claims.gp22.DesignRunner``, the session cache).

Only the order changes, never a test or its outcome: every test reads the same cached records whichever worker
trained them (the perturbation matrix runs test order as one of its rows). Without xdist (``-n 0``) or with one
worker the collection keeps its file order.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

COSTLY = "costly"
"""The marker: ``@pytest.mark.costly(units)``, units of work comparable between the tests that carry it."""


def chunk_sizes(tests: int, workers: int) -> list[int]:
    """How many tests each of ``workers`` idle workers is first handed out of ``tests`` (xdist's
    ``WorkStealingScheduling.check_schedule``: each in turn takes an equal share of what is left)."""
    sizes, left = [], tests
    for k in range(workers):
        sizes.append(left // (workers - k))
        left -= sizes[-1]
    return sizes


def costly_first(costs: Sequence[float | None], workers: int) -> list[int]:
    """A permutation of the tests (their indices) that puts the costly ones (a cost, not None) at the front of
    the ``workers`` chunks, largest first, each into the chunk whose costly tests add up to the least so far; the
    other tests keep their order and fill the chunks up to their sizes (``chunk_sizes``)."""
    order = list(range(len(costs)))
    costly = sorted((i for i, cost in enumerate(costs) if cost), key=lambda i: -costs[i])  # stable: file order
    if workers < 2 or not costly:
        return order
    sizes = chunk_sizes(len(costs), workers)
    chunks: list[list[int]] = [[] for _ in range(workers)]
    load = [0.0] * workers
    for i in costly:
        k = min((k for k in range(workers) if len(chunks[k]) < sizes[k]), key=lambda k: load[k])
        chunks[k].append(i)
        load[k] += costs[i]
    rest = iter(i for i, cost in enumerate(costs) if not cost)
    permuted = []
    for k in range(workers):
        permuted += chunks[k] + [next(rest) for _ in range(sizes[k] - len(chunks[k]))]
    return permuted


class CostlyFirst:
    """On an xdist worker: the collection in ``costly_first`` order (after every deselection)."""

    def __init__(self, workers: int):
        self.workers = workers

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        costs = [marker.args[0] if (marker := item.get_closest_marker(COSTLY)) else None for item in items]
        items[:] = [items[i] for i in costly_first(costs, self.workers)]
