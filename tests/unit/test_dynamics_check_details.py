"""Details of the dynamics checks (``claims.checks._dynamics``) that mutation testing found unpinned: what the
checks and their negative controls record (kind, error scale, evidence numbers, degenerate reasons), their
acceptance boundaries (a control whose error is exactly the threshold 1 is accepted, not a rejection), and the
check and input named in their usage and non-finite errors. Step sizes, drifts and rates are powers of 2, so
every expected value is exact."""

from __future__ import annotations

import pytest
import torch

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
from claims.evidence._record import ClaimViolation, NonFiniteEvidence, collecting

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
    with collecting(control=True) as evidence:
        assert check_conserved_rate_rejected([0.125, -0.75], [1.0, 1.0], 0.5, control="bias") == 0.75
    record = evidence.to_builtin()
    assert list(record["by_kind"]) == ["conserved rate"]
    assert record["counterexample"] == {"error": 0.75, "tolerance": 0.5, "details": {
        "error_scale": "relative", "evidence": "instantaneous rate", "rate": -0.75, "rate_scale": 1.0, "entries": 2,
        "control": "bias",
    }}
    with collecting(control=True) as evidence:
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
    with collecting(control=True) as evidence:
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
        "drift is not truncation error of order 2: slope 1 (band 0.6666666666666666), drift/term change 0.00781 "
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
        f"{name}: the drift 0.000244 is above its rounding floor while Q's terms did not move (term change 0.0); "
        "the term change bounds the drift")
    assert refusal(ValueError, lambda: check(HALVING[:3], SQUARES[:3], 2, 0.25, 1.0, 0.5)) == (
        f"{name}: at least 4 step sizes, not 3")


# ------------------------------------------------------------------------ the drift checks: halving steps, Richardson


DRIFT_CHECKS = {
    "check_convergence_order": lambda hs, ds, floor=0.0: check_convergence_order(hs, ds, 2, 0.25, 1.0, 0.5, floor),
    "check_convergence_order_rejected": lambda hs, ds, floor=0.0: check_convergence_order_rejected(
        hs, ds, 2, 0.25, 1.0, 0.5, floor),
    "check_nonzero_limit": lambda hs, ds, floor=0.0: check_nonzero_limit(hs, ds, 2, 2.0, floor),
    "check_nonzero_limit_rejected": lambda hs, ds, floor=0.0: check_nonzero_limit_rejected(hs, ds, 2, 2.0, floor),
}
"""Each check on halving step sizes as a function of (step sizes, drifts, floor)."""


@pytest.mark.parametrize("name", DRIFT_CHECKS)
def test_the_drift_checks_name_themselves_and_the_input_in_their_errors(name):
    check = DRIFT_CHECKS[name]
    assert refusal(NonFiniteEvidence, lambda: check([1 / 8, float("inf"), 1 / 32, 1 / 64], SQUARES)) == (
        f"{name}: step sizes has a non-finite entry (inf); NaN and infinities never pass")
    assert refusal(NonFiniteEvidence, lambda: check(HALVING, [1 / 64, float("nan"), 1 / 1024, 1 / 4096])) == (
        f"{name}: drifts has a non-finite entry (nan); NaN and infinities never pass")
    assert refusal(NonFiniteEvidence, lambda: check(HALVING, SQUARES, floor=float("-inf"))) == (
        f"{name}: floor has a non-finite entry (-inf); NaN and infinities never pass")
    assert refusal(ValueError, lambda: check(HALVING[:3], SQUARES[:3])) == f"{name}: at least 4 step sizes, not 3"


@pytest.mark.parametrize("name", DRIFT_CHECKS)
def test_step_sizes_must_halve_to_a_relative_1e_12(name):
    # the second step is off its halving by a relative 2^-30 (about 9.3e-10): within math.isclose's default
    # 1e-9, not within the 1e-12 that leaves room only for rounding
    steps = [1 / 8, (1 / 16) * (1 + 2.0**-30), 1 / 32, 1 / 64]
    assert refusal(ValueError, lambda: DRIFT_CHECKS[name](steps, SQUARES)) == (
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
