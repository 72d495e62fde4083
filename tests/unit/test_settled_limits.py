"""The settled-limit check (``claims.checks._limits``): its estimate, error bar and three outcomes, each rule
pinned on both sides of its boundary, so that weakening one (dropping the step sensitivity or the geometric tail
from the error bar, judging a limit whose changes do not shrink, judging the unclipped interval, letting a
resolution excuse an interval that excludes the point, counting an undecided case as evidence) turns a test
red."""

from __future__ import annotations

import math

import pytest

from claims.checks import check_settled_limit, check_settled_limit_rejected, limit_estimate
from claims.checks._limits import NO_EXTRAPOLATION, NOT_SHRINKING, UNSETTLED, VACUOUS
from claims.evidence._record import ClaimViolation, NonFiniteEvidence, OutsideClaimTest, collecting

RATIO = (0.25, 1.0)  # a ratio of squared singular values of a rank-4 matrix
HALVING = [0.6, 0.8, 0.9, 0.95]  # changes 0.2, 0.1, 0.05: r = 1/2, the error bar is the last change


def recorded(run, control: bool = False) -> tuple[object, dict]:
    with collecting(control=control) as evidence:
        result = run()
    return result, evidence.to_builtin()


def settled(value: float, change: float) -> list[float]:
    """Samples ending at ``value`` whose last two changes are 2 ``change`` and ``change`` (r = 1/2): the error
    bar is ``change``."""
    return [value - 7 * change, value - 3 * change, value - change, value]


# ------------------------------------------------------------------------------- the estimate


def test_linear_extrapolation_recovers_the_limit_of_a_quantity_linear_in_its_variable():
    # q = 1 - 19 x exactly (Eq. (13)'s form with a constant non-top mass): every extrapolation is 1
    xs = [1 / 25, 1 / 50, 1 / 100, 1 / 200]
    estimate = limit_estimate(xs, [1 - 19 * x for x in xs])
    assert estimate.extrapolations == pytest.approx((1.0, 1.0, 1.0), abs=1e-15)
    assert estimate.limit == pytest.approx(1.0, abs=1e-15) and estimate.error_bar == pytest.approx(0.0, abs=1e-15)


def test_the_error_bar_is_the_geometric_tail_of_the_shrinking_changes_plus_step_and_tolerance():
    halving = limit_estimate(None, HALVING, tolerance=1e-3)
    assert halving.numbers["contraction"] == pytest.approx(0.5)
    assert halving.error_bar == pytest.approx(0.05 + 1e-3)  # r/(1 - r) = 1: the last change
    fast = limit_estimate(None, [0.6, 0.8, 0.9, 0.91])  # r = 0.1: still the last change, never less
    assert fast.error_bar == pytest.approx(0.01)
    slow = limit_estimate(None, [0.5, 0.6, 0.7, 0.78])  # r = 0.8: the tail is 4 times the last change
    assert slow.error_bar == pytest.approx(0.08 * 4)
    stepped = limit_estimate(None, HALVING, coarse_values=[0.6, 0.8, 0.9, 0.97])
    assert stepped.step_sensitivity == pytest.approx(0.02) and stepped.error_bar == pytest.approx(0.07)
    xs = [0.8, 0.4, 0.2, 0.1]
    extrapolated = limit_estimate(xs, [0.0, 0.4, 0.6, 0.7], coarse_variable=xs, coarse_values=[0.0, 0.4, 0.6, 0.71])
    assert extrapolated.extrapolations == pytest.approx((0.8, 0.8, 0.8))
    assert extrapolated.step_sensitivity == pytest.approx(0.02)  # the coarse run extrapolates to 0.82


