"""``claims.checks._trends``: ``check_trend`` and ``check_trend_rejected``, with the statistics they run
(``claims.evidence._trend.trend_test``, ``permuted_levels``): the verdict rule, the negative control, and what
they record, field by field."""

from __future__ import annotations

import math

import pytest

from claims.evidence._numbers import format_number
from claims.evidence._role import Role
from claims.checks import check_trend, check_trend_rejected
from claims.evidence._record import (
    ClaimViolation,
    NonFiniteEvidence,
    OutsideClaimTest,
    collecting,
    finding,
)
from claims.evidence._trend import (
    TrendRule,
    detectable_effect,
    permuted_levels,
    trend_test,
)

from check_helpers import NON_FINITE

# --- check_trend: the statistics, the verdict rule and the negative control -------------------


BATCHES = [8.0] * 3 + [16.0] * 3 + [32.0] * 3 + [64.0] * 3
RISING = [5.0, 6.0, 5.5, 7.0, 8.0, 7.5, 9.0, 10.0, 9.5, 12.0, 11.0, 13.0]


def test_trend_test_spearman_matches_scipy_and_its_exact_p_matches_enumeration():
    from scipy.stats import spearmanr

    levels, responses = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 3.0, 2.0, 5.0, 4.0, 6.0]
    trend = trend_test(levels, responses, TrendRule("increasing"))
    assert trend.exact and trend.correlation == pytest.approx(spearmanr(levels, responses).statistic, abs=1e-14)
    # exact: the share of the 720 orders at least as large; scipy's exact test gives the same p
    from scipy.stats import permutation_test

    reference = permutation_test(
        (responses,), lambda y: spearmanr(levels, y).statistic, permutation_type="pairings", alternative="greater"
    )
    assert trend.p_predicted == pytest.approx(reference.pvalue, abs=1e-12)


@pytest.mark.parametrize("statistic", ["spearman", "kendall"])
def test_trend_test_verdicts_follow_the_rule(statistic):
    assert trend_test(BATCHES, RISING, TrendRule("increasing", statistic=statistic)).verdict == "verified"
    assert trend_test(BATCHES, RISING, TrendRule("decreasing", statistic=statistic)).verdict == "refuted"
    flat = [5.0, 6.0, 7.0] * 4
    assert trend_test(BATCHES, flat, TrendRule("increasing", statistic=statistic)).verdict == "inconclusive"


def test_trend_test_needs_the_minimum_effect_as_well_as_significance():
    # 60 runs with a weak monotone trend: significant, but the correlation stays below 0.9
    levels = [float(v) for v in range(6) for _ in range(10)]
    responses = [v + 3.0 * math.sin(7.0 * i) for i, v in enumerate(levels)]
    weak = trend_test(levels, responses, TrendRule("increasing", min_effect=0.9))
    assert weak.p_predicted <= 0.05 and weak.effect < 0.9 and weak.verdict == "inconclusive"


def test_trend_test_of_no_effect_is_an_equivalence_test():
    assert trend_test(BATCHES, [4.0] * 12, TrendRule("none")).verdict == "verified"
    assert trend_test(BATCHES, RISING, TrendRule("none")).verdict == "refuted"
    noisy = [5.0, 9.0, 1.0, 7.0, 2.0, 8.0, 3.0, 6.0, 4.0, 9.0, 1.0, 5.0]
    assert trend_test(BATCHES, noisy, TrendRule("none")).verdict == "inconclusive"


def test_trend_test_is_deterministic_and_rejects_bad_designs():
    rule = TrendRule("increasing")
    assert trend_test(BATCHES, RISING, rule) == trend_test(BATCHES, RISING, rule)
    with pytest.raises(ValueError, match="at least 4 runs"):
        trend_test([1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0], rule)
    with pytest.raises(ValueError, match="one response per level"):
        trend_test([1.0, 2.0], [1.0], rule)
    with pytest.raises(ValueError, match="direction"):
        TrendRule("smaller")
    with pytest.raises(ValueError, match="min_effect"):
        TrendRule("increasing", min_effect=0.0)


def test_check_trend_records_a_verified_trend_as_a_holding_case():
    with collecting() as evidence:
        trend = check_trend(BATCHES, RISING, TrendRule("increasing"), "rank rises with the batch size", scale="toy")
    record = evidence.to_builtin()
    assert trend.verdict == "verified" and record["verdict"] is None
    assert record["holding"]["details"]["p_predicted"] == trend.p_predicted <= 0.05
    assert record["holding"]["details"]["responses"] == RISING and record["holding"]["details"]["scale"] == "toy"
    assert record["holding"]["error"] <= 1.0 and record["counterexample"] is None


