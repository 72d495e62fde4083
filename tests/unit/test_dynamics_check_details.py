"""Details of the dynamics checks (``claims.checks._dynamics``) that mutation testing found unpinned: what the
negative controls record, their acceptance boundary (a control whose error is exactly the threshold 1 is
accepted, not a rejection), and the check named in their usage errors. Step sizes and drifts are powers of 2,
so every expected value is exact."""

from __future__ import annotations

import pytest

from claims.checks import (
    check_convergence_order,
    check_convergence_order_rejected,
    check_nonzero_limit_rejected,
    check_nonzero_rate_rejected,
)
from claims.evidence._record import ClaimViolation, collecting

HALVING = [1 / 8, 1 / 16, 1 / 32, 1 / 64]
SQUARES = [h**2 for h in HALVING]  # truncation error of order 2, exact in binary


def refusal(exception, run) -> str:
    with collecting(), pytest.raises(exception) as raised:
        run()
    return str(raised.value)


# ------------------------------------------------------------------------ check_convergence_order_rejected


def test_the_order_control_records_its_fit_as_a_drift_order_case_against_one():
    drifts = [h / 2 for h in HALVING]  # order 1 where order 2 is claimed
    with collecting(control=True) as evidence:
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
    with collecting(control=True), pytest.raises(ClaimViolation, match="^negative control accepted: drift converges"):
        check_convergence_order_rejected(*arguments)


def test_an_order_control_between_one_and_two_is_a_rejection():
    # slope 1 where 2 is claimed, band 2/3: error 3/2, past the threshold 1 (the bound of the score's range is 2)
    with collecting(control=True):
        error = check_convergence_order_rejected(HALVING, [h / 2 for h in HALVING], 2, 2 / 3, 1.0, 0.5)
    assert error == pytest.approx(1.5, abs=1e-12)


def test_the_order_control_names_itself_in_its_usage_errors():
    assert refusal(ValueError, lambda: check_convergence_order_rejected(HALVING[:3], SQUARES[:3], 2, 0.25, 1.0, 0.5)) == (
        "check_convergence_order_rejected: at least 4 step sizes, not 3")


# ------------------------------------------------------------------------ check_nonzero_limit_rejected


def test_the_limit_control_records_its_extrapolation_as_a_drift_limit_case_against_one():
    # order 1: R = 2 D(h/2) - D(h) is 0 at the finest pair and 1 at the one before
    with collecting(control=True) as evidence:
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
    with collecting(control=True), pytest.raises(ClaimViolation, match="^negative control accepted: drift limit 1 "):
        check_nonzero_limit_rejected(HALVING, [0.0, 0.5, 1.0, 1.0], 1, 2.0)


def test_the_limit_control_names_itself_in_its_usage_errors():
    assert refusal(ValueError, lambda: check_nonzero_limit_rejected(HALVING, [0.0, 0.5, 1.0, 1.0], 1, 1.0)) == (
        "check_nonzero_limit_rejected: the factor must exceed 1")


# ------------------------------------------------------------------------ check_nonzero_rate_rejected


def test_the_rate_control_records_its_shortfall_as_a_nonzero_rate_case_against_one():
    # rate 1/32 of its scale against 3 x 1/32: the shortfall 2 (3/32) / (3/32 + 1/32) = 3/2
    with collecting(control=True) as evidence:
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
