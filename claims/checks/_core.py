"""Static checks: identities to a rounding bound, exact identities, properties, inequalities, and their
rejected forms; with the input validation every check shares (non-finite evidence, tolerances, scales)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

from hypothesis import target

from claims.evidence._numbers import format_apart, format_number
from claims.evidence._record import (
    ClaimViolation,
    NonFiniteEvidence,
    currently_in_example,
    in_negative_control,
    record_case,
    unique_target_label,
)

if TYPE_CHECKING:
    from torch import Tensor

# the reason a check's case is degenerate, as the report counts it
BOTH_SIDES_ZERO = "both sides are identically zero"


def _floats(value: Any) -> list[float]:
    """The entries of a tensor, array, sequence or scalar as floats."""
    if hasattr(value, "detach"):
        value = value.detach()
    if hasattr(value, "reshape") and hasattr(value, "tolist"):
        return [float(v) for v in value.reshape(-1).tolist()]
    if isinstance(value, (list, tuple)):
        return [f for v in value for f in _floats(v)]
    return [float(value)]


def _finite(name: str, values: list[float], check: str) -> None:
    bad = [v for v in values if not math.isfinite(v)]
    if bad:
        raise NonFiniteEvidence(f"{check}: {name} has a non-finite entry ({bad[0]!r}); NaN and infinities never pass")


def _tolerance(tolerance: float, check: str) -> float:
    tolerance = float(tolerance)
    if not (math.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"{check}: the tolerance must be finite and >= 0, not {tolerance!r}")
    return tolerance


def _scale(scale: float | None, check: str) -> float | None:
    if scale is None:
        return None
    scale = float(scale)
    if not (math.isfinite(scale) and scale > 0):
        raise NonFiniteEvidence(f"{check}: the error's scale must be finite and > 0, not {scale!r}")
    return scale


def _difference(observed: Any, expected: Any, scale: float | None, check: str) -> tuple[float, bool, str]:
    """max |observed - expected| (divided by ``scale`` when given), whether both sides are identically
    zero, and the error's scale as reported."""
    left, right = _floats(observed), _floats(expected)
    _finite("observed", left, check)
    _finite("expected", right, check)
    try:
        differences = _floats(abs(observed - expected))  # the operands' own broadcasting
    except TypeError:  # plain sequences
        if len(right) == 1:
            right = right * len(left)
        if len(left) != len(right):
            raise ValueError(f"{check}: observed has {len(left)} entries, expected {len(right)}") from None
        differences = [abs(a - b) for a, b in zip(left, right)]
    if not differences and (left or right):
        raise ValueError(f"{check}: observed ({len(left)} entries) and expected ({len(right)}) broadcast to no entry")
    error = max(differences, default=0.0)
    if not math.isfinite(error):
        raise NonFiniteEvidence(f"{check}: the difference overflows ({error!r})")
    degenerate = all(v == 0 for v in left) and all(v == 0 for v in right)
    if scale is not None:
        return error / scale, degenerate, "relative"
    return error, degenerate, "absolute"


def check_close(
    observed: Tensor | float, expected: Tensor | float, tolerance: float, scale: float | None = None, **details: Any
) -> float:
    """Identity up to float rounding: max |observed - expected| <= tolerance.

    With ``scale`` the error is relative, max |observed - expected| / scale, and ``tolerance`` is a
    relative bound; without it both are absolute. The report shows which."""
    tolerance = _tolerance(tolerance, "check_close")
    error, degenerate, kind = _difference(observed, expected, _scale(scale, "check_close"), "check_close")
    holds = error <= tolerance
    record_case(error, tolerance, violates=not holds, degenerate=degenerate and holds and BOTH_SIDES_ZERO,
                check_kind="identity", error_scale=kind, **details)
    if not holds:
        raise ClaimViolation(
            f"{kind} error {format_number(error)} exceeds tolerance {format_number(tolerance)}; {details}"
        )
    return error


def check_exact(observed: Sequence[Fraction], expected: Sequence[Fraction], **details: Any) -> None:
    """Identity in exact rational arithmetic: error exactly 0 (entries compared as Fractions)."""
    observed, expected = list(observed), list(expected)
    for name, side in (("observed", observed), ("expected", expected)):
        _finite(name, [v for v in side if isinstance(v, float)], "check_exact")
    pairs = [(Fraction(a), Fraction(b)) for a, b in zip(observed, expected, strict=True)]
    error = max((abs(a - b) for a, b in pairs), default=Fraction(0))
    degenerate = all(a == 0 and b == 0 for a, b in pairs)
    record_case(
        float(error), 0.0, violates=error != 0, degenerate=degenerate and BOTH_SIDES_ZERO,
        check_kind="identity", exact_error=error, error_scale="absolute", **details
    )
    if error != 0:
        raise ClaimViolation(f"exact error {error} != 0; {details}")