def test_a_change_that_did_not_shrink_leaves_the_limit_undecided():
    equal = limit_estimate(None, [0.5, 0.6, 0.7, 0.8])
    assert equal.reason == NOT_SHRINKING and equal.error_bar == math.inf
    growing = limit_estimate(None, [0.5, 0.55, 0.6, 0.7])
    assert growing.reason == NOT_SHRINKING
    just_shrinking = limit_estimate(None, [0.5, 0.55, 0.6, 0.6499])
    assert just_shrinking.reason is None
    # a last change within twice the step sensitivity (plus the tolerance) is noise: settled to that resolution
    noise = limit_estimate(None, [0.9, 0.9001, 0.9003, 0.9006], coarse_values=[0.9, 0.9001, 0.9003, 0.90076],
                           tolerance=1e-6)
    assert noise.reason is None and noise.error_bar == pytest.approx(0.0003 + 0.00016 + 1e-6)
    beyond_noise = limit_estimate(None, [0.9, 0.9001, 0.9003, 0.9006], coarse_values=[0.9, 0.9001, 0.9003, 0.90071],
                                  tolerance=1e-6)
    assert beyond_noise.reason == NOT_SHRINKING
    # the floor reads the step sensitivity of every sample the two changes use, not only the last
    earlier = limit_estimate(None, [0.9, 0.9001, 0.9003, 0.9006], coarse_values=[0.9, 0.9001, 0.9005, 0.9006])
    assert earlier.reason is None and earlier.numbers["noise"] == pytest.approx(0.0004)


def test_the_interval_is_clipped_to_the_values_the_quantity_can_take():
    estimate = limit_estimate(None, settled(0.99, 0.01), value_range=RATIO)
    assert (estimate.low, estimate.high) == pytest.approx((0.98, 1.0))


def test_an_extrapolation_beyond_the_range_is_brought_back_with_its_excess_added_to_the_error_bar():
    beyond = limit_estimate(None, settled(1.05, 0.02), value_range=RATIO)
    assert beyond.limit == 1.0 and beyond.error_bar == pytest.approx(0.02 + 0.05)
    assert (beyond.low, beyond.high) == pytest.approx((0.93, 1.0))
    assert beyond.numbers["extrapolated_beyond_range"] == pytest.approx(1.05)
    below = limit_estimate(None, settled(0.2, 0.01), value_range=RATIO)
    assert below.limit == 0.25 and below.error_bar == pytest.approx(0.01 + 0.05)


def test_a_variable_that_does_not_decrease_gives_no_extrapolation_unless_the_quantity_is_constant():
    constant = limit_estimate([0.5] * 4, [0.1] * 4)
    assert (constant.limit, constant.error_bar, constant.reason) == (0.1, 0.0, None)
    moving = limit_estimate([0.5] * 4, [0.1, 0.2, 0.3, 0.4])
    assert moving.reason == NO_EXTRAPOLATION and moving.error_bar == math.inf


@pytest.mark.parametrize("values", [[0.1, math.nan, 0.3, 0.4], [0.1, 0.2, 0.3, math.inf]])
def test_non_finite_samples_are_never_evidence(values):
    with pytest.raises(NonFiniteEvidence):
        limit_estimate([0.8, 0.4, 0.2, 0.1], values)


def test_too_few_samples_mismatched_runs_and_a_negative_variable_are_usage_errors():
    with pytest.raises(ValueError, match="at least 4"):
        limit_estimate([0.4, 0.2, 0.1], [0.5, 0.6, 0.7])
    with pytest.raises(ValueError, match="at least 3"):
        limit_estimate(None, [0.5, 0.6])
    with pytest.raises(ValueError, match="coarse"):
        limit_estimate([0.8, 0.4, 0.2, 0.1], HALVING, coarse_values=HALVING)
    with pytest.raises(ValueError, match="from above"):
        limit_estimate([0.8, 0.4, -0.2, 0.1], HALVING)
    with pytest.raises(ValueError, match="lower, upper"):
        check_settled_limit(None, HALVING, 1.0, 0.5)


# ------------------------------------------------------------------------------- the three outcomes


def test_a_settled_interval_inside_the_statement_holds_and_is_informative():
    estimate, evidence = recorded(lambda: check_settled_limit(None, HALVING, 0.5, 1.0, value_range=RATIO))
    assert estimate.outcome == "holds" and (estimate.low, estimate.high) == pytest.approx((0.9, 1.0))
    assert (evidence["informative"], evidence["informative_holding"]) == (1, 1)
    assert evidence["holding"]["error"] <= evidence["holding"]["tolerance"]


