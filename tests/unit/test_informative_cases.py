"""Informative cases: each rule that tells a case that could have failed from one that could not.

A case is informative when its check could have come out the other way on it. Each rule below is
pinned on both sides of its boundary, so that weakening or dropping it (a ``>=`` for a ``>``, a rule
left out) turns a test red: a vacuous bound, a left side at its floor, tied and saturated trends,
an underpowered design and equivalence, a control on constant data, and the verdict rules that read
the counts.
"""

from __future__ import annotations

import pytest

from claims.evidence._numbers import format_number
from claims.evidence._role import Role
from claims.session._phases import fold_phase
from claims.checks import check_inequality, check_inequality_rejected, check_trend, check_trend_rejected
from claims.evidence._record import ClaimViolation, collecting, count_cases_as, declare_verdict, record_case
from claims.evidence._trend import POWER, SATURATED_FRACTION, TrendRule, detectable_effect, saturation, trend_test
from claims.report._model import TestRecord, claim_entry
from claims.evidence._registry import CLAIMS

RATIO = (0.0, 1.0)  # a ratio of squared singular values: 0 <= lhs <= 1 by construction
TOL = 1e-15


def recorded(run) -> dict:
    with collecting() as evidence:
        run()
    return evidence.to_builtin()


# ------------------------------------------------------------------------------- inequalities


def test_a_bound_at_or_above_the_largest_value_of_the_left_side_is_uninformative():
    at = recorded(lambda: check_inequality(0.3, 1.0, TOL, lhs_range=RATIO))
    above = recorded(lambda: check_inequality(0.3, 4.35, TOL, lhs_range=RATIO))
    below = recorded(lambda: check_inequality(0.3, 1.0 - 1e-9, TOL, lhs_range=RATIO))
    assert (at["informative"], at["uninformative"]) == (0, 1)
    assert "largest value" in next(iter(at["uninformative_why"]))
    assert (above["informative"], above["uninformative"]) == (0, 1)
    assert (below["informative"], below["uninformative"]) == (1, 0)


def test_a_left_side_at_its_floor_tests_no_bound_above_it():
    at_floor = recorded(lambda: check_inequality(3.1e-32, 0.04, TOL, lhs_range=RATIO))
    just_off = recorded(lambda: check_inequality(2 * TOL, 0.04, TOL, lhs_range=RATIO))
    at_tolerance = recorded(lambda: check_inequality(TOL, 0.04, TOL, lhs_range=RATIO))
    wider = recorded(lambda: check_inequality(1e-10, 0.04, TOL, lhs_range=RATIO, floor_tolerance=1e-9))
    assert at_floor["informative"] == 0 and "floor" in next(iter(at_floor["uninformative_why"]))
    assert just_off["informative"] == 1
    assert at_tolerance["informative"] == 0  # within the rounding tolerance of the floor
    assert wider["informative"] == 0


def test_a_bound_below_the_floor_is_an_informative_counterexample():
    with collecting() as evidence, pytest.raises(ClaimViolation):
        check_inequality(0.0, -0.5, TOL, lhs_range=RATIO)  # T31's printed bound where it is negative
    record = evidence.to_builtin()
    assert record["informative"] == 1 and record["counterexample"]["details"].get("uninformative") is None


def test_without_a_range_every_case_counts_as_before():
    record = recorded(lambda: check_inequality(3.1e-32, 4.35, TOL))
    assert (record["cases"], record["informative"], record["uninformative"]) == (1, 1, 0)


def recorded_control(run) -> dict:
    with collecting(role=Role.CONTROL) as evidence:
        run()
    return evidence.to_builtin()


def test_a_control_whose_bound_no_left_side_could_meet_is_uninformative():
    trivial = recorded_control(lambda: check_inequality_rejected(0.2, -0.1, TOL, lhs_range=RATIO))
    real = recorded_control(lambda: check_inequality_rejected(0.2, 0.1, TOL, lhs_range=RATIO))
    assert trivial["informative"] == 0 and "no case accepts it" in next(iter(trivial["uninformative_why"]))
    assert real["informative"] == 1
    # in an evidence test the same case is an informative counterexample to a printed (negative) bound
    printed = recorded(lambda: check_inequality_rejected(0.2, -0.1, TOL, lhs_range=RATIO))
    assert printed["informative"] == 1