def test_check_trend_declares_refuted_with_a_counterexample_and_inconclusive_without():
    with collecting() as evidence:
        check_trend(BATCHES, RISING, TrendRule("decreasing"), "rank falls with the batch size")
    record = evidence.to_builtin()
    assert record["verdict"] == "refuted" and record["counterexample"]["details"]["p_opposite"] <= 0.05
    with collecting() as evidence:
        check_trend(BATCHES, [5.0, 6.0, 7.0] * 4, TrendRule("increasing"), "no signal")
    record = evidence.to_builtin()
    assert record["verdict"] == "inconclusive" and record["holding"]["error"] > 1.0
    assert any("inconclusive" in note for note in record["notes"])


@pytest.mark.parametrize("min_effect", [0.3, 0.5])
def test_a_trend_against_its_prediction_has_a_finite_error_that_grows_with_the_wrong_way_effect(min_effect):
    """The error is max(p / alpha, 2 - effect / min_effect): 1 at the minimum effect, finite in the wrong
    direction (where min_effect / effect has no value), larger the further the effect goes that way."""
    falling = list(reversed(RISING))
    rule = TrendRule("increasing", min_effect=min_effect)
    strong, flat = trend_test(BATCHES, falling, rule), trend_test(BATCHES, [5.0, 6.0, 7.0] * 4, rule)
    assert strong.effect < 0 and math.isfinite(strong.error())
    assert strong.error() == pytest.approx(max(strong.p_predicted / rule.alpha, 2 - strong.effect / min_effect))
    assert strong.error() > flat.error() > 1.0
    with collecting() as evidence:
        check_trend(BATCHES, falling, rule, "rises")
    assert evidence.to_builtin()["counterexample"]["error"] == strong.error()


def test_check_trend_keeps_the_stronger_declared_verdict():
    with collecting() as evidence:
        check_trend(BATCHES, RISING, TrendRule("decreasing"), "refuted first")
        check_trend(BATCHES, [5.0, 6.0, 7.0] * 4, TrendRule("increasing"), "inconclusive next")
    assert evidence.to_builtin()["verdict"] == "refuted"


@NON_FINITE
def test_check_trend_never_passes_non_finite_responses(bad):
    with collecting(), pytest.raises(NonFiniteEvidence):
        check_trend(BATCHES, RISING[:-1] + [bad], TrendRule("increasing"), "nan")
    with collecting(), pytest.raises(NonFiniteEvidence):
        check_trend_rejected(BATCHES, RISING[:-1] + [bad], TrendRule("increasing"), "nan")


def test_check_trend_rejected_passes_permuted_labels_and_raises_on_a_real_trend():
    shuffled = permuted_levels(BATCHES, seed=0)
    assert sorted(shuffled) == sorted(BATCHES) and shuffled != BATCHES
    with collecting() as evidence:
        check_trend_rejected(shuffled, RISING, TrendRule("increasing"), "permuted")
    assert evidence.to_builtin()["counterexample"] is not None
    with collecting(), pytest.raises(ClaimViolation, match="negative control accepted"):
        check_trend_rejected(BATCHES, RISING, TrendRule("increasing"), "real trend")


def test_check_trend_needs_a_rule_object():
    with collecting(), pytest.raises(TypeError, match="TrendRule"):
        check_trend(BATCHES, RISING, "increasing", "no rule")


def test_check_trend_inside_a_finding_keeps_the_verdict_in_the_finding():
    with collecting() as evidence:
        with finding("another convention"):
            check_trend(BATCHES, RISING, TrendRule("decreasing"), "refuted in the finding")
        check_trend(BATCHES, RISING, TrendRule("increasing"), "verified")
    record = evidence.to_builtin()
    assert record["verdict"] is None and record["findings"]["another convention"]["verdict"] == "refuted"


