"""The statistics behind ``claims.checks.check_paired``: a paired comparison fixed before the data, for a
statement that one response of a run exceeds another response of the same run (GP22 App. A: a network's bottom
matrix against its mid-layers), judged run by run.

The test is Wilcoxon's signed-rank test, one-sided in the predicted direction, with a sign-flip permutation p
(under no effect each run's difference keeps its size and takes either sign): exact over all 2^n sign patterns
when there are at most ``TrendRule.resamples`` of them, else over that many seeded patterns. Differences are
ranked by size with average ranks for ties, zero differences included (Pratt's rule: a zero carries no sign, so
it counts against neither direction but still dilutes the effect). The effect size is the matched-pairs
rank-biserial correlation r = (T+ - T-) / (T+ + T- + T0) (T: the rank sums of the positive, negative and zero
differences), a rank correlation in [-1, 1] read on the same scale as a trend's ``min_effect``; its interval is the
bias-corrected bootstrap over runs, as ``claims.evidence._trend`` computes a trend's. The median difference (in the
response's units) is reported beside it as the Trend's ``slope`` (response per unit level, the level being 0 for
the reference and 1 for the compared response), with its bootstrap interval.

A paired design is *uninformative* when every difference is 0, when more than ``SATURATED_FRACTION`` of its runs
have both responses at a stated ceiling or floor (neither side could move), or when the design detects no effect;
its *detectable effect* is the smallest rank-biserial correlation the test finds at alpha with probability
``POWER`` (simulated differences s + Gaussian noise, s raised until the power is reached).
"""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np
from scipy.stats import rankdata

from claims.evidence._trend import _SIGNALS, POWER, POWER_SIMULATIONS, SATURATED_FRACTION, Trend, TrendRule


def _signs(n: int, rule: TrendRule) -> tuple[np.ndarray, bool]:
    return _seeded_signs(n, rule.resamples, rule.seed)


@functools.lru_cache(maxsize=8)
def _seeded_signs(n: int, resamples: int, seed: int) -> tuple[np.ndarray, bool]:
    """All 2^n sign patterns (rows of +-1) when there are at most ``resamples``, else ``resamples`` seeded ones."""
    if 2**n <= resamples:
        patterns = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2 - 1
        exact = True
    else:
        patterns = np.random.default_rng(seed).integers(0, 2, size=(resamples, n)) * 2 - 1
        exact = False
    patterns = patterns.astype(float)
    patterns.setflags(write=False)
    return patterns, exact


def _signed_rank_effect(differences: np.ndarray) -> tuple[float, np.ndarray]:
    """(the matched-pairs rank-biserial correlation, the Pratt ranks of |d| signed by d: zeros carry 0)."""
    ranks = rankdata(np.abs(differences), axis=-1)
    signed = np.sign(differences) * ranks
    return signed.sum(axis=-1) / ranks.sum(axis=-1), signed


def _p_values(signed: np.ndarray, rule: TrendRule) -> tuple[float, float, bool]:
    """One-sided p-values (greater, less) of the signed-rank sum under sign flips of each run's difference."""
    patterns, exact = _signs(len(signed), rule)
    null = patterns @ np.abs(signed)
    observed = signed.sum()
    slack = 1e-9  # rank sums are multiples of 1/2: equal up to rounding counts as at least as extreme
    greater, less = (null >= observed - slack).sum(), (null <= observed + slack).sum()
    if exact:
        return greater / len(null), less / len(null), True
    return (1 + greater) / (1 + rule.resamples), (1 + less) / (1 + rule.resamples), False


def paired_detectable_effect(runs: int, rule: TrendRule, power: float = POWER) -> float | None:
    """The smallest rank-biserial correlation (in the predicted direction) that ``rule``'s one-sided signed-rank
    test detects at alpha with probability ``power`` over ``runs`` pairs, by simulation; None when none does."""
    patterns, exact = _signs(runs, rule)
    ranks = np.arange(1, runs + 1, dtype=float)
    null = np.sort(patterns @ ranks)
    noise = np.random.default_rng(rule.seed + 2).standard_normal((POWER_SIMULATIONS, runs))
    for signal in _SIGNALS:
        effect, signed = _signed_rank_effect(signal + noise)
        at_least = len(null) - np.searchsorted(null, signed.sum(axis=-1) - 1e-9, side="left")
        p = at_least / len(null) if exact else (1 + at_least) / (1 + rule.resamples)
        if np.mean(p <= rule.alpha) >= power:
            return float(np.median(effect))
    return None