def test_the_worst_case_shown_is_an_informative_one():
    def run():
        check_inequality(0.3, 0.31, TOL, lhs_range=(0.0, 0.305))  # tight, but the bound is vacuous
        check_inequality(0.1, 0.5, TOL, lhs_range=RATIO)
    record = recorded(run)
    assert (record["informative"], record["uninformative"]) == (1, 1)
    assert record["holding"]["details"]["lhs"] == 0.1 and record["min_slack"] == pytest.approx(0.4 / 0.6, rel=1e-12)


def test_one_informative_check_makes_its_example_informative():
    """Inside one Hypothesis example several checks are one case: informative when any check is."""
    from hypothesis import given, settings, strategies as st

    @settings(max_examples=3, database=None, derandomize=True)
    @given(st.integers(0, 10))
    def example(_):
        check_inequality(0.3, 2.0, TOL, lhs_range=RATIO)
        check_inequality(0.3, 0.5, TOL, lhs_range=RATIO)

    with collecting() as evidence:
        example()
    record = evidence.to_builtin()
    assert record["cases"] == record["informative"] == 3 and record["checks"] == 6


def test_units_name_the_cases_and_weigh_them():
    def run():
        count_cases_as("runs")
        record_case(0.5, 1.0, units=12)
    record = recorded(run)
    assert (record["cases"], record["informative"], record["unit"]) == (12, 12, "runs")
    with collecting(), pytest.raises(ValueError):
        count_cases_as("apples")
    with collecting(), pytest.raises(ValueError):
        record_case(0.5, 1.0, units=0)


# ------------------------------------------------------------------------------------- trends

LEVELS = [0.0] * 6 + [1.0] * 6 + [2.0] * 6
FULL_RANK = 27.6


def test_tied_responses_are_uninformative():
    assert saturation([3.0] * 6, TrendRule("increasing")) == "the responses are tied (all 3)"
    assert saturation([3.0] * 5 + [3.5], TrendRule("increasing")) is None


def test_responses_mostly_at_a_stated_ceiling_are_saturated():
    rule = TrendRule("none", ceiling=FULL_RANK, saturation_band=0.25)
    most = [FULL_RANK] * 10 + [27.4] * 8  # 27.4 is within the band: all 18 at the ceiling
    assert "18 of 18 at the ceiling" in saturation(most, rule)
    half = [FULL_RANK] * 9 + [20.0 + i for i in range(9)]
    assert SATURATED_FRACTION == 0.5 and saturation(half, rule) is None  # exactly half is not "most"
    assert saturation([FULL_RANK] * 10 + [20.0 + i for i in range(8)], rule) is not None
    floor = TrendRule("increasing", floor=0.0)
    assert "at the floor 0" in saturation([0.0] * 10 + [1.0] * 8, floor)


def test_a_design_too_small_to_reach_alpha_detects_no_effect():
    # three runs at three levels: the exact permutation test's smallest p is 1/6 > 0.05
    assert detectable_effect([0.0, 1.0, 2.0], TrendRule("increasing")) is None
    trend = trend_test([0.0, 1.0, 2.0, 2.0], [1.0, 2.0, 3.0, 4.0], TrendRule("increasing", alpha=0.01))
    assert trend.detectable_effect is None and "detects no effect" in trend.uninformative


def test_the_detectable_effect_falls_as_the_design_grows():
    small = detectable_effect([level for level in range(4) for _ in range(3)], TrendRule("increasing"))
    large = detectable_effect([level for level in range(5) for _ in range(20)], TrendRule("increasing"))
    assert 0.5 < small < 0.9 and 0.15 < large < 0.4 and POWER == 0.8


