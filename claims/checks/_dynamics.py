"""Dynamics checks (gradient flow): an instantaneous rate zero (or nonzero) to rounding, a drift that
shrinks at the integrator's order as the step halves, and a drift whose Richardson limit is nonzero."""

from __future__ import annotations

import math
from typing import Any, Sequence

from claims.checks._core import _finite, _floats, _tolerance
from claims.evidence._numbers import format_number
from claims.evidence._record import ClaimViolation, record_case

# the reasons a dynamics check's case is degenerate, as the report counts them
NO_RATE = "every rate and every summand of the scale is zero"
NOTHING_MOVED = "the drift and the terms' change are both within the rounding floor (nothing moved)"


def _rate_error(rate: Any, scale: Any, check: str) -> tuple[float, float, bool, dict[str, float]]:
    """(max |rate| / scale over the entries of positive scale, max |rate| over the entries of zero scale,
    degenerate, the worst entry's numbers). An entry of zero scale has no relative error: its summands all
    vanish, so its rate must be exactly 0, and a nonzero one is reported as it is (``unscaled_rate``,
    absolute). Degenerate when every entry of both is zero."""
    rates, scales = _floats(rate), _floats(scale)
    _finite("rate", rates, check)
    _finite("scale", scales, check)
    if len(rates) != len(scales):
        raise ValueError(f"{check}: rate has {len(rates)} entries, scale {len(scales)}")
    if any(s < 0 for s in scales):
        raise ValueError(f"{check}: the scale is a sum of magnitudes, never negative")
    errors = [abs(r) / s if s > 0 else 0.0 for r, s in zip(rates, scales)]
    unscaled = max((abs(r) for r, s in zip(rates, scales) if s == 0), default=0.0)
    error = max(errors, default=0.0)
    worst = max(range(len(errors)), key=errors.__getitem__, default=None)
    degenerate = all(r == 0 for r in rates) and all(s == 0 for s in scales)
    numbers = {} if worst is None else {"rate": rates[worst], "rate_scale": scales[worst], "entries": len(rates)}
    if unscaled > 0:
        numbers["unscaled_rate"] = unscaled
    return error, unscaled, degenerate, numbers


def _rate_case(error: float, unscaled: float, tolerance: float) -> tuple[float, float, str]:
    """The case a conserved-rate check records: the relative error against the rounding bound, or, when an
    entry of zero scale has a nonzero rate, that rate against the bound 0 there (absolute)."""
    return (unscaled, 0.0, "absolute") if unscaled > 0 else (error, tolerance, "relative")


def _shortfall(required: float, observed: float) -> float:
    """How far ``observed`` is from exceeding ``required`` (both >= 0), as a finite score against 1: the
    ratio s = required / observed mapped by 2s / (1 + s) into [0, 2], that is 2 required / (required +
    observed). The same order and the same threshold as s (<= 1 exactly when observed >= required), and
    finite where s is not: 2 when observed is 0 (nothing shown), 0 when it is infinite."""
    if observed == 0:
        return 2.0
    if math.isinf(observed):
        return 0.0
    return 2 * required / (required + observed)


def _excess(error: float, allowed: float) -> float:
    """How far ``error`` goes past ``allowed`` (both >= 0), as a finite score against 1: the ratio s = error
    / allowed mapped by 2s / (1 + s) into [0, 2], that is 2 error / (error + allowed); 0 when the error is
    0 (even with nothing allowed), 2 when nothing is allowed and the error is not 0."""
    return 0.0 if error == 0 else 2 * error / (error + allowed)


def check_conserved_rate(rate: Any, scale: Any, tolerance: float, **details: Any) -> float:
    """Instantaneous invariance: dQ/dt (a scalar or any tensor) is zero up to rounding,
    max |dQ/dt| / S <= tolerance entrywise, S the sum of the magnitudes of the summands of the
    rates of Q's two terms (``claims.lj22._invariants.instantaneous_rate``). All zero is degenerate."""
    tolerance = _tolerance(tolerance, "check_conserved_rate")
    error, unscaled, degenerate, numbers = _rate_error(rate, scale, "check_conserved_rate")
    recorded, bound, kind = _rate_case(error, unscaled, tolerance)
    holds = recorded <= bound
    record_case(recorded, bound, violates=not holds, degenerate=degenerate and holds and NO_RATE,
                check_kind="conserved rate", error_scale=kind, evidence="instantaneous rate", **numbers,
                **details)
    if not holds:
        raise ClaimViolation(f"dQ/dt is {format_number(error)} of its scale, above the rounding bound "
                             f"{format_number(tolerance)}"
                             + (f" (and {format_number(unscaled)} where its scale is 0)" if unscaled else "")
                             + f"; {details}")
    return error


