"""The statistics behind ``claims.checks.check_trend``: a rank-correlation trend test fixed before
the data are seen, for the empirical claims (a hyperparameter's effect on a measured response).

A design is a list of (level, response) pairs: several seeds at each hyperparameter level. The
test is one-sided in the predicted direction: Spearman's rho (or Kendall's tau-b), both with
average ranks for ties, and a permutation p-value (the responses' pairing with the levels
permuted; exact enumeration when the design has at most ``TrendRule.resamples`` distinct
pairings; the count of orders, n!, is what is compared). The effect size is the rank correlation itself, signed so
that positive is the predicted direction, with a bias-corrected bootstrap interval that resamples the seeds within
each level (the design's levels stay fixed, as in the experiment); the Theil-Sen slope (response per unit level,
with its interval) is reported beside it in the response's own units.

A trend case is *uninformative* (``Trend.uninformative`` says why) when it could not have come out
the other way: the responses are tied, or most of them sit at a ceiling or floor the caller states
(full rank, zero rank, accuracy 1: ``TrendRule.ceiling`` / ``floor`` within ``saturation_band``), or
the design has no power. The power is the design's *detectable effect*: the smallest rank correlation
in the predicted direction that the rule's own one-sided permutation test finds at alpha with
probability ``POWER``, by simulation (responses = s * standardized level ranks + Gaussian noise, s
raised until the power is reached; the effect reported is the median sample correlation at that s).
An equivalence ("none") whose design cannot detect ``min_effect`` is uninformative: it could not tell
no effect from the effect it rules out.

Nothing here records evidence; no torch.
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass
from itertools import permutations
from typing import Any, Literal, Sequence

import numpy as np
from scipy.stats import rankdata, theilslopes

from claims.evidence._numbers import format_apart, format_number

Direction = Literal["increasing", "decreasing", "none"]
TREND_VERDICTS = ("verified", "refuted", "inconclusive")

POWER = 0.8
"""The probability with which a design must detect an effect for it to count as detectable."""
SATURATED_FRACTION = 0.5
"""A design is saturated when more than this fraction of its responses sit at a stated ceiling or floor."""
POWER_SIMULATIONS = 400
"""Simulated designs per signal strength in ``detectable_effect``."""
_SIGNALS = np.geomspace(0.05, 50.0, 61)
"""Signal strengths s tried in ``detectable_effect``, smallest first."""


@dataclass(frozen=True)
class TrendRule:
    """The verdict rule, stated before the data (each claim test writes its own out).

    ``direction``: the predicted sign of the association of the response with the level;
    ``"none"`` predicts no effect. ``alpha``: the one-sided test's level. ``min_effect``: the
    smallest rank correlation (in the predicted direction) that counts as an effect.

    - increasing / decreasing: ``verified`` when the one-sided p in the predicted direction is
      <= alpha and the effect >= min_effect; ``refuted`` when the one-sided p in the opposite
      direction is <= alpha; ``inconclusive`` otherwise.
    - none (an equivalence test): ``verified`` when the effect's whole interval lies inside
      (-min_effect, min_effect); ``refuted`` when the two-sided p (twice the smaller one-sided p)
      is <= alpha and |effect| >= min_effect; ``inconclusive`` otherwise.
    """

    direction: Direction
    alpha: float = 0.05
    min_effect: float = 0.3
    statistic: Literal["spearman", "kendall", "signed_rank"] = "spearman"
    """A trend's rank correlation of the response with the level (``trend_test``), or ``signed_rank``: a paired
    comparison of two responses of each run (``claims.evidence._paired.paired_test``: Wilcoxon's signed-rank test,
    the effect the matched-pairs rank-biserial correlation)."""
    resamples: int = 9999
    confidence: float = 0.90
    seed: int = 0
    min_slope: float | None = None
    """If given (increasing/decreasing only), ``verified`` also needs the Theil-Sen slope's interval,
    in the response's units per unit level and signed in the predicted direction, to lie above
    min_slope: an effect size the statement states in the response's own units (e.g. "orders of
    magnitude")."""
    ceiling: float | None = None
    """The largest value the response can take (e.g. the mean rank when every matrix is at full rank):
    with more than ``SATURATED_FRACTION`` of the responses within ``saturation_band`` of it, the design
    is saturated and its case uninformative."""
    floor: float | None = None
    """The smallest value the response can take (zero rank, zero error), read as ``ceiling`` is."""
    saturation_band: float = 0.0
    """How near a bound a response counts as at it, in the response's units (e.g. one singular value of
    one matrix in a mean rank)."""

    def __post_init__(self) -> None:
        if self.direction not in ("increasing", "decreasing", "none"):
            raise ValueError(f"direction must be increasing, decreasing or none, not {self.direction!r}")
        if not 0 < self.alpha < 0.5:
            raise ValueError(f"alpha must lie in (0, 0.5), not {self.alpha}")
        if not 0 < self.min_effect < 1:
            raise ValueError(f"min_effect is a rank correlation in (0, 1), not {self.min_effect}")
        if self.statistic not in ("spearman", "kendall", "signed_rank"):
            raise ValueError(f"statistic must be spearman, kendall or signed_rank, not {self.statistic!r}")
        if self.resamples < 99 or not 0 < self.confidence < 1:
            raise ValueError("resamples >= 99 and confidence in (0, 1)")
        if self.min_slope is not None and (self.direction == "none" or not self.min_slope > 0):
            raise ValueError("min_slope is a positive size of a predicted increase or decrease")
        if not self.saturation_band >= 0:
            raise ValueError(f"saturation_band is a distance >= 0, not {self.saturation_band}")
        if self.ceiling is not None and self.floor is not None and not self.floor < self.ceiling:
            raise ValueError(f"the floor {self.floor} must lie below the ceiling {self.ceiling}")

    def describe(self) -> str:
        if self.statistic == "signed_rank":
            return (
                f"paired, run by run: one-sided Wilcoxon signed-rank test (sign-flip permutation), predicted "
                f"{'above' if self.direction == 'increasing' else 'below'}: verified when p <= {self.alpha} and the "
                f"matched-pairs rank-biserial correlation is >= {self.min_effect} in the predicted direction; refuted "
                f"when the opposite one-sided p <= {self.alpha}; inconclusive otherwise"
            )
        test = f"one-sided permutation test of {self.statistic}'s rank correlation"
        if self.direction == "none":
            return (
                f"equivalence: verified when the {self.confidence:.0%} bias-corrected bootstrap interval of "
                f"{self.statistic}'s correlation lies inside (-{self.min_effect}, {self.min_effect}); refuted when the "
                f"two-sided permutation p <= {self.alpha} with |effect| >= {self.min_effect}"
            )
        slope = "" if self.min_slope is None else f" and the Theil-Sen slope >= {self.min_slope:g} per unit level"
        return (
            f"{test}, predicted {self.direction}: verified when p <= {self.alpha} and the correlation is "
            f">= {self.min_effect} in the predicted direction{slope}; refuted when the opposite one-sided p <= "
            f"{self.alpha}; inconclusive otherwise"
        )