def test_an_underpowered_equivalence_is_uninformative_and_a_powered_one_is_not():
    rule = TrendRule("none", min_effect=0.3)
    small = trend_test(LEVELS[:4] + LEVELS[6:10], [1.0, 2.0, 1.5, 1.2, 1.4, 1.1, 1.9, 1.3], rule)
    assert small.uninformative and "cannot tell no effect" in small.uninformative
    levels = [level for level in range(5) for _ in range(40)]
    noise = [((7 * i) % 11) / 11 for i in range(len(levels))]
    large = trend_test(levels, noise, rule)
    assert large.detectable_effect < 0.3 and large.uninformative is None


def test_a_directional_trend_is_judged_on_power_only_when_it_has_none():
    """A directional trend that could reach alpha is informative whatever its detectable effect: it
    could have come out verified or refuted."""
    trend = trend_test(LEVELS[:4] + LEVELS[6:10], [1.0, 1.1, 1.2, 1.3, 2.0, 2.1, 2.2, 2.3], TrendRule("increasing"))
    assert trend.detectable_effect is not None and trend.detectable_effect > trend.rule.min_effect
    assert trend.uninformative is None


def test_a_trend_case_counts_its_runs():
    record = recorded(lambda: check_trend(LEVELS, [float(i) for i in range(18)], TrendRule("increasing"), "rises"))
    assert (record["cases"], record["informative"], record["unit"]) == (18, 18, "runs")
    assert record["holding"]["details"]["detectable_effect"] > 0

    def named_first():
        count_cases_as("matrices")
        check_trend(LEVELS, [float(i) for i in range(18)], TrendRule("increasing"), "rises")
    assert recorded(named_first)["unit"] == "matrices"  # a test's own unit is kept


def test_a_trend_note_states_the_design_power_against_the_rule_minimum_effect():
    """The trend's note says what the design detects with power 0.8, and whether that reaches the rule's minimum
    effect (a small design cannot detect 0.3: its inconclusive is the design's, and the report says so)."""
    small = recorded(lambda: check_trend(LEVELS, [float(i) for i in range(18)], TrendRule("increasing"), "rises"))
    note = " ".join(small["notes"])
    detectable = small["holding"]["details"]["detectable_effect"]
    assert f"the design detects effects of {format_number(detectable)} or more with power 0.8" in note
    assert ("not the rule's minimum effect 0.3" in note) == (detectable > 0.3)
    levels = [float(i % 6) for i in range(120)]
    large = recorded(lambda: check_trend(levels, [float(i) for i in range(120)], TrendRule("increasing"), "rises"))
    assert large["holding"]["details"]["detectable_effect"] <= 0.3
    assert "not the rule's minimum effect" not in " ".join(large["notes"])


def test_several_responses_of_one_run_count_the_run_once():
    six_runs = recorded(lambda: check_trend(LEVELS, [float(i) for i in range(18)], TrendRule("increasing"), "rises",
                                            runs=6))
    assert (six_runs["cases"], six_runs["informative"]) == (6, 6)
    assert "18 responses of 6 runs" in " ".join(six_runs["notes"])
    control = recorded(lambda: check_trend_rejected(LEVELS, [FULL_RANK] * 18, TrendRule("increasing"), "control",
                                                    runs=6))
    assert (control["cases"], control["uninformative"]) == (6, 6)
    for impossible in (0, 19):
        with pytest.raises(ValueError, match="comes from 1 to 18 runs"):
            recorded(lambda: check_trend(LEVELS, [float(i) for i in range(18)], TrendRule("increasing"), "rises",
                                         runs=impossible))


def test_a_control_on_constant_data_is_uninformative():
    record = recorded(lambda: check_trend_rejected(LEVELS, [FULL_RANK] * 18, TrendRule("increasing"), "control"))
    assert record["informative"] == 0 and record["uninformative"] == 18
    assert "tied" in record["counterexample"]["details"]["uninformative"]


