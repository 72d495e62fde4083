"""A pytest plugin for benchmarks/verdict_stability.py (``-p benchmarks._given_only``, its ``--given-only``):
keeps only the claim tests that draw their cases with Hypothesis (``@given``) and deselects the rest, so that
the seeded runs (``--seeds N``), the only runs a Hypothesis seed can change, cost a fraction of the suite.
A claim whose @given tests are kept, but not its other tests, is reported as partly run: the seeded table
compares the verdicts of the claims the selection decides."""

from __future__ import annotations

import pytest


def drawn_by_hypothesis(item: pytest.Item) -> bool:
    """A claim test (under tests/claims) whose function is a Hypothesis test."""
    function = getattr(item, "obj", None)
    return "tests/claims/" in item.nodeid and bool(getattr(function, "is_hypothesis_test", False))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    kept = [item for item in items if drawn_by_hypothesis(item)]
    dropped = [item for item in items if not drawn_by_hypothesis(item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