@dataclass(frozen=True)
class Trend:
    """One trend test's outcome; ``effect`` and its interval are signed so that positive is the
    predicted direction (for ``none``, positive is increasing)."""

    rule: TrendRule
    n: int
    levels: int
    correlation: float
    p_predicted: float
    p_opposite: float
    exact: bool
    effect: float
    effect_interval: tuple[float, float]
    slope: float
    slope_interval: tuple[float, float] | None
    verdict: str
    detectable_effect: float | None = None
    """The smallest effect this design detects with probability ``POWER`` at alpha (None: none does)."""
    uninformative: str | None = None
    """Why this design could not have come out the other way (None: it could)."""

    @property
    def p_two_sided(self) -> float:
        return min(1.0, 2 * min(self.p_predicted, self.p_opposite))

    def error(self) -> float:
        """The case's error against tolerance 1 (<= 1 when the verdict is ``verified``): the larger of
        p / alpha and the effect's shortfall 2 - effect / min_effect (1 at the minimum effect, growing
        linearly as the effect falls short of it, on past 0 into the opposite direction: finite for every
        effect, where min_effect / effect is not); with ``min_slope``, likewise 2 - slope / min_slope of
        the nearer end of the slope's interval. For ``none``: the interval's reach over min_effect."""
        rule = self.rule
        if rule.direction == "none":
            return max(abs(self.effect_interval[0]), abs(self.effect_interval[1])) / rule.min_effect
        shortfall = 2 - self.effect / rule.min_effect
        if rule.min_slope is not None:
            signed = self.slope if rule.direction == "increasing" else -self.slope
            near = min(signed, *(s if rule.direction == "increasing" else -s for s in (self.slope_interval or (0.0,))))
            shortfall = max(shortfall, 2 - near / rule.min_slope)
        return max(self.p_predicted / rule.alpha, shortfall)

    def to_builtin(self) -> dict[str, Any]:
        numbers = asdict(self)
        rule = numbers.pop("rule")
        numbers.update(
            {f"rule_{k}": v for k, v in rule.items()},
            p_two_sided=self.p_two_sided,
            rule_text=self.rule.describe(),
            effect_measure=("matched-pairs rank-biserial correlation" if self.rule.statistic == "signed_rank"
                            else f"{self.rule.statistic} rank correlation") + ", positive = predicted direction",
        )
        return numbers