def _truth_value(holds: Any) -> bool:
    """``holds`` as a bool: a bool, numpy or sympy boolean, or a one-entry boolean tensor or array.
    Anything else (a list, a generator from a forgotten ``all()``, a string, a float) is a usage error,
    since its truth would not say whether the property holds; a NaN or infinity is NonFiniteEvidence."""
    if isinstance(holds, bool):
        return holds
    module = type(holds).__module__.split(".")[0]
    if module == "sympy" and type(holds).__name__ in ("BooleanTrue", "BooleanFalse"):
        return bool(holds)
    if module in ("numpy", "torch") and hasattr(holds, "item"):  # an array, tensor or scalar (not a dtype)
        count = holds.numel() if module == "torch" else holds.size
        if count != 1:
            raise TypeError(f"check_property: holds must be one truth value, not {holds!r}")
        value = holds.item()
        if isinstance(value, bool):
            return value
        if isinstance(value, float):
            _finite("holds", [value], "check_property")
    raise TypeError(f"check_property: holds must be a truth value (bool), not {type(holds).__name__}: {holds!r}")


def check_property(holds: bool, description: str, **details: Any) -> None:
    """A property a construction must have (error 0 when it holds, 1 when it does not); ``holds`` is
    a truth value: a bool, a numpy or sympy boolean, or a one-entry boolean tensor or array (anything
    else is a ``TypeError``; a NaN or infinity is ``NonFiniteEvidence``, never true)."""
    holds = _truth_value(holds)
    record_case(0.0 if holds else 1.0, 0.0, violates=not holds, check_kind="property", property=description,
                error_scale="absolute", **details)
    if not holds:
        raise ClaimViolation(f"property fails: {description}; {details}")


def check_property_rejected(holds: bool, description: str, **details: Any) -> None:
    """Negative control, or a counterexample to a printed statement, for a property: the property
    ``description`` must fail on this case (``holds`` false), as ``check_property`` would find."""
    holds = _truth_value(holds)
    record_case(0.0 if holds else 1.0, 0.0, violates=True, check_kind="property", property=description,
                error_scale="absolute", **details)
    if holds:
        raise ClaimViolation(f"negative control accepted: the property holds: {description}; {details}")


def check_rejected(
    observed: Tensor | float, expected: Tensor | float, tolerance: float, scale: float | None = None, **details: Any
) -> float:
    """Negative control: the identity check must reject this case (error > tolerance), with the
    error measured as ``check_close`` measures it."""
    tolerance = _tolerance(tolerance, "check_rejected")
    error, _, kind = _difference(observed, expected, _scale(scale, "check_rejected"), "check_rejected")
    record_case(error, tolerance, violates=True, check_kind="identity", error_scale=kind, **details)
    if not error > tolerance:
        raise ClaimViolation(
            f"negative control accepted: {kind} error {format_number(error)} <= tolerance {format_number(tolerance)}"
        )
    return error


def _sides(lhs: float, rhs: float, check: str) -> tuple[float, float]:
    lhs, rhs = float(lhs), float(rhs)
    _finite("lhs", [lhs], check)
    _finite("rhs", [rhs], check)
    return lhs, rhs


LhsRange = tuple[float, float]
"""(lowest, highest): the values an inequality's left side can take by construction, e.g. (0, 1) for
a ratio of squared singular values; either end may be -inf / inf."""


def _bound_informative(lhs: float, rhs: float, tolerance: float, lhs_range: LhsRange | None,
                       floor_tolerance: float | None, control: bool) -> str | None:
    """Why lhs <= rhs could not have come out the other way on this case (None: it could). The reason
    names the rule and the range, not the case's numbers (lhs, rhs and the tolerance are in the case's
    details), so that the report's count per reason adds up over a test's cases.

    A bound at or above the largest value lhs can take holds whatever lhs is; a bound at or above
    lhs's floor, with lhs at that floor to rounding, tests no positive bound. A bound below the floor
    is a counterexample whatever lhs is, and informative for the statement; for a negative control
    (which must reject) it is the uninformative side: no lhs could have accepted it."""
    if lhs_range is None:
        return None
    lowest, highest = (float(v) for v in lhs_range)
    if not lowest <= highest or math.isnan(lowest) or math.isnan(highest):
        raise ValueError(f"lhs_range is (lowest, highest), not {lhs_range!r}")
    if control:
        if rhs + tolerance < lowest:
            return f"the bound is below the smallest value the left side can take ({lowest:g}): no case accepts it"
        return None
    if lhs - rhs > tolerance:
        return None  # the check fails here: it came out the other way
    if rhs + tolerance >= highest:  # the check passes whenever lhs <= rhs + tolerance
        return f"the bound is at or above the largest value the left side can take ({highest:g})"
    floor_tolerance = tolerance if floor_tolerance is None else float(floor_tolerance)
    if rhs >= lowest and lhs - lowest <= floor_tolerance:
        return f"the left side is at its floor {lowest:g} to rounding: no bound above the floor is tested"
    return None


