"""``claims.checks._dynamics``: conserved rates, nonzero rates, convergence orders and nonzero (Richardson)
limits, with their negative controls: what each check passes, fails and records, on inputs that are powers of
2 so that every expected value is exact. The details further down were pinned after mutation testing found
them unchecked (docs/mutation-testing.md)."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest
import torch

from claims.evidence._role import Role
from claims.checks import (
    check_conserved_rate,
    check_conserved_rate_rejected,
    check_convergence_order,
    check_convergence_order_rejected,
    check_nonzero_limit,
    check_nonzero_limit_rejected,
    check_nonzero_rate,
    check_nonzero_rate_rejected,
)
from claims.checks._dynamics import NO_RATE, NOTHING_MOVED
from claims.evidence._record import (
    Case,
    ClaimViolation,
    NonFiniteEvidence,
    OutsideClaimTest,
    collecting,
    record_case,
)

from check_helpers import (
    ARRAY_KINDS,
    INF,
    NAN,
    NON_FINITE,
    nothing_recorded,
    with_bad_entry,
)

# --- dynamics: conserved rates, convergence orders and nonzero limits ----------------------------------

HALVING = [1 / 8, 1 / 16, 1 / 32, 1 / 64]  # powers of 2: every drift below is exact in binary
_f64 = partial(torch.tensor, dtype=torch.float64)


def _power_law(order: int, constant: float = 1.0, limit: float = 0.0, steps=HALVING) -> list[float]:
    """D(h) = limit + constant h^order at every step size."""
    return [limit + constant * h**order for h in steps]


# check_conserved_rate and its negative control


def test_check_conserved_rate_holding_case_records_the_worst_relative_entry():
    with collecting() as evidence:
        error = check_conserved_rate(_f64([1e-17, -2e-17]), _f64([1.0, 0.5]), 1e-15, vertex=3)
    assert error == 4e-17
    assert (evidence.cases, evidence.degenerate, evidence.checks) == (1, 0, 1)
    assert evidence.holding == Case(
        4e-17,
        1e-15,
        {
            "error_scale": "relative",
            "evidence": "instantaneous rate",
            "rate": -2e-17,
            "rate_scale": 0.5,
            "entries": 2,
            "vertex": 3,
        },
    )


@pytest.mark.parametrize(
    "rate, scale",
    [
        (0.5e-15, 0.5),
        (np.float64(3e-16), np.array(1.0)),
        ([0.0, 1e-16], [1.0, 1.0]),
        (torch.zeros(2, 2), torch.ones(2, 2)),
    ],
    ids=["floats", "numpy", "lists", "matrix"],
)
def test_check_conserved_rate_accepts_every_container_and_the_bound_itself(rate, scale):
    with collecting() as evidence:
        check_conserved_rate(rate, scale, 1e-15)
    assert evidence.cases == 1 and evidence.violating is None


@pytest.mark.parametrize(
    "rate, scale",
    [
        (math.nextafter(1e-15, 1.0), 1.0),
        (1e-12, 1.0),
        (_f64([0.0, 2e-15]), _f64([1.0, 1.0])),
        (-1e-3, 1.0),
    ],
    ids=["one-ulp-above", "far-above", "one-entry-of-a-matrix", "negative-rate"],
)
def test_check_conserved_rate_raises_above_the_bound(rate, scale):
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="above the rounding bound"):
            check_conserved_rate(rate, scale, 1e-15)
    assert evidence.holding is None and evidence.violating.error > 1e-15


@pytest.mark.parametrize("rate", [1e-300, 1e-5, 3.0, 1e300])
def test_a_nonzero_rate_where_the_scale_is_zero_is_recorded_as_it_is(rate):
    """No relative error exists where every summand vanishes: the rate itself is the error, against the
    bound 0 there (absolute), whatever its size (never a stand-in number for an infinite ratio)."""
    rates, scales = _f64([0.0, rate]), _f64([1.0, 0.0])
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="where its scale is 0"):
            check_conserved_rate(rates, scales, 1e-15)
        check_conserved_rate_rejected(rates, scales, 1e-15)
        check_nonzero_rate(rates, scales, 1e-15, 10.0)
        with pytest.raises(ClaimViolation, match="negative control accepted"):
            check_nonzero_rate_rejected(rates, scales, 1e-15, 10.0)
    violating = evidence.to_builtin()["by_kind"]["conserved rate"]["violating"]["nearest"]
    assert (violating["error"], violating["tolerance"], violating["unscaled_rate"]) == (rate, 0.0, rate)
    shown = evidence.to_builtin()["by_kind"]["nonzero rate"]["holding"]["nearest"]
    assert shown["error"] == 0.0 and shown["unscaled_rate"] == rate


@pytest.mark.parametrize(
    "record",
    [
        lambda: check_nonzero_rate(0.0, 1.0, 1e-15, 10.0),
        lambda: check_nonzero_rate(0.0, 1.0, 0.0, 1.0),
        lambda: check_nonzero_rate_rejected(0.0, 1.0, 1e-15, 10.0),
        lambda: check_nonzero_limit(HALVING, [0.0] * 4, 2, 10.0),
        lambda: check_nonzero_limit_rejected(HALVING, [0.0] * 4, 2, 10.0),
        lambda: check_nonzero_limit(HALVING, _two_terms(0.5), 2, 10.0, reference=0.5, reference_error=0.0),
    ],
    ids=["rate-zero", "rate-zero-no-bound", "rate-zero-control", "limit-zero", "limit-zero-control", "reference"],
)
def test_lower_bound_checks_record_a_finite_score_where_their_ratio_has_none(record):
    """A rate or limit of exactly 0 has no finite ratio required / observed: the checks record the ratio
    mapped by 2s / (1 + s), which is 2 there (never a large stand-in number such as 1e300)."""
    with collecting() as evidence:
        try:
            record()
        except ClaimViolation:
            pass
    shown = evidence.violating or evidence.holding
    assert math.isfinite(shown.error) and 0.0 <= shown.error <= 2.0
    assert all(math.isfinite(v) for v in shown.details.values() if isinstance(v, float))


def test_a_case_with_a_non_finite_error_or_tolerance_is_refused():
    with collecting() as evidence:
        for error, tolerance in ((INF, 1.0), (NAN, 1.0), (0.5, INF)):
            with pytest.raises(ValueError, match="finite"):
                record_case(error, tolerance)
    nothing_recorded(evidence)


def test_check_convergence_order_refuses_a_drift_whose_terms_did_not_move():
    """|Q(T) - Q(0)| is bounded by the change of Q's terms: a drift above the floor with a term change of 0
    is a caller's error (no drift ratio to record), not evidence."""
    with collecting() as evidence:
        with pytest.raises(ValueError, match="term change bounds the drift"):
            check_convergence_order(HALVING, _power_law(2), 2, 0.2, 0.0, 0.01)
    nothing_recorded(evidence)