def _correlations(x_ranks: np.ndarray, y_ranks: np.ndarray, statistic: str) -> np.ndarray:
    """The rank correlation of x with every row of y_ranks (shape (r, n)); 0 where either side is
    constant (no ordering, so no association: never NaN)."""
    if statistic == "spearman":
        xc = x_ranks - x_ranks.mean()
        yc = y_ranks - y_ranks.mean(axis=-1, keepdims=True)
        denominator = np.sqrt((xc**2).sum() * (yc**2).sum(axis=-1))
        numerator = (yc * xc).sum(axis=-1)
        return np.divide(numerator, denominator, out=np.zeros_like(numerator), where=denominator > 0)
    # Kendall's tau-b from the pairwise sign products.
    sx = np.sign(x_ranks[:, None] - x_ranks[None, :])
    sy = np.sign(y_ranks[..., :, None] - y_ranks[..., None, :])
    numerator = (sx * sy).sum(axis=(-1, -2))
    denominator = np.sqrt(np.abs(sx).sum() * np.abs(sy).sum(axis=(-1, -2)))
    return np.divide(numerator, denominator, out=np.zeros_like(numerator, dtype=float), where=denominator > 0)


def _permutation_p(x_ranks: np.ndarray, y: np.ndarray, observed: float, rule: TrendRule) -> tuple[float, float, bool]:
    """One-sided p-values (greater, less) of the correlation under permuted pairings: exact over all
    n! orders when n! <= resamples, else (1 + count) / (1 + resamples) over random orders."""
    orders, exact = _orders(len(y), rule)
    null = _correlations(x_ranks, rankdata(y)[orders], rule.statistic)
    slack = 1e-12  # ties of the statistic with itself up to rounding count as at least as extreme
    greater = (null >= observed - slack).sum()
    less = (null <= observed + slack).sum()
    if exact:
        return greater / len(orders), less / len(orders), True
    return (1 + greater) / (1 + rule.resamples), (1 + less) / (1 + rule.resamples), False


def _orders(n: int, rule: TrendRule) -> tuple[np.ndarray, bool]:
    """The pairings the permutation test uses: all n! orders when n! <= resamples, else seeded random ones.
    The p-value and the detectable effect of one design use the same orders (built once)."""
    return _seeded_orders(n, rule.resamples, rule.seed)


@functools.lru_cache(maxsize=8)
def _seeded_orders(n: int, resamples: int, seed: int) -> tuple[np.ndarray, bool]:
    if math.factorial(n) <= resamples:
        orders = np.array(list(permutations(range(n))))
        exact = True
    else:
        orders = np.random.default_rng(seed).permuted(np.tile(np.arange(n), (resamples, 1)), axis=1)
        exact = False
    orders.setflags(write=False)  # shared between calls: never written
    return orders, exact


