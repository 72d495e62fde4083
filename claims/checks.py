"""The shared check core: every claim test judges its cases through these functions.

Each check records the case (error, tolerance, the error's scale, details) for the report and
raises ``ClaimViolation`` when the case contradicts the statement. NaN or an infinity in a check's
input raises ``NonFiniteEvidence``: it never passes, and it is not a counterexample either (the
test becomes an error). A case whose two sides are identically zero is recorded as degenerate:
counted apart, never the claim's headline.

Checks record evidence only inside a test marked ``@pytest.mark.claim("ID")`` run under the
claims plugin; called anywhere else they raise ``OutsideClaimTest``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

from hypothesis import target

from claims._evidence import (
    ClaimViolation,
    NonFiniteEvidence,
    current,
    plain,
    currently_in_example,
    declare_verdict,
    record_case,
    record_note,
    unique_target_label,
)

if TYPE_CHECKING:
    from torch import Tensor

__all__ = [
    "check_close",
    "check_conserved_rate",
    "check_conserved_rate_rejected",
    "check_convergence_order",
    "check_convergence_order_rejected",
    "check_nonzero_rate",
    "check_nonzero_rate_rejected",
    "check_nonzero_limit",
    "check_nonzero_limit_rejected",
    "check_exact",
    "check_inequality",
    "check_inequality_rejected",
    "check_property",
    "check_property_rejected",
    "check_rejected",
    "check_trend",
    "check_trend_rejected",
]


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


def _rate_error(rate: Any, scale: Any, check: str) -> tuple[float, bool, dict[str, float]]:
    """max |rate| / scale entrywise; entries of zero scale must have zero rate (their relative error is
    |rate| / the smallest normal float). Degenerate when every entry of both is zero."""
    rates, scales = _floats(rate), _floats(scale)
    _finite("rate", rates, check)
    _finite("scale", scales, check)
    if len(rates) != len(scales):
        raise ValueError(f"{check}: rate has {len(rates)} entries, scale {len(scales)}")
    if any(s < 0 for s in scales):
        raise ValueError(f"{check}: the scale is a sum of magnitudes, never negative")
    tiny = 2.2250738585072014e-308
    errors = [abs(r) / max(s, tiny) for r, s in zip(rates, scales)]
    error = min(max(errors, default=0.0), 1e300)
    worst = max(range(len(errors)), key=errors.__getitem__, default=None)
    degenerate = all(r == 0 for r in rates) and all(s == 0 for s in scales)
    numbers = {} if worst is None else {"rate": rates[worst], "rate_scale": scales[worst], "entries": len(rates)}
    return error, degenerate, numbers


def check_conserved_rate(rate: Any, scale: Any, tolerance: float, **details: Any) -> float:
    """Instantaneous invariance: dQ/dt (a scalar or any tensor) is zero up to rounding,
    max |dQ/dt| / S <= tolerance entrywise, S the sum of the magnitudes of the summands of the
    rates of Q's two terms (``claims._invariants.instantaneous_rate``). All zero is degenerate."""
    tolerance = _tolerance(tolerance, "check_conserved_rate")
    error, degenerate, numbers = _rate_error(rate, scale, "check_conserved_rate")
    holds = error <= tolerance
    record_case(error, tolerance, violates=not holds, degenerate=degenerate and holds, error_scale="relative",
                evidence="instantaneous rate", **numbers, **details)
    if not holds:
        raise ClaimViolation(f"dQ/dt is {error:.3g} of its scale, above the rounding bound {tolerance:.3g}; {details}")
    return error


def check_conserved_rate_rejected(rate: Any, scale: Any, tolerance: float, **details: Any) -> float:
    """Negative control (or noninvariance): dQ/dt must exceed the rounding bound that
    ``check_conserved_rate`` allows."""
    tolerance = _tolerance(tolerance, "check_conserved_rate_rejected")
    error, _, numbers = _rate_error(rate, scale, "check_conserved_rate_rejected")
    record_case(error, tolerance, violates=True, error_scale="relative", evidence="instantaneous rate",
                **numbers, **details)
    if not error > tolerance:
        raise ClaimViolation(f"negative control accepted: dQ/dt is {error:.3g} of its scale <= {tolerance:.3g}")
    return error


