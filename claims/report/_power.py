"""The verdict rule for checks of a test's own power (``claims.checks.check_power``).

A power check says whether the *test* could have seen what the statement predicts: a search reached an
optimum known in closed form, a design detected its minimum effect, enough paths settled. A shortfall
shows nothing about the statement, so:

- a claim whose selected evidence tests finished with a power shortfall is ``inconclusive``, with "the test
  lacked power: <requirement> (<test>)" among its reasons, wherever it would otherwise be ``verified`` or
  ``verified-with-correction``; a *declared* ``refuted`` becomes ``inconclusive`` only when every test that
  declared it fell short (a refutation needs a counterexample to the statement, and another test's power takes
  nothing from it; a statement check that failed stays ``refuted`` whatever the power);
- a negative control with a power shortfall leaves the claim's control state ``lacked power``: it does not
  show that the check can fail.

Evidence from before power checks has no ``power`` list and no shortfall.
"""

from __future__ import annotations

from typing import Any, Iterable, Protocol


class _Test(Protocol):
    nodeid: str
    evidence: dict[str, Any]


LACKED_POWER = "lacked power"
"""The control state of a claim whose negative control fell short of a power requirement."""


def shortfalls(test: _Test) -> list[dict[str, Any]]:
    """The power checks of ``test`` that were not met (in the order recorded)."""
    return [p for p in test.evidence.get("power") or [] if not p.get("achieved")]


def lacked_power_reason(tests: Iterable[_Test], verdict: str | None = None) -> str | None:
    """The sentence that makes a claim inconclusive: every shortfall of ``tests`` with its test; None when
    every power check was met. A declared refutation rests on its own test's counterexample: for ``verdict``
    ``refuted`` only the tests that declared it count (another test's shortfall takes nothing from it), and one of
    them with every power check met keeps it."""
    tests = list(tests)
    if verdict == "refuted":
        tests = [t for t in tests if t.evidence.get("verdict") == "refuted"]
        if any(not shortfalls(t) for t in tests):  # one powered refutation stands whatever the others lacked
            return None
    missed = [f"{p['requirement']} ({t.nodeid})" for t in tests for p in shortfalls(t)]
    if not missed:
        return None
    return "The test lacked power: " + "; ".join(missed) + ". This says nothing about the statement either way."
