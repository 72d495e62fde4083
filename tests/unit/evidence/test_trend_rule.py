"""The trend rule as a researcher reads it (``claims.evidence._trend``): what a ``TrendRule`` accepts, at
each bound; the rule text the report prints (``describe``); a ``Trend``'s error against tolerance 1 and its
two-sided p, from stated numbers; and the builtin form the report stores. Pinned after mutation testing
found these unchecked (docs/mutation-testing.md)."""

from __future__ import annotations

import re

import pytest

from claims.evidence._trend import Trend, TrendRule

# ---- TrendRule: what it accepts, at each bound ----


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"direction": "up"}, "direction must be increasing, decreasing or none, not 'up'"),
        ({"alpha": 0.0}, "alpha must lie in (0, 0.5), not 0.0"),
        ({"alpha": 0.5}, "alpha must lie in (0, 0.5), not 0.5"),
        ({"min_effect": 0.0}, "min_effect is a rank correlation in (0, 1), not 0.0"),
        ({"min_effect": 1.0}, "min_effect is a rank correlation in (0, 1), not 1.0"),
        ({"statistic": "pearson"}, "statistic must be spearman, kendall or signed_rank, not 'pearson'"),
        ({"resamples": 98}, "resamples >= 99 and confidence in (0, 1)"),
        ({"confidence": 0.0}, "resamples >= 99 and confidence in (0, 1)"),
        ({"confidence": 1.0}, "resamples >= 99 and confidence in (0, 1)"),
        ({"min_slope": 0.0}, "min_slope is a positive size of a predicted increase or decrease"),
        ({"min_slope": -0.5}, "min_slope is a positive size of a predicted increase or decrease"),
        ({"direction": "none", "min_slope": 0.5}, "min_slope is a positive size of a predicted increase or decrease"),
        ({"saturation_band": -0.25}, "saturation_band is a distance >= 0, not -0.25"),
        ({"saturation_band": float("nan")}, "saturation_band is a distance >= 0, not nan"),
        ({"floor": 1.0, "ceiling": 1.0}, "the floor 1.0 must lie below the ceiling 1.0"),
        ({"floor": 2.0, "ceiling": 1.0}, "the floor 2.0 must lie below the ceiling 1.0"),
    ],
)
def test_a_rule_outside_its_bounds_is_refused_with_its_reason(kwargs, message):
    kwargs = {"direction": "increasing", **kwargs}
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        TrendRule(**kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"direction": "decreasing"},
        {"direction": "none"},
        {"alpha": 0.25, "min_effect": 0.5},
        {"alpha": 0.4999, "min_effect": 0.9999},
        {"alpha": 2.0**-20, "min_effect": 2.0**-20},
        {"statistic": "kendall"},
        {"resamples": 99, "confidence": 0.5},
        {"confidence": 0.9999},
        {"min_slope": 0.25},
        {"direction": "decreasing", "min_slope": 2.0**-20},
        {"saturation_band": 0.0, "ceiling": 1.0},
        {"floor": 0.0, "ceiling": 0.25, "saturation_band": 0.5},
        {"floor": 0.0},
        {"ceiling": -1.0},
    ],
)
def test_a_rule_at_or_inside_its_bounds_is_accepted(kwargs):
    kwargs = {"direction": "increasing", **kwargs}
    assert TrendRule(**kwargs).direction == kwargs["direction"]


# ---- the rule text the report prints ----


def test_a_directional_rule_states_its_test_and_its_three_outcomes():
    assert TrendRule("increasing").describe() == (
        "one-sided permutation test of spearman's rank correlation, predicted increasing: verified when "
        "p <= 0.05 and the correlation is >= 0.3 in the predicted direction; refuted when the opposite "
        "one-sided p <= 0.05; inconclusive otherwise"
    )


def test_a_rule_with_a_minimum_slope_states_it_in_the_response_units():
    rule = TrendRule("decreasing", alpha=0.25, min_effect=0.5, statistic="kendall", min_slope=2.0)
    assert rule.describe() == (
        "one-sided permutation test of kendall's rank correlation, predicted decreasing: verified when "
        "p <= 0.25 and the correlation is >= 0.5 in the predicted direction and the Theil-Sen slope >= 2 per "
        "unit level; refuted when the opposite one-sided p <= 0.25; inconclusive otherwise"
    )


def test_an_equivalence_rule_states_its_interval_and_its_refutation():
    assert TrendRule("none").describe() == (
        "equivalence: verified when the 90% bias-corrected bootstrap interval of spearman's correlation lies "
        "inside (-0.3, 0.3); refuted when the two-sided permutation p <= 0.05 with |effect| >= 0.3"
    )
    rule = TrendRule("none", alpha=0.125, min_effect=0.25, statistic="kendall", confidence=0.75)
    assert rule.describe() == (
        "equivalence: verified when the 75% bias-corrected bootstrap interval of kendall's correlation lies "
        "inside (-0.25, 0.25); refuted when the two-sided permutation p <= 0.125 with |effect| >= 0.25"
    )


