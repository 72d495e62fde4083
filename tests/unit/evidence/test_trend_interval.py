"""The trend effect's bootstrap interval (claims.evidence._trend): redrawing responses within a level
duplicates them, which inflates |correlation|; the interval is the percentile interval shifted by the
bootstrap's median bias, so that it holds the estimate."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import rankdata, spearmanr

from claims.evidence._trend import TrendRule, _bootstrap_interval, trend_test

# Four levels, four seeds each, perfectly separated: the estimate is below 1 only because the levels are
# tied, and every resample with a duplicate response ties some of them too, so it is larger.
LEVELS = np.repeat([1.0, 2.0, 3.0, 4.0], 4)
SEPARATED = np.arange(16.0)


def _spearman_rows(x, y):
    """Spearman's correlation of each row of ``x`` with the same row of ``y``: Pearson's correlation of their
    average ranks (scipy's rankdata), what scipy's spearmanr computes one pair at a time (~1 ms a call)."""
    rx, ry = rankdata(x, axis=1), rankdata(y, axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    return (rx * ry).sum(axis=1) / np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))


def _percentile_interval(x, y, confidence=0.90, draws=4000, seed=11):
    """An independent within-level bootstrap (scipy's ranks), uncorrected: what the interval was."""
    rng = np.random.default_rng(seed)
    groups = [np.flatnonzero(x == level) for level in np.unique(x)]
    index = np.array([np.concatenate([rng.choice(g, len(g)) for g in groups]) for _ in range(draws)])
    values = _spearman_rows(x[index], y[index])
    tail = (1 - confidence) / 2
    return np.quantile(values, [tail, 1 - tail])


def test_the_interval_holds_the_estimate_where_within_level_resampling_inflates_it():
    trend = trend_test(LEVELS, SEPARATED, TrendRule("increasing"))
    raw_low, raw_high = _percentile_interval(LEVELS, SEPARATED)
    assert raw_low > trend.effect  # the bug this guards against: the uncorrected interval excludes it
    low, high = trend.effect_interval
    assert low < trend.effect < high
    assert abs((high - low) - (raw_high - raw_low)) < 0.1 * (raw_high - raw_low)  # a shift, not a rescale


def test_the_shift_is_the_estimate_minus_the_bootstrap_median():
    rule = TrendRule("increasing")
    low_a, high_a = _bootstrap_interval(LEVELS, SEPARATED, rule, 0.5)
    low_b, high_b = _bootstrap_interval(LEVELS, SEPARATED, rule, 0.25)
    assert low_a - low_b == 0.25 and high_a - high_b == 0.25  # exact: dyadic estimates, no clipping here
    assert low_a < 0.5 < high_a


def test_the_shifted_interval_is_clipped_to_the_range_of_a_correlation():
    rule = TrendRule("increasing")
    low, high = _bootstrap_interval(LEVELS, SEPARATED, rule, 1.0)
    assert high == 1.0 and 0.99 < low < 1.0
    low, high = _bootstrap_interval(LEVELS, -SEPARATED, rule, -1.0)
    assert low == -1.0 and -1.0 < high < -0.99


def test_a_decreasing_prediction_signs_the_shifted_interval_toward_it():
    trend = trend_test(LEVELS, -SEPARATED, TrendRule("decreasing"))
    low, high = trend.effect_interval
    assert low < trend.effect < high and trend.effect > 0.96


def _reference_interval(x, y, estimate, resamples, confidence, seed):
    """The interval as the docstring states it, on scipy's Spearman: the rule's stream default_rng(seed + 1)
    draws, level by level (levels ascending), each level's runs with replacement, ``resamples`` times; the
    percentile interval of the resampled correlations shifted by median - estimate, clipped to [-1, 1]."""
    rng = np.random.default_rng(seed + 1)
    groups = [np.flatnonzero(x == level) for level in np.unique(x)]
    draws = np.concatenate([g[rng.integers(0, len(g), size=(resamples, len(g)))] for g in groups], axis=1)
    order = np.concatenate(groups)
    values = [spearmanr(x[order], y[row]).statistic for row in draws]
    tail = (1 - confidence) / 2
    low, median, high = np.quantile(values, [tail, 0.5, 1 - tail])
    return float(np.clip(low - (median - estimate), -1, 1)), float(np.clip(high - (median - estimate), -1, 1))


NOISY = np.array([3.0, 1.0, 2.0, 5.0, 4.0, 6.0, 5.5, 9.0, 7.0, 8.0, 12.0, 10.0, 11.0, 9.5, 13.0, 12.5])


def test_the_interval_follows_its_stated_within_level_bootstrap():
    for seed, confidence in ((0, 0.90), (4, 0.5)):
        rule = TrendRule("increasing", resamples=199, confidence=confidence, seed=seed)
        expected = _reference_interval(LEVELS, NOISY, 0.875, 199, confidence, seed)
        assert _bootstrap_interval(LEVELS, NOISY, rule, 0.875) == pytest.approx(expected, abs=1e-12)


def test_the_interval_does_not_depend_on_the_order_of_the_runs():
    # the same design with its levels interleaved (each level's runs kept in their order): the same draws
    interleaved = np.argsort(np.tile(np.arange(4), 4), kind="stable").argsort(kind="stable")
    rule = TrendRule("increasing", resamples=199)
    levels, responses = np.empty(16), np.empty(16)
    levels[interleaved], responses[interleaved] = LEVELS, NOISY
    assert levels.tolist() != LEVELS.tolist()
    assert _bootstrap_interval(levels, responses, rule, 0.875) == _bootstrap_interval(LEVELS, NOISY, rule, 0.875)


def test_the_interval_is_fixed_by_the_rule_seed():
    rule = TrendRule("increasing", resamples=199)
    first = _bootstrap_interval(LEVELS, NOISY, rule, 0.875)
    assert _bootstrap_interval(LEVELS, NOISY, rule, 0.875) == first
    assert _bootstrap_interval(LEVELS, NOISY, TrendRule("increasing", resamples=199, seed=1), 0.875) != first


def test_the_interval_is_clipped_whatever_the_shift():
    # the estimate is a correlation; past +-1 the shift alone would carry both ends out of [-1, 1]
    rule = TrendRule("increasing", resamples=199)
    assert _bootstrap_interval(LEVELS, NOISY, rule, 3.0) == (1.0, 1.0)
    assert _bootstrap_interval(LEVELS, NOISY, rule, -3.0) == (-1.0, -1.0)
