"""The shared check core: every claim test judges its cases through these functions.

Each check records the case (error, tolerance, details) for the report and raises
``ClaimViolation`` when the case contradicts the statement; NaN never passes.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

from hypothesis import target

from claims._evidence import ClaimViolation, currently_in_example, record_case
from claims._numerics import error_of

if TYPE_CHECKING:
    from torch import Tensor


def check_close(observed: Tensor | float, expected: Tensor | float, tolerance: float, **details: Any) -> float:
    """Identity up to float rounding: max |observed - expected| <= tolerance."""
    error = error_of(observed, expected)
    record_case(error, tolerance, **details)
    if not error <= tolerance:
        raise ClaimViolation(f"error {error:.3g} exceeds tolerance {tolerance:.3g}; {details}")
    return error


def check_exact(observed: Sequence[Fraction], expected: Sequence[Fraction], **details: Any) -> None:
    """Identity in exact rational arithmetic: error exactly 0."""
    error = max((abs(Fraction(a) - Fraction(b)) for a, b in zip(observed, expected, strict=True)), default=Fraction(0))
    record_case(float(error), 0.0, exact_error=error, **details)
    if error != 0:
        raise ClaimViolation(f"exact error {error} != 0; {details}")


def check_property(holds: bool, description: str, **details: Any) -> None:
    """A property a construction must have (error 0 when it holds, 1 when it does not)."""
    record_case(0.0 if holds else 1.0, 0.0, property=description, **details)
    if not holds:
        raise ClaimViolation(f"property fails: {description}; {details}")


def check_rejected(observed: Tensor | float, expected: Tensor | float, tolerance: float, **details: Any) -> float:
    """Negative control: the identity check must reject this case (finite error > tolerance)."""
    error = error_of(observed, expected)
    record_case(error, tolerance, violates=True, **details)
    if not (math.isfinite(error) and error > tolerance):
        raise ClaimViolation(f"negative control accepted: error {error:.3g} <= tolerance {tolerance:.3g}")
    return error


def check_inequality(
    lhs: float, rhs: float, tolerance: float, scale: float | None = None, label: str = "slack", **details: Any
) -> float:
    """Inequality lhs <= rhs, allowing ``tolerance`` for float rounding; returns the slack.

    The error is max(0, lhs - rhs). The slack rhs - lhs, relative to ``scale`` (default
    |lhs| + |rhs|), is recorded and fed to ``hypothesis.target`` so that the ``nightly``
    profile's targeting phase drives toward the tightest cases.
    """
    lhs, rhs = float(lhs), float(rhs)
    scale = float(scale) if scale is not None else abs(lhs) + abs(rhs)
    slack = rhs - lhs
    relative = slack / scale if scale > 0 else slack
    if currently_in_example() and math.isfinite(relative):
        target(-relative, label=label)
    error = max(0.0, lhs - rhs) if math.isfinite(slack) else math.inf
    record_case(error, tolerance, lhs=lhs, rhs=rhs, slack=slack, relative_slack=relative, **details)
    if not error <= tolerance:
        raise ClaimViolation(f"{lhs!r} <= {rhs!r} fails by {lhs - rhs:.3g} (tolerance {tolerance:.3g}); {details}")
    return slack


def check_inequality_rejected(lhs: float, rhs: float, tolerance: float, **details: Any) -> float:
    """Negative control for an inequality: this case must violate lhs <= rhs by more than
    ``tolerance`` (a perturbed statement or a case outside the hypotheses)."""
    lhs, rhs = float(lhs), float(rhs)
    error = lhs - rhs if math.isfinite(lhs - rhs) else math.nan
    record_case(max(error, 0.0), tolerance, violates=True, lhs=lhs, rhs=rhs, **details)
    if not error > tolerance:
        raise ClaimViolation(f"negative control accepted: {lhs!r} <= {rhs!r} + {tolerance:.3g}")
    return error
