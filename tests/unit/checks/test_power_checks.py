"""``claims.checks.check_power``: a check of the test's own power records its requirement and never raises."""

from __future__ import annotations

import math

import pytest

from claims.checks import check_power, check_property
from claims.evidence._record import OutsideClaimTest, collecting, finding


def test_a_met_requirement_is_recorded_as_achieved_and_adds_no_case():
    with collecting() as evidence:
        assert check_power(True, "at least 8 of 256 restarts reach s2", reached=12) is True
    built = evidence.to_builtin()
    assert built["power"] == [{"requirement": "at least 8 of 256 restarts reach s2", "achieved": True, "reached": 12}]
    assert (built["cases"], built["checks"], built["informative"]) == (0, 0, 0)


def test_a_shortfall_is_recorded_and_does_not_raise():
    with collecting() as evidence:
        assert check_power(False, "at least 4 of 8 paths settle", settled=2) is False
        check_property(True, "the test goes on after a shortfall")
    built = evidence.to_builtin()
    assert built["power"] == [{"requirement": "at least 4 of 8 paths settle", "achieved": False, "settled": 2}]
    assert built["cases"] == 1 and built["violation"] is None


def test_a_power_check_inside_a_finding_belongs_to_the_test():
    with collecting() as evidence:
        with finding("beyond the statement"):
            check_power(False, "the search reaches the known optimum")
    built = evidence.to_builtin()
    assert [p["achieved"] for p in built["power"]] == [False]
    assert built["findings"]["beyond the statement"]["power"] == []


@pytest.mark.parametrize("achieved, error", [(math.nan, TypeError), ("yes", TypeError)])
def test_achieved_is_one_truth_value(achieved, error):
    with collecting(), pytest.raises(error):
        check_power(achieved, "a requirement")


@pytest.mark.parametrize("requirement", ["", "  ", None])
def test_the_requirement_is_a_sentence(requirement):
    with collecting(), pytest.raises(ValueError, match="the requirement is a sentence"):
        check_power(True, requirement)


def test_outside_a_claim_test_it_raises():
    with pytest.raises(OutsideClaimTest, match="check_power"):
        check_power(True, "a requirement")
