"""What ``check_trend`` and ``check_trend_rejected`` record, field by field: the per-trend summary a
comparison of two runs reads, the case (error against tolerance 1, relative), its note, the run count,
and the verdict a finding keeps. Pinned after mutation testing found these unchecked (README,
"Mutation testing")."""

from __future__ import annotations

import pytest

from claims.checks import check_trend, check_trend_rejected
from claims.evidence._record import ClaimViolation, collecting, finding
from claims.evidence._trend import TrendRule, detectable_effect, trend_test

BATCHES = [8.0] * 3 + [16.0] * 3 + [32.0] * 3 + [64.0] * 3
RISING = [5.0, 6.0, 5.5, 7.0, 8.0, 7.5, 9.0, 10.0, 9.5, 12.0, 11.0, 13.0]
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
    with collecting(control=True) as evidence:
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
        f"Trend 'rank rises': verified ({rule.statistic} {trend.correlation:+.3f}, "
        f"effect {trend.effect:+.3f} [{low:+.3f}, {high:+.3f}], "
        f"one-sided p {trend.p_predicted:.3g} predicted / {trend.p_opposite:.3g} opposite, "
        f"12 responses of 6 runs at 4 levels; rule: {rule.describe()}); the design detects effects of "
        f"{trend.detectable_effect:.2f} or more with power 0.8 (not the rule's minimum effect 0.3: smaller effects "
        "can go undetected); scale used: batch size 8; the memo's scale: B = 128."
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
    with collecting(control=True), pytest.raises(ClaimViolation, match="negative control accepted: 'real'"):
        check_trend_rejected(BATCHES, RISING, TrendRule("increasing"), "real")


def test_outside_a_claim_test_check_trend_names_itself():
    from claims.evidence._record import OutsideClaimTest

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
        f"12 runs at 4 levels; rule: {rule.describe()}); the design detects effects of {trend.detectable_effect:.2f} "
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
        f"the design detects effects of {detectable:.2f} or more with power 0.8.")