def check_nonzero_rate(rate: Any, scale: Any, tolerance: float, factor: float, **details: Any) -> float:
    """Instantaneous noninvariance: some entry of dQ/dt exceeds ``factor`` times the rounding bound
    that ``check_conserved_rate`` allows (max |dQ/dt| / S > factor * tolerance)."""
    tolerance = _tolerance(tolerance, "check_nonzero_rate")
    if not factor >= 1:
        raise ValueError("check_nonzero_rate: the factor is at least 1")
    error, _, numbers = _rate_error(rate, scale, "check_nonzero_rate")
    # The error is how far the rate is from being shown nonzero: (factor tolerance) / (|rate| / S).
    shortfall = min(factor * tolerance / error, 1e300) if error > 0 else 1e300
    holds = shortfall < 1.0
    record_case(shortfall, 1.0, violates=not holds, error_scale="relative", evidence="instantaneous rate",
                relative_rate=error, rounding_bound=tolerance, factor=factor, **numbers, **details)
    if not holds:
        raise ClaimViolation(f"dQ/dt ({error:.3g} of its scale) not shown nonzero: below {factor} x {tolerance:.3g}")
    return error


def check_nonzero_rate_rejected(rate: Any, scale: Any, tolerance: float, factor: float, **details: Any) -> float:
    """Negative control for ``check_nonzero_rate``: on a conserved quantity the rate must not be
    shown nonzero."""
    tolerance = _tolerance(tolerance, "check_nonzero_rate_rejected")
    error, _, numbers = _rate_error(rate, scale, "check_nonzero_rate_rejected")
    shortfall = min(factor * tolerance / error, 1e300) if error > 0 else 1e300
    record_case(shortfall, 1.0, violates=True, error_scale="relative", evidence="instantaneous rate",
                relative_rate=error, rounding_bound=tolerance, factor=factor, **numbers, **details)
    if shortfall < 1.0:
        raise ClaimViolation(f"negative control accepted: dQ/dt is {error:.3g} of its scale, above {factor} x {tolerance:.3g}")
    return error


def _step_sizes(step_sizes: Sequence[float], values: Sequence[float], check: str) -> tuple[list[float], list[float]]:
    hs, vs = [float(h) for h in step_sizes], _floats(list(values))
    _finite("step sizes", hs, check)
    _finite("drifts", vs, check)
    if len(hs) != len(vs):
        raise ValueError(f"{check}: {len(hs)} step sizes, {len(vs)} drifts")
    if len(hs) < 4:
        raise ValueError(f"{check}: at least 4 step sizes, not {len(hs)}")
    if any(not math.isclose(b, a / 2, rel_tol=1e-12) for a, b in zip(hs, hs[1:])) or hs[-1] <= 0:
        raise ValueError(f"{check}: step sizes must halve, not {hs}")
    return hs, vs


def fit_selection(
    step_sizes: Sequence[float], drifts: Sequence[float], floors: Sequence[float], usable: Sequence[bool],
    fit_points: int | None,
) -> list[tuple[float, float]]:
    """The (h, |drift|) pairs a convergence-order fit uses: above the rounding floor, usable (in the
    asymptotic regime), the finest ``fit_points`` of them if given."""
    fitted = [(h, abs(d)) for h, d, f, u in zip(step_sizes, drifts, floors, usable) if abs(d) > f and u]
    return fitted if fit_points is None else fitted[-fit_points:]


def log_log_fit(points: Sequence[tuple[float, float]]) -> Any:
    """Least-squares line through (log h, log drift): ``scipy.stats.linregress``'s result (slope,
    stderr, ...)."""
    from scipy.stats import linregress

    return linregress([math.log(h) for h, _ in points], [math.log(d) for _, d in points])