def test_a_refutation_on_saturated_responses_is_uninformative():
    responses = [27.4] * 6 + [27.6] * 12  # F2's nightly "refutation": tie-breaking at full rank
    rule = TrendRule("decreasing", ceiling=FULL_RANK, saturation_band=0.25)
    record = recorded(lambda: check_trend(LEVELS, responses, rule, "lower rank with larger batches"))
    assert record["verdict"] == "refuted" and record["informative"] == 0


# ------------------------------------------------------------------------------ verdict rules

CLAIM = CLAIMS["LJ22.L10"]


def test_record(nodeid: str, control: bool, run) -> TestRecord:
    record = TestRecord(nodeid, [CLAIM.id], Role.of_marker(control))
    fold_phase(record, "call", "passed", (recorded_control if control else recorded)(run), 0.0)
    return record


test_record.__test__ = False  # a helper, not a test


def informative_check():
    check_inequality(0.3, 0.5, TOL, lhs_range=RATIO)


def vacuous_check():
    check_inequality(0.3, 2.0, TOL, lhs_range=RATIO)


def informative_control():
    check_inequality_rejected(0.3, 0.1, TOL, lhs_range=RATIO)


def test_verified_needs_an_informative_case_in_every_evidence_test():
    control = test_record("t.py::control", True, informative_control)
    good = claim_entry(CLAIM, [test_record("t.py::a", False, informative_check), control])
    assert good["verdict"] == "verified" and good["informative"] == 1
    vacuous = claim_entry(CLAIM, [test_record("t.py::a", False, informative_check),
                                  test_record("t.py::b", False, vacuous_check), control])
    assert vacuous["verdict"] == "inconclusive"
    assert any(w.startswith("The evidence could not have failed: t.py::b: 0 informative of 1") for w in vacuous["why"])


def test_a_control_counts_as_rejected_only_on_informative_cases():
    trivial = test_record("t.py::control", True, lambda: check_inequality_rejected(0.3, -1.0, TOL, lhs_range=RATIO))
    entry = claim_entry(CLAIM, [test_record("t.py::a", False, informative_check), trivial])
    assert entry["control_state"] == "uninformative" and entry["verdict"] == "inconclusive"


def test_a_declared_refutation_needs_an_informative_counterexample():
    def saturated_refutation():
        check_trend(LEVELS, [27.4] * 6 + [27.6] * 12, TrendRule("decreasing", ceiling=FULL_RANK, saturation_band=0.25),
                    "lower rank with larger batches")

    def informative_refutation():
        check_trend(LEVELS, [float(i) for i in range(18)], TrendRule("decreasing"), "lower rank with larger batches")

    control = test_record("t.py::control", True, informative_control)
    vacuous = claim_entry(CLAIM, [test_record("t.py::a", False, saturated_refutation), control])
    assert vacuous["verdict"] == "inconclusive"
    assert any("could not have come out the other way" in w for w in vacuous["why"])
    real = claim_entry(CLAIM, [test_record("t.py::a", False, informative_refutation), control])
    assert real["verdict"] == "refuted"


def test_a_declared_correction_on_an_uninformative_counterexample_is_inconclusive():
    def corrected():
        # "fails as printed" on a design whose responses sit at full rank: tie-breaking, not a counterexample
        check_trend(LEVELS, [27.4] * 6 + [27.6] * 12, TrendRule("decreasing", ceiling=FULL_RANK, saturation_band=0.25),
                    "lower rank with larger batches", declare=False)
        check_inequality(0.3, 0.5, TOL, lhs_range=RATIO)
        declare_verdict("verified-with-correction", correction="a corrected bound")

    control = test_record("t.py::control", True, informative_control)
    entry = claim_entry(CLAIM, [test_record("t.py::a", False, corrected), control])
    assert entry["verdict"] == "inconclusive"
    assert any("could not have come out the other way" in w for w in entry["why"])