def test_check_conserved_rate_all_zero_is_degenerate_and_a_zero_rate_alone_is_a_case():
    with collecting() as evidence:
        assert check_conserved_rate(torch.zeros(3), torch.zeros(3), 1e-15) == 0.0
        assert check_conserved_rate(0.0, 0.0, 0.0) == 0.0
    assert (evidence.cases, evidence.degenerate, evidence.checks) == (0, 2, 2)
    with collecting() as evidence:
        check_conserved_rate(torch.zeros(3), torch.tensor([0.0, 1.0, 2.0]), 1e-15)
    assert (evidence.cases, evidence.degenerate) == (1, 0)


@pytest.mark.parametrize(
    "check",
    [
        lambda r, s: check_conserved_rate(r, s, 1e300),
        lambda r, s: check_conserved_rate_rejected(r, s, 0.0),
        lambda r, s: check_nonzero_rate(r, s, 0.0, 1.0),
        lambda r, s: check_nonzero_rate_rejected(r, s, 1e300, 1.0),
    ],
    ids=["conserved", "conserved-rejected", "nonzero", "nonzero-rejected"],
)
@ARRAY_KINDS
def test_rate_checks_never_pass_a_non_finite_rate_or_scale(check, kind):
    for bad in (NAN, INF, -INF):
        for side in ("rate", "scale"):
            rate, scale = with_bad_entry(kind, bad)  # the finite side is positive: a valid scale
            if side == "scale":
                rate, scale = scale, rate
            with collecting() as evidence:
                with pytest.raises(NonFiniteEvidence, match="non-finite"):
                    check(rate, scale)
            nothing_recorded(evidence)


@pytest.mark.parametrize(
    "rate, scale, message",
    [
        (1e-17, -1.0, "never negative"),
        ([1e-17, 0.0], [1.0], "entries"),
        (torch.zeros(3), torch.ones(2), "entries"),
    ],
    ids=["negative-scale", "length", "tensor-length"],
)
def test_rate_checks_reject_malformed_scales(rate, scale, message):
    for check in (check_conserved_rate, check_conserved_rate_rejected):
        with collecting() as evidence:
            with pytest.raises(ValueError, match=message):
                check(rate, scale, 1e-15)
        nothing_recorded(evidence)


@pytest.mark.parametrize("tolerance", [-1e-15, NAN, INF])
def test_rate_checks_reject_an_invalid_tolerance(tolerance):
    for check in (check_conserved_rate, check_conserved_rate_rejected):
        with collecting() as evidence:
            with pytest.raises(ValueError, match="tolerance must be finite and >= 0"):
                check(0.0, 1.0, tolerance)
        nothing_recorded(evidence)


def test_check_conserved_rate_rejected_passes_a_rate_above_the_bound():
    with collecting() as evidence:
        error = check_conserved_rate_rejected(_f64([1e-10]), _f64([2.0]), 1e-15, perturbed="bias")
    assert error == 5e-11
    assert evidence.violating.error == 5e-11 and evidence.violating.tolerance == 1e-15
    assert evidence.violating.details["perturbed"] == "bias" and evidence.holding is None


@pytest.mark.parametrize(
    "rate, scale",
    [(1e-15, 1.0), (0.0, 1.0), (0.0, 0.0), (torch.zeros(2), torch.zeros(2))],
    ids=["at-the-bound", "zero-rate", "degenerate", "degenerate-tensor"],
)
def test_check_conserved_rate_rejected_raises_on_a_conserved_rate(rate, scale):
    with collecting():
        with pytest.raises(ClaimViolation, match="negative control accepted"):
            check_conserved_rate_rejected(rate, scale, 1e-15)


# check_nonzero_rate and its negative control


def test_check_nonzero_rate_holds_above_factor_times_the_bound_and_records_the_shortfall():
    with collecting() as evidence:
        error = check_nonzero_rate(_f64([1e-10, 0.0]), _f64([1.0, 1.0]), 1e-15, 10.0)
    assert error == 1e-10
    case = evidence.holding
    s = 1e-4  # (factor tolerance) / rate, mapped by 2s / (1 + s): finite, same order, same threshold 1
    assert case.error == pytest.approx(2 * s / (1 + s), rel=1e-12) and case.tolerance == 1.0
    assert case.details["relative_rate"] == 1e-10 and case.details["factor"] == 10.0
    assert case.details["rounding_bound"] == 1e-15


@pytest.mark.parametrize(
    "rate, scale",
    [(5e-15, 1.0), (1e-14, 1.0), (0.0, 1.0), (0.0, 0.0)],
    ids=["below-factor", "at-factor", "zero", "degenerate"],
)
def test_check_nonzero_rate_raises_when_not_shown_nonzero(rate, scale):
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="not shown nonzero"):
            check_nonzero_rate(rate, scale, 1e-15, 10.0)
    assert evidence.holding is None and evidence.violating.error >= 1.0


def test_check_nonzero_rate_needs_a_factor_of_at_least_one():
    with collecting() as evidence:
        with pytest.raises(ValueError, match="factor"):
            check_nonzero_rate(1.0, 1.0, 1e-15, 0.5)
    nothing_recorded(evidence)


def test_check_nonzero_rate_rejected_passes_a_conserved_rate_and_raises_on_a_nonzero_one():
    with collecting() as evidence:
        check_nonzero_rate_rejected(1e-17, 1.0, 1e-15, 10.0)
        check_nonzero_rate_rejected(0.0, 0.0, 1e-15, 10.0)
    assert evidence.cases == 2 and evidence.holding is None
    with collecting():
        with pytest.raises(ClaimViolation, match="negative control accepted"):
            check_nonzero_rate_rejected(1e-10, 1.0, 1e-15, 10.0)


# check_convergence_order and its negative control


def test_check_convergence_order_holds_on_exact_truncation_error_and_records_the_fit():
    with collecting() as evidence:
        error = check_convergence_order(
            HALVING, _power_law(2), 2, band=0.2, term_change=1.0, ratio=0.01, study="euler"
        )
    assert error == pytest.approx((1 / 64) ** 2 / 0.01, rel=1e-12)  # the ratio term: the slope is exact
    case = evidence.holding
    assert case.error == error and case.tolerance == 1.0
    details = case.details
    assert details["slope"] == pytest.approx(2.0, abs=1e-12) and details["fitted_points"] == 4
    assert details["relative_drift"] == (1 / 64) ** 2 and details["evidence"] == "convergence order"
    assert details["step_sizes"] == HALVING and details["study"] == "euler"
    assert (evidence.cases, evidence.degenerate) == (1, 0)


def test_check_convergence_order_uses_the_magnitude_of_signed_drifts():
    drifts = [d * s for d, s in zip(_power_law(1), [1, -1, 1, -1])]
    with collecting():
        assert check_convergence_order(torch.tensor(HALVING), torch.tensor(drifts), 1, 0.2, 1.0, 0.1) < 1.0


