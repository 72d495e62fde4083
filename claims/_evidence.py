"""The one way evidence is recorded: each check adds a case to the running test's evidence.

The plugin opens a ``TestEvidence`` around every claim test's call and ships
``TestEvidence.to_builtin()`` on the test report, so evidence made on an xdist worker reaches
the controller through pytest's own report serialization. Nothing here imports torch.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterator

from hypothesis.control import current_build_context
from hypothesis.errors import InvalidArgument

VERDICTS = ("verified", "verified-with-correction", "refuted", "inconclusive", "untested", "error")


class ClaimViolation(AssertionError):
    """A check found a case where the statement under test is false."""


def margin(error: float, tolerance: float) -> float:
    """tolerance / error; infinite when the error is exactly 0."""
    return math.inf if error == 0 else tolerance / error


def plain(value: Any) -> Any:
    """``value`` as plain builtins that survive xdist and JSON (tensors, Fractions included)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return float(value)  # numpy.float64 is a float that execnet cannot serialize
    if isinstance(value, Fraction):
        return str(value)
    if hasattr(value, "tolist"):
        return plain(value.tolist())
    return str(value)


@dataclass
class Case:
    """One judged case: its error, the tolerance it was judged by, and its numbers."""

    error: float
    tolerance: float
    details: dict[str, Any]

    def key(self) -> tuple[float, float, float]:
        """Smaller is nearer to violating: margin, then larger error, then smaller slack."""
        return (margin(self.error, self.tolerance), -self.error, self.details.get("relative_slack", math.inf))


@dataclass
class TestEvidence:
    """What one test showed: its cases (one per Hypothesis example, or per check outside
    ``@given``) and checks; of the cases where a statement holds, the one nearest to violating;
    of the cases shown to violate a statement (negative controls, counterexamples to a printed
    statement), the one nearest to being accepted; notes and a declared verdict."""

    cases: int = 0
    checks: int = 0
    holding: Case | None = None
    violating: Case | None = None
    min_slack: float | None = None
    notes: list[str] = field(default_factory=list)
    verdict: str | None = None
    correction: str | None = None
    violation: str | None = None
    _example: object = field(default=None, repr=False)

    def add_case(self, error: float, tolerance: float, details: dict[str, Any], violates: bool = False) -> None:
        self.checks += 1
        example = _current_example()
        if example is None or example is not self._example:
            self.cases += 1
            self._example = example
        case = Case(error, tolerance, details)
        if violates:
            if self.violating is None or case.key() > self.violating.key():
                self.violating = case
            return
        slack = details.get("relative_slack")
        if slack is not None and (self.min_slack is None or slack < self.min_slack):
            self.min_slack = slack
        if self.holding is None or case.key() < self.holding.key():
            self.holding = case

    def to_builtin(self) -> dict[str, Any]:
        shown = self.holding or self.violating
        return plain(
            {
                "cases": self.cases,
                "checks": self.checks,
                "min_slack": self.min_slack,
                "max_error": shown.error if shown else None,
                "tolerance": shown.tolerance if shown else None,
                "details": shown.details if shown else {},
                "holding": vars(self.holding) if self.holding else None,
                "counterexample": vars(self.violating) if self.violating else None,
                "notes": self.notes,
                "verdict": self.verdict,
                "correction": self.correction,
                "violation": self.violation,
            }
        )


def currently_in_example() -> bool:
    return _current_example() is not None


def _current_example() -> object | None:
    """The Hypothesis example being run, if any: every check inside one example is one case."""
    try:
        return current_build_context()
    except InvalidArgument:
        return None


_stack: list[TestEvidence] = []


@contextmanager
def collecting() -> Iterator[TestEvidence]:
    """Collect the evidence of one test call (nested pytester sessions push their own)."""
    evidence = TestEvidence()
    _stack.append(evidence)
    try:
        yield evidence
    finally:
        _stack.pop()


def current() -> TestEvidence:
    if not _stack:
        raise RuntimeError("evidence is recorded only inside a test marked @pytest.mark.claim(...)")
    return _stack[-1]


def record_case(error: float, tolerance: float, violates: bool = False, **details: Any) -> None:
    """Add one checked case: its error, the tolerance it was judged by, and extra numbers;
    ``violates`` for a case shown to violate a statement (error > tolerance is the point)."""
    current().add_case(float(error), float(tolerance), details, violates)


def record_note(text: str) -> None:
    """A sentence for the claim's notes in the report (what was checked, a finding)."""
    notes = current().notes
    if text not in notes:
        notes.append(text)


def declare_verdict(verdict: str, correction: str | None = None) -> None:
    """State a verdict other than ``verified`` that this test's evidence supports."""
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}; one of {VERDICTS}")
    if verdict == "verified-with-correction" and not correction:
        raise ValueError("a verified-with-correction verdict writes its correction out")
    evidence = current()
    evidence.verdict, evidence.correction = verdict, correction