def test_trend_test_with_a_minimum_slope_needs_the_effect_in_the_response_units():
    levels, responses = [0.0] * 4 + [1.0] * 4, [0.0, 0.1, 0.2, 0.1, 1.5, 1.6, 1.4, 1.7]
    assert trend_test(levels, responses, TrendRule("increasing")).verdict == "verified"
    short = trend_test(levels, responses, TrendRule("increasing", min_slope=2.0))
    assert short.verdict == "inconclusive" and 1.0 < short.error() and short.slope == pytest.approx(1.45)
    assert trend_test(levels, responses, TrendRule("increasing", min_slope=1.0)).verdict == "verified"
    with pytest.raises(ValueError, match="min_slope"):
        TrendRule("none", min_slope=1.0)


def test_permuted_levels_are_the_least_correlated_permutation_drawn():
    levels = [float(v) for v in (32, 64, 128, 256) for _ in range(9)]
    shuffled = permuted_levels(levels, seed=0)
    assert sorted(shuffled) == sorted(levels)
    assert abs(trend_test(levels, shuffled, TrendRule("increasing")).correlation) < 0.02
    assert permuted_levels(levels, seed=0) == shuffled  # fixed: ci reruns the same control


# ====================================================================================================
# What ``check_trend`` and ``check_trend_rejected`` record, field by field: the per-trend summary a
# comparison of two runs reads, the case (error against tolerance 1, relative), its note, the run count,
# and the verdict a finding keeps. Pinned after mutation testing found these unchecked
# (docs/mutation-testing.md).

FLAT = [5.0, 6.0, 7.0] * 4
SUMMARY_KEYS = {
    "statement",
    "control",
    "verdict",
    "p_predicted",
    "p_opposite",
    "alpha",
    "effect",
    "min_effect",
    "n",
    "detectable_effect",
    "uninformative",
    "direction",
    "effect_interval",
    "levels",
    "statistic",
    "rule",
    "scale",
}


def test_the_trend_summary_holds_every_number_a_comparison_reads():
    rule = TrendRule("increasing")
    with collecting() as evidence:
        trend = check_trend(BATCHES, RISING, rule, "rank rises")
    (summary,) = evidence.to_builtin()["trends"]
    assert set(summary) == SUMMARY_KEYS
    assert (
        summary["statement"] == "rank rises"
        and summary["control"] is False
        and summary["verdict"] == "verified"
    )
    assert summary["p_predicted"] == trend.p_predicted and summary["p_opposite"] == trend.p_opposite
    assert summary["alpha"] == rule.alpha and summary["min_effect"] == rule.min_effect
    assert summary["effect"] == trend.effect and summary["n"] == 12 and summary["levels"] == 4
    assert (
        summary["detectable_effect"] == trend.detectable_effect
        and summary["uninformative"] == trend.uninformative
    )
    assert summary["direction"] == "increasing" and summary["statistic"] == rule.statistic
    assert summary["effect_interval"] == list(trend.effect_interval)
    # the rule and the scale as the note states them, for the report to name once ("rule R1"); no scale given: none
    assert summary["rule"] == rule.describe() and f"; rule: {rule.describe()})" in evidence.notes[-1]
    assert summary["scale"] is None


def test_a_trend_summary_holds_its_scale_as_its_note_states_it_the_memos_with_it():
    with collecting() as evidence:
        check_trend(BATCHES, RISING, TrendRule("increasing"), "rank rises", scale={"data": "toy", "seeds": 3},
                    memo_scale="MNIST")
    (summary,) = evidence.to_builtin()["trends"]
    assert summary["scale"] == "data toy, seeds 3; the memo's scale: MNIST"
    assert evidence.notes[-1].endswith(f"; scale used: {summary['scale']}.")


def test_a_trend_case_is_its_error_against_tolerance_one_relative_with_its_design():
    with collecting() as evidence:
        trend = check_trend(BATCHES, RISING, TrendRule("increasing"), "rank rises", scale="toy")
    record = evidence.to_builtin()
    holding = record["holding"]
    assert holding["error"] == trend.error() and holding["tolerance"] == 1.0
    details = holding["details"]
    assert details["error_scale"] == "relative" and set(record["by_kind"]) == {"trend"}
    assert details["statement"] == "rank rises" and details["design_levels"] == BATCHES
    assert details["responses"] == RISING and details["scale"] == "toy"
    assert record["cases"] == 12 and record["unit"] == "runs"  # one case per run