def detectable_effect(levels: Sequence[float], rule: TrendRule, power: float = POWER) -> float | None:
    """The smallest rank correlation (in the predicted direction; for "none", either) that ``rule``'s
    one-sided permutation test detects at alpha with probability ``power`` on this design, by
    simulation; None when no simulated signal reaches that power (e.g. too few runs to reach alpha).

    Untied responses are a permutation of their ranks, so the test's null distribution depends only
    on the design: it is computed once, and each simulated design's p-value is read from it as
    ``_permutation_p`` computes it (exact, or (1 + count) / (1 + resamples))."""
    x = np.asarray(levels, dtype=float)
    n = len(x)
    x_ranks = rankdata(x)
    orders, exact = _orders(n, rule)
    null = np.sort(_correlations(x_ranks, (orders + 1).astype(float), rule.statistic))
    standardized = (x_ranks - x_ranks.mean()) / x_ranks.std()
    rng = np.random.default_rng(rule.seed + 2)
    noise = rng.standard_normal((POWER_SIMULATIONS, n))
    for signal in _SIGNALS:
        simulated = rankdata(signal * standardized + noise, axis=1)
        observed = _correlations(x_ranks, simulated, rule.statistic)
        at_least = len(null) - np.searchsorted(null, observed - 1e-12, side="left")
        p = at_least / len(null) if exact else (1 + at_least) / (1 + rule.resamples)
        if np.mean(p <= rule.alpha) >= power:
            return float(np.median(observed))
    return None


def saturation(responses: Sequence[float], rule: TrendRule) -> str | None:
    """Why the responses cannot show an effect (tied, or mostly at a stated ceiling or floor), or None."""
    y = np.asarray(responses, dtype=float)
    if len(np.unique(y)) == 1:
        return f"the responses are tied (all {format_number(float(y[0]))})"
    for name, bound in (("ceiling", rule.ceiling), ("floor", rule.floor)):
        if bound is None:
            continue
        at = int((np.abs(y - bound) <= rule.saturation_band).sum())
        if at > SATURATED_FRACTION * len(y):
            return (f"the responses are saturated: {at} of {len(y)} at the {name} {bound:g}"
                    f" (within {rule.saturation_band:g})")
    return None


def _bootstrap_interval(x: np.ndarray, y: np.ndarray, rule: TrendRule, estimate: float) -> tuple[float, float]:
    """Bias-corrected percentile interval of the correlation over resamples that redraw the responses
    within each level (with replacement), keeping the design: the percentile interval shifted by the
    bootstrap's median bias, median(resampled) - estimate, and clipped to [-1, 1].

    The shift is needed because redrawing within a level duplicates responses, which shrinks the
    within-level spread and so inflates |correlation|: uncorrected, a design with estimate 0.9716 had the
    90% interval [0.975, 0.987], which excludes the estimate. After the shift the interval always holds
    the estimate (the median lies between the two quantiles) and keeps its width unless clipped."""
    rng = np.random.default_rng(rule.seed + 1)
    groups = [np.flatnonzero(x == level) for level in np.unique(x)]
    order = np.concatenate(groups)
    draws = np.concatenate(
        [g[rng.integers(0, len(g), size=(rule.resamples, len(g)))] for g in groups], axis=1
    )
    x_ranks = rankdata(x[order])
    resampled = rankdata(y[draws], axis=1)
    values = _correlations(x_ranks, resampled, rule.statistic)
    tail = (1 - rule.confidence) / 2
    low, median, high = np.quantile(values, [tail, 0.5, 1 - tail])
    bias = median - estimate
    return float(np.clip(low - bias, -1.0, 1.0)), float(np.clip(high - bias, -1.0, 1.0))


def _slope_reaches(sign: float, interval: tuple[float, float] | None, minimum: float) -> bool:
    """The Theil-Sen interval's near end, signed toward the prediction, is at least ``minimum``
    (no interval: not shown)."""
    if interval is None:
        return False
    return min(sign * interval[0], sign * interval[1]) >= minimum