def _order_fit(
    step_sizes: Sequence[float], drifts: Sequence[float], order: int, band: float, term_change: float,
    ratio: float, floor: Sequence[float] | float, fit_points: int | None, usable: Sequence[bool] | None, check: str,
) -> tuple[float, bool, dict[str, Any]]:
    """The log-log fit of |drift| against h over the (finest ``fit_points``) step sizes whose drift
    is above the rounding floor, and the error max((order - slope) / band, (|drift(h_min)| /
    term_change) / ratio, 0)."""
    hs, ds = _step_sizes(step_sizes, drifts, check)
    ds = [abs(d) for d in ds]
    floors = _floats(floor)
    floors = floors * len(hs) if len(floors) == 1 else floors
    _finite("floor", floors, check)
    if len(floors) != len(hs):
        raise ValueError(f"{check}: one floor per step size, or one for all")
    term_change = float(term_change)
    _finite("term change", [term_change], check)
    if not (band > 0 and ratio > 0):
        raise ValueError(f"{check}: band and ratio must be > 0")
    usable = [True] * len(hs) if usable is None else [bool(u) for u in usable]
    if len(usable) != len(hs):
        raise ValueError(f"{check}: one usable flag per step size")
    if fit_points is not None and fit_points < 3:
        raise ValueError(f"{check}: a slope and its standard error need at least 3 points")
    fitted = fit_selection(hs, ds, floors, usable, fit_points)
    numbers: dict[str, Any] = dict(
        order=order, band=band, ratio=ratio, step_sizes=hs, drifts=ds, floors=floors, term_change=term_change,
        fitted_points=len(fitted), usable=usable, evidence="convergence order",
    )
    if term_change <= floors[-1] and max(d - f for d, f in zip(ds, floors)) <= 0:
        # Neither Q nor its terms moved above rounding (e.g. a dead vertex): nothing to judge.
        return 0.0, True, numbers
    if len(fitted) < 3:
        # The drift is at rounding level at (nearly) every step: no order to fit, and nothing
        # distinguishes the quantity from a conserved one; the caller's step sizes are too small.
        raise ValueError(f"{check}: fewer than 3 drifts above the rounding floor ({ds} vs {floors}); use larger steps")
    fit = log_log_fit(fitted)
    relative_drift = fitted[-1][1] / term_change if term_change > 0 else math.inf
    numbers.update(slope=float(fit.slope), slope_stderr=float(fit.stderr), relative_drift=min(relative_drift, 1e300))
    # One-sided: the drift must vanish at least at the integrator's order. Faster (a slope above p)
    # means the leading error term vanished (Heun's does on quadratic invariants), still no drift.
    error = max((order - fit.slope) / band, relative_drift / ratio, 0.0)
    return min(error, 1e300), False, numbers


def check_convergence_order(
    step_sizes: Sequence[float], drifts: Sequence[float], order: int, band: float, term_change: float,
    ratio: float, floor: Sequence[float] | float = 0.0, fit_points: int | None = None,
    usable: Sequence[bool] | None = None, **details: Any,
) -> float:
    """Invariance by convergence order: for an integrator of order p, the drift |Q(T) - Q(0)| of a
    conserved Q is its global truncation error, C h^p. Over >= 4 halving step sizes, the log-log
    slope of |drift| against h (fitted by least squares on the drifts above the rounding ``floor``,
    the finest ``fit_points`` of them if given, leaving out points not ``usable``, e.g. before the
    asymptotic regime; with its standard error) is at least p - ``band`` (a faster decay means the
    leading error term vanished, which is no drift either), and the drift at the smallest fitted
    step is below
    ``ratio`` times the change of Q's terms themselves (so the terms moved while Q did not;
    ``claims._invariants.DriftStudy`` measures it summand by summand).

    The recorded error is max((p - slope) / band, (drift(h_min) / term_change) / ratio, 0), holding
    at <= 1. Drift and terms both within the rounding floor is degenerate (nothing moved)."""
    error, degenerate, numbers = _order_fit(
        step_sizes, drifts, order, band, term_change, ratio, floor, fit_points, usable, "check_convergence_order"
    )
    holds = error <= 1.0
    record_case(error, 1.0, violates=not holds, degenerate=degenerate, error_scale="relative", **numbers, **details)
    if not holds:
        raise ClaimViolation(
            f"drift is not truncation error of order {order}: slope {numbers.get('slope', float('nan')):.3g} "
            f"(band {band}), drift/term change {numbers.get('relative_drift', float('nan')):.3g} (ratio {ratio}); "
            f"{details}"
        )
    return error


def check_convergence_order_rejected(
    step_sizes: Sequence[float], drifts: Sequence[float], order: int, band: float, term_change: float,
    ratio: float, floor: Sequence[float] | float = 0.0, fit_points: int | None = None,
    usable: Sequence[bool] | None = None, **details: Any,
) -> float:
    """Negative control for ``check_convergence_order``: the same fit must reject this drift."""
    error, _, numbers = _order_fit(
        step_sizes, drifts, order, band, term_change, ratio, floor, fit_points, usable, "check_convergence_order_rejected"
    )
    record_case(error, 1.0, violates=True, error_scale="relative", **numbers, **details)
    if not error > 1.0:
        raise ClaimViolation(f"negative control accepted: drift converges at order {order} ({numbers})")
    return error


