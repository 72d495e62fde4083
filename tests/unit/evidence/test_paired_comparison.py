"""``claims.evidence._paired`` and ``claims.checks.check_paired``: the signed-rank test of two responses of each
run (GP22 App. A's profile, each end of the stack against its middle), its effect, power, saturation and control."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import wilcoxon

from claims.checks import check_paired, check_paired_rejected
from claims.evidence._paired import paired_detectable_effect, paired_test, swapped_pairs
from claims.evidence._record import ClaimViolation, collecting
from claims.evidence._trend import TrendRule

RULE = TrendRule("increasing", statistic="signed_rank")
ABOVE = [3.0, 4.0, 2.5, 5.0, 3.5, 6.0, 2.25, 4.5, 3.0, 5.5, 4.0, 3.75]
MIDDLE = [2.0] * 12


def test_every_run_above_is_verified_with_effect_one_and_an_exact_p():
    trend = paired_test(ABOVE, MIDDLE, RULE)
    assert trend.verdict == "verified" and trend.effect == 1.0 and trend.exact
    assert trend.p_predicted == pytest.approx(1 / 2**12) and trend.p_opposite == 1.0
    assert trend.slope == pytest.approx(np.median(np.subtract(ABOVE, MIDDLE)))


def test_the_end_below_the_middle_is_refuted():
    trend = paired_test(MIDDLE, ABOVE, RULE)
    assert trend.verdict == "refuted" and trend.effect == -1.0


def test_the_p_value_is_wilcoxons_exact_one_sided_p():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.4, 1, 12), rng.normal(0, 1, 12)
    trend = paired_test(list(a), list(b), RULE)
    assert trend.p_predicted == pytest.approx(wilcoxon(a, b, alternative="greater", method="exact").pvalue)


def test_zero_differences_dilute_the_effect_and_carry_no_sign():
    trend = paired_test([3.0, 3.0, 2.0, 2.0, 5.0, 4.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0], RULE)
    # ranks of |d| = (1, 1, 0, 0, 3, 2): zeros take ranks 1.5, 1.5, positives 4.5, 4.5, 6, 3... of 21 in all
    assert 0 < trend.effect < 1


def test_tied_and_saturated_pairs_are_uninformative():
    assert "tied" in paired_test(MIDDLE, MIDDLE, RULE).uninformative
    capped = TrendRule("increasing", statistic="signed_rank", ceiling=32.0, saturation_band=0.5)
    full = paired_test([32.0] * 6, [32.0] * 5 + [31.0], capped)
    assert "saturated: 5 of 6" in full.uninformative


def test_the_detectable_effect_falls_with_the_runs():
    small, large = paired_detectable_effect(12, RULE), paired_detectable_effect(40, RULE)
    assert 0 < large < small < 1


def test_a_trend_rule_is_refused_and_a_paired_rule_is_refused_by_the_trend_test():
    with pytest.raises(ValueError):
        paired_test(ABOVE, MIDDLE, TrendRule("increasing"))
    from claims.evidence._trend import trend_test

    with pytest.raises(ValueError):
        trend_test([0, 0, 1, 1], [1, 2, 3, 4], RULE)


def test_swapped_pairs_exchange_half_the_runs():
    first, second = swapped_pairs(ABOVE, MIDDLE)
    assert sorted(first + second) == sorted(ABOVE + MIDDLE)
    assert sum(f < s for f, s in zip(first, second)) == len(ABOVE) // 2


def test_check_paired_records_a_case_counting_runs_and_its_control_rejects():
    with collecting() as evidence:
        check_paired(ABOVE, MIDDLE, RULE, "the end is above the middle")
        check_paired_rejected(*swapped_pairs(ABOVE, MIDDLE), RULE, "swapped")
    data = evidence.to_builtin()
    assert [t["statistic"] for t in data["trends"]] == ["signed_rank", "signed_rank"]
    assert data["trends"][0]["verdict"] == "verified" and data["trends"][1]["verdict"] != "verified"
    with collecting(), pytest.raises(ClaimViolation):
        check_paired_rejected(ABOVE, MIDDLE, RULE, "not swapped")