def check_conserved_rate_rejected(rate: Any, scale: Any, tolerance: float, **details: Any) -> float:
    """Negative control (or noninvariance): dQ/dt must exceed the rounding bound that
    ``check_conserved_rate`` allows."""
    tolerance = _tolerance(tolerance, "check_conserved_rate_rejected")
    error, unscaled, _, numbers = _rate_error(rate, scale, "check_conserved_rate_rejected")
    recorded, bound, kind = _rate_case(error, unscaled, tolerance)
    record_case(recorded, bound, violates=True, check_kind="conserved rate", error_scale=kind,
                evidence="instantaneous rate", **numbers, **details)
    if not recorded > bound:
        raise ClaimViolation(
            f"negative control accepted: dQ/dt is {format_number(error)} of its scale <= {format_number(tolerance)}"
        )
    return error


def check_nonzero_rate(rate: Any, scale: Any, tolerance: float, factor: float, **details: Any) -> float:
    """Instantaneous noninvariance: some entry of dQ/dt exceeds ``factor`` times the rounding bound
    that ``check_conserved_rate`` allows (max |dQ/dt| / S > factor * tolerance; a nonzero rate where S
    is 0 exceeds any bound). The recorded error is how far the rate is from being shown nonzero,
    ``_shortfall(factor * tolerance, |dQ/dt| / S)`` against 1 (2 for an exactly zero rate)."""
    tolerance = _tolerance(tolerance, "check_nonzero_rate")
    if not factor >= 1:
        raise ValueError("check_nonzero_rate: the factor is at least 1")
    error, unscaled, _, numbers = _rate_error(rate, scale, "check_nonzero_rate")
    shortfall = _shortfall(factor * tolerance, math.inf if unscaled > 0 else error)
    holds = shortfall < 1.0
    record_case(shortfall, 1.0, violates=not holds, check_kind="nonzero rate", error_scale="relative",
                evidence="instantaneous rate", relative_rate=error, rounding_bound=tolerance, factor=factor,
                **numbers, **details)
    if not holds:
        raise ClaimViolation(f"dQ/dt ({format_number(error)} of its scale) not shown nonzero: below {factor} x "
                             f"{format_number(tolerance)}")
    return error