def _bootstrap(differences: np.ndarray, rule: TrendRule, effect: float, median: float) -> tuple[tuple, tuple]:
    """Bias-corrected percentile intervals (the bootstrap's median shifted onto the estimate, as a trend's) of
    the rank-biserial correlation and of the median difference, over resampled runs."""
    rng = np.random.default_rng(rule.seed + 1)
    draws = differences[rng.integers(0, len(differences), size=(rule.resamples, len(differences)))]
    tail = (1 - rule.confidence) / 2
    intervals = []
    for values, estimate in ((_signed_rank_effect(draws)[0], effect), (np.median(draws, axis=1), median)):
        low, middle, high = np.quantile(values, [tail, 0.5, 1 - tail])
        intervals.append((float(low - (middle - estimate)), float(high - (middle - estimate))))
    (low, high), median_interval = intervals
    return (float(np.clip(low, -1.0, 1.0)), float(np.clip(high, -1.0, 1.0))), median_interval


def pair_saturation(compared: np.ndarray, reference: np.ndarray, rule: TrendRule) -> str | None:
    """Why the pairs cannot show a difference (every difference 0, or most runs with both responses at a stated
    bound), or None."""
    if np.all(compared == reference):
        return "the pairs are tied: every run's two responses are equal"
    for name, bound in (("ceiling", rule.ceiling), ("floor", rule.floor)):
        if bound is None:
            continue
        both = int(((np.abs(compared - bound) <= rule.saturation_band)
                    & (np.abs(reference - bound) <= rule.saturation_band)).sum())
        if both > SATURATED_FRACTION * len(compared):
            return (f"the pairs are saturated: {both} of {len(compared)} runs have both responses at the {name} "
                    f"{bound:g} (within {rule.saturation_band:g})")
    return None


def paired_test(compared: Sequence[float], reference: Sequence[float], rule: TrendRule) -> Trend:
    """Run ``rule`` (statistic ``signed_rank``; direction ``increasing``: ``compared`` above ``reference``,
    ``decreasing``: below) on the runs' pairs (``compared[i]``, ``reference[i]``), finite, at least 4."""
    if rule.statistic != "signed_rank" or rule.direction == "none" or rule.min_slope is not None:
        raise ValueError("a paired comparison takes a signed_rank rule predicting increasing or decreasing")
    upper, lower = np.asarray(compared, dtype=float), np.asarray(reference, dtype=float)
    if upper.shape != lower.shape or upper.ndim != 1 or len(upper) < 4:
        raise ValueError(f"one pair per run, at least 4: {upper.shape} against {lower.shape}")
    differences = upper - lower
    correlation, signed = _signed_rank_effect(differences)
    correlation = float(correlation)
    p_greater, p_less, exact = _p_values(signed, rule)
    sign = -1.0 if rule.direction == "decreasing" else 1.0
    p_predicted, p_opposite = (p_less, p_greater) if sign < 0 else (p_greater, p_less)
    median = float(np.median(differences))
    (low, high), median_interval = _bootstrap(differences, rule, correlation, median)
    effect = sign * correlation
    if p_predicted <= rule.alpha and effect >= rule.min_effect:
        verdict = "verified"
    elif p_opposite <= rule.alpha:
        verdict = "refuted"
    else:
        verdict = "inconclusive"
    detectable = paired_detectable_effect(len(differences), rule)
    uninformative = pair_saturation(upper, lower, rule)
    if uninformative is None and detectable is None:
        uninformative = f"the design detects no effect with power {POWER} at alpha {rule.alpha} ({len(upper)} runs)"
    return Trend(
        rule=rule, n=len(upper), levels=2, correlation=correlation, p_predicted=float(p_predicted),
        p_opposite=float(p_opposite), exact=exact, effect=effect,
        effect_interval=tuple(sorted((sign * low, sign * high))),
        slope=median, slope_interval=median_interval, verdict=verdict, detectable_effect=detectable,
        uninformative=uninformative,
    )


def swapped_pairs(compared: Sequence[float], reference: Sequence[float], seed: int = 0) -> tuple[list, list]:
    """The negative control's pairs: the two labels exchanged in a seeded half of the runs (every other run of
    a seeded order), so that which response is "compared" carries no information about the run."""
    order = np.random.default_rng(seed).permutation(len(compared))
    swap = set(order[::2].tolist())
    first = [float(r if i in swap else c) for i, (c, r) in enumerate(zip(compared, reference))]
    second = [float(c if i in swap else r) for i, (c, r) in enumerate(zip(compared, reference))]
    return first, second