def test_one_case_groups_its_checks():
    """Every check inside one ``one_case`` block is one case (an optimum's several checks), and a block
    is informative when any of its checks is."""
    from claims.evidence._record import one_case

    def run():
        count_cases_as("optima")
        for _ in range(3):
            with one_case():
                check_inequality(0.3, 2.0, TOL, lhs_range=RATIO)
                check_inequality(0.3, 0.5, TOL, lhs_range=RATIO)
        with one_case():
            check_inequality(0.3, 2.0, TOL, lhs_range=RATIO)
        check_inequality(0.1, 0.2, TOL)  # outside any block: its own case
    record = recorded(run)
    assert (record["checks"], record["cases"], record["informative"], record["uninformative"]) == (8, 5, 4, 1)
    assert record["unit"] == "optima"


def test_a_correction_needs_an_informative_case_where_it_holds():
    """T31's shape: the printed bound fails informatively (negative, below the ratios' floor), and every
    case where the corrected bound holds is vacuous (bound >= 1) or at the floor (a rank-one optimum):
    the correction is not shown, whatever its counterexamples."""
    def printed_fails_corrected_vacuous():
        check_inequality_rejected(0.2, -0.5, TOL, lhs_range=RATIO)  # the printed bound, negative
        check_inequality(3e-32, 0.04, TOL, lhs_range=RATIO)  # the corrected bound at a rank-one optimum
        check_inequality(0.2, 4.35, TOL, lhs_range=RATIO)  # ... and where it is above 1
        declare_verdict("verified-with-correction", correction="l > c^2")

    def printed_fails_corrected_informative():
        printed_fails_corrected_vacuous()
        check_inequality(0.01, 0.04, TOL, lhs_range=RATIO)

    control = test_record("t.py::control", True, informative_control)
    vacuous = claim_entry(CLAIM, [test_record("t.py::a", False, printed_fails_corrected_vacuous), control])
    assert vacuous["informative"] == 1 and vacuous["informative_holding"] == 0
    assert vacuous["verdict"] == "inconclusive"
    assert any("no case where the (corrected) statement holds could have come out" in w for w in vacuous["why"])
    shown = claim_entry(CLAIM, [test_record("t.py::a", False, printed_fails_corrected_informative), control])
    assert shown["verdict"] == "verified-with-correction" and shown["informative_holding"] == 1


def test_a_bound_within_the_tolerance_of_the_maximum_cannot_fail():
    """The check passes whenever lhs <= rhs + tolerance: a bound within the tolerance below the largest
    value of lhs is as vacuous as one at it."""
    near = recorded(lambda: check_inequality(0.5, 1 - 1e-12, 1e-9, lhs_range=RATIO))
    off = recorded(lambda: check_inequality(0.5, 1 - 2e-9, 1e-9, lhs_range=RATIO))
    assert (near["informative"], off["informative"]) == (0, 1)


def test_a_failing_check_is_informative_whatever_the_floor_tolerance():
    with collecting() as evidence, pytest.raises(ClaimViolation):
        check_inequality(1e-6, 0.0, 1e-9, lhs_range=RATIO, floor_tolerance=1e-5)
    assert evidence.to_builtin()["informative"] == 1


def test_a_control_needs_an_informative_rejection_not_only_an_informative_precondition():
    def precondition_then_trivial_rejection():
        check_inequality(0.3, 0.5, TOL, lhs_range=RATIO)  # a precondition that holds, informatively
        check_inequality_rejected(0.3, -1.0, TOL, lhs_range=RATIO)  # nothing could have accepted this
    control = test_record("t.py::control", True, precondition_then_trivial_rejection)
    assert control.informative == 1 and control.informative_violating == 0
    entry = claim_entry(CLAIM, [test_record("t.py::a", False, informative_check), control])
    assert entry["control_state"] == "uninformative" and entry["verdict"] == "inconclusive"