@pytest.mark.parametrize(
    "drifts, order, term_change, match",
    [
        (_power_law(1), 2, 1.0, "order 2: slope 1"),  # first-order drift judged at order 2: |1 - 2| / 0.2 = 5
        ([0.3] * 4, 1, 1e3, "slope"),  # a drift that does not converge
        (_power_law(2), 2, 1e-3, "drift/term change"),  # the terms barely moved: (1/64)^2 / 1e-3 / 0.01 = 24
    ],
    ids=["slope-too-low", "constant", "terms-barely-moved"],
)
def test_check_convergence_order_raises_on_a_wrong_slope_or_a_large_relative_drift(
    drifts, order, term_change, match
):
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match=match):
            check_convergence_order(HALVING, drifts, order, 0.2, term_change, 0.01)
    assert evidence.holding is None and evidence.violating.error > 1.0


def test_check_convergence_order_error_is_the_slope_deviation_over_the_band():
    drifts = _power_law(1)
    with collecting() as evidence:
        with pytest.raises(ClaimViolation):
            check_convergence_order(HALVING, drifts, 2, 0.2, 1e6, 0.01)
    assert evidence.violating.error == pytest.approx(5.0, rel=1e-12)


def test_check_convergence_order_fits_only_the_drifts_above_the_floor():
    drifts = _power_law(2)[:3] + [1e-20]  # the finest drift is at rounding level
    with collecting() as evidence:
        check_convergence_order(HALVING, drifts, 2, 0.2, 1.0, 0.01, floor=1e-15)
    assert evidence.holding.details["fitted_points"] == 3
    assert evidence.holding.details["relative_drift"] == (1 / 32) ** 2  # the finest fitted drift
    with collecting() as evidence:
        check_convergence_order(HALVING, drifts, 2, 0.2, 1.0, 0.01, floor=[1e-15, 1e-15, 1e-15, 1e-15])
    assert evidence.holding.details["fitted_points"] == 3


@pytest.mark.parametrize(
    "drifts, floor",
    [([1e-15] * 4, 1e-13), ([1e-3, 1e-4, 1e-16, 1e-17], 1e-15), ([0.0] * 4, 0.0)],
    ids=["all-below", "two-above", "zero-drift-of-moving-terms"],
)
def test_check_convergence_order_refuses_to_fit_drifts_below_the_floor(drifts, floor):
    with collecting() as evidence:
        with pytest.raises(ValueError, match="fewer than 3 drifts above the rounding floor"):
            check_convergence_order(HALVING, drifts, 2, 0.2, 1.0, 0.01, floor=floor)
    nothing_recorded(evidence)


def test_check_convergence_order_with_nothing_moving_is_degenerate():
    with collecting() as evidence:
        assert check_convergence_order(HALVING, [0.0] * 4, 2, 0.2, 0.0, 0.01) == 0.0
        assert check_convergence_order(HALVING, [1e-17] * 4, 4, 0.3, 1e-17, 0.01, floor=1e-15) == 0.0
    assert (evidence.cases, evidence.degenerate, evidence.checks) == (0, 2, 2)
    assert evidence.holding is None


def test_check_convergence_order_accepts_a_drift_vanishing_faster_than_the_order():
    """A third-order drift judged at order 2: the leading error term vanished (Heun on a quadratic
    invariant), still a conserved quantity."""
    with collecting() as evidence:
        assert check_convergence_order(HALVING, _power_law(3), 2, 0.2, 1.0, 0.01) < 1.0
    assert evidence.holding.details["slope"] == pytest.approx(3.0, abs=1e-12)


def test_check_convergence_order_leaves_out_unusable_points_and_fits_the_finest():
    steps = [1 / 4] + HALVING
    drifts = [1e-4] + _power_law(2)  # the coarsest drift is pre-asymptotic (1/16 on the power law)
    with collecting():
        with pytest.raises(ClaimViolation):
            check_convergence_order(steps, drifts, 2, 0.2, 1.0, 0.01)
    with collecting() as evidence:
        check_convergence_order(steps, drifts, 2, 0.2, 1.0, 0.01, usable=[False, True, True, True, True])
    assert evidence.holding.details["fitted_points"] == 4
    assert evidence.holding.details["usable"] == [False, True, True, True, True]
    with collecting() as evidence:
        check_convergence_order(steps, drifts, 2, 0.2, 1.0, 0.01, fit_points=3)
    assert evidence.holding.details["fitted_points"] == 3
    assert evidence.holding.details["slope"] == pytest.approx(2.0, abs=1e-12)


@pytest.mark.parametrize(
    "keywords, match",
    [
        ({"fit_points": 2}, "at least 3 points"),
        ({"usable": [True, True]}, "one usable flag"),
        ({"floor": [0.0, 0.0]}, "one floor per step size"),
        ({"band": 0.0}, "band and ratio"),
        ({"ratio": -1.0}, "band and ratio"),
    ],
    ids=["fit-points", "usable-length", "floor-length", "band", "ratio"],
)
def test_check_convergence_order_rejects_malformed_arguments(keywords, match):
    arguments = {"band": 0.2, "term_change": 1.0, "ratio": 0.01} | keywords
    for check in (check_convergence_order, check_convergence_order_rejected):
        with collecting() as evidence:
            with pytest.raises(ValueError, match=match):
                check(HALVING, _power_law(2), 2, **arguments)
        nothing_recorded(evidence)


def test_check_convergence_order_rejected_passes_a_drift_that_does_not_converge_at_the_order():
    with collecting() as evidence:
        error = check_convergence_order_rejected(
            HALVING, [0.3] * 4, 1, 0.2, 1.0, 0.01, control="left-out edge"
        )
    assert error == pytest.approx(max(1 / 0.2, 0.3 / 0.01), rel=1e-9)
    assert evidence.violating.details["control"] == "left-out edge" and evidence.holding is None


@pytest.mark.parametrize(
    "drifts, term_change",
    [(_power_law(2), 1.0), ([0.0] * 4, 0.0)],
    ids=["order-2", "degenerate"],
)
def test_check_convergence_order_rejected_raises_when_the_drift_is_truncation_error(drifts, term_change):
    with collecting():
        with pytest.raises(ClaimViolation, match="negative control accepted"):
            check_convergence_order_rejected(HALVING, drifts, 2, 0.2, term_change, 0.01)


# checks on halving step sizes: validation shared by the order and limit checks

