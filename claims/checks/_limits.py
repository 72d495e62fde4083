"""Limits along a path: a quantity's value "as t -> infinity", judged from samples of a followed path.

A statement such as "||W||_2^2/||W||_F^2 -> 1" or "1/8 <= lim ||W||_2^2/||W||_F^2 <= 1" is about a limit that no
finite run reaches. The evidence is a *settled limit*: samples q_0, ..., q_n of the quantity at successive
doublings of the path's length (arc length s_0, 2 s_0, ..., or flow time), each paired with the value x_i of an
extrapolation variable that goes to 0 along the path (e.g. 1/||W||_F^2, the variable the statement's own
non-asymptotic form is linear in). From each two consecutive samples the value at x = 0 is extrapolated
linearly (``extrapolate=False``: no extrapolation, the sample itself), and

- the limit estimate is the last extrapolation, L_n;
- its error bar is what is left to change: the changes over the last two doublings shrink by r = |L_n -
  L_{n-1}| / |L_{n-1} - L_{n-2}|, and if they keep shrinking so the rest is the geometric tail |L_n - L_{n-1}|
  r/(1 - r), taken at least as large as the last change (r <= 1/2: the change over the last doubling); a change
  that did not shrink (r >= 1) leaves the limit undecided, unless it is within the follower's resolution
  (twice the largest step sensitivity of the samples the two changes use, plus the tolerance: noise, not a
  trend); plus the follower's step sensitivity (|L_n - L_n'|
  for the same path followed at twice the step) and the rounding ``tolerance``;
- an extrapolation beyond the values the quantity can take (``value_range``) is wrong by at least the excess:
  it is brought back to the range's end, and the excess is added to its error bar;
- the interval [L_n - E, L_n + E], clipped to the values the quantity can take, is judged
  against the statement's interval [lower, upper]: it *holds* when the interval lies inside [lower -
  resolution, upper + resolution], is *violated* when it lies wholly outside [lower, upper], and is
  *undecided* otherwise (not settled at this length, or straddling a bound). ``resolution`` (0 by default)
  is for point limits ("-> 1"): a finite run can only show the limit to within a resolution stated before
  the data; a settled interval that excludes the point is a violation whatever the resolution.

A pair of samples whose extrapolation variable did not decrease gives no extrapolation: the sample itself
when the quantity did not change either (a constant), otherwise the case is undecided (the variable does not
go to 0 along these samples). An undecided case is recorded as uninformative, with its reason: the check
could not decide at this length, so it is no evidence either way, and a test that meets one says so
(``declare_verdict("inconclusive")``) with how far it got.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from claims.checks._core import _finite, _floats, _tolerance
from claims.evidence._numbers import digits_apart, format_number
from claims.evidence._record import ClaimViolation, in_negative_control, record_case

OUTCOMES = ("holds", "violated", "undecided")

UNDECIDED = "the limit is undecided at this length"
"""The start of every reason a limit is undecided for (the report reads a control's state from it)."""
UNSETTLED = f"{UNDECIDED}: its settled interval straddles a bound of the statement"
NOT_SHRINKING = f"{UNDECIDED}: the change over the last doubling did not shrink"
NO_EXTRAPOLATION = f"{UNDECIDED}: the extrapolation variable did not decrease toward 0"
VACUOUS = "the statement's interval covers every value the quantity can take"
ALWAYS_VIOLATED = "the statement's interval lies outside the values the quantity can take: no case accepts it"


@dataclass(frozen=True)
class LimitEstimate:
    """A settled limit: the estimate, its error bar and its parts, the clipped interval and the outcome
    against a statement's interval."""

    limit: float
    error_bar: float
    low: float
    high: float
    last_change: float
    step_sensitivity: float
    extrapolations: tuple[float, ...]
    extrapolated: bool
    outcome: str = "undecided"
    reason: str | None = None
    numbers: dict[str, Any] = field(default_factory=dict)


def _extrapolations(variable: list[float], values: list[float], extrapolate: bool) -> list[float | None]:
    """The value at x = 0 of the line through each two consecutive samples (None: no extrapolation, the
    variable did not decrease while the quantity changed); without ``extrapolate``, the samples."""
    if not extrapolate:
        return list(values)
    out: list[float | None] = []
    for (x0, q0), (x1, q1) in zip(zip(variable, values), zip(variable[1:], values[1:])):
        if q1 == q0:
            out.append(q1)
        elif x1 < x0:
            out.append(q1 - x1 * (q1 - q0) / (x1 - x0))
        else:
            out.append(None)
    return out


def _samples(variable: Sequence[float] | None, values: Sequence[float], check: str) -> tuple[list[float], list[float]]:
    qs = _floats(list(values))
    _finite("values", qs, check)
    xs = [0.0] * len(qs) if variable is None else _floats(list(variable))
    _finite("extrapolation variable", xs, check)
    if len(xs) != len(qs):
        raise ValueError(f"{check}: {len(xs)} values of the extrapolation variable, {len(qs)} samples")
    if any(x < 0 for x in xs):
        raise ValueError(f"{check}: the extrapolation variable goes to 0 from above, not {xs}")
    return xs, qs


def limit_estimate(
    variable: Sequence[float] | None, values: Sequence[float], *, coarse_variable: Sequence[float] | None = None,
    coarse_values: Sequence[float] | None = None, tolerance: float = 0.0,
    value_range: tuple[float, float] = (-math.inf, math.inf), check: str = "limit_estimate",
) -> LimitEstimate:
    """The settled limit of samples at successive doublings of a path (module docstring), without
    judging it: ``variable`` None means no extrapolation (the samples themselves). ``coarse_variable``/
    ``coarse_values``: the same samples of the path followed at twice the step (their last extrapolation
    against this one is the step sensitivity). At least 4 samples with extrapolation, 3 without (two changes:
    the error bar reads how fast they shrink)."""
    tolerance = _tolerance(tolerance, check)
    extrapolate = variable is not None
    xs, qs = _samples(variable, values, check)
    needed = 4 if extrapolate else 3
    if len(qs) < needed:
        raise ValueError(f"{check}: at least {needed} samples (successive doublings), not {len(qs)}")
    lowest, highest = (float(v) for v in value_range)
    if not lowest <= highest:
        raise ValueError(f"{check}: value_range is (lowest, highest), not {value_range!r}")
    limits = _extrapolations(xs, qs, extrapolate)
    numbers: dict[str, Any] = dict(values=qs, variable=xs if extrapolate else None, extrapolated=extrapolate)
    step, steps = 0.0, [0.0]
    if coarse_values is not None:
        if extrapolate and coarse_variable is None:
            raise ValueError(f"{check}: the coarse samples need their extrapolation variable too")
        cxs, cqs = _samples(coarse_variable if extrapolate else None, coarse_values, check)
        if len(cqs) != len(qs):
            raise ValueError(f"{check}: {len(cqs)} coarse samples, {len(qs)} fine ones")
        coarse = _extrapolations(cxs, cqs, extrapolate)
        numbers["coarse_values"] = cqs
        if coarse[-1] is None or limits[-1] is None:
            limits[-1] = None
        else:
            step = abs(limits[-1] - coarse[-1])
            numbers["coarse_limit"] = coarse[-1]
            steps = [abs(a - b) for a, b in zip(limits[-3:], coarse[-3:]) if a is not None and b is not None]
    shown = tuple(v if v is not None else math.nan for v in limits)
    if any(v is None for v in limits[-3:]):
        return LimitEstimate(qs[-1], math.inf, lowest, highest, math.inf, step, shown, extrapolate,
                             reason=NO_EXTRAPOLATION, numbers=numbers)
    limit, change, before = limits[-1], abs(limits[-1] - limits[-2]), abs(limits[-2] - limits[-3])
    # The changes over successive doublings shrink by r = change / before; what is left after the last one is at
    # most the geometric tail change r / (1 - r) if they keep shrinking so, and never taken below the last change.
    # A last change within the follower's resolution is noise, not a trend: the difference of two samples, each
    # off by up to its step sensitivity (the largest over the three samples the two changes use), plus rounding.
    # Its ratio to the change before says nothing, and the limit is settled to that resolution.
    noise = 2 * max(steps, default=0.0) + tolerance
    ratio = 0.0 if change <= noise else (math.inf if before == 0 else change / before)
    numbers.update(contraction=ratio if math.isfinite(ratio) else None, noise=noise)  # None: no earlier change
    if ratio >= 1:
        return LimitEstimate(limit, math.inf, lowest, highest, change, step, shown, extrapolate,
                             reason=NOT_SHRINKING, numbers=numbers)
    error_bar = change * max(1.0, ratio / (1 - ratio)) + step + tolerance
    # The limit lies in the quantity's range: an extrapolation beyond it is wrong by at least the excess, so it is
    # brought back to the range's end and its error bar grows by the excess.
    excess = max(lowest - limit, limit - highest, 0.0)
    if excess:
        numbers["extrapolated_beyond_range"] = limit
        limit, error_bar = min(max(limit, lowest), highest), error_bar + excess
    low, high = max(limit - error_bar, lowest), min(limit + error_bar, highest)
    return LimitEstimate(limit, error_bar, low, high, change, step, shown, extrapolate, numbers=numbers)


NO_ROOM = 2.0
"""The score of a case whose interval leaves the statement no room (violated, or undecided with the estimate
outside it): finite, above the acceptance threshold 1 (no stand-in number in the report)."""


def _judge(estimate: LimitEstimate, lower: float, upper: float, resolution: float,
           value_range: tuple[float, float]) -> tuple[str, str | None, float]:
    """(outcome, why undecided, score). Holds when the clipped interval [low, high] lies in [lower -
    resolution, upper + resolution]; violated when it misses [lower, upper]; otherwise undecided. The score
    is the error bar over the room the statement leaves the estimate (the distance to the nearest bound
    that the clipping to ``value_range`` does not already meet): <= 1 exactly where it holds."""
    if estimate.reason is not None:
        return "undecided", estimate.reason, NO_ROOM
    if estimate.high < lower or estimate.low > upper:
        return "violated", None, NO_ROOM
    lowest, highest = value_range
    floor, ceiling = lower - resolution, upper + resolution
    room = min(estimate.limit - floor if floor > lowest else math.inf,
               ceiling - estimate.limit if ceiling < highest else math.inf)
    if room <= 0:
        return "undecided", UNSETTLED, NO_ROOM
    score = 0.0 if room == math.inf else min(estimate.error_bar / room, NO_ROOM)
    if estimate.low >= floor and estimate.high <= ceiling:
        return "holds", None, score
    return "undecided", UNSETTLED, max(score, 1.0 + 1e-12)


def _statement(lower: float, upper: float, resolution: float, check: str) -> tuple[float, float, float]:
    lower, upper, resolution = float(lower), float(upper), float(resolution)
    if math.isnan(lower) or math.isnan(upper) or not lower <= upper:
        raise ValueError(f"{check}: the statement's interval is [lower, upper], not [{lower}, {upper}]")
    if not (math.isfinite(resolution) and resolution >= 0):
        raise ValueError(f"{check}: the resolution is finite and >= 0, not {resolution!r}")
    return lower, upper, resolution


BOUND_DIGITS = 6
"""The significant digits a message prints a statement's bounds with: ``:g``'s six, so that a bound such as 1/8 or 1
reads as given; the limit and its settled interval print beside them at these digits or more (``_with_bounds``)."""


def _with_bounds(judged: Sequence[float], values: Sequence[float], lower: float, upper: float) -> list[str]:
    """``values``, then the bounds ``lower`` and ``upper``, as a message prints them: all at ``BOUND_DIGITS``, or at
    more where that would print a ``judged`` value (the limit, or the ends of its settled interval) equal to a bound
    it differs from (a limit settled just outside its bound). All at one precision, since rounding to one precision
    keeps order and rounding to two need not: the interval's ends then never read as touching or crossing a bound
    they miss, and the limit, which lies between them, reads on their side. A bound of at most six significant digits
    (1/8, 1) prints as ``:g`` prints it at any such precision; one with more (a closed-form value such as BSJ25's t*)
    shows more only where six would print it equal to a limit it differs from."""
    digits = max(digits_apart(value, lower, upper, digits=BOUND_DIGITS) for value in judged)
    return [format_number(value, digits=digits) for value in (*values, lower, upper)]


def _record(estimate: LimitEstimate, lower: float, upper: float, resolution: float, value_range, score: float,
            violates: bool, uninformative: str | None, details: dict[str, Any]) -> None:
    record_case(
        score, 1.0, violates=violates, uninformative=uninformative, check_kind="settled limit",
        evidence="settled limit", limit=estimate.limit, error_bar=estimate.error_bar, low=estimate.low,
        high=estimate.high, lower=lower, upper=upper,
        resolution=resolution, value_range=list(value_range), last_change=estimate.last_change,
        step_sensitivity=estimate.step_sensitivity, extrapolations=list(estimate.extrapolations),
        outcome=estimate.outcome, **estimate.numbers, **details,
    )


def check_settled_limit(
    variable: Sequence[float] | None, values: Sequence[float], lower: float, upper: float, *,
    coarse_variable: Sequence[float] | None = None, coarse_values: Sequence[float] | None = None,
    tolerance: float = 0.0, value_range: tuple[float, float] = (-math.inf, math.inf), resolution: float = 0.0,
    **details: Any,
) -> LimitEstimate:
    """The quantity's limit along the path lies in [lower, upper] (module docstring): records the case and
    returns the estimate with its outcome. Violated (the settled interval misses [lower, upper]): raises
    ``ClaimViolation``. Undecided: recorded as uninformative with its reason, returned, not raised (the
    test says so). A statement whose interval (widened by the resolution) covers ``value_range`` is
    uninformative: no limit could have violated it."""
    lower, upper, resolution = _statement(lower, upper, resolution, "check_settled_limit")
    estimate = limit_estimate(variable, values, coarse_variable=coarse_variable, coarse_values=coarse_values,
                              tolerance=tolerance, value_range=value_range, check="check_settled_limit")
    outcome, why, score = _judge(estimate, lower, upper, resolution, value_range)
    estimate = LimitEstimate(**{**vars(estimate), "outcome": outcome, "reason": why})
    vacuous = lower - resolution <= value_range[0] and upper + resolution >= value_range[1]
    uninformative = VACUOUS if vacuous else why
    _record(estimate, lower, upper, resolution, value_range, score, outcome == "violated", uninformative, details)
    if outcome == "violated":
        limit, low, high, shown_lower, shown_upper = _with_bounds(
            (estimate.low, estimate.high), (estimate.limit, estimate.low, estimate.high), lower, upper
        )
        raise ClaimViolation(
            f"the limit {limit} +- {format_number(estimate.error_bar)} (settled interval [{low}, {high}]) lies outside "
            f"[{shown_lower}, {shown_upper}]; {details}"
        )
    return estimate


def check_settled_limit_rejected(
    variable: Sequence[float] | None, values: Sequence[float], lower: float, upper: float, *,
    coarse_variable: Sequence[float] | None = None, coarse_values: Sequence[float] | None = None,
    tolerance: float = 0.0, value_range: tuple[float, float] = (-math.inf, math.inf), resolution: float = 0.0,
    **details: Any,
) -> LimitEstimate:
    """Negative control (or a counterexample to a printed statement) for ``check_settled_limit``: the
    settled interval must lie wholly outside [lower, upper]. A limit that holds is not a rejection: the control
    was accepted (``ClaimViolation``). An undecided limit is neither: as in ``check_settled_limit`` it is
    recorded as uninformative, with its reason (the limit is undecided at this length), and returned, not
    raised; a control whose every case is undecided does not show that the check can fail, and the report
    says "undecided", never "accepted". In a negative control, a statement interval outside ``value_range``
    is uninformative (every case rejects it)."""
    lower, upper, resolution = _statement(lower, upper, resolution, "check_settled_limit_rejected")
    estimate = limit_estimate(variable, values, coarse_variable=coarse_variable, coarse_values=coarse_values,
                              tolerance=tolerance, value_range=value_range, check="check_settled_limit_rejected")
    outcome, why, score = _judge(estimate, lower, upper, resolution, value_range)
    estimate = LimitEstimate(**{**vars(estimate), "outcome": outcome, "reason": why})
    impossible = upper < value_range[0] or lower > value_range[1]
    uninformative = ALWAYS_VIOLATED if impossible and in_negative_control() else why
    _record(estimate, lower, upper, resolution, value_range, score, outcome != "holds", uninformative, details)
    if outcome == "holds":
        limit, shown_lower, shown_upper = _with_bounds((estimate.limit,), (estimate.limit,), lower, upper)
        raise ClaimViolation(
            f"negative control not rejected: the limit {limit} +- {format_number(estimate.error_bar)} "
            f"({outcome}) against [{shown_lower}, {shown_upper}]; {details}"
        )
    return estimate