# ---- a Trend's error and two-sided p, from stated numbers ----


def _trend(rule: TrendRule, **numbers) -> Trend:
    base = {"rule": rule, "n": 12, "levels": 4, "correlation": 0.5, "p_predicted": 0.025, "p_opposite": 0.75,
            "exact": False, "effect": 0.5, "effect_interval": (0.25, 0.75), "slope": 1.0,
            "slope_interval": (0.5, 1.5), "verdict": "verified"}
    return Trend(**{**base, **numbers})


def test_the_error_is_p_over_alpha_when_the_effect_reaches_its_minimum():
    rule = TrendRule("increasing", alpha=0.25, min_effect=0.5)
    assert _trend(rule, p_predicted=0.125, effect=0.75).error() == 0.5
    assert _trend(rule, p_predicted=0.375, effect=0.75).error() == 1.5


def test_the_error_is_the_effect_shortfall_two_minus_effect_over_min_effect():
    rule = TrendRule("increasing", alpha=0.25, min_effect=0.5)
    assert _trend(rule, p_predicted=0.0625, effect=0.5).error() == 1.0  # 1 at the minimum effect
    assert _trend(rule, p_predicted=0.0625, effect=0.25).error() == 1.5
    assert _trend(rule, p_predicted=0.0625, effect=-0.5).error() == 3.0  # finite past 0, the wrong way


def test_the_error_with_a_minimum_slope_reads_the_near_end_of_the_slope_interval():
    rule = TrendRule("increasing", alpha=0.25, min_effect=0.5, min_slope=1.0)
    assert _trend(rule, p_predicted=0.0625, effect=1.0, slope=1.0, slope_interval=(0.5, 1.5)).error() == 1.5
    assert _trend(rule, p_predicted=0.0625, effect=1.0, slope=1.0, slope_interval=(1.5, 0.75)).error() == 1.25
    assert _trend(rule, p_predicted=0.0625, effect=1.0, slope=0.25, slope_interval=(0.5, 1.5)).error() == 1.75
    assert _trend(rule, p_predicted=0.0625, effect=1.0, slope=1.0, slope_interval=(2.0, 4.0)).error() == 1.0
    # no interval (a design too small for scipy's): the near end is taken as 0
    assert _trend(rule, p_predicted=0.0625, effect=1.0, slope=1.0, slope_interval=None).error() == 2.0


def test_a_decreasing_minimum_slope_is_signed_toward_the_prediction():
    rule = TrendRule("decreasing", alpha=0.25, min_effect=0.5, min_slope=1.0)
    assert _trend(rule, p_predicted=0.0625, effect=1.0, slope=-1.0, slope_interval=(-1.5, -0.5)).error() == 1.5
    assert _trend(rule, p_predicted=0.0625, effect=1.0, slope=-0.25, slope_interval=(-1.5, -0.5)).error() == 1.75
    assert _trend(rule, p_predicted=0.0625, effect=1.0, slope=-1.0, slope_interval=(-4.0, -1.0)).error() == 1.0


def test_an_equivalence_error_is_the_interval_reach_over_the_minimum_effect():
    rule = TrendRule("none", alpha=0.25, min_effect=0.5)
    assert _trend(rule, p_predicted=1.0, effect=0.0, effect_interval=(-0.25, 0.125)).error() == 0.5
    assert _trend(rule, p_predicted=1.0, effect=0.0, effect_interval=(-0.125, 0.375)).error() == 0.75
    assert _trend(rule, p_predicted=1.0, effect=0.0, effect_interval=(-0.75, -0.25)).error() == 1.5


def test_the_two_sided_p_is_twice_the_smaller_one_sided_p_at_most_one():
    rule = TrendRule("increasing")
    assert _trend(rule, p_predicted=0.125, p_opposite=0.75).p_two_sided == 0.25
    assert _trend(rule, p_predicted=0.75, p_opposite=0.125).p_two_sided == 0.25
    assert _trend(rule, p_predicted=0.75, p_opposite=0.625).p_two_sided == 1.0


def test_the_builtin_form_flattens_the_rule_and_states_the_measure():
    rule = TrendRule("increasing", statistic="kendall", min_slope=0.5)
    builtin = _trend(rule, p_predicted=0.125, p_opposite=0.75).to_builtin()
    assert builtin["rule_direction"] == "increasing" and builtin["rule_min_slope"] == 0.5
    assert builtin["rule_statistic"] == "kendall" and "rule" not in builtin
    assert builtin["p_two_sided"] == 0.25 and builtin["rule_text"] == rule.describe()
    assert builtin["effect_measure"] == "kendall rank correlation, positive = predicted direction"
    assert builtin["effect_interval"] == (0.25, 0.75) and builtin["verdict"] == "verified"