DRIFT_CHECKS = {
    "convergence_order": (
        lambda hs, ds, **kw: check_convergence_order(
            hs, ds, 2, 0.2, kw.get("term", 1.0), 0.01, kw.get("floor", 0.0)
        ),
        _power_law(2),
    ),
    "convergence_order_rejected": (
        lambda hs, ds, **kw: check_convergence_order_rejected(
            hs, ds, 2, 0.2, kw.get("term", 1.0), 0.01, kw.get("floor", 0.0)
        ),
        _power_law(1),
    ),
    "nonzero_limit": (
        lambda hs, ds, **kw: check_nonzero_limit(
            hs, ds, 2, 1.5, kw.get("floor", 0.0), reference=kw.get("reference")
        ),
        _power_law(2, limit=0.5),
    ),
    "nonzero_limit_rejected": (
        lambda hs, ds, **kw: check_nonzero_limit_rejected(hs, ds, 2, 1.5, kw.get("floor", 0.0)),
        _power_law(2),
    ),
}
"""Each check with drifts it accepts (so that only the non-finite entry or the bad step sizes decide)."""


@pytest.mark.parametrize("check, drifts", DRIFT_CHECKS.values(), ids=DRIFT_CHECKS.keys())
def test_drift_checks_accept_their_finite_case(check, drifts):
    with collecting() as evidence:
        check(HALVING, drifts, reference=0.5)
    assert evidence.checks == 1


@pytest.mark.parametrize("check, drifts", DRIFT_CHECKS.values(), ids=DRIFT_CHECKS.keys())
@NON_FINITE
@pytest.mark.parametrize("where", ["drift", "step size", "floor", "term change", "reference"])
def test_drift_checks_never_pass_a_non_finite_input(check, drifts, bad, where):
    hs, ds, keywords = list(HALVING), list(drifts), {}
    if where == "drift":
        ds[2] = bad
    elif where == "step size":
        hs[1] = bad
    elif where == "floor":
        keywords["floor"] = bad
    elif where == "term change":
        keywords["term"] = bad
    else:
        keywords["reference"] = bad
    with collecting() as evidence:
        try:
            check(hs, ds, **keywords)
        except NonFiniteEvidence as raised:
            assert "non-finite" in str(raised)
        else:  # only a check that does not take this input may pass
            assert where in ("term change", "reference")
            assert evidence.checks == 1
            return
    nothing_recorded(evidence)


@pytest.mark.parametrize("check, drifts", DRIFT_CHECKS.values(), ids=DRIFT_CHECKS.keys())
@pytest.mark.parametrize(
    "steps, match",
    [
        (HALVING[:3], "at least 4 step sizes"),
        ([], "at least 4 step sizes"),
        ([0.1, 0.05, 0.02, 0.01], "must halve"),
        ([1 / 64, 1 / 32, 1 / 16, 1 / 8], "must halve"),  # doubling
        ([1 / 8, 1 / 16, 1 / 16, 1 / 32], "must halve"),
        ([-1 / 8, -1 / 16, -1 / 32, -1 / 64], "must halve"),  # negative steps halving
        ([0.0] * 4, "must halve"),
        (HALVING + [1 / 128], "5 step sizes, 4 drifts"),
    ],
    ids=["three", "none", "decimal", "doubling", "repeated", "negative", "zero", "length"],
)
def test_drift_checks_need_at_least_four_halving_step_sizes(check, drifts, steps, match):
    with collecting() as evidence:
        with pytest.raises(ValueError, match=match):
            check(steps, drifts[: len(steps)] if len(steps) <= 4 else drifts)
    nothing_recorded(evidence)


# check_nonzero_limit and its negative control


def _mapped(ratio: float) -> float:
    """A ratio s against 1 as the lower-bound checks record it: 2s / (1 + s), finite where s is not."""
    return 2 * ratio / (1 + ratio)


def _two_terms(limit: float, order: int = 2, constant: float = 2.0, following: float = 4.0) -> list[float]:
    """D(h) = limit + constant h^order + following h^(order + 1): exact in binary on HALVING."""
    return [limit + constant * h**order + following * h ** (order + 1) for h in HALVING]


def _richardson_numbers(drifts: list[float], order: int) -> tuple[float, float]:
    """The limit (Richardson at the two smallest steps) and its error estimate (the next level)."""
    weight = 2.0**order - 1
    fine = drifts[-1] + (drifts[-1] - drifts[-2]) / weight
    coarse = drifts[-2] + (drifts[-2] - drifts[-3]) / weight
    return fine, abs(fine - coarse)


def test_check_nonzero_limit_extrapolates_an_exact_power_law_to_its_limit():
    drifts = _power_law(2, constant=2.0, limit=0.5)  # 0.5 + 2 h^2: Richardson is exact, estimate 0
    with collecting() as evidence:
        error = check_nonzero_limit(HALVING, drifts, 2, 10.0, claim="Eq. (4) perturbed")
    details = evidence.holding.details
    assert details["limit"] == 0.5 and details["limit_error"] == 0.0
    assert details["successive_ratio"] == 4.0
    assert error == 0.0 and evidence.holding.tolerance == 1.0
    assert details["evidence"] == "nonzero limit" and details["claim"] == "Eq. (4) perturbed"


def test_check_nonzero_limit_estimates_the_error_from_the_next_order():
    drifts = _two_terms(0.5)
    limit, estimate = _richardson_numbers(drifts, 2)
    with collecting() as evidence:
        error = check_nonzero_limit(HALVING, drifts, 2, 10.0)
    details = evidence.holding.details
    assert details["limit"] == limit and details["limit_error"] == estimate and estimate > 0
    assert abs(limit - 0.5) <= 2 * estimate  # the estimate covers the true error of the limit
    assert error == pytest.approx(_mapped(10.0 * estimate / abs(limit)), rel=1e-12)


@pytest.mark.parametrize("scale, holds", [(0.1, True), (0.9, True), (1.1, False), (100.0, False)])
def test_check_nonzero_limit_holds_exactly_when_the_limit_exceeds_factor_times_its_error(scale, holds):
    drifts = _two_terms(0.5)
    limit, estimate = _richardson_numbers(drifts, 2)
    factor = scale * abs(limit) / estimate  # factor * estimate / |limit| = scale
    for sign in (1.0, -1.0):
        signed = [sign * d for d in drifts]
        with collecting() as evidence:
            if holds:
                assert check_nonzero_limit(HALVING, signed, 2, factor) == pytest.approx(_mapped(scale), rel=1e-12)
            else:
                with pytest.raises(ClaimViolation, match="not shown nonzero"):
                    check_nonzero_limit(HALVING, signed, 2, factor)
                assert evidence.violating.error == pytest.approx(_mapped(scale), rel=1e-12)
        key = "holding" if holds else "counterexample"
        assert evidence.to_builtin()[key]["details"]["limit"] == sign * limit


def test_check_nonzero_limit_adds_the_floor_to_the_error_estimate():
    drifts = _two_terms(0.5)
    _, estimate = _richardson_numbers(drifts, 2)
    with collecting() as evidence:
        with pytest.raises(ClaimViolation):
            check_nonzero_limit(HALVING, drifts, 2, 10.0, floor=0.05)  # 10 (estimate + 0.05) / 0.5 > 1
    assert evidence.violating.details["limit_error"] == estimate + 0.05