def _richardson(
    step_sizes: Sequence[float], drifts: Sequence[float], order: int, factor: float,
    floor: float, reference: float | None, reference_error: float | None, check: str,
) -> tuple[float, dict[str, Any]]:
    """Richardson extrapolation of the signed drift D(h) = D0 + C h^p + C' h^(p+1) + ...: from each
    pair of consecutive steps R(h) = D(h/2) + (D(h/2) - D(h)) / (2^p - 1) = D0 + O(h^(p+1)); the limit
    is R at the two smallest steps and its error estimate the whole change of R between the last two
    pairs, |R(h) - R(2h)| (a conservative bound on the next levels), plus the rounding ``floor``. For a
    conserved quantity R is O(h^(p+1)), so |R(h)| is a fraction 1 / (2^(p+1) - 1) of that estimate. Error = factor * estimate / |D0| (a limit shown nonzero at <= 1),
    and, given a ``reference`` drift (an adaptive solution, within ``reference_error``), the
    extrapolated limit must agree with it: error >= (|D0 - reference| / (estimate + reference_error))."""
    hs, ds = _step_sizes(step_sizes, drifts, check)
    floor = float(floor)
    _finite("floor", [floor], check)
    if not factor > 1:
        raise ValueError(f"{check}: the factor must exceed 1")
    weight = 2.0**order - 1
    limit = ds[-1] + (ds[-1] - ds[-2]) / weight
    coarser = ds[-2] + (ds[-2] - ds[-3]) / weight
    estimate = abs(limit - coarser) + floor
    numbers: dict[str, Any] = dict(
        order=order, factor=factor, step_sizes=hs, drifts=ds, limit=limit, limit_error=estimate, floor=floor,
        evidence="nonzero limit",
    )
    if ds[-2] != ds[-1]:
        numbers["successive_ratio"] = (ds[-3] - ds[-2]) / (ds[-2] - ds[-1])  # 2^p in the asymptotic regime
    error = factor * estimate / abs(limit) if limit != 0 else 1e300
    if reference is not None:
        reference, reference_error = float(reference), float(reference_error or 0.0)
        _finite("reference", [reference, reference_error], check)
        agreement = abs(limit - reference) / (estimate + reference_error) if estimate + reference_error > 0 else (
            0.0 if limit == reference else 1e300)
        numbers.update(reference=reference, reference_error=reference_error, reference_disagreement=agreement)
        error = max(error, agreement)
    return min(error, 1e300), numbers


def check_nonzero_limit(
    step_sizes: Sequence[float], drifts: Sequence[float], order: int, factor: float, floor: float = 0.0,
    reference: float | None = None, reference_error: float | None = None, **details: Any,
) -> float:
    """Noninvariance: the signed drift Q(T) - Q(0) converges, as the step halves, to a limit that
    exceeds its Richardson error estimate by ``factor`` (and agrees with an adaptive ``reference``
    solution when one is given). Error as in ``_richardson``: holds at <= 1."""
    error, numbers = _richardson(step_sizes, drifts, order, factor, floor, reference, reference_error,
                                 "check_nonzero_limit")
    holds = error <= 1.0
    record_case(error, 1.0, violates=not holds, error_scale="relative", **numbers, **details)
    if not holds:
        raise ClaimViolation(
            f"drift limit {numbers['limit']:.3g} not shown nonzero (error estimate {numbers['limit_error']:.3g}, "
            f"factor {factor}, reference {numbers.get('reference')}); {details}"
        )
    return error


def check_nonzero_limit_rejected(
    step_sizes: Sequence[float], drifts: Sequence[float], order: int, factor: float, floor: float = 0.0,
    **details: Any,
) -> float:
    """Negative control for ``check_nonzero_limit``: on a conserved quantity the extrapolated limit
    must not be shown nonzero."""
    error, numbers = _richardson(step_sizes, drifts, order, factor, floor, None, None, "check_nonzero_limit_rejected")
    record_case(error, 1.0, violates=True, error_scale="relative", **numbers, **details)
    if not error > 1.0:
        raise ClaimViolation(f"negative control accepted: drift limit {numbers['limit']:.3g} shown nonzero")
    return error