def test_the_lower_bound_is_met_only_by_the_whole_interval():
    # 0.95 with an error bar of 0.05: [0.9, 1.0]; a bound at 0.9 holds, one just above is undecided
    at, _ = recorded(lambda: check_settled_limit(None, HALVING, 0.9 - 1e-12, 1.0, value_range=RATIO))
    above, evidence = recorded(lambda: check_settled_limit(None, HALVING, 0.9 + 1e-9, 1.0, value_range=RATIO))
    assert at.outcome == "holds"
    assert above.outcome == "undecided" and evidence["informative"] == 0
    assert UNSETTLED in evidence["uninformative_why"]


def test_the_step_sensitivity_and_a_slow_contraction_can_undecide_a_case():
    fine, _ = recorded(lambda: check_settled_limit(None, HALVING, 0.88, 1.0, value_range=RATIO))
    stepped, _ = recorded(lambda: check_settled_limit(None, HALVING, 0.88, 1.0, value_range=RATIO,
                                                      coarse_values=[0.6, 0.8, 0.9, 0.99]))
    slow, _ = recorded(lambda: check_settled_limit(None, [0.6, 0.8, 0.9, 0.98], 0.7, 1.0, value_range=RATIO))
    quick, _ = recorded(lambda: check_settled_limit(None, [0.6, 0.8, 0.9, 0.98], 0.6, 1.0, value_range=RATIO))
    assert fine.outcome == "holds" and stepped.outcome == "undecided"  # error bar 0.05 + 0.04
    assert slow.outcome == "undecided" and quick.outcome == "holds"  # r = 0.8: 0.98 - 0.32 = 0.66


def test_a_settled_interval_wholly_below_the_bound_is_a_violation():
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="outside"):
            check_settled_limit(None, settled(0.31, 0.01), 0.5, 1.0, value_range=RATIO)
    result = evidence.to_builtin()
    assert result["informative_violating"] == 1 and result["counterexample"] is not None


def test_a_resolution_admits_a_point_limit_shown_to_within_it_but_never_one_the_interval_excludes():
    # "-> 1": [0.99, 1.0] holds with resolution 0.01, not with 0.001; [0.97, 0.99] is violated whatever it is
    near, _ = recorded(lambda: check_settled_limit(None, settled(0.995, 0.005), 1.0, 1.0, value_range=RATIO,
                                                   resolution=0.01 + 1e-12))
    tight, _ = recorded(lambda: check_settled_limit(None, settled(0.995, 0.005), 1.0, 1.0, value_range=RATIO,
                                                    resolution=0.001))
    assert near.outcome == "holds" and tight.outcome == "undecided"
    with collecting():
        with pytest.raises(ClaimViolation):
            check_settled_limit(None, settled(0.98, 0.01), 1.0, 1.0, value_range=RATIO, resolution=0.05)


def test_the_resolution_boundary_is_inclusive():
    # limit 0.995 with error bar 0.005: low 0.99 = 1 - resolution (up to the samples' rounding)
    at, _ = recorded(lambda: check_settled_limit(None, settled(0.995, 0.005), 1.0, 1.0, value_range=(0.0, 1.0),
                                                 resolution=0.01 + 1e-12))
    below, _ = recorded(lambda: check_settled_limit(None, settled(0.995, 0.0051), 1.0, 1.0, value_range=(0.0, 1.0),
                                                    resolution=0.01))
    assert at.outcome == "holds" and below.outcome == "undecided"


def test_an_unsettled_limit_is_undecided_and_uninformative_not_a_pass_nor_a_violation():
    estimate, evidence = recorded(lambda: check_settled_limit(None, [0.2, 0.3, 0.4, 0.55], 0.5, 1.0,
                                                              value_range=RATIO))
    assert estimate.outcome == "undecided" and estimate.reason == NOT_SHRINKING
    assert (evidence["informative"], evidence["uninformative"]) == (0, 1)
    assert evidence["holding"]["error"] > evidence["holding"]["tolerance"]  # the report reads it as undecided