@pytest.mark.parametrize(
    "drifts",
    [_two_terms(0.0), [0.0] * 4, _two_terms(1e-4, following=40.0)],
    ids=["limit-zero", "all-zero", "limit-below-its-error"],
)
def test_check_nonzero_limit_raises_on_a_vanishing_limit(drifts):
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="not shown nonzero"):
            check_nonzero_limit(HALVING, drifts, 2, 2.0)
    assert evidence.holding is None and evidence.violating.error > 1.0


@pytest.mark.parametrize(
    "offset, reference_error, holds",
    [
        (0.0, None, True),
        (0.5, 0.0, True),
        (3.0, 0.0, False),
        (3.0, 3.0, True),
        (-1e6, 1e-9, False),
    ],
    ids=["equal", "within-estimate", "outside-estimate", "within-reference-error", "far-off"],
)
def test_check_nonzero_limit_needs_a_reference_to_agree(offset, reference_error, holds):
    """``offset`` and ``reference_error`` in units of the limit's error estimate."""
    drifts = _two_terms(0.5)
    limit, estimate = _richardson_numbers(drifts, 2)
    reference = limit + offset * estimate
    absolute_error = None if reference_error is None else reference_error * estimate
    with collecting() as evidence:
        if holds:
            check_nonzero_limit(HALVING, drifts, 2, 10.0, reference=reference, reference_error=absolute_error)
        else:
            with pytest.raises(ClaimViolation, match="reference"):
                check_nonzero_limit(HALVING, drifts, 2, 10.0, reference=reference, reference_error=absolute_error)
    case = evidence.holding if holds else evidence.violating
    expected = _mapped(abs(limit - reference) / (estimate + (absolute_error or 0.0)))
    assert case.details["reference_disagreement"] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert case.error == pytest.approx(max(_mapped(10.0 * estimate / limit), expected), rel=1e-9)


@pytest.mark.parametrize("factor", [1.0, 0.5, 0.0, -2.0, NAN])
def test_check_nonzero_limit_factor_must_exceed_one(factor):
    for check in (check_nonzero_limit, check_nonzero_limit_rejected):
        with collecting() as evidence:
            with pytest.raises(ValueError, match="factor must exceed 1"):
                check(HALVING, _power_law(2, limit=0.5), 2, factor)
        nothing_recorded(evidence)


def test_check_nonzero_limit_rejected_passes_a_conserved_drift():
    with collecting() as evidence:
        # a limit of exactly 0 is not shown nonzero: the score's finite value there, 2
        assert check_nonzero_limit_rejected(HALVING, _power_law(2, constant=2.0), 2, 10.0, control="Eq. (4)") == 2.0
        drifts = _two_terms(0.0)  # a conserved quantity: its extrapolated limit is of its estimate's size
        limit, estimate = _richardson_numbers(drifts, 2)
        error = check_nonzero_limit_rejected(HALVING, drifts, 2, 10.0)
    assert error == pytest.approx(_mapped(10 * estimate / abs(limit)), rel=1e-9) and error > 1
    assert evidence.cases == 2 and evidence.holding is None
    assert evidence.to_builtin()["counterexample"]["details"]["evidence"] == "nonzero limit"


def test_check_nonzero_limit_rejected_raises_on_a_nonzero_limit():
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="negative control accepted"):
            check_nonzero_limit_rejected(HALVING, _power_law(2, constant=2.0, limit=-0.5), 2, 10.0)
    assert evidence.violating.details["limit"] == -0.5


# outside a claim test

DYNAMICS_OUTSIDE = {
    "check_conserved_rate": lambda: check_conserved_rate(0.0, 1.0, 1e-15),
    "check_conserved_rate_rejected": lambda: check_conserved_rate_rejected(1.0, 1.0, 1e-15),
    "check_nonzero_rate": lambda: check_nonzero_rate(1.0, 1.0, 1e-15, 10.0),
    "check_nonzero_rate_rejected": lambda: check_nonzero_rate_rejected(0.0, 1.0, 1e-15, 10.0),
    "check_convergence_order": lambda: check_convergence_order(HALVING, _power_law(2), 2, 0.2, 1.0, 0.01),
    "check_convergence_order_rejected": lambda: check_convergence_order_rejected(
        HALVING, [1.0] * 4, 2, 0.2, 1.0, 0.01
    ),
    "check_nonzero_limit": lambda: check_nonzero_limit(HALVING, _power_law(2, limit=0.5), 2, 10.0),
    "check_nonzero_limit_rejected": lambda: check_nonzero_limit_rejected(HALVING, _power_law(2), 2, 10.0),
}


@pytest.mark.parametrize("call", DYNAMICS_OUTSIDE.values(), ids=DYNAMICS_OUTSIDE.keys())
def test_dynamics_checks_outside_a_claim_test_raise_outside_claim_test(call):
    with pytest.raises(OutsideClaimTest, match="outside a claim test"):
        call()


# defects found and fixed


@pytest.mark.parametrize("floor", [torch.tensor(1e-15), np.array(1e-15)], ids=["tensor-0d", "numpy-0d"])
def test_check_convergence_order_takes_a_scalar_tensor_floor_for_all_steps(floor):
    with collecting() as evidence:
        check_convergence_order(HALVING, _power_law(2), 2, 0.2, 1.0, 0.01, floor=floor)
    assert evidence.cases == 1


# ====================================================================================================
# Details of the dynamics checks (``claims.checks._dynamics``) that mutation testing found unpinned: what the
# checks and their negative controls record (kind, error scale, evidence numbers, degenerate reasons), their
# acceptance boundaries (a control whose error is exactly the threshold 1 is accepted, not a rejection), and the
# check and input named in their usage and non-finite errors. Step sizes, drifts and rates are powers of 2, so
# every expected value is exact.

SQUARES = [h**2 for h in HALVING]  # truncation error of order 2, exact in binary


def refusal(exception, run) -> str:
    with collecting(), pytest.raises(exception) as raised:
        run()
    return str(raised.value)


# ------------------------------------------------------------------------ check_convergence_order_rejected


def test_the_order_control_records_its_fit_as_a_drift_order_case_against_one():
    drifts = [h / 2 for h in HALVING]  # order 1 where order 2 is claimed
    with collecting(role=Role.CONTROL) as evidence:
        error = check_convergence_order_rejected(HALVING, drifts, 2, 0.25, 1.0, 0.5, control="first order")
    record = evidence.to_builtin()
    case = record["counterexample"]
    assert list(record["by_kind"]) == ["drift order"] and case["tolerance"] == 1.0
    details = dict(case["details"])
    slope, stderr = details.pop("slope"), details.pop("slope_stderr")
    assert slope == pytest.approx(1.0, abs=1e-12) and stderr == pytest.approx(0.0, abs=1e-12)
    assert case["error"] == error == pytest.approx((2 - 1) / 0.25, abs=1e-12)
    assert details == {
        "error_scale": "relative", "order": 2, "band": 0.25, "ratio": 0.5, "step_sizes": HALVING, "drifts": drifts,
        "floors": [0.0] * 4, "term_change": 1.0, "fitted_points": 4, "usable": [True] * 4,
        "evidence": "convergence order", "relative_drift": 1 / 128, "control": "first order",
    }