def test_one_case_inside_a_hypothesis_example_keeps_target_labels_per_example():
    from hypothesis import given, settings, strategies as st

    from claims.evidence._record import one_case

    @settings(max_examples=3, database=None, derandomize=True)
    @given(st.integers(0, 10))
    def example(_):
        check_inequality(0.3, 0.5, TOL)
        with one_case():
            check_inequality(0.3, 0.5, TOL)  # the label is numbered within the example: no collision

    with collecting():
        example()


# ----------------------------------------------------------------- boundaries (each rule's edge, pinned)
# Exact binary fractions, so that each comparison sits exactly on its boundary.


def test_a_bound_exactly_a_tolerance_below_the_maximum_is_still_vacuous():
    assert recorded(lambda: check_inequality(0.75, 0.5, 0.5, lhs_range=RATIO))["informative"] == 0


def test_a_failing_check_just_beyond_its_tolerance_is_informative_under_a_wide_floor_tolerance():
    # lhs - rhs = 0.25 > tolerance 0.125, lhs within the floor tolerance 0.5 of the floor: it failed
    with collecting() as evidence, pytest.raises(ClaimViolation):
        check_inequality(0.375, 0.125, 0.125, lhs_range=RATIO, floor_tolerance=0.5)
    assert evidence.to_builtin()["informative"] == 1


def test_a_bound_exactly_at_the_floor_is_vacuous_for_a_left_side_at_the_floor():
    # lhs = tol/2 (not 0: both sides 0 would be a degenerate case, counted apart)
    record = recorded(lambda: check_inequality(0.5 * TOL, 0.0, TOL, lhs_range=RATIO))
    assert (record["cases"], record["informative"]) == (1, 0)


def test_a_bound_below_the_floor_within_rounding_is_informative_for_a_left_side_at_the_floor():
    # the bound -tol/2 sits below every lhs: only the tolerance lets lhs = 0 pass, so the case tests it
    assert recorded(lambda: check_inequality(0.0, -0.5 * TOL, TOL, lhs_range=RATIO))["informative"] == 1


def test_a_control_bound_exactly_a_tolerance_below_the_floor_could_still_be_accepted():
    # lhs = 0 passes lhs <= rhs + tolerance = 0: the control's rejection of lhs = 0.25 is informative
    at_edge = recorded_control(lambda: check_inequality_rejected(0.25, -0.125, 0.125, lhs_range=RATIO))
    within = recorded_control(lambda: check_inequality_rejected(0.25, -0.0625, 0.125, lhs_range=RATIO))
    beyond = recorded_control(lambda: check_inequality_rejected(0.25, -0.25, 0.125, lhs_range=RATIO))
    assert (at_edge["informative"], within["informative"], beyond["informative"]) == (1, 1, 0)


def test_a_p_value_equal_to_alpha_is_significant_for_the_detectable_effect():
    # four distinct levels: the exact test's smallest one-sided p is 1/24; at alpha = 1/24 only a
    # perfectly ordered design reaches it, which a strong enough simulated signal does
    rule = TrendRule("increasing", alpha=1 / 24)
    assert detectable_effect([0.0, 1.0, 2.0, 3.0], rule) is not None


def test_a_power_of_one_is_reachable():
    assert detectable_effect([level for level in range(5) for _ in range(20)], TrendRule("increasing"), power=1.0)


def test_an_equivalence_whose_design_detects_exactly_its_minimum_effect_is_informative():
    levels = [level for level in range(5) for _ in range(40)]
    noise = [((7 * i) % 11) / 11 for i in range(len(levels))]
    detectable = detectable_effect(levels, TrendRule("none", min_effect=0.3))
    assert trend_test(levels, noise, TrendRule("none", min_effect=detectable)).uninformative is None


def test_one_uninformative_control_of_two_leaves_the_control_uninformative():
    trivial = test_record("t.py::trivial", True, lambda: check_inequality_rejected(0.3, -1.0, TOL, lhs_range=RATIO))
    real = test_record("t.py::control", True, informative_control)
    entry = claim_entry(CLAIM, [test_record("t.py::a", False, informative_check), real, trivial])
    assert entry["control_state"] == "uninformative"
