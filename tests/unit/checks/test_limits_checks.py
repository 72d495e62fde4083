"""``claims.checks._limits``: ``limit_estimate``, ``check_settled_limit`` and
``check_settled_limit_rejected``, the limit along a path judged against a statement's interval."""

from __future__ import annotations

import math

import pytest

from claims.evidence._role import Role
from claims.checks import (
    LimitEstimate,
    check_settled_limit,
    check_settled_limit_rejected,
    limit_estimate,
)
from claims.checks._limits import (
    ALWAYS_VIOLATED,
    NO_EXTRAPOLATION,
    NO_ROOM,
    NOT_SHRINKING,
    UNSETTLED,
    VACUOUS,
)
from claims.evidence._record import (
    ClaimViolation,
    NonFiniteEvidence,
    OutsideClaimTest,
    collecting,
)

# ====================================================================================================
# The settled-limit check (``claims.checks._limits``): its estimate, error bar and three outcomes, each rule
# pinned on both sides of its boundary, so that weakening one (dropping the step sensitivity or the geometric tail
# from the error bar, judging a limit whose changes do not shrink, judging the unclipped interval, letting a
# resolution excuse an interval that excludes the point, counting an undecided case as evidence) turns a test
# red.

RATIO = (0.25, 1.0)  # a ratio of squared singular values of a rank-4 matrix
HALVING = [0.6, 0.8, 0.9, 0.95]  # changes 0.2, 0.1, 0.05: r = 1/2, the error bar is the last change


def recorded(run, control: bool = False) -> tuple[object, dict]:
    with collecting(role=Role.of_marker(control)) as evidence:
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
    with collecting(role=Role.CONTROL):
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


# ====================================================================================================
# Details of the settled-limit check (``claims.checks._limits``) that mutation testing found unpinned: every
# field of the estimate and of the recorded case, each argument the check and its control pass on, the score's
# room on each side of the statement, the edges of the contraction rule, the samples a coarse or fine run cannot
# extrapolate, and the messages of its usage errors. The numbers are dyadic, so every expected value is exact.

# q = 3/4 + x^2 along x = 1, 1/2, 1/4, 1/8: the line through two samples meets x = 0 at 3/4 - x0 x1, so the
# extrapolations are 1/4, 5/8, 23/32 (changes 3/8, 3/32: r = 1/4, the error bar is the last change)
XS = [1.0, 0.5, 0.25, 0.125]
QS = [1.75, 1.0, 0.8125, 0.765625]
# the same path at twice the step: its last extrapolation is 3/4, 1/32 off the fine one
COARSE = [1.75, 1.0, 0.8125, 0.78125]
TOLERANCE = 2.0**-10
RANGE = (0.0, 0.8125)
ERROR_BAR = 0.09375 + 0.03125 + TOLERANCE  # last change + step sensitivity + tolerance
NUMBERS = {"values": QS, "variable": XS, "extrapolated": True, "coarse_values": COARSE, "coarse_limit": 0.75,
           "contraction": 0.25, "noise": 2 * 0.03125 + TOLERANCE}
SETTLED = [0.0625, 0.3125, 0.4375, 0.5]  # no extrapolation: limit 1/2, changes 1/4, 1/8, 1/16, error bar 1/16


def settled_limit(lower: float, upper: float, **keywords):
    return check_settled_limit(XS, QS, lower, upper, coarse_variable=XS, coarse_values=COARSE, tolerance=TOLERANCE,
                               value_range=RANGE, **keywords)


def refusal(exception, run) -> str:
    with collecting(), pytest.raises(exception) as raised:
        run()
    return str(raised.value)


# ------------------------------------------------------------------------ what the check passes on and records


def test_the_check_extrapolates_with_the_coarse_run_tolerance_and_range_it_is_given():
    estimate, evidence = recorded(lambda: settled_limit(0.46875, 1.0, run="fine"))
    assert estimate == LimitEstimate(
        limit=0.71875, error_bar=ERROR_BAR, low=0.71875 - ERROR_BAR, high=0.8125, last_change=0.09375,
        step_sensitivity=0.03125, extrapolations=(0.25, 0.625, 0.71875), extrapolated=True, outcome="holds",
        reason=None, numbers=NUMBERS)
    assert evidence["holding"]["error"] == ERROR_BAR / 0.25  # the error bar over the room above the lower bound
    assert evidence["holding"]["details"] == {
        "evidence": "settled limit", "limit": 0.71875, "error_bar": ERROR_BAR, "low": 0.71875 - ERROR_BAR,
        "high": 0.8125, "lower": 0.46875, "upper": 1.0, "resolution": 0.0, "value_range": [0.0, 0.8125],
        "last_change": 0.09375, "step_sensitivity": 0.03125, "extrapolations": [0.25, 0.625, 0.71875],
        "outcome": "holds", **NUMBERS, "run": "fine",
    }