def test_an_order_control_whose_error_is_exactly_one_is_accepted():
    # the finest drift is half the terms' change, at ratio 1/2: error 1, which check_convergence_order passes
    arguments = (HALVING, SQUARES, 2, 0.25, 2 * SQUARES[-1], 0.5)
    with collecting():
        assert check_convergence_order(*arguments) == 1.0
    accepted = "^negative control accepted: drift converges"
    with collecting(role=Role.CONTROL), pytest.raises(ClaimViolation, match=accepted):
        check_convergence_order_rejected(*arguments)


def test_an_order_control_between_one_and_two_is_a_rejection():
    # slope 1 where 2 is claimed, band 2/3: error 3/2, past the threshold 1 (the bound of the score's range is 2)
    with collecting(role=Role.CONTROL):
        error = check_convergence_order_rejected(HALVING, [h / 2 for h in HALVING], 2, 2 / 3, 1.0, 0.5)
    assert error == pytest.approx(1.5, abs=1e-12)


def test_the_order_control_names_itself_in_its_usage_errors():
    assert refusal(ValueError,
                   lambda: check_convergence_order_rejected(HALVING[:3], SQUARES[:3], 2, 0.25, 1.0, 0.5)) == (
        "check_convergence_order_rejected: at least 4 step sizes, not 3")


# ------------------------------------------------------------------------ check_nonzero_limit_rejected


def test_the_limit_control_records_its_extrapolation_as_a_drift_limit_case_against_one():
    # order 1: R = 2 D(h/2) - D(h) is 0 at the finest pair and 1 at the one before
    with collecting(role=Role.CONTROL) as evidence:
        assert check_nonzero_limit_rejected(HALVING, [0.0, 0.0, 0.5, 0.25], 1, 2.0, control="conserved") == 2.0
    record = evidence.to_builtin()
    assert list(record["by_kind"]) == ["drift limit"]
    assert record["counterexample"] == {"error": 2.0, "tolerance": 1.0, "details": {
        "error_scale": "relative", "order": 1, "factor": 2.0, "step_sizes": HALVING, "drifts": [0.0, 0.0, 0.5, 0.25],
        "limit": 0.0, "limit_error": 1.0, "floor": 0.0, "evidence": "nonzero limit", "successive_ratio": -2.0,
        "control": "conserved",
    }}


def test_a_limit_control_whose_error_is_exactly_one_is_accepted():
    # R = 1 at the finest pair, 3/2 before: the estimate 1/2 times the factor 2 is the limit itself, error 1
    accepted = "^negative control accepted: drift limit 1 "
    with collecting(role=Role.CONTROL), pytest.raises(ClaimViolation, match=accepted):
        check_nonzero_limit_rejected(HALVING, [0.0, 0.5, 1.0, 1.0], 1, 2.0)


def test_the_limit_control_names_itself_in_its_usage_errors():
    assert refusal(ValueError, lambda: check_nonzero_limit_rejected(HALVING, [0.0, 0.5, 1.0, 1.0], 1, 1.0)) == (
        "check_nonzero_limit_rejected: the factor must exceed 1")


# ------------------------------------------------------------------------ check_nonzero_rate_rejected


def test_the_rate_control_records_its_shortfall_as_a_nonzero_rate_case_against_one():
    # rate 1/32 of its scale against 3 x 1/32: the shortfall 2 (3/32) / (3/32 + 1/32) = 3/2
    with collecting(role=Role.CONTROL) as evidence:
        assert check_nonzero_rate_rejected(2.0**-5, 1.0, 2.0**-5, 3.0, control="conserved") == 2.0**-5
    record = evidence.to_builtin()
    assert list(record["by_kind"]) == ["nonzero rate"]
    assert record["counterexample"] == {"error": 1.5, "tolerance": 1.0, "details": {
        "error_scale": "relative", "evidence": "instantaneous rate", "relative_rate": 2.0**-5,
        "rounding_bound": 2.0**-5, "factor": 3.0, "rate": 2.0**-5, "rate_scale": 1.0, "entries": 1,
        "control": "conserved",
    }}


def test_the_rate_control_names_itself_in_its_usage_errors():
    assert refusal(ValueError, lambda: check_nonzero_rate_rejected([0.0, 0.0], [1.0], 2.0**-5, 3.0)) == (
        "check_nonzero_rate_rejected: rate has 2 entries, scale 1")


# ------------------------------------------------------------------------ the rate checks: what they record

RATE_CHECKS = {
    "check_conserved_rate": check_conserved_rate,
    "check_conserved_rate_rejected": check_conserved_rate_rejected,
    "check_nonzero_rate": lambda rate, scale, tolerance: check_nonzero_rate(rate, scale, tolerance, 2.0),
    "check_nonzero_rate_rejected": lambda rate, scale, tolerance: check_nonzero_rate_rejected(
        rate, scale, tolerance, 2.0),
}
"""Each rate check as a function of (rate, scale, tolerance); the nonzero-rate ones with the factor 2."""


def test_the_conserved_rate_records_the_worst_entry_even_when_it_comes_first():
    # |-1/4| / 1 is the worst relative rate, 1/8 / 1 the last entry
    with collecting() as evidence:
        assert check_conserved_rate([-0.25, 0.125], [1.0, 1.0], 0.5) == 0.25
    assert evidence.holding.details == {
        "error_scale": "relative", "evidence": "instantaneous rate", "rate": -0.25, "rate_scale": 1.0, "entries": 2,
    }


def test_a_rate_with_no_entries_is_degenerate_for_lack_of_a_rate():
    with collecting() as evidence:
        assert check_conserved_rate(torch.zeros(0), torch.zeros(0), 0.5) == 0.0
    record = evidence.to_builtin()
    assert (record["cases"], record["degenerate"], record["degenerate_why"]) == (0, 1, {NO_RATE: 1})


def test_the_conserved_rate_message_adds_the_unscaled_rate_only_where_there_is_one():
    with collecting(), pytest.raises(ClaimViolation) as raised:
        check_conserved_rate(0.75, 1.0, 0.5, vertex=3)
    assert str(raised.value) == "dQ/dt is 0.75 of its scale, above the rounding bound 0.5; {'vertex': 3}"
    with collecting() as evidence, pytest.raises(ClaimViolation) as raised:
        check_conserved_rate([0.0, 0.25], [1.0, 0.0], 0.5)
    assert str(raised.value) == (
        "dQ/dt is 0 of its scale, above the rounding bound 0.5 (and 0.25 where its scale is 0); {}")
    assert evidence.to_builtin()["counterexample"] == {"error": 0.25, "tolerance": 0.0, "details": {
        "error_scale": "absolute", "evidence": "instantaneous rate", "rate": 0.0, "rate_scale": 1.0, "entries": 2,
        "unscaled_rate": 0.25,
    }}