def check_nonzero_rate_rejected(rate: Any, scale: Any, tolerance: float, factor: float, **details: Any) -> float:
    """Negative control for ``check_nonzero_rate``: on a conserved quantity the rate must not be
    shown nonzero."""
    tolerance = _tolerance(tolerance, "check_nonzero_rate_rejected")
    error, unscaled, _, numbers = _rate_error(rate, scale, "check_nonzero_rate_rejected")
    shortfall = _shortfall(factor * tolerance, math.inf if unscaled > 0 else error)
    record_case(shortfall, 1.0, violates=True, check_kind="nonzero rate", error_scale="relative",
                evidence="instantaneous rate", relative_rate=error, rounding_bound=tolerance, factor=factor,
                **numbers, **details)
    if shortfall < 1.0:
        raise ClaimViolation(
            f"negative control accepted: dQ/dt is {format_number(error)} of its scale, above {factor} x "
            f"{format_number(tolerance)}"
        )
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
    if not term_change > 0:
        # |Q(T) - Q(0)| is at most the change of Q's terms, so terms that did not move cannot carry a drift
        # above the rounding floor: the caller's term change is not the terms' own motion.
        raise ValueError(f"{check}: the drift {format_number(fitted[-1][1])} is above its rounding floor while Q's "
                         f"terms did not move (term change {term_change!r}); the term change bounds the drift")
    fit = log_log_fit(fitted)
    relative_drift = fitted[-1][1] / term_change
    numbers.update(slope=float(fit.slope), slope_stderr=float(fit.stderr), relative_drift=relative_drift)
    # One-sided: the drift must vanish at least at the integrator's order. Faster (a slope above p)
    # means the leading error term vanished (Heun's does on quadratic invariants), still no drift.
    error = max((order - fit.slope) / band, relative_drift / ratio, 0.0)
    return error, False, numbers


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
    ``claims.lj22._invariants.DriftStudy`` measures it summand by summand).

    The recorded error is max((p - slope) / band, (drift(h_min) / term_change) / ratio, 0), holding
    at <= 1. Drift and terms both within the rounding floor is degenerate (nothing moved)."""
    error, degenerate, numbers = _order_fit(
        step_sizes, drifts, order, band, term_change, ratio, floor, fit_points, usable, "check_convergence_order"
    )
    holds = error <= 1.0
    record_case(error, 1.0, violates=not holds, degenerate=degenerate and NOTHING_MOVED,
                check_kind="drift order", error_scale="relative", **numbers, **details)
    if not holds:
        raise ClaimViolation(
            f"drift is not truncation error of order {order}: slope {format_number(numbers.get('slope', math.nan))} "
            f"(band {band}), drift/term change {format_number(numbers.get('relative_drift', math.nan))} "
            f"(ratio {ratio}); {details}"
        )
    return error


def check_convergence_order_rejected(
    step_sizes: Sequence[float], drifts: Sequence[float], order: int, band: float, term_change: float,
    ratio: float, floor: Sequence[float] | float = 0.0, fit_points: int | None = None,
    usable: Sequence[bool] | None = None, **details: Any,
) -> float:
    """Negative control for ``check_convergence_order``: the same fit must reject this drift."""
    error, _, numbers = _order_fit(
        step_sizes, drifts, order, band, term_change, ratio, floor, fit_points, usable,
        "check_convergence_order_rejected",
    )
    record_case(error, 1.0, violates=True, check_kind="drift order", error_scale="relative", **numbers, **details)
    if not error > 1.0:
        raise ClaimViolation(f"negative control accepted: drift converges at order {order} ({numbers})")
    return error


def richardson_limit(
    step_sizes: Sequence[float], drifts: Sequence[float], order: int, factor: float,
    floor: float, reference: float | None, reference_error: float | None, check: str,
) -> tuple[float, dict[str, Any]]:
    """Richardson extrapolation of the signed drift D(h) = D0 + C h^p + C' h^(p+1) + ...: from each
    pair of consecutive steps R(h) = D(h/2) + (D(h/2) - D(h)) / (2^p - 1) = D0 + O(h^(p+1)); the limit
    is R at the two smallest steps and its error estimate the whole change of R between the last two
    pairs, |R(h) - R(2h)| (a conservative bound on the next levels), plus the rounding ``floor``. For a
    conserved quantity R is O(h^(p+1)), so |R(h)| is a fraction 1 / (2^(p+1) - 1) of that estimate.
    Error = ``_shortfall(factor * estimate, |D0|)``, the ratio factor * estimate / |D0| mapped into [0, 2]
    (a limit shown nonzero at <= 1; 2 for a limit of exactly 0), and, given a ``reference`` drift (an
    adaptive solution, within ``reference_error``), the extrapolated limit must agree with it: error >=
    ``_excess(|D0 - reference|, estimate + reference_error)``, the ratio of the two mapped the same way.
    The limit and its estimate are in the details (``limit``, ``limit_error``): the report reads those."""
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
    error = _shortfall(factor * estimate, abs(limit))
    if reference is not None:
        reference, reference_error = float(reference), float(reference_error or 0.0)
        _finite("reference", [reference, reference_error], check)
        agreement = _excess(abs(limit - reference), estimate + reference_error)
        numbers.update(reference=reference, reference_error=reference_error, reference_disagreement=agreement)
        error = max(error, agreement)
    return error, numbers


def check_nonzero_limit(
    step_sizes: Sequence[float], drifts: Sequence[float], order: int, factor: float, floor: float = 0.0,
    reference: float | None = None, reference_error: float | None = None, **details: Any,
) -> float:
    """Noninvariance: the signed drift Q(T) - Q(0) converges, as the step halves, to a limit that
    exceeds its Richardson error estimate by ``factor`` (and agrees with an adaptive ``reference``
    solution when one is given). Error as in ``richardson_limit``: holds at <= 1."""
    error, numbers = richardson_limit(step_sizes, drifts, order, factor, floor, reference, reference_error,
                                 "check_nonzero_limit")
    holds = error <= 1.0
    record_case(error, 1.0, violates=not holds, check_kind="drift limit", error_scale="relative", **numbers, **details)
    if not holds:
        raise ClaimViolation(
            f"drift limit {format_number(numbers['limit'])} not shown nonzero (error estimate "
            f"{format_number(numbers['limit_error'])}, factor {factor}, reference "
            f"{format_number(numbers.get('reference'))}); {details}"
        )
    return error


def check_nonzero_limit_rejected(
    step_sizes: Sequence[float], drifts: Sequence[float], order: int, factor: float, floor: float = 0.0,
    **details: Any,
) -> float:
    """Negative control for ``check_nonzero_limit``: on a conserved quantity the extrapolated limit
    must not be shown nonzero."""
    error, numbers = richardson_limit(
        step_sizes, drifts, order, factor, floor, None, None, "check_nonzero_limit_rejected"
    )
    record_case(error, 1.0, violates=True, check_kind="drift limit", error_scale="relative", **numbers, **details)
    if not error > 1.0:
        raise ClaimViolation(f"negative control accepted: drift limit {format_number(numbers['limit'])} shown nonzero")
    return error
