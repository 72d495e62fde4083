"""``trend_test``'s verdict rules (``TrendRule``'s docstring) pinned at their boundaries on exact designs.

Four runs at four levels give exact permutation p-values, multiples of 1/24 (one of the 24 orders has
Spearman's rho = 1, four have rho >= 0.8), and, with one run per level, a bootstrap interval that is
the single point (rho, rho). So each rule can be met with equality: a p-value equal to alpha is
significant, an effect equal to min_effect counts, an equivalence interval touching +-min_effect is not
inside it. Pinned after mutation testing found these boundaries unchecked (docs/mutation-testing.md).
"""

from __future__ import annotations

from claims.evidence._trend import TrendRule, trend_test

LEVELS = [1.0, 2.0, 3.0, 4.0]
RISING = [1.0, 2.0, 3.0, 4.0]  # rho = 1: p = 1/24 in the rising direction
FALLING = [4.0, 3.0, 2.0, 1.0]  # rho = -1
ONE_SWAP = [1.0, 2.0, 4.0, 3.0]  # rho = 0.8: p = 4/24 rising, two-sided 1/3
ONE_SWAP_FALLING = [4.0, 3.0, 1.0, 2.0]  # rho = -0.8


def verdict(responses, direction, **rule) -> str:
    return trend_test(LEVELS, responses, TrendRule(direction, **rule)).verdict


def test_the_designs_have_the_stated_exact_statistics():
    rising, one_swap = trend_test(LEVELS, RISING, TrendRule("none")), trend_test(LEVELS, ONE_SWAP, TrendRule("none"))
    assert (rising.correlation, rising.p_predicted, rising.p_two_sided, rising.exact) == (1.0, 1 / 24, 1 / 12, True)
    assert (one_swap.correlation, one_swap.p_predicted, one_swap.p_two_sided) == (0.8, 4 / 24, 1 / 3)
    assert rising.effect_interval == (1.0, 1.0) and one_swap.effect_interval == (0.8, 0.8)


# --- increasing / decreasing ---------------------------------------------------------------------------


def test_a_predicted_p_equal_to_alpha_verifies():
    assert verdict(RISING, "increasing", alpha=1 / 24, min_effect=0.5) == "verified"
    assert verdict(FALLING, "decreasing", alpha=1 / 24, min_effect=0.5) == "verified"


def test_an_effect_equal_to_the_minimum_effect_verifies():
    assert verdict(ONE_SWAP, "increasing", alpha=0.25, min_effect=0.8) == "verified"
    assert verdict(ONE_SWAP, "increasing", alpha=0.25, min_effect=0.8 + 2**-20) == "inconclusive"


def test_an_opposite_p_equal_to_alpha_refutes():
    assert verdict(FALLING, "increasing", alpha=1 / 24, min_effect=0.5) == "refuted"
    assert verdict(RISING, "decreasing", alpha=1 / 24, min_effect=0.5) == "refuted"


# --- none (equivalence) ---------------------------------------------------------------------------------


def test_an_equivalence_interval_touching_either_end_is_not_inside():
    # interval (0.8, 0.8) and (-0.8, -0.8) against (-0.8, 0.8); two-sided p 1/3 > alpha: inconclusive
    assert verdict(ONE_SWAP, "none", min_effect=0.8) == "inconclusive"
    assert verdict(ONE_SWAP_FALLING, "none", min_effect=0.8) == "inconclusive"
    assert verdict(ONE_SWAP, "none", min_effect=0.8 + 2**-20) == "verified"


def test_an_equivalence_interval_must_clear_its_lower_end_too():
    """Two runs at each of four levels, falling on the whole: rho about -0.44, interval about
    (-0.79, -0.19): its upper end is inside (-0.5, 0.5), its lower end is not."""
    trend = trend_test([1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0], [6.0, 8.0, 7.0, 1.0, 2.0, 3.0, 5.0, 4.0],
                       TrendRule("none", min_effect=0.5))
    low, high = trend.effect_interval
    assert low < -0.6 and -0.4 < high < -0.1
    assert trend.verdict == "inconclusive"


def test_an_equivalence_is_refuted_at_a_two_sided_p_equal_to_alpha():
    assert verdict(RISING, "none", alpha=1 / 12, min_effect=0.5) == "refuted"
    assert verdict(FALLING, "none", alpha=1 / 12, min_effect=0.5) == "refuted"


def test_the_two_sided_p_is_twice_the_smaller_one_sided_p():
    # two-sided 1/12 refutes at alpha 0.1; three times 1/24 (0.125) would not
    assert verdict(RISING, "none", alpha=0.1, min_effect=0.5) == "refuted"


def test_an_equivalence_is_refuted_at_an_effect_equal_to_the_minimum_effect():
    # interval (0.8, 0.8) is not inside (-0.8, 0.8); two-sided p 1/3 <= alpha 0.4
    assert verdict(ONE_SWAP, "none", alpha=0.4, min_effect=0.8) == "refuted"


def test_an_equivalence_is_refuted_only_when_significant_and_large():
    # |effect| 0.8 >= 0.5 but two-sided p 1/3 > alpha 0.05: inconclusive, not refuted
    assert verdict(ONE_SWAP, "none", alpha=0.05, min_effect=0.5) == "inconclusive"