def test_the_conserved_rate_control_records_a_conserved_rate_case_with_its_error_scale():
    with collecting(role=Role.CONTROL) as evidence:
        assert check_conserved_rate_rejected([0.125, -0.75], [1.0, 1.0], 0.5, control="bias") == 0.75
    record = evidence.to_builtin()
    assert list(record["by_kind"]) == ["conserved rate"]
    assert record["counterexample"] == {"error": 0.75, "tolerance": 0.5, "details": {
        "error_scale": "relative", "evidence": "instantaneous rate", "rate": -0.75, "rate_scale": 1.0, "entries": 2,
        "control": "bias",
    }}
    with collecting(role=Role.CONTROL) as evidence:
        check_conserved_rate_rejected([0.0, 0.25], [1.0, 0.0], 0.5)
    assert evidence.to_builtin()["counterexample"]["details"]["error_scale"] == "absolute"


def test_the_nonzero_rate_records_its_shortfall_as_a_relative_nonzero_rate_case():
    # rate 3/4 of its scale against 2 x 1/8: the shortfall 2 (1/4) / (1/4 + 3/4) = 1/2
    with collecting() as evidence:
        assert check_nonzero_rate(0.75, 1.0, 0.125, 2.0, perturbed="bias") == 0.75
    record = evidence.to_builtin()
    assert list(record["by_kind"]) == ["nonzero rate"]
    assert record["holding"] == {"error": 0.5, "tolerance": 1.0, "details": {
        "error_scale": "relative", "evidence": "instantaneous rate", "relative_rate": 0.75, "rounding_bound": 0.125,
        "factor": 2.0, "rate": 0.75, "rate_scale": 1.0, "entries": 1, "perturbed": "bias",
    }}


def test_a_rate_exactly_at_factor_times_the_bound_is_not_shown_nonzero():
    # 1/4 of its scale against 2 x 1/8: the shortfall is exactly 1, which neither shows the rate nonzero
    # nor lets its control fail
    with collecting() as evidence, pytest.raises(ClaimViolation) as raised:
        check_nonzero_rate(0.25, 1.0, 0.125, 2.0)
    assert str(raised.value) == "dQ/dt (0.25 of its scale) not shown nonzero: below 2.0 x 0.125"
    assert evidence.violating.error == 1.0
    with collecting(role=Role.CONTROL) as evidence:
        assert check_nonzero_rate_rejected(0.25, 1.0, 0.125, 2.0) == 0.25
    assert evidence.violating.error == 1.0


@pytest.mark.parametrize("name", RATE_CHECKS)
def test_the_rate_checks_name_themselves_and_the_input_in_their_errors(name):
    check = RATE_CHECKS[name]
    assert refusal(NonFiniteEvidence, lambda: check(float("nan"), 1.0, 0.5)) == (
        f"{name}: rate has a non-finite entry (nan); NaN and infinities never pass")
    assert refusal(NonFiniteEvidence, lambda: check(0.25, float("inf"), 0.5)) == (
        f"{name}: scale has a non-finite entry (inf); NaN and infinities never pass")
    assert refusal(ValueError, lambda: check(0.25, 1.0, -0.5)) == (
        f"{name}: the tolerance must be finite and >= 0, not -0.5")
    assert refusal(ValueError, lambda: check(0.25, -1.0, 0.5)) == (
        f"{name}: the scale is a sum of magnitudes, never negative")


def test_the_nonzero_rate_states_its_least_factor():
    assert refusal(ValueError, lambda: check_nonzero_rate(0.25, 1.0, 0.125, 0.5)) == (
        "check_nonzero_rate: the factor is at least 1")


# ------------------------------------------------------------------------ check_convergence_order


def test_the_order_check_records_its_fit_as_a_relative_drift_order_case():
    with collecting() as evidence:
        error = check_convergence_order(HALVING, SQUARES, 2, 0.25, 1.0, 0.5, study="euler")
    record = evidence.to_builtin()
    assert list(record["by_kind"]) == ["drift order"]
    case = record["holding"]
    details = dict(case["details"])
    slope, stderr = details.pop("slope"), details.pop("slope_stderr")
    assert slope == pytest.approx(2.0, abs=1e-12) and stderr == pytest.approx(0.0, abs=1e-12)
    assert case["error"] == error == 2.0**-12 / 0.5 and case["tolerance"] == 1.0
    assert details == {
        "error_scale": "relative", "order": 2, "band": 0.25, "ratio": 0.5, "step_sizes": HALVING, "drifts": SQUARES,
        "floors": [0.0] * 4, "term_change": 1.0, "fitted_points": 4, "usable": [True] * 4,
        "evidence": "convergence order", "relative_drift": 2.0**-12, "study": "euler",
    }


def test_an_order_check_between_one_and_two_fails_and_says_why():
    # slope 1 where 2 is claimed, band 2/3: error 3/2, past the threshold 1 (the bound of the score's range is 2)
    with collecting() as evidence, pytest.raises(ClaimViolation) as raised:
        check_convergence_order(HALVING, [h / 2 for h in HALVING], 2, 2 / 3, 1.0, 0.5, study="euler")
    assert evidence.violating.error == pytest.approx(1.5, abs=1e-12)
    assert str(raised.value) == (
        "drift is not truncation error of order 2: slope 1 (band 0.6666666666666666), drift/term change 0.007812 "
        "(ratio 0.5); {'study': 'euler'}")


def test_nothing_moved_is_judged_against_the_finest_steps_floor():
    # per-step floors that differ at every step: the terms' change 1/2 is within the finest step's floor only
    floors = [0.0625, 0.125, 0.25, 0.5]
    with collecting() as evidence:
        assert check_convergence_order(HALVING, [0.0] * 4, 2, 0.25, 0.5, 0.5, floor=floors) == 0.0
    record = evidence.to_builtin()
    assert (record["cases"], record["degenerate"], record["degenerate_why"]) == (0, 1, {NOTHING_MOVED: 1})


ORDER_CHECKS = {"check_convergence_order": check_convergence_order,
                "check_convergence_order_rejected": check_convergence_order_rejected}