def test_the_control_extrapolates_with_the_coarse_run_tolerance_and_range_it_is_given():
    def run():
        return check_settled_limit_rejected(XS, QS, 0.0, 0.5, coarse_variable=XS, coarse_values=COARSE,
                                            tolerance=TOLERANCE, value_range=RANGE, run="fine")

    estimate, evidence = recorded(run, control=True)
    assert (estimate.limit, estimate.error_bar, estimate.low, estimate.high) == (
        0.71875, ERROR_BAR, 0.71875 - ERROR_BAR, 0.8125)  # the high end clipped to the range
    assert (estimate.outcome, estimate.numbers) == ("violated", NUMBERS)
    case = evidence["counterexample"]
    assert case["error"] == NO_ROOM and evidence["informative_violating"] == 1
    assert case["details"] == {
        "evidence": "settled limit", "limit": 0.71875, "error_bar": ERROR_BAR, "low": 0.71875 - ERROR_BAR,
        "high": 0.8125, "lower": 0.0, "upper": 0.5, "resolution": 0.0, "value_range": [0.0, 0.8125],
        "last_change": 0.09375, "step_sensitivity": 0.03125, "extrapolations": [0.25, 0.625, 0.71875],
        "outcome": "violated", **NUMBERS, "run": "fine",
    }


def test_a_control_whose_statement_touches_the_range_or_lies_inside_it_is_informative():
    # [0, 1/4] meets the range (1/4, 1) at its end; [1/4, 1/2] lies inside it: a limit could meet either
    for lower, upper in ((0.0, 0.25), (0.25, 0.5)):
        _, evidence = recorded(lambda lower=lower, upper=upper: check_settled_limit_rejected(
            None, [0.375, 0.625, 0.75, 0.8125], lower, upper, value_range=(0.25, 1.0)), control=True)
        assert evidence["informative_violating"] == 1, (lower, upper)
    _, evidence = recorded(lambda: check_settled_limit_rejected(None, [0.375, 0.625, 0.75, 0.8125], 0.0, 0.125,
                                                                value_range=(0.25, 1.0)), control=True)
    assert ALWAYS_VIOLATED in evidence["uninformative_why"]


def test_a_statement_widened_by_its_resolution_to_the_whole_range_is_vacuous():
    # [3/8, 7/8] +- 1/8 covers (1/4, 1): nothing could have violated it
    _, evidence = recorded(lambda: check_settled_limit(None, [0.375, 0.5, 0.5625, 0.59375], 0.375, 0.875,
                                                       value_range=(0.25, 1.0), resolution=0.125))
    assert evidence["informative"] == 0 and VACUOUS in evidence["uninformative_why"]


# ------------------------------------------------------------------------ the score: error bar over the room


@pytest.mark.parametrize(
    "lower, upper, value_range, score",
    [
        ((0.375, 2.0, (-math.inf, math.inf), 0.5)),  # room 1/8 below (1.5 above)
        ((-2.0, 0.625, (-math.inf, math.inf), 0.5)),  # room 1/8 above (2.5 below)
        ((0.375, 0.75, (0.375, 1.0), 0.25)),  # the lower bound is the range's floor: only the room above counts
        ((0.25, 0.625, (0.0, 0.625), 0.25)),  # the upper bound is the range's ceiling: only the room below counts
        ((0.0, 1.0, (0.0, 1.0), 0.0)),  # the statement is the whole range: no room is needed
        ((0.4375, 2.0, (-math.inf, math.inf), 1.0)),  # the settled interval touches the bound: still holds
    ],
    ids=["below", "above", "floor is the range's", "ceiling is the range's", "whole range", "touching"],
)
def test_a_holding_limit_scores_its_error_bar_over_the_room_the_statement_leaves(lower, upper, value_range, score):
    estimate, evidence = recorded(lambda: check_settled_limit(None, SETTLED, lower, upper, value_range=value_range))
    assert estimate.outcome == "holds" and evidence["holding"]["error"] == score


def test_a_limit_on_the_bound_leaves_no_room_and_is_undecided():
    estimate, evidence = recorded(lambda: check_settled_limit(None, SETTLED, 0.5, 2.0))
    assert (estimate.outcome, estimate.reason) == ("undecided", UNSETTLED)
    assert evidence["holding"]["error"] == NO_ROOM


def test_an_interval_missing_its_bound_by_rounding_scores_above_one_though_its_error_bar_fills_the_room():
    # limit 1, error bar 0.9 = fl(1 - 0.1): the score is exactly 1, but 1 - 0.9 = 0.09999999999999998 < 0.1
    estimate, evidence = recorded(lambda: check_settled_limit(None, [-5.9, -1.9, 0.1, 1.0], 0.1, 10.0))
    assert estimate.error_bar / (estimate.limit - 0.1) == 1.0 and estimate.low < 0.1
    assert estimate.outcome == "undecided"
    assert evidence["holding"]["error"] == 1.0 + 1e-12  # the report reads error <= 1 as holding


