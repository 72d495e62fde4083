"""Static checks: identities to a rounding bound, exact identities, properties, inequalities, and their
rejected forms; with the input validation every check shares (non-finite evidence, tolerances, scales)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

from hypothesis import target

from claims.evidence._record import (
    ClaimViolation,
    NonFiniteEvidence,
    currently_in_example,
    record_case,
    unique_target_label,
)

if TYPE_CHECKING:
    from torch import Tensor

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
    record_case(error, tolerance, violates=not holds, degenerate=degenerate and holds, error_scale=kind, **details)
    if not holds:
        raise ClaimViolation(f"{kind} error {error:.3g} exceeds tolerance {tolerance:.3g}; {details}")
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
        float(error), 0.0, violates=error != 0, degenerate=degenerate, exact_error=error, error_scale="absolute", **details
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
    if module in ("numpy", "torch"):
        count = holds.numel() if module == "torch" else getattr(holds, "size", 1)
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
    record_case(0.0 if holds else 1.0, 0.0, violates=not holds, property=description, error_scale="absolute", **details)
    if not holds:
        raise ClaimViolation(f"property fails: {description}; {details}")


def check_property_rejected(holds: bool, description: str, **details: Any) -> None:
    """Negative control, or a counterexample to a printed statement, for a property: the property
    ``description`` must fail on this case (``holds`` false), as ``check_property`` would find."""
    holds = _truth_value(holds)
    record_case(0.0 if holds else 1.0, 0.0, violates=True, property=description, error_scale="absolute", **details)
    if holds:
        raise ClaimViolation(f"negative control accepted: the property holds: {description}; {details}")


def check_rejected(
    observed: Tensor | float, expected: Tensor | float, tolerance: float, scale: float | None = None, **details: Any
) -> float:
    """Negative control: the identity check must reject this case (error > tolerance), with the
    error measured as ``check_close`` measures it."""
    tolerance = _tolerance(tolerance, "check_rejected")
    error, _, kind = _difference(observed, expected, _scale(scale, "check_rejected"), "check_rejected")
    record_case(error, tolerance, violates=True, error_scale=kind, **details)
    if not error > tolerance:
        raise ClaimViolation(f"negative control accepted: {kind} error {error:.3g} <= tolerance {tolerance:.3g}")
    return error


def _sides(lhs: float, rhs: float, check: str) -> tuple[float, float]:
    lhs, rhs = float(lhs), float(rhs)
    _finite("lhs", [lhs], check)
    _finite("rhs", [rhs], check)
    return lhs, rhs


def check_inequality(
    lhs: float, rhs: float, tolerance: float, scale: float | None = None, label: str = "slack", **details: Any
) -> float:
    """Inequality lhs <= rhs, allowing ``tolerance`` (absolute) for float rounding; returns the slack.

    The error is max(0, lhs - rhs). The slack rhs - lhs, relative to ``scale`` (default
    |lhs| + |rhs|), is recorded and fed to ``hypothesis.target`` so that the ``nightly``
    profile's targeting phase drives toward the tightest cases; a label used twice in one example
    is numbered (``slack#2``), as ``target`` takes each label once per example. lhs = rhs = 0 is a
    degenerate case.
    """
    tolerance = _tolerance(tolerance, "check_inequality")
    lhs, rhs = _sides(lhs, rhs, "check_inequality")
    scale = _scale(scale, "check_inequality") if scale is not None else abs(lhs) + abs(rhs)
    slack = rhs - lhs
    relative = slack / scale if scale > 0 else slack
    if not (math.isfinite(slack) and math.isfinite(relative)):
        raise NonFiniteEvidence(f"check_inequality: the slack {lhs!r} <= {rhs!r} overflows")
    degenerate = lhs == 0 and rhs == 0
    if currently_in_example() and not degenerate:
        target(-relative, label=unique_target_label(label))
    error = max(0.0, lhs - rhs)
    holds = error <= tolerance
    record_case(
        error,
        tolerance,
        violates=not holds,
        degenerate=degenerate,
        lhs=lhs,
        rhs=rhs,
        slack=slack,
        relative_slack=relative,
        error_scale="absolute",
        **details,
    )
    if not holds:
        raise ClaimViolation(f"{lhs!r} <= {rhs!r} fails by {lhs - rhs:.3g} (tolerance {tolerance:.3g}); {details}")
    return slack


def check_inequality_rejected(lhs: float, rhs: float, tolerance: float, **details: Any) -> float:
    """Negative control for an inequality: this case must violate lhs <= rhs by more than
    ``tolerance`` (a perturbed statement or a case outside the hypotheses)."""
    tolerance = _tolerance(tolerance, "check_inequality_rejected")
    lhs, rhs = _sides(lhs, rhs, "check_inequality_rejected")
    error = lhs - rhs
    record_case(max(error, 0.0), tolerance, violates=True, lhs=lhs, rhs=rhs, error_scale="absolute", **details)
    if not error > tolerance:
        raise ClaimViolation(f"negative control accepted: {lhs!r} <= {rhs!r} + {tolerance:.3g}")
    return error


# ---------------------------------------------------------------------------------------------
# Dynamics: conserved quantities along gradient flow (instantaneous rate, drift as h -> 0)
# ---------------------------------------------------------------------------------------------
