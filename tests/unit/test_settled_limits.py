"""The settled-limit check (``claims.checks._limits``): its estimate, error bar and three outcomes, each rule
pinned on both sides of its boundary, so that weakening one (dropping the step sensitivity from the error
bar, judging the unclipped interval, letting a resolution excuse an interval that excludes the point, counting
an undecided case as evidence) turns a test red."""

from __future__ import annotations

import math

import pytest

from claims.checks import check_settled_limit, check_settled_limit_rejected, limit_estimate
from claims.checks._limits import NO_EXTRAPOLATION, OUT_OF_RANGE, UNSETTLED, VACUOUS
from claims.evidence._record import ClaimViolation, NonFiniteEvidence, OutsideClaimTest, collecting

RATIO = (0.25, 1.0)  # a ratio of squared singular values of a rank-4 matrix


def recorded(run, control: bool = False) -> tuple[object, dict]:
    with collecting(control=control) as evidence:
        result = run()
    return result, evidence.to_builtin()


# ------------------------------------------------------------------------------- the estimate


def test_linear_extrapolation_recovers_the_limit_of_a_quantity_linear_in_its_variable():
    # q = 1 - 19 x exactly (Eq. (13)'s form with a constant non-top mass): every extrapolation is 1
    xs = [1 / 25, 1 / 50, 1 / 100]
    estimate = limit_estimate(xs, [1 - 19 * x for x in xs])
    assert estimate.extrapolations == pytest.approx((1.0, 1.0), abs=1e-15)
    assert estimate.last_change == pytest.approx(0.0, abs=1e-15)
    assert estimate.limit == pytest.approx(1.0, abs=1e-15)


def test_the_error_bar_is_the_last_change_plus_the_step_sensitivity_plus_the_tolerance():
    xs, qs = [0.4, 0.2, 0.1], [0.5, 0.7, 0.8]  # extrapolations 0.9 and 0.9
    coarse = [0.5, 0.7, 0.81]  # its last extrapolation: 0.92
    estimate = limit_estimate(xs, qs, coarse_variable=xs, coarse_values=coarse, tolerance=1e-3)
    assert estimate.extrapolations == pytest.approx((0.9, 0.9))
    assert estimate.step_sensitivity == pytest.approx(0.02)
    assert estimate.error_bar == pytest.approx(0.0 + 0.02 + 1e-3)
    plain = limit_estimate(None, [0.5, 0.7, 0.8], coarse_values=[0.5, 0.7, 0.78])
    assert (plain.limit, plain.last_change, plain.step_sensitivity) == pytest.approx((0.8, 0.1, 0.02))
    assert plain.error_bar == pytest.approx(0.12)


def test_the_interval_is_clipped_to_the_values_the_quantity_can_take():
    estimate = limit_estimate(None, [0.9, 0.99], value_range=RATIO)
    assert (estimate.low, estimate.high) == pytest.approx((0.9, 1.0))


def test_an_extrapolation_beyond_the_range_by_more_than_its_error_bar_decides_nothing():
    estimate = limit_estimate([0.4, 0.2, 0.1], [0.2, 0.6, 0.8], value_range=RATIO)  # extrapolates to 1.0, 1.0
    assert estimate.reason is None
    beyond = limit_estimate([0.4, 0.2, 0.1], [0.2, 0.6, 0.85], value_range=RATIO)  # 1.0 then 1.1: 1.1 +- 0.1
    assert beyond.reason is None and beyond.high == 1.0
    far = limit_estimate([0.4, 0.2, 0.1], [0.6, 0.8, 0.95], value_range=RATIO)  # 1.0 then 1.1 +- 0.1: low 1.0
    assert far.reason is None
    farther = limit_estimate([0.4, 0.2, 0.1], [0.79, 0.9, 0.99], value_range=RATIO)  # 1.01, 1.08 +- 0.07
    assert farther.reason == OUT_OF_RANGE


def test_a_variable_that_does_not_decrease_gives_no_extrapolation_unless_the_quantity_is_constant():
    constant = limit_estimate([0.5, 0.5, 0.5], [0.1, 0.1, 0.1])
    assert (constant.limit, constant.error_bar, constant.reason) == (0.1, 0.0, None)
    moving = limit_estimate([0.5, 0.5, 0.5], [0.1, 0.2, 0.3])
    assert moving.reason == NO_EXTRAPOLATION and moving.error_bar == math.inf


@pytest.mark.parametrize("values", [[0.1, math.nan, 0.3], [0.1, 0.2, math.inf]])
def test_non_finite_samples_are_never_evidence(values):
    with pytest.raises(NonFiniteEvidence):
        limit_estimate([0.4, 0.2, 0.1], values)


def test_too_few_samples_mismatched_runs_and_a_negative_variable_are_usage_errors():
    with pytest.raises(ValueError, match="at least 3"):
        limit_estimate([0.2, 0.1], [0.5, 0.6])
    with pytest.raises(ValueError, match="at least 2"):
        limit_estimate(None, [0.5])
    with pytest.raises(ValueError, match="coarse"):
        limit_estimate([0.4, 0.2, 0.1], [0.5, 0.6, 0.7], coarse_values=[0.5, 0.6, 0.7])
    with pytest.raises(ValueError, match="from above"):
        limit_estimate([0.4, -0.2, 0.1], [0.5, 0.6, 0.7])
    with pytest.raises(ValueError, match="lower, upper"):
        check_settled_limit(None, [0.5, 0.6], 1.0, 0.5)


# ------------------------------------------------------------------------------- the three outcomes