def check_inequality(
    lhs: float, rhs: float, tolerance: float, scale: float | None = None, label: str = "slack", *,
    lhs_range: LhsRange | None = None, floor_tolerance: float | None = None, **details: Any
) -> float:
    """Inequality lhs <= rhs, allowing ``tolerance`` (absolute) for float rounding; returns the slack.

    The error is max(0, lhs - rhs). The slack rhs - lhs, relative to ``scale`` (default
    |lhs| + |rhs|), is recorded and fed to ``hypothesis.target`` so that the ``nightly``
    profile's targeting phase drives toward the tightest cases; a label used twice in one example
    is numbered (``slack#2``), as ``target`` takes each label once per example. lhs = rhs = 0 is a
    degenerate case.

    ``lhs_range`` = (lowest, highest) states the values lhs can take by construction; with it a case
    is uninformative when the bound is at or above ``highest`` or when lhs sits at ``lowest`` within
    ``floor_tolerance`` (default ``tolerance``) under a bound at or above it: the check could not have
    failed there. A bound below ``lowest`` fails, informatively.
    """
    tolerance = _tolerance(tolerance, "check_inequality")
    lhs, rhs = _sides(lhs, rhs, "check_inequality")
    scale = _scale(scale, "check_inequality") if scale is not None else abs(lhs) + abs(rhs)
    slack = rhs - lhs
    relative = slack / scale if scale > 0 else slack
    if not (math.isfinite(slack) and math.isfinite(relative)):
        raise NonFiniteEvidence(f"check_inequality: the slack {lhs!r} <= {rhs!r} overflows")
    degenerate = lhs == 0 and rhs == 0
    uninformative = _bound_informative(lhs, rhs, tolerance, lhs_range, floor_tolerance, control=False)
    if currently_in_example() and not degenerate:
        target(-relative, label=unique_target_label(label))
    error = max(0.0, lhs - rhs)
    holds = error <= tolerance
    record_case(
        error,
        tolerance,
        violates=not holds,
        degenerate=degenerate and BOTH_SIDES_ZERO,
        uninformative=uninformative,
        check_kind="inequality",
        lhs=lhs,
        rhs=rhs,
        slack=slack,
        relative_slack=relative,
        scale=scale,
        error_scale="absolute",
        **({"lhs_range": list(lhs_range)} if lhs_range is not None else {}),
        **details,
    )
    if not holds:
        # the sides at digits that never print them equal ("1 <= 1 fails by 1e-09") nor in the wrong order
        shown_lhs, shown_rhs = format_apart(lhs, rhs)
        raise ClaimViolation(f"{shown_lhs} <= {shown_rhs} fails by {format_number(lhs - rhs)} (tolerance "
                             f"{format_number(tolerance)}); {details}")
    return slack


def check_inequality_rejected(
    lhs: float, rhs: float, tolerance: float, *, lhs_range: LhsRange | None = None, **details: Any
) -> float:
    """Negative control for an inequality, or a counterexample to a printed statement: this case must
    violate lhs <= rhs by more than ``tolerance`` (a perturbed statement or a case outside the
    hypotheses). With ``lhs_range``, in a negative control a bound below the smallest value lhs can take
    is uninformative (no case could have accepted it); in an evidence test it is an informative
    counterexample to the printed statement (a negative bound on a nonnegative quantity)."""
    tolerance = _tolerance(tolerance, "check_inequality_rejected")
    lhs, rhs = _sides(lhs, rhs, "check_inequality_rejected")
    uninformative = _bound_informative(lhs, rhs, tolerance, lhs_range, None, control=in_negative_control())
    error = lhs - rhs
    record_case(max(error, 0.0), tolerance, violates=True, uninformative=uninformative, check_kind="inequality",
                lhs=lhs, rhs=rhs, error_scale="absolute",
                **({"lhs_range": list(lhs_range)} if lhs_range is not None else {}), **details)
    if not error > tolerance:
        shown_lhs, shown_rhs = format_apart(lhs, rhs)
        raise ClaimViolation(f"negative control accepted: {shown_lhs} <= {shown_rhs} + {format_number(tolerance)}")
    return error
