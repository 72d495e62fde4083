"""Evidence by kind of check (``claims.evidence._kinds``): each check records its kind, a test's cases are
tallied per kind and side, and a claim's tallies merge; the nearest case of an inequality is its smallest
slack among informative cases; drift orders keep their slopes' range per integrator."""

from __future__ import annotations

import pytest

from claims.checks import (
    check_close,
    check_conserved_rate,
    check_convergence_order,
    check_exact,
    check_inequality,
    check_inequality_rejected,
    check_nonzero_limit,
    check_nonzero_rate,
    check_property,
    check_trend,
)
from claims.evidence._kinds import KINDS, KindTally, from_cases, kind_of, merge
from claims.evidence._record import collecting
from claims.evidence._trend import TrendRule

HALVING = [1 / 8, 1 / 16, 1 / 32, 1 / 64]


@pytest.mark.parametrize(
    "record, kind",
    [
        (lambda: check_close(1.0, 1.0, 1e-15), "identity"),
        (lambda: check_exact([1], [1]), "identity"),
        (lambda: check_property(True, "holds"), "property"),
        (lambda: check_inequality(1.0, 2.0, 0.0), "inequality"),
        (lambda: check_conserved_rate(1e-17, 1.0, 1e-15), "conserved rate"),
        (lambda: check_nonzero_rate(1.0, 1.0, 1e-15, 10.0), "nonzero rate"),
        (lambda: check_convergence_order(HALVING, [h for h in HALVING], 1, 0.5, 1.0, 0.5), "drift order"),
        (lambda: check_nonzero_limit(HALVING, [0.5 + h**2 for h in HALVING], 2, 10.0), "drift limit"),
        (lambda: check_trend([1.0] * 3 + [2.0] * 3 + [3.0] * 3, [1, 2, 1.5, 3, 4, 3.5, 5, 6, 5.5],
                             TrendRule("increasing"), "rises"), "trend"),
    ],
)
def test_every_check_records_its_kind(record, kind):
    with collecting() as evidence:
        record()
    tally = evidence.to_builtin()["by_kind"]
    assert list(tally) == [kind] and tally[kind]["holding"]["checks"] == 1
    assert kind_of(evidence.to_builtin()["holding"]["details"]) == kind  # old reports infer the same kind


def test_an_inequality_is_read_by_its_smallest_slack_among_informative_cases():
    with collecting() as evidence:
        check_inequality(0.5, 0.8, 0.0, lhs_range=(0.0, 1.0))  # relative slack 0.3 / 1.3
        check_inequality(0.999, 1.0, 0.0, lhs_range=(0.0, 1.0))  # uninformative (bound at the maximum), slack 5e-4
        check_inequality(1.0 + 2.0**-52, 1.0, 1e-15)  # within rounding: relative slack -1.1e-16
        check_inequality(0.9, 1.0, 0.0)  # relative slack 0.0526
        check_inequality_rejected(2.0, 1.0, 0.0)
    part = evidence.to_builtin()["by_kind"]["inequality"]
    nearest = part["holding"]["nearest"]
    assert (part["holding"]["checks"], part["holding"]["informative"]) == (4, 3)
    assert nearest["relative_slack"] == pytest.approx(-2.0**-52 / (2 + 2.0**-52)) and nearest["informative"]
    assert nearest["tolerance"] == 1e-15 and nearest["scale"] == pytest.approx(2.0)
    assert part["violating"]["nearest"]["lhs"] == 2.0


def test_drift_orders_keep_their_slopes_range_per_integrator():
    tally = KindTally()
    for method, slope in (("euler", 1.02), ("euler", 0.98), ("rk4", 4.1)):
        tally.add("drift order", 0.1, 1.0, {"method": method, "slope": slope, "relative_drift": slope / 100, "order": 1,
                                            "band": 0.5, "ratio": 0.01}, violates=False, informative=True)
    ranges = tally.to_builtin()["drift order"]["holding"]["ranges"]
    assert ranges["euler"]["slope"] == [0.98, 1.02] and ranges["rk4"]["slope"] == [4.1, 4.1]
    assert ranges["euler"]["relative_drift"] == [0.0098, 0.0102]


def test_a_claims_tallies_merge_over_its_tests():
    first, second = KindTally(), KindTally()
    first.add("identity", 1e-16, 1e-15, {"error_scale": "relative"}, False, True)
    second.add("identity", 5e-16, 1e-15, {"error_scale": "relative"}, False, True)
    second.add("trend", 0.5, 1.0, {"effect": 0.6}, False, True)
    merged = merge([first.to_builtin(), second.to_builtin(), None])
    assert list(merged) == ["identity", "trend"]  # KINDS order
    assert merged["identity"]["holding"]["checks"] == 2 and merged["identity"]["holding"]["nearest"]["error"] == 5e-16


def test_old_recorded_cases_give_a_tally_of_their_kind():
    holding = {"error": 0.3, "tolerance": 1.0, "details": {"evidence": "convergence order", "method": "rk4",
                                                            "slope": 4.02, "relative_drift": 1e-6}}
    tally = from_cases(holding, None)
    assert tally["drift order"]["holding"]["ranges"]["rk4"]["slope"] == [4.02, 4.02]
    assert kind_of({"evidence": "instantaneous rate", "relative_rate": 1.0}) == "nonzero rate"
    assert kind_of({"lhs": 1.0, "rhs": 2.0}) == "inequality" and kind_of({}) == "other"


def test_a_case_names_a_known_kind():
    with collecting():
        from claims.evidence._record import record_case

        with pytest.raises(ValueError, match="kind"):
            record_case(0.0, 1.0, check_kind="drift")
    assert set(KINDS) >= {"identity", "inequality", "drift order", "trend"}