def test_a_statement_of_every_value_holds_even_with_an_overflowing_error_bar():
    # the coarse run's limit is 3e308 away: the step sensitivity overflows, and nothing can violate (-inf, inf)
    estimate, evidence = recorded(lambda: check_settled_limit(None, [1.5e308] * 3, -math.inf, math.inf,
                                                              coarse_values=[-1.5e308] * 3))
    assert estimate.outcome == "holds" and estimate.error_bar == math.inf
    assert evidence["holding"]["error"] == 0.0 and evidence["informative"] == 0


# ------------------------------------------------------------------------ the estimate's edges


def test_a_variable_that_does_not_decrease_gives_every_field_of_an_undecided_estimate():
    estimate = limit_estimate([0.5] * 4, [0.125, 0.25, 0.375, 0.5], value_range=(0.0, 1.0))
    assert (estimate.limit, estimate.error_bar, estimate.low, estimate.high) == (0.5, math.inf, 0.0, 1.0)
    assert (estimate.last_change, estimate.step_sensitivity, estimate.extrapolated) == (math.inf, 0.0, True)
    assert len(estimate.extrapolations) == 3 and all(math.isnan(v) for v in estimate.extrapolations)
    assert (estimate.outcome, estimate.reason) == ("undecided", NO_EXTRAPOLATION)
    assert estimate.numbers == {"values": [0.125, 0.25, 0.375, 0.5], "variable": [0.5] * 4, "extrapolated": True}


def test_only_the_last_three_extrapolations_must_exist():
    # five samples, the first pair at one x: the extrapolations 5/8, 23/32, 95/128 decide the limit
    estimate = limit_estimate([0.5, 0.5, 0.25, 0.125, 0.0625], [1.5, 1.0, 0.8125, 0.765625, 0.75390625])
    assert estimate.reason is None and math.isnan(estimate.extrapolations[0])
    assert (estimate.limit, estimate.error_bar) == (0.7421875, 0.0234375)


def test_the_changes_read_are_the_last_two_of_five_samples():
    # changes 1/2, 1/2, 1/4, 1/8: the last two shrink by 1/2
    estimate = limit_estimate(None, [0.0, 0.5, 1.0, 1.25, 1.375])
    assert (estimate.limit, estimate.error_bar, estimate.last_change) == (1.375, 0.125, 0.125)
    assert estimate.numbers["contraction"] == 0.5


def test_a_change_after_no_change_does_not_shrink_and_has_no_contraction():
    estimate = limit_estimate(None, [0.5, 0.5, 0.75], value_range=(0.0, 1.0))
    assert (estimate.limit, estimate.error_bar, estimate.low, estimate.high) == (0.75, math.inf, 0.0, 1.0)
    assert (estimate.last_change, estimate.step_sensitivity, estimate.extrapolations) == (0.25, 0.0, (0.5, 0.5, 0.75))
    assert estimate.extrapolated is False and estimate.reason == NOT_SHRINKING
    assert estimate.numbers == {"values": [0.5, 0.5, 0.75], "variable": None, "extrapolated": False,
                                "contraction": None, "noise": 0.0}


def test_a_contraction_of_exactly_one_does_not_shrink_and_one_half_after_a_unit_change_does():
    assert limit_estimate(None, [0.0, 0.25, 0.5, 0.75]).reason == NOT_SHRINKING
    halving = limit_estimate(None, [0.0, 1.0, 1.5])  # the change before is exactly 1
    assert (halving.reason, halving.error_bar, halving.numbers["contraction"]) == (None, 0.5, 0.5)


def test_a_constant_is_settled_to_the_tolerance():
    estimate = limit_estimate(None, [0.5] * 3, tolerance=TOLERANCE)
    assert (estimate.reason, estimate.error_bar, estimate.numbers["noise"]) == (None, TOLERANCE, TOLERANCE)


def test_a_coarse_run_without_a_last_extrapolation_leaves_the_limit_undecided():
    estimate = limit_estimate(XS, QS, coarse_variable=[1.0, 0.5, 0.25, 0.25], coarse_values=COARSE)
    assert (estimate.reason, estimate.limit, estimate.step_sensitivity) == (NO_EXTRAPOLATION, 0.765625, 0.0)
    assert estimate.extrapolations[:2] == (0.25, 0.625) and math.isnan(estimate.extrapolations[2])


def test_a_fine_run_without_a_last_extrapolation_leaves_the_limit_undecided_whatever_the_coarse_run():
    estimate = limit_estimate([1.0, 0.5, 0.25, 0.25], QS, coarse_variable=XS, coarse_values=COARSE)
    assert estimate.reason == NO_EXTRAPOLATION and math.isnan(estimate.extrapolations[2])