def test_a_settled_interval_inside_the_statement_holds_and_is_informative():
    estimate, evidence = recorded(lambda: check_settled_limit(None, [0.8, 0.9], 0.5, 1.0, value_range=RATIO))
    assert estimate.outcome == "holds" and (estimate.low, estimate.high) == pytest.approx((0.8, 1.0))
    assert (evidence["informative"], evidence["informative_holding"]) == (1, 1)
    assert evidence["holding"]["error"] <= evidence["holding"]["tolerance"]


def test_the_lower_bound_is_met_only_by_the_whole_interval():
    # 0.9 with a last change of 0.1: [0.8, 1.0]; a bound at 0.8 holds, one just above is undecided
    at, _ = recorded(lambda: check_settled_limit(None, [0.8, 0.9], 0.8, 1.0, value_range=RATIO))
    above, evidence = recorded(lambda: check_settled_limit(None, [0.8, 0.9], 0.8 + 1e-9, 1.0, value_range=RATIO))
    assert at.outcome == "holds"
    assert above.outcome == "undecided" and evidence["informative"] == 0
    assert UNSETTLED in evidence["uninformative_why"]


def test_the_step_sensitivity_can_undecide_a_case():
    fine, _ = recorded(lambda: check_settled_limit(None, [0.8, 0.9], 0.75, 1.0, value_range=RATIO))
    coarse, _ = recorded(lambda: check_settled_limit(None, [0.8, 0.9], 0.75, 1.0, value_range=RATIO,
                                                     coarse_values=[0.8, 0.96]))
    assert fine.outcome == "holds" and coarse.outcome == "undecided"  # error bar 0.1 + 0.06


def test_a_settled_interval_wholly_below_the_bound_is_a_violation():
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="outside"):
            check_settled_limit(None, [0.3, 0.31], 0.5, 1.0, value_range=RATIO)
    result = evidence.to_builtin()
    assert result["informative_violating"] == 1 and result["counterexample"] is not None


def test_a_resolution_admits_a_point_limit_shown_to_within_it_but_never_one_the_interval_excludes():
    # "-> 1": [0.995, 1.0] holds with resolution 0.01, not with 0.001; [0.97, 0.99] is violated whatever it is
    near, _ = recorded(lambda: check_settled_limit(None, [0.99, 0.995], 1.0, 1.0, value_range=RATIO, resolution=0.01))
    tight, _ = recorded(lambda: check_settled_limit(None, [0.99, 0.995], 1.0, 1.0, value_range=RATIO,
                                                    resolution=0.001))
    assert near.outcome == "holds" and tight.outcome == "undecided"
    with collecting():
        with pytest.raises(ClaimViolation):
            check_settled_limit(None, [0.97, 0.98], 1.0, 1.0, value_range=RATIO, resolution=0.05)


def test_the_resolution_boundary_is_inclusive():
    # limit 0.995 with error bar 0.005: low exactly 0.99 = 1 - resolution
    at, _ = recorded(lambda: check_settled_limit(None, [0.990, 0.995], 1.0, 1.0, value_range=(0.0, 1.0),
                                                 resolution=0.01 + 1e-12))
    below, _ = recorded(lambda: check_settled_limit(None, [0.989, 0.995], 1.0, 1.0, value_range=(0.0, 1.0),
                                                    resolution=0.01))
    assert at.outcome == "holds" and below.outcome == "undecided"


def test_an_unsettled_limit_is_undecided_and_uninformative_not_a_pass_nor_a_violation():
    estimate, evidence = recorded(lambda: check_settled_limit(None, [0.2, 0.6], 0.5, 1.0, value_range=RATIO))
    assert estimate.outcome == "undecided"
    assert (evidence["informative"], evidence["uninformative"]) == (0, 1)
    assert evidence["holding"]["error"] > evidence["holding"]["tolerance"]  # the report reads it as undecided


def test_a_statement_covering_every_value_of_the_quantity_is_vacuous():
    # a lower bound 1/min(rank, V) with V >= rank: the ratio's own floor
    _, at_floor = recorded(lambda: check_settled_limit(None, [0.5, 0.6], 0.25, 1.0, value_range=RATIO))
    _, above_floor = recorded(lambda: check_settled_limit(None, [0.5, 0.6], 0.25 + 1e-9, 1.0, value_range=RATIO))
    assert at_floor["informative"] == 0 and VACUOUS in at_floor["uninformative_why"]
    assert above_floor["informative"] == 1
    # a row vector: its ratio is 1 by construction, so "-> 1" tests nothing
    _, row = recorded(lambda: check_settled_limit(None, [1.0, 1.0], 1.0, 1.0, value_range=(1.0, 1.0)))
    assert row["informative"] == 0


# ------------------------------------------------------------------------------- the negative control


def test_the_control_rejects_only_a_violation():
    estimate, evidence = recorded(
        lambda: check_settled_limit_rejected(None, [0.6, 0.61], 1.0, 1.0, value_range=RATIO, resolution=0.01),
        control=True)
    assert estimate.outcome == "violated" and evidence["informative_violating"] == 1
    for values in ([0.99, 0.995], [0.5, 0.9]):  # holds; undecided
        with collecting(control=True):
            with pytest.raises(ClaimViolation, match="not rejected"):
                check_settled_limit_rejected(None, values, 1.0, 1.0, value_range=RATIO, resolution=0.01)


def test_a_control_against_a_statement_no_value_can_meet_is_uninformative():
    _, evidence = recorded(lambda: check_settled_limit_rejected(None, [0.6, 0.61], 1.5, 2.0, value_range=RATIO),
                           control=True)
    assert evidence["informative_violating"] == 0 and evidence["uninformative"] == 1


def test_the_check_records_only_inside_a_claim_test():
    with pytest.raises(OutsideClaimTest):
        check_settled_limit(None, [0.8, 0.9], 0.5, 1.0)
