"""Checks of a test's own power: that the test could have seen what the statement predicts.

Some checks are not about the statement at all but about the test: a search reaches an optimum known in
closed form (so it could have found a faster one), a design detects its minimum effect, enough of a
design's paths settle for a limit to be judged. When one of them fails, the run shows nothing either way
about the statement: the claim is ``inconclusive`` ("the test lacked power: ..."), never ``refuted``. A
refutation needs a counterexample to the statement itself (``claims.report._model``'s verdict rules).

So a power check never raises: it records its requirement, whether the run met it and the numbers it was
judged by (the test's ``power`` list in the report), and the test goes on, so that its statement checks
still judge what was found (a counterexample found by an underpowered search is still a counterexample).
A power check is not a case of the statement: it adds nothing to the test's cases or informative counts.

The rule that decides a power check is stated before the data (a count of restarts, a number of settled
paths), and is chosen far from its threshold at the suite's scale, so that rounding (thread count, vector
kernels, BLAS path) cannot move it: a requirement met by one restart of 256 is not a robust requirement.
"""

from __future__ import annotations

from typing import Any

from claims.checks._core import _truth_value
from claims.evidence._record import _test_evidence, current, plain


def check_power(achieved: bool, requirement: str, **details: Any) -> bool:
    """The test met ``requirement`` (a sentence stated before the data: "at least 8 of 256 restarts end
    within 1% of s2 = 1/2"): records it with ``details`` (the numbers it was judged by) in the running
    test's ``power`` list and returns whether it was met. Never raises on a shortfall (module docstring);
    ``achieved`` is one truth value, as for ``check_property`` (anything else is a ``TypeError``)."""
    achieved = _truth_value(achieved)
    if not (isinstance(requirement, str) and requirement.strip()):
        raise ValueError(f"check_power: the requirement is a sentence, not {requirement!r}")
    current("check_power")
    _test_evidence().power.append(plain({"requirement": requirement, "achieved": achieved, **details}))
    return achieved