def test_the_step_sensitivity_skips_a_coarse_pair_without_extrapolation():
    # the coarse run's first pair is at one x: its extrapolations are (none, 3/4, 3/4), 1/8 and 1/32 off
    estimate = limit_estimate(XS, QS, coarse_variable=[1.0, 1.0, 0.25, 0.125], coarse_values=COARSE)
    assert estimate.numbers["noise"] == 2 * 0.125 and estimate.error_bar == 0.09375 + 0.03125


def test_without_extrapolation_a_coarse_variable_is_not_read():
    estimate = limit_estimate(None, SETTLED, coarse_variable=[-1.0, math.nan], coarse_values=SETTLED)
    assert (estimate.limit, estimate.error_bar) == (0.5, 0.0625)


# ------------------------------------------------------------------------ usage errors name the check


@pytest.mark.parametrize("check", [check_settled_limit, check_settled_limit_rejected])
def test_the_checks_name_themselves_in_their_usage_errors(check):
    name = check.__name__
    assert refusal(ValueError, lambda: check(None, SETTLED, 1.0, 0.5)) == (
        f"{name}: the statement's interval is [lower, upper], not [1.0, 0.5]")
    assert refusal(ValueError, lambda: check(None, SETTLED, 0.0, 1.0, resolution=-0.5)) == (
        f"{name}: the resolution is finite and >= 0, not -0.5")
    assert refusal(ValueError, lambda: check(None, SETTLED, 0.0, 1.0, resolution=math.inf)) == (
        f"{name}: the resolution is finite and >= 0, not inf")
    assert refusal(ValueError, lambda: check(XS[:3], QS[:3], 0.0, 1.0)) == (
        f"{name}: at least 4 samples (successive doublings), not 3")
    assert refusal(ValueError, lambda: check(XS, QS, 0.0, 1.0, coarse_values=COARSE)) == (
        f"{name}: the coarse samples need their extrapolation variable too")
    assert refusal(ValueError, lambda: check(None, SETTLED, 0.0, 1.0, tolerance=-1.0)) == (
        f"{name}: the tolerance must be finite and >= 0, not -1.0")


def test_limit_estimate_names_itself_and_what_is_wrong():
    never = "; NaN and infinities never pass"
    assert refusal(NonFiniteEvidence, lambda: limit_estimate(None, [0.5, math.nan, 0.75])) == (
        "limit_estimate: values has a non-finite entry (nan)" + never)
    assert refusal(NonFiniteEvidence, lambda: limit_estimate([1.0, math.inf, 0.25, 0.125], QS)) == (
        "limit_estimate: extrapolation variable has a non-finite entry (inf)" + never)
    assert refusal(NonFiniteEvidence,
                   lambda: limit_estimate(None, SETTLED, coarse_values=[0.0, 0.0, 0.0, -math.inf])) == (
        "limit_estimate: values has a non-finite entry (-inf)" + never)
    assert refusal(ValueError, lambda: limit_estimate(XS[:3], QS)) == (
        "limit_estimate: 3 values of the extrapolation variable, 4 samples")
    assert refusal(ValueError, lambda: limit_estimate(None, SETTLED, coarse_values=SETTLED[:3])) == (
        "limit_estimate: 3 coarse samples, 4 fine ones")
    assert refusal(ValueError, lambda: limit_estimate(None, SETTLED, value_range=(1.0, 0.0))) == (
        "limit_estimate: value_range is (lowest, highest), not (1.0, 0.0)")
    assert refusal(ValueError, lambda: limit_estimate(None, SETTLED, tolerance=-1.0)) == (
        "limit_estimate: the tolerance must be finite and >= 0, not -1.0")


def test_a_limit_prints_apart_from_the_bound_it_misses():
    """A settled interval just below its bound prints with the digits that tell the two apart (6 would print both as
    1), the bounds at the same digits (``:g``'s six when those tell them apart) and the error bar as the report does."""
    assert refusal(ClaimViolation, lambda: check_settled_limit(None, [0.9999999] * 3, 1.0, 2.0)) == (
        "the limit 0.9999999 +- 0 (settled interval [0.9999999, 0.9999999]) lies outside [1, 2]; {}")
    assert refusal(ClaimViolation, lambda: check_settled_limit(None, SETTLED, 0.75, 1 / 0.75)) == (
        "the limit 0.5 +- 0.0625 (settled interval [0.4375, 0.5625]) lies outside [0.75, 1.33333]; {}")


def test_a_control_that_holds_is_not_a_rejection():
    with (
        collecting(role=Role.CONTROL),
        pytest.raises(ClaimViolation, match=r"^negative control not rejected: the limit 0\.5"),
    ):
        check_settled_limit_rejected(None, SETTLED, 0.0, 1.0)