def trend_test(levels: Sequence[float], responses: Sequence[float], rule: TrendRule) -> Trend:
    """Run ``rule`` on the design (``levels[i]``, ``responses[i]``); the inputs must be finite
    (the caller checks), with at least 2 distinct levels and 4 pairs."""
    if rule.statistic == "signed_rank":
        raise ValueError("a signed_rank rule compares pairs: claims.evidence._paired.paired_test")
    x = np.asarray(levels, dtype=float)
    y = np.asarray(responses, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"one response per level: {x.shape} levels, {y.shape} responses")
    if len(x) < 4 or len(np.unique(x)) < 2:
        raise ValueError("a trend needs at least 4 runs at 2 or more levels")
    x_ranks = rankdata(x)
    correlation = float(_correlations(x_ranks, rankdata(y)[None, :], rule.statistic)[0])
    p_greater, p_less, exact = _permutation_p(x_ranks, y, correlation, rule)
    low, high = _bootstrap_interval(x, y, rule, correlation)
    sign = -1.0 if rule.direction == "decreasing" else 1.0
    p_predicted, p_opposite = (p_less, p_greater) if sign < 0 else (p_greater, p_less)
    effect = sign * correlation
    interval = tuple(sorted((sign * low, sign * high)))
    if len(np.unique(y)) > 1:
        with np.errstate(invalid="ignore"):  # scipy's interval takes a sqrt that is NaN for tiny designs
            theil = theilslopes(y, x, alpha=rule.confidence)
        slope, slope_interval = float(theil.slope), (float(theil.low_slope), float(theil.high_slope))
        if not all(math.isfinite(v) for v in slope_interval):
            slope_interval = None  # the design is too small for scipy's interval: none is given
    else:
        slope, slope_interval = 0.0, (0.0, 0.0)
    if rule.direction == "none":
        two_sided = min(1.0, 2 * min(p_greater, p_less))
        if -rule.min_effect < interval[0] and interval[1] < rule.min_effect:
            verdict = "verified"
        elif two_sided <= rule.alpha and abs(effect) >= rule.min_effect:
            verdict = "refuted"
        else:
            verdict = "inconclusive"
    elif p_predicted <= rule.alpha and effect >= rule.min_effect and (
        rule.min_slope is None or _slope_reaches(sign, slope_interval, rule.min_slope)
    ):
        verdict = "verified"
    elif p_opposite <= rule.alpha:
        verdict = "refuted"
    else:
        verdict = "inconclusive"
    detectable = detectable_effect(x, rule)
    uninformative = saturation(y, rule)
    if uninformative is None and detectable is None:
        uninformative = f"the design detects no effect with power {POWER} at alpha {rule.alpha} ({len(x)} runs)"
    if uninformative is None and rule.direction == "none" and detectable > rule.min_effect:
        # at digits that never print the detectable effect equal to the minimum effect it exceeds (0.3049 read "0.30")
        shown = format_apart(detectable, rule.min_effect)[0]
        uninformative = (f"the design detects effects of {shown} or more with power {POWER}: it cannot tell "
                         f"no effect from the effect {rule.min_effect} that the equivalence rules out")
    return Trend(
        rule=rule, n=len(x), levels=len(np.unique(x)), correlation=correlation, p_predicted=float(p_predicted),
        p_opposite=float(p_opposite), exact=exact, effect=effect, effect_interval=interval, slope=slope,
        slope_interval=slope_interval, verdict=verdict, detectable_effect=detectable, uninformative=uninformative,
    )


def permuted_levels(levels: Sequence[float], seed: int = 0, candidates: int = 1000) -> list[float]:
    """The design's levels reassigned to the runs by a fixed random permutation: the negative
    control's design, where the hyperparameter carries no information about the response.

    One random permutation keeps a chance rank correlation with the true levels (|rho| of 0.3-0.5
    is common at 12-36 runs), and a strong real effect then leaks into the control: under
    ``nightly``'s larger designs such controls came out verified. So of ``candidates`` seeded
    permutations the one least rank-correlated with the true levels is taken (the first at the
    smallest |rho|): the permuted labels are as uninformative as the design allows.

    Every candidate is a permutation of the same levels, so rho's denominator is the same for all of
    them: the candidates are compared by rho's numerator, sum (r_i - m)(c_i - m) with m = (n + 1) / 2,
    computed exactly as sum r_i (2 c_i - n - 1) (twice it: half-integer ranks times integers), and the
    search stops at the first candidate where it is 0."""
    rng = np.random.default_rng(seed)
    x = np.asarray(levels, dtype=float)
    ranks = rankdata(x)
    best, best_numerator = None, math.inf
    for _ in range(candidates):
        candidate = rng.permutation(x)
        numerator = abs(float(ranks @ (2 * rankdata(candidate) - (len(x) + 1))))
        if numerator < best_numerator:
            best, best_numerator = candidate, numerator
        if best_numerator == 0:
            break
    return [float(v) for v in best]
