"""The statistics under ``claims.evidence._trend`` checked against independent references at small exact
designs: the correlations (Pearson's on the given ranks, row by row, so Spearman's when given ranks;
Kendall's tau-b) against scipy, their value on constant rows (0, never NaN, never left unwritten), the
permutation p-values, the detectable effect, saturation and the negative control's permuted levels.
Pinned after mutation testing found these unchecked (docs/mutation-testing.md)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr, rankdata, theilslopes

from claims.evidence._numbers import format_number
from claims.evidence._trend import (
    TrendRule,
    _correlations,
    _orders,
    _permutation_p,
    _seeded_orders,
    _slope_reaches,
    detectable_effect,
    saturation,
    trend_test,
)

TIED_LEVELS = np.array([1.0, 1.0, 2.0, 3.0, 3.0, 3.0])
ROWS = np.array([[1.0, 2.0, 2.0, 4.0, 5.0, 6.0], [6.0, 5.0, 5.0, 3.0, 2.0, 1.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0]])


# ---- _correlations ----


def test_the_spearman_branch_is_pearsons_correlation_of_the_given_ranks_row_by_row():
    # rows on different offsets and scales: each row is centred and scaled on its own
    rows = ROWS * np.array([[0.01], [1.0], [100.0]]) + np.array([[0.0], [5.0], [-3.0]])
    expected = [pearsonr(TIED_LEVELS, row).statistic for row in rows]
    np.testing.assert_allclose(_correlations(TIED_LEVELS, rows, "spearman"), expected, rtol=1e-13)


def test_the_kendall_branch_is_tau_b_row_by_row():
    expected = [kendalltau(TIED_LEVELS, row, variant="b").statistic for row in ROWS]
    np.testing.assert_allclose(_correlations(TIED_LEVELS, ROWS, "kendall"), expected, rtol=1e-13)
    # tau-b, not tau-a: with ties on both sides the pair counts of each side are in the denominator
    assert _correlations(TIED_LEVELS, ROWS[2:], "kendall")[0] == pytest.approx(12 / np.sqrt(22 * 16), rel=1e-14)


@pytest.mark.parametrize("statistic", ["spearman", "kendall"])
def test_both_statistics_take_any_leading_shape(statistic):
    batched = np.stack([ROWS, ROWS[::-1]])  # shape (2, 3, 6)
    flat = _correlations(TIED_LEVELS, ROWS, statistic)
    np.testing.assert_allclose(_correlations(TIED_LEVELS, batched, statistic), [flat, flat[::-1]], rtol=1e-14)
    np.testing.assert_allclose(_correlations(TIED_LEVELS, ROWS[1], statistic), flat[1], rtol=1e-14)


@pytest.mark.parametrize("statistic", ["spearman", "kendall"])
def test_two_runs_are_perfectly_correlated_or_anticorrelated(statistic):
    # the smallest design: Spearman's sums of squares are 1/2 each, so the denominator is 1/2
    ranks = np.array([1.0, 2.0])
    assert _correlations(ranks, np.array([[1.0, 2.0], [2.0, 1.0]]), statistic).tolist() == [1.0, -1.0]


@pytest.mark.parametrize("statistic", ["spearman", "kendall"])
def test_integer_ranks_give_float_correlations(statistic):
    values = _correlations(np.array([1, 2, 3, 4]), np.array([[1, 2, 3, 4], [4, 3, 1, 2]]), statistic)
    assert values.dtype == np.float64 and values[0] == 1.0 and values[1] < 0


@pytest.mark.parametrize("statistic", ["spearman", "kendall"])
def test_a_constant_side_has_correlation_zero_every_time(statistic):
    # np.divide's `where` leaves the other entries as `out` holds them: they must be written as 0. The
    # buffer a previous call freed (holding nonzero correlations) is what an unwritten output would show.
    constant = np.full((3, 6), 2.0)
    for _ in range(20):
        assert np.all(_correlations(TIED_LEVELS, ROWS, statistic) != 0)
        assert _correlations(TIED_LEVELS, constant, statistic).tolist() == [0.0, 0.0, 0.0]
        assert _correlations(np.full(6, 3.0), ROWS, statistic).tolist() == [0.0, 0.0, 0.0]
    for rows in (130, 200, 1000):  # batches past numpy's small-block cache: malloc's reuse differs
        alternating = np.tile([ROWS[0], np.full(6, 2.0)], (rows // 2, 1))
        assert not np.any(_correlations(TIED_LEVELS, alternating, statistic)[1::2])
        assert not np.any(_correlations(np.full(6, 3.0), alternating, statistic))


# ---- _permutation_p and _orders ----

SLACK = 1e-12  # _permutation_p's rounding slack: ties of the statistic with itself count as at least as extreme


def _offset_to(value: float, offset: float) -> float:
    """A float o with o - offset == value exactly in float64 (searched among the neighbours of value + offset)."""
    start = value + offset
    for direction in (math.inf, -math.inf):
        candidate = start
        for _ in range(64):
            if candidate - offset == value:
                return candidate
            candidate = math.nextafter(candidate, direction)
    raise AssertionError(f"no float o with o - {offset} == {value}")


def test_an_exact_p_is_the_share_of_all_orders_at_least_as_extreme_each_way():
    rule = TrendRule("increasing")
    ranks = rankdata([1.0, 2.0, 3.0, 4.0])
    assert _permutation_p(ranks, np.array([1.0, 2.0, 3.0, 4.0]), 1.0, rule) == (1 / 24, 1.0, True)
    assert _permutation_p(ranks, np.array([4.0, 3.0, 2.0, 1.0]), -1.0, rule) == (1.0, 1 / 24, True)
    # one swap: rho = 0.8, reached by 4 of the 24 orders (Kendall's tau of the same orders: 1 reaches 2/3)
    swapped = np.array([1.0, 3.0, 2.0, 4.0])
    observed = float(_correlations(ranks, swapped[None, :], "spearman")[0])
    assert _permutation_p(ranks, swapped, observed, rule) == (4 / 24, 23 / 24, True)


def test_a_null_value_exactly_at_the_slack_boundary_counts_as_at_least_as_extreme():
    rule = TrendRule("increasing")
    ranks, rising = rankdata([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 2.0, 3.0, 4.0])
    null = _correlations(ranks, (_seeded_orders(4, rule.resamples, rule.seed)[0] + 1).astype(float), "spearman")
    top = float(null.max())  # the identity order: one of 24
    below = float(null[null < top].max())  # the next value: 3 of 24 orders
    greater, _, _ = _permutation_p(ranks, rising, _offset_to(top, SLACK), rule)
    assert greater == 1 / 24  # observed - slack is the top value itself: counted
    _, less, _ = _permutation_p(ranks, rising, _offset_to(below, -SLACK), rule)
    assert less == 1 - 1 / 24  # observed + slack is the next value: every order but the identity
    assert int((null == below).sum()) == 3


def test_a_monte_carlo_p_is_one_plus_the_count_over_one_plus_the_resamples():
    rule = TrendRule("increasing", resamples=99, seed=3)  # 5! = 120 orders > 99: random ones
    ranks = rankdata([1.0, 2.0, 3.0, 4.0, 5.0])
    orders, exact = _seeded_orders(5, 99, 3)
    identities = int((orders == np.arange(5)).all(axis=1).sum())
    assert not exact
    assert _permutation_p(ranks, np.arange(5.0), 1.0, rule) == ((1 + identities) / 100, 1.0, False)
    assert _permutation_p(ranks, -np.arange(5.0), -1.0, rule) == (1.0, (1 + identities) / 100, False)


def test_the_random_orders_are_the_rules_seeded_permutations():
    for seed in (0, 1):
        orders, exact = _orders(6, TrendRule("increasing", resamples=99, seed=seed))
        reference = np.random.default_rng(seed).permuted(np.tile(np.arange(6), (99, 1)), axis=1)
        assert not exact and np.array_equal(orders, reference)
    orders, exact = _orders(4, TrendRule("increasing", resamples=99))
    assert exact and sorted(map(tuple, orders.tolist())) == sorted(itertools.permutations(range(4)))


# ---- detectable_effect ----


def test_the_detectable_effect_is_fixed_by_the_rule_seed():
    levels = [float(level) for level in range(16)]  # distinct levels: fine-grained correlations
    first = detectable_effect(levels, TrendRule("increasing", resamples=999))
    assert detectable_effect(levels, TrendRule("increasing", resamples=999)) == first
    assert detectable_effect(levels, TrendRule("increasing", resamples=999, seed=1)) != first


def test_a_direct_call_reads_the_levels_as_trend_test_does_in_float64():
    # integers past 2**53 round to ties in float64, as trend_test's levels do before it calls detectable_effect
    levels = [2**53 + k for k in range(8)]
    rule = TrendRule("increasing", resamples=999)
    assert detectable_effect(levels, rule) == detectable_effect(np.asarray(levels, dtype=float), rule)
    assert detectable_effect(levels, rule) != detectable_effect(list(range(8)), rule)


def _reference_detectable_effect(levels: list[float], alpha: float, seed: int, power: float = 0.8) -> float | None:
    """detectable_effect as its docstring states it, for an exact design, on scipy's ranks: responses
    s * standardized level ranks + the rule's Gaussian noise (seed + 2, 400 designs per s, s on the
    geometric grid from 0.05 to 50), the exact one-sided p of each, the first s whose power reaches
    ``power``, and the median correlation there."""
    x = rankdata(levels)
    n = len(x)

    def pearson_rows(rows: np.ndarray) -> np.ndarray:
        xc, yc = x - x.mean(), rows - rows.mean(axis=1, keepdims=True)
        return (yc @ xc) / np.sqrt((xc @ xc) * (yc**2).sum(axis=1))

    null = pearson_rows(np.array(list(itertools.permutations(range(1, n + 1))), dtype=float))
    standardized = (x - x.mean()) / x.std()
    noise = np.random.default_rng(seed + 2).standard_normal((400, n))
    for signal in np.geomspace(0.05, 50.0, 61):
        observed = pearson_rows(rankdata(signal * standardized + noise, axis=1))
        p = (null[None, :] >= observed[:, None] - 1e-12).mean(axis=1)
        if np.mean(p <= alpha) >= power:
            return float(np.median(observed))
    return None


def test_the_detectable_effect_follows_its_stated_simulation():
    levels = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    for alpha, seed in ((0.05, 0), (0.25, 5)):
        expected = _reference_detectable_effect(levels, alpha, seed)
        assert expected is not None
        assert detectable_effect(levels, TrendRule("increasing", alpha=alpha, seed=seed)) == pytest.approx(
            expected, abs=1e-12
        )


def test_a_monte_carlo_design_detects_nothing_below_its_smallest_p():
    # 99 random orders: the smallest Monte Carlo p is (1 + 0) / (1 + 99) = 0.01, reached at a strong signal
    levels = [float(level) for level in range(20)]
    assert detectable_effect(levels, TrendRule("increasing", alpha=0.01, resamples=99)) is not None
    assert detectable_effect(levels, TrendRule("increasing", alpha=0.00995, resamples=99)) is None


# ---- saturation ----


def test_saturation_reads_the_responses_in_float64_as_trend_test_does():
    # two integers past 2**53 that float64 rounds to one value: tied, as trend_test would see them
    tied = f"the responses are tied (all {format_number(2.0**53)})"
    assert saturation([2**53, 2**53 + 1] * 3, TrendRule("increasing")) == tied


def test_tied_responses_are_named_by_their_value_one_response_included():
    assert saturation([3.0], TrendRule("increasing")) == "the responses are tied (all 3)"
    # 0.0 and -0.0 are one value: the text names the first response's
    assert saturation([0.0, -0.0, -0.0, 0.0], TrendRule("increasing")) == "the responses are tied (all 0)"


# ---- _slope_reaches: the Theil-Sen interval's near end against min_slope ----


def test_the_slope_interval_is_read_at_its_near_end_signed_toward_the_prediction():
    assert _slope_reaches(1.0, (0.5, 2.0), 0.5) and not _slope_reaches(1.0, (0.25, 2.0), 0.5)
    assert not _slope_reaches(1.0, (2.0, 0.25), 0.5)  # either end may be the near one
    assert _slope_reaches(-1.0, (-2.0, -0.5), 0.5) and not _slope_reaches(-1.0, (-2.0, -0.25), 0.5)
    assert not _slope_reaches(1.0, None, 0.5)  # no interval (a design too small for scipy's): not shown


# ---- trend_test: its inputs ----


def test_trend_test_refuses_a_design_too_small_with_its_reason():
    rule = TrendRule("increasing")
    with pytest.raises(ValueError, match=r"^a trend needs at least 4 runs at 2 or more levels$"):
        trend_test([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], rule)
    with pytest.raises(ValueError, match=r"^one response per level: \(4,\) levels, \(3,\) responses$"):
        trend_test([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0], rule)


def test_trend_test_reads_levels_and_responses_in_float64():
    # integers past 2**53 that float64 rounds together: 4 integer levels are 3 float64 levels, and two
    # integer responses are one float64 value (tied responses)
    levels = [2**53 + k for k in range(4)] * 2
    trend = trend_test(levels, [1.0, 2.0, 3.0, 4.0, 2.0, 3.0, 4.0, 5.0], TrendRule("increasing", resamples=999))
    assert trend.levels == 3
    tied = trend_test([1.0, 2.0, 3.0, 4.0] * 2, [2**53, 2**53 + 1] * 4, TrendRule("increasing", resamples=999))
    assert tied.uninformative == f"the responses are tied (all {format_number(2.0**53)})" and tied.correlation == 0.0


# ---- trend_test: the effect's sign and the Theil-Sen slope ----


def test_a_decreasing_prediction_signs_the_effect_without_scaling_it():
    trend = trend_test([1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0], TrendRule("decreasing"))
    assert trend.correlation == -1.0 and trend.effect == 1.0
    assert trend.p_predicted == 1 / 24 and trend.p_opposite == 1.0  # the lower tail is the predicted one
    assert -1.0 <= trend.effect_interval[0] <= trend.effect_interval[1] <= 1.0


def test_the_theil_sen_slope_of_two_response_values_is_scipys():
    trend = trend_test([1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0], TrendRule("increasing"))
    assert (trend.slope, trend.slope_interval) == (1.0, (1.0, 1.0))


def test_tied_responses_have_slope_zero_with_a_zero_interval():
    trend = trend_test([1.0, 1.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0], TrendRule("increasing"))
    assert (trend.slope, trend.slope_interval) == (0.0, (0.0, 0.0))


def test_a_design_too_small_for_scipys_slope_interval_has_none_and_no_warning():
    # scipy's interval takes the sqrt of a negative variance here (NaN); pytest turns warnings into errors
    trend = trend_test([1.0, 1.0, 1.0, 1.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0], TrendRule("increasing"))
    assert trend.slope == 1.0 and trend.slope_interval is None


def test_the_slope_interval_has_the_rules_confidence():
    levels, responses = [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0], [1.0, 3.0, 2.0, 5.0, 4.0, 7.0, 6.0, 9.0]
    for confidence in (0.5, 0.9):
        reference = theilslopes(responses, levels, alpha=confidence)
        trend = trend_test(levels, responses, TrendRule("increasing", confidence=confidence))
        assert trend.slope_interval == (reference.low_slope, reference.high_slope)
    assert trend_test(levels, responses, TrendRule("increasing", confidence=0.5)).slope_interval != trend.slope_interval