@pytest.mark.parametrize("name", ORDER_CHECKS)
def test_the_order_checks_name_themselves_and_the_input_in_their_errors(name):
    check = ORDER_CHECKS[name]
    assert refusal(NonFiniteEvidence, lambda: check(HALVING, SQUARES, 2, 0.25, 1.0, 0.5, floor=float("nan"))) == (
        f"{name}: floor has a non-finite entry (nan); NaN and infinities never pass")
    assert refusal(NonFiniteEvidence, lambda: check(HALVING, SQUARES, 2, 0.25, float("inf"), 0.5)) == (
        f"{name}: term change has a non-finite entry (inf); NaN and infinities never pass")
    assert refusal(ValueError, lambda: check(HALVING, SQUARES, 2, 0.25, 1.0, 0.0)) == (
        f"{name}: band and ratio must be > 0")
    assert refusal(ValueError, lambda: check(HALVING, SQUARES, 2, 0.25, 0.0, 0.5)) == (
        f"{name}: the drift 0.0002441 is above its rounding floor while Q's terms did not move (term change 0.0); "
        "the term change bounds the drift")
    assert refusal(ValueError, lambda: check(HALVING[:3], SQUARES[:3], 2, 0.25, 1.0, 0.5)) == (
        f"{name}: at least 4 step sizes, not 3")


# ------------------------------------------------------------------------ the drift checks: halving steps, Richardson


HALVING_STEP_CHECKS = {
    "check_convergence_order": lambda hs, ds, floor=0.0: check_convergence_order(hs, ds, 2, 0.25, 1.0, 0.5, floor),
    "check_convergence_order_rejected": lambda hs, ds, floor=0.0: check_convergence_order_rejected(
        hs, ds, 2, 0.25, 1.0, 0.5, floor),
    "check_nonzero_limit": lambda hs, ds, floor=0.0: check_nonzero_limit(hs, ds, 2, 2.0, floor),
    "check_nonzero_limit_rejected": lambda hs, ds, floor=0.0: check_nonzero_limit_rejected(hs, ds, 2, 2.0, floor),
}
"""Each check on halving step sizes as a function of (step sizes, drifts, floor)."""


@pytest.mark.parametrize("name", HALVING_STEP_CHECKS)
def test_the_drift_checks_name_themselves_and_the_input_in_their_errors(name):
    check = HALVING_STEP_CHECKS[name]
    assert refusal(NonFiniteEvidence, lambda: check([1 / 8, float("inf"), 1 / 32, 1 / 64], SQUARES)) == (
        f"{name}: step sizes has a non-finite entry (inf); NaN and infinities never pass")
    assert refusal(NonFiniteEvidence, lambda: check(HALVING, [1 / 64, float("nan"), 1 / 1024, 1 / 4096])) == (
        f"{name}: drifts has a non-finite entry (nan); NaN and infinities never pass")
    assert refusal(NonFiniteEvidence, lambda: check(HALVING, SQUARES, floor=float("-inf"))) == (
        f"{name}: floor has a non-finite entry (-inf); NaN and infinities never pass")
    assert refusal(ValueError, lambda: check(HALVING[:3], SQUARES[:3])) == f"{name}: at least 4 step sizes, not 3"


@pytest.mark.parametrize("name", HALVING_STEP_CHECKS)
def test_step_sizes_must_halve_to_a_relative_1e_12(name):
    # the second step is off its halving by a relative 2^-30 (about 9.3e-10): within math.isclose's default
    # 1e-9, not within the 1e-12 that leaves room only for rounding
    steps = [1 / 8, (1 / 16) * (1 + 2.0**-30), 1 / 32, 1 / 64]
    assert refusal(ValueError, lambda: HALVING_STEP_CHECKS[name](steps, SQUARES)) == (
        f"{name}: step sizes must halve, not {steps}")


def test_richardson_extrapolates_from_the_finest_pairs_with_the_weight_two_to_the_order_minus_one():
    # D(h) = 1/2 + h^3 on five halving steps: R(h) = D(h/2) + (D(h/2) - D(h)) / 7 is exactly 1/2 at every pair,
    # so the limit is 1/2 and its estimate 0 only if the weight is 2^3 - 1 (not 2 * 3 - 1) and both R come from
    # the three finest steps
    steps = [1 / 4] + HALVING
    with collecting() as evidence:
        assert check_nonzero_limit(steps, [0.5 + h**3 for h in steps], 3, 2.0) == 0.0
    details = evidence.holding.details
    assert (details["limit"], details["limit_error"], details["successive_ratio"]) == (0.5, 0.0, 8.0)


FIVE_STEPS = [1 / 4] + HALVING
LEVELLED = [1.0, 1.0, 0.75, 0.5, 0.5]
"""Order 1: R = 2 D(h/2) - D(h) is 1/2 at the finest pair and 1/4 at the one before, so the limit 1/2 has the
estimate 1/4; the two finest drifts are equal (no successive ratio), the third finest is not."""


def test_a_limit_exactly_factor_times_its_estimate_is_shown_nonzero_without_a_successive_ratio():
    # factor 2 x estimate 1/4 is the limit 1/2 itself: the error is exactly the threshold 1, which holds
    with collecting() as evidence:
        assert check_nonzero_limit(FIVE_STEPS, LEVELLED, 1, 2.0, claim="perturbed") == 1.0
    record = evidence.to_builtin()
    assert list(record["by_kind"]) == ["drift limit"]
    assert record["holding"] == {"error": 1.0, "tolerance": 1.0, "details": {
        "error_scale": "relative", "order": 1, "factor": 2.0, "step_sizes": FIVE_STEPS, "drifts": LEVELLED,
        "limit": 0.5, "limit_error": 0.25, "floor": 0.0, "evidence": "nonzero limit", "claim": "perturbed",
    }}


def test_a_limit_off_its_reference_fails_and_records_and_names_the_reference():
    # |1/2 - 3/2| against the estimate 1/4 plus the reference's own 1/4: 2 (1) / (1 + 1/2) = 4/3 > 1
    with collecting() as evidence, pytest.raises(ClaimViolation) as raised:
        check_nonzero_limit(FIVE_STEPS, LEVELLED, 1, 2.0, reference=1.5, reference_error=0.25, claim="perturbed")
    assert str(raised.value) == (
        "drift limit 0.5 not shown nonzero (error estimate 0.25, factor 2.0, reference 1.5); {'claim': 'perturbed'}")
    case = evidence.to_builtin()["counterexample"]
    assert case["error"] == 2 / 1.5 and case["tolerance"] == 1.0
    assert {key: case["details"][key] for key in ("reference", "reference_error", "reference_disagreement")} == {
        "reference": 1.5, "reference_error": 0.25, "reference_disagreement": 2 / 1.5}


def test_the_limit_check_names_a_non_finite_reference():
    assert refusal(NonFiniteEvidence, lambda: check_nonzero_limit(
        FIVE_STEPS, LEVELLED, 1, 2.0, reference=float("nan"))) == (
        "check_nonzero_limit: reference has a non-finite entry (nan); NaN and infinities never pass")
    assert refusal(NonFiniteEvidence, lambda: check_nonzero_limit(
        FIVE_STEPS, LEVELLED, 1, 2.0, reference=0.5, reference_error=float("inf"))) == (
        "check_nonzero_limit: reference has a non-finite entry (inf); NaN and infinities never pass")