def test_a_control_summary_says_control_and_is_a_rejected_case():
    shuffled = [16.0, 64.0, 8.0, 32.0, 8.0, 64.0, 16.0, 32.0, 64.0, 8.0, 32.0, 16.0]
    with collecting(role=Role.CONTROL) as evidence:
        check_trend_rejected(shuffled, RISING, TrendRule("increasing"), "permuted")
    record = evidence.to_builtin()
    (summary,) = record["trends"]
    assert summary["control"] is True and summary["statement"] == "permuted"
    assert record["counterexample"] is not None and record["holding"] is None


@pytest.mark.parametrize("runs, ok", [(0, False), (1, True), (12, True), (13, False)])
def test_runs_lie_between_one_and_the_number_of_responses(runs, ok):
    with collecting() as evidence:
        if ok:
            check_trend(BATCHES, RISING, TrendRule("increasing"), "rank rises", runs=runs)
        else:
            with pytest.raises(ValueError, match=f"from 1 to 12 runs, not {runs}"):
                check_trend(BATCHES, RISING, TrendRule("increasing"), "rank rises", runs=runs)
    if ok:
        assert evidence.to_builtin()["cases"] == runs


def test_the_note_gives_the_numbers_the_runs_and_the_scale_used():
    rule = TrendRule("increasing")
    with collecting() as evidence:
        trend = check_trend(
            BATCHES,
            RISING,
            rule,
            "rank rises",
            runs=6,
            scale={"batch_size": 8, "levels": [1, 2], "base": 0},
            memo_scale="B = 128",
        )
    (note,) = evidence.to_builtin()["notes"]
    low, high = trend.effect_interval
    assert note == (
        f"Trend 'rank rises': verified ({rule.statistic} {format_number(trend.correlation, signed=True)}, "
        f"effect {format_number(trend.effect, signed=True)} [{format_number(low, signed=True)}, "
        f"{format_number(high, signed=True)}], "
        f"one-sided p {format_number(trend.p_predicted)} predicted / {format_number(trend.p_opposite)} opposite, "
        f"12 responses of 6 runs at 4 levels; rule: {rule.describe()}); the design detects effects of "
        f"{format_number(trend.detectable_effect)} or more with power 0.8 (not the rule's minimum effect 0.3: smaller "
        "effects can go undetected); scale used: batch size 8; the memo's scale: B = 128."
    )
    assert trend.detectable_effect > rule.min_effect  # so the parenthesis belongs in this note
    with collecting() as evidence:
        check_trend(BATCHES, RISING, rule, "rank rises")
    assert "12 runs at 4 levels" in evidence.to_builtin()["notes"][0]
    assert "scale used" not in evidence.to_builtin()["notes"][0]


def test_a_finding_keeps_its_strongest_trend_verdict_in_either_order():
    refuting, inconclusive = (RISING, TrendRule("decreasing")), (FLAT, TrendRule("increasing"))
    assert trend_test(BATCHES, *refuting).verdict == "refuted"
    assert trend_test(BATCHES, *inconclusive).verdict == "inconclusive"
    for first, second in ((refuting, inconclusive), (inconclusive, refuting)):
        with collecting() as evidence:
            with finding("two trends"):
                check_trend(BATCHES, first[0], first[1], "first")
                check_trend(BATCHES, second[0], second[1], "second")
        record = evidence.to_builtin()
        assert record["findings"]["two trends"]["verdict"] == "refuted" and record["verdict"] is None
    with collecting() as evidence:
        with finding("one inconclusive"):
            check_trend(BATCHES, *inconclusive, "only")
            check_trend(BATCHES, RISING, TrendRule("increasing"), "verified")  # does not clear it
    assert evidence.to_builtin()["findings"]["one inconclusive"]["verdict"] == "inconclusive"


def test_a_refuted_trend_declares_unless_told_not_to():
    with collecting() as evidence:
        check_trend(BATCHES, RISING, TrendRule("decreasing"), "falls", declare=False)
    assert evidence.to_builtin()["verdict"] is None
    with collecting() as evidence:
        check_trend(BATCHES, RISING, TrendRule("decreasing"), "falls")
    assert evidence.to_builtin()["verdict"] == "refuted"


@pytest.mark.parametrize(
    "name, levels, responses",
    [
        ("levels", BATCHES[:-1] + [float("nan")], RISING),
        ("responses", BATCHES, RISING[:-1] + [float("inf")]),
    ],
)
def test_a_non_finite_input_names_what_and_which_check(name, levels, responses):
    from claims.evidence._record import NonFiniteEvidence

    for check in (check_trend, check_trend_rejected):
        with (
            collecting(),
            pytest.raises(NonFiniteEvidence, match=f"^{check.__name__}: {name} has a non-finite entry"),
        ):
            check(levels, responses, TrendRule("increasing"), "bad")