def test_a_statement_covering_every_value_of_the_quantity_is_vacuous():
    # a lower bound 1/min(rank, V) with V >= rank: the ratio's own floor
    _, at_floor = recorded(lambda: check_settled_limit(None, HALVING, 0.25, 1.0, value_range=RATIO))
    _, above_floor = recorded(lambda: check_settled_limit(None, HALVING, 0.25 + 1e-9, 1.0, value_range=RATIO))
    assert at_floor["informative"] == 0 and VACUOUS in at_floor["uninformative_why"]
    assert above_floor["informative"] == 1
    # a row vector: its ratio is 1 by construction, so "-> 1" tests nothing
    _, row = recorded(lambda: check_settled_limit(None, [1.0] * 3, 1.0, 1.0, value_range=(1.0, 1.0)))
    assert row["informative"] == 0


# ------------------------------------------------------------------------------- the negative control


def test_the_control_rejects_only_a_violation():
    estimate, evidence = recorded(
        lambda: check_settled_limit_rejected(None, settled(0.6, 0.01), 1.0, 1.0, value_range=RATIO,
                                             resolution=0.01),
        control=True)
    assert estimate.outcome == "violated" and evidence["informative_violating"] == 1
    with collecting(control=True):
        with pytest.raises(ClaimViolation, match=r"not rejected: .*\(holds\)"):
            check_settled_limit_rejected(None, settled(0.998, 0.002), 1.0, 1.0, value_range=RATIO, resolution=0.01)


def test_an_undecided_control_is_uninformative_and_reads_undecided_not_accepted():
    """A control's limit that did not settle is no rejection and no acceptance: recorded as uninformative with
    the undecided reason, returned (the 0.692902 +- inf of LJ22.CO1's control path on some machines)."""
    estimate, evidence = recorded(
        lambda: check_settled_limit_rejected(None, [0.5, 0.6, 0.7, 0.85], 1.0, 1.0, value_range=RATIO,
                                             resolution=0.01),
        control=True)
    assert estimate.outcome == "undecided" and estimate.reason == NOT_SHRINKING
    assert (evidence["informative_violating"], evidence["uninformative"]) == (0, 1)
    assert evidence["uninformative_why"] == {NOT_SHRINKING: 1}
    assert evidence["violation"] is None


def test_a_control_against_a_statement_no_value_can_meet_is_uninformative():
    _, evidence = recorded(lambda: check_settled_limit_rejected(None, settled(0.6, 0.01), 1.5, 2.0,
                                                                value_range=RATIO), control=True)
    assert evidence["informative_violating"] == 0 and evidence["uninformative"] == 1


def test_the_check_records_only_inside_a_claim_test():
    with pytest.raises(OutsideClaimTest):
        check_settled_limit(None, HALVING, 0.5, 1.0)


def test_a_case_with_no_room_scores_a_finite_number_above_acceptance():
    """Violated and undecided cases carry the finite score NO_ROOM (2), not a stand-in number; no recorded
    number of any case is infinite or a stand-in."""
    from claims.checks._limits import NO_ROOM

    _, violated = recorded(lambda: check_settled_limit_rejected(None, HALVING, 0.0, 0.5, value_range=RATIO),
                           control=True)
    _, undecided = recorded(lambda: check_settled_limit(None, HALVING, 0.9 + 1e-9, 1.0, value_range=RATIO))
    assert violated["counterexample"]["error"] == NO_ROOM == 2.0
    assert 1.0 < undecided["max_error"] <= NO_ROOM  # a straddling interval: its error bar over its room
    numbers = [v for r in (violated, undecided) for v in _numbers(r)]
    assert numbers and all(math.isfinite(v) and abs(v) < 1e299 for v in numbers)


def _numbers(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from _numbers(v)
    elif isinstance(value, float):
        yield value