def _trend(levels: Sequence[float], responses: Sequence[float], rule: Any, check: str) -> Any:
    from claims._trend import TrendRule, trend_test

    if not isinstance(rule, TrendRule):
        raise TypeError(f"{check}: the rule is a claims.TrendRule fixed before the data, not {rule!r}")
    xs, ys = [float(v) for v in levels], _floats(list(responses))
    _finite("levels", xs, check)
    _finite("responses", ys, check)
    return trend_test(xs, ys, rule)


def _record_trend(
    trend: Any, levels: Sequence[float], responses: Sequence[float], statement: str, violates: bool, details: dict,
    control: bool = False,
) -> None:
    """One trend case: error ``Trend.error`` against tolerance 1, with the test's numbers and the design."""
    numbers = dict(trend.to_builtin(), statement=statement, design_levels=list(levels), responses=_floats(list(responses)))
    # every trend's summary, not only the worst case's: a comparison of two runs reads p and effect per trend
    current("check_trend").trends.append(plain({
        "statement": statement, "control": control, "verdict": trend.verdict,
        "p_predicted": trend.p_predicted, "p_opposite": trend.p_opposite, "alpha": trend.rule.alpha,
        "effect": trend.effect, "min_effect": trend.rule.min_effect, "n": trend.n,
    }))
    record_case(min(trend.error(), 1e300), 1.0, violates=violates, error_scale="relative", evidence="trend",
                **numbers, **details)


def check_trend(
    levels: Sequence[float], responses: Sequence[float], rule: Any, statement: str, declare: bool = True,
    **details: Any,
) -> Any:
    """A trend claim (``statement``: the predicted effect of a hyperparameter on a response) judged
    by ``rule`` (a ``claims.TrendRule`` fixed before the data) on a design of runs: ``levels[i]``
    the hyperparameter of run i (several seeds per level), ``responses[i]`` what it measured.

    The test's outcome is the verdict, and the check records it rather than raising: ``verified``
    is a case where the statement holds; ``refuted`` (significant against the prediction) is a
    counterexample and the test declares ``refuted``; ``inconclusive`` is recorded with its numbers
    and the test declares ``inconclusive`` (a trend that does not reproduce at this scale is a
    result, not a broken run). Error = max(p / alpha, min_effect / effect) against tolerance 1
    (``Trend.error``). With ``declare=False`` the test states its verdict itself from the returned
    ``claims._trend.Trend`` (e.g. a correction that two designs together show)."""
    trend = _trend(levels, responses, rule, "check_trend")
    _record_trend(trend, levels, responses, statement, trend.verdict == "refuted", details)
    low, high = trend.effect_interval
    scale = details.get("scale")
    if isinstance(scale, dict):
        scale = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in scale.items() if k not in ("levels", "base"))
    record_note(
        f"Trend '{statement}': {trend.verdict} ({rule.statistic} {trend.correlation:+.3f}, effect {trend.effect:+.3f} "
        f"[{low:+.3f}, {high:+.3f}], one-sided p {trend.p_predicted:.3g} predicted / {trend.p_opposite:.3g} opposite, "
        f"{trend.n} runs at {trend.levels} levels; rule: {rule.describe()})"
        + (f"; scale used: {scale}" if scale else "")
        + (f"; the memo's scale: {details['memo_scale']}" if details.get("memo_scale") else "")
        + "."
    )
    if trend.verdict != "verified" and declare:
        evidence = current("check_trend")
        if evidence.is_finding:  # a finding keeps its own verdict; the claim's rests on the test's own trends
            strength = ("refuted", "inconclusive")
            if evidence.verdict not in strength or strength.index(trend.verdict) < strength.index(evidence.verdict):
                evidence.verdict = trend.verdict
        else:
            declare_verdict(trend.verdict)
    return trend


def check_trend_rejected(
    levels: Sequence[float], responses: Sequence[float], rule: Any, statement: str, **details: Any
) -> Any:
    """Negative control for ``check_trend``: on a design where no effect is predicted (the
    hyperparameter labels permuted, ``claims._trend.permuted_levels``, or a factor the theory says
    is inert) the same rule must not come out ``verified``."""
    trend = _trend(levels, responses, rule, "check_trend_rejected")
    _record_trend(trend, levels, responses, statement, True, details, control=True)
    if trend.verdict == "verified":
        raise ClaimViolation(
            f"negative control accepted: '{statement}' came out verified on a design with no effect "
            f"(p {trend.p_predicted:.3g}, correlation {trend.correlation:+.3f})"
        )
    return trend