def test_a_control_that_comes_out_verified_raises_with_its_numbers():
    with collecting(role=Role.CONTROL), pytest.raises(ClaimViolation, match="negative control accepted: 'real'"):
        check_trend_rejected(BATCHES, RISING, TrendRule("increasing"), "real")


def test_outside_a_claim_test_check_trend_names_itself():

    for check in (check_trend, check_trend_rejected):
        with pytest.raises(OutsideClaimTest, match=r"^check_trend"):
            check(BATCHES, RISING, TrendRule("increasing"), "outside")


def test_the_note_joins_several_scale_entries_and_adds_nothing_without_a_scale():
    rule = TrendRule("increasing")
    with collecting() as evidence:
        check_trend(BATCHES, RISING, rule, "rank rises", scale={"batch_size": 8, "width": 32})
    assert "; scale used: batch size 8, width 32." in evidence.to_builtin()["notes"][0]
    with collecting() as evidence:
        trend = check_trend(BATCHES, RISING, rule, "rank rises")
    assert evidence.to_builtin()["notes"][0].endswith(
        f"12 runs at 4 levels; rule: {rule.describe()}); the design detects effects of "
        f"{format_number(trend.detectable_effect)} "
        "or more with power 0.8 (not the rule's minimum effect 0.3: smaller effects can go undetected).")
    assert trend.verdict == "verified"


def test_a_design_that_detects_exactly_the_rules_minimum_effect_is_not_said_to_miss_smaller_ones():
    """The power sentence warns only when the detectable effect is above the rule's minimum effect: at
    equality the design detects every effect the rule calls an effect."""
    detectable = detectable_effect(BATCHES, TrendRule("increasing"))
    # the detectable effect depends on the design, alpha and seed, not on min_effect
    rule = TrendRule("increasing", min_effect=detectable)
    with collecting() as evidence:
        trend = check_trend(BATCHES, RISING, rule, "rank rises")
    assert trend.detectable_effect == detectable
    assert evidence.to_builtin()["notes"][0].endswith(
        f"the design detects effects of {format_number(detectable)} or more with power 0.8.")



# --- check_trend with a rounding replica ------------------------------------------------------------


FALLING = list(reversed(RISING))
FLAT = [5.0, 6.0, 7.0] * 4


def test_a_trend_whose_rounding_replica_agrees_is_a_case_with_the_replicas_numbers():
    with collecting() as evidence:
        trend = check_trend(BATCHES, FALLING, TrendRule("increasing"), "rank rises with the batch size",
                            replica=(BATCHES, [v + 0.01 for v in FALLING], "float32"))
    record = evidence.to_builtin()
    assert trend.verdict == "refuted" and trend.uninformative is None and record["verdict"] == "refuted"
    details = record["counterexample"]["details"]
    assert details["replica"] == "float32" and details["replica_verdict"] == "refuted"
    assert details["replica_n"] == len(BATCHES) and details["replica_p_opposite"] <= 0.05


@pytest.mark.parametrize("replicated", [FLAT, RISING])
def test_a_trend_whose_rounding_replica_disagrees_is_undecided_never_refuted(replicated):
    with collecting() as evidence:
        trend = check_trend(BATCHES, FALLING, TrendRule("increasing"), "rank rises with the batch size",
                            replica=(BATCHES, replicated, "float32 arithmetic, the same seeds"))
    record = evidence.to_builtin()
    assert trend.verdict == "inconclusive" and record["verdict"] == "inconclusive"
    assert record["counterexample"] is None and record["informative"] == 0
    assert trend.uninformative.startswith("undecided: the verdict changes under a rounding-level perturbation "
                                          "(float32 arithmetic, the same seeds): refuted")
    assert any("undecided" in note for note in record["notes"])


def test_an_undecided_trend_in_a_finding_leaves_the_finding_inconclusive():
    with collecting() as evidence:
        with finding("fixed steps"):
            check_trend(BATCHES, FALLING, TrendRule("increasing"), "rank rises", replica=(BATCHES, FLAT, "float32"))
    record = evidence.to_builtin()
    assert record["verdict"] is None and record["findings"]["fixed steps"]["verdict"] == "inconclusive"
