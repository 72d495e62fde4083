"""How ``claims.evidence._record`` counts cases, pinned with exact small ledgers.

Each test records a scripted sequence of cases (outside any example, or grouped by ``one_case``) and
asserts every counter the report reads: cases accumulate their units (a second case adds to the first,
never replaces it), a case is degenerate only when all its checks are, informative holding (violating)
when one of its informative checks holds (violates), and an uninformative case counts each of its reasons
once. Numbers are exact binary fractions, so every comparison is exact.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from claims.evidence._record import (
    Case,
    OutsideClaimTest,
    collecting,
    count_cases_as,
    current,
    currently_in_example,
    declare_verdict,
    keep_series_rows,
    missing_erratum,
    nearest_to_acceptance,
    one_case,
    plain,
    record_case,
    record_degenerate,
    record_erratum,
    record_series,
    recorded_series,
)
from claims.evidence._record import (
    TestEvidence as Evidence,  # aliased: pytest would try to collect a Test* class
)

COUNTERS = ("cases", "degenerate", "checks", "informative", "informative_holding", "informative_violating",
            "uninformative", "uninformative_why")


def counters(evidence: Evidence) -> dict:
    built = evidence.to_builtin()
    return {name: built[name] for name in COUNTERS}


# --- plain builtins ----------------------------------------------------------------------------------


def test_plain_writes_a_fraction_as_its_text():
    assert plain(Fraction(1, 3)) == "1/3"
    assert plain({"ratio": Fraction(-2, 4)}) == {"ratio": "-1/2"}


def test_plain_writes_any_other_object_as_its_text():
    assert plain(complex(1, 2)) == "(1+2j)"
    assert plain([range(2)]) == ["range(0, 2)"]


# --- the order of cases ------------------------------------------------------------------------------


def test_a_case_key_is_margin_then_negated_error_then_slack():
    assert Case(0.5, 0.25, {}).key() == (0.5, -0.5, math.inf)
    assert Case(0.5, 0.25, {"relative_slack": 0.125}).key() == (0.5, -0.5, 0.125)
    assert Case(0.0, 0.25, {"relative_slack": 0.75}).key() == (math.inf, -0.0, 0.75)


def test_nearest_to_acceptance_orders_by_the_case_key_not_the_first_or_last():
    marginal = {"error": 1.5, "tolerance": 1.0, "details": {}}
    blatant = {"error": 8.0, "tolerance": 1.0, "details": {}}
    assert nearest_to_acceptance([blatant, marginal]) is marginal
    assert nearest_to_acceptance([marginal, blatant]) is marginal
    assert nearest_to_acceptance([marginal]) is marginal


# --- counters accumulate ------------------------------------------------------------------------------


def test_every_counter_adds_the_units_of_each_case():
    with collecting() as evidence:
        record_case(0.0, 0.0, degenerate=True, units=2)
        record_case(0.0, 0.0, degenerate=True, units=3)
        record_case(0.5, 1.0, units=2)
        record_case(0.25, 1.0, units=3)
        record_case(2.0, 1.0, violates=True, units=2)
        record_case(4.0, 1.0, violates=True, units=3)
        record_case(0.5, 1.0, uninformative="tied", units=2)
        record_case(0.5, 1.0, uninformative="tied", units=3)
        record_case(0.5, 1.0, uninformative="saturated")
    assert counters(evidence) == {
        "cases": 16, "degenerate": 5, "checks": 9, "informative": 10, "informative_holding": 5,
        "informative_violating": 5, "uninformative": 6, "uninformative_why": {"tied": 5, "saturated": 1},
    }


def test_record_degenerate_counts_one_degenerate_case():
    with collecting() as evidence:
        record_degenerate("a zero gradient")
        record_degenerate("a zero gradient")
    assert counters(evidence) == {
        "cases": 0, "degenerate": 2, "checks": 2, "informative": 0, "informative_holding": 0,
        "informative_violating": 0, "uninformative": 0, "uninformative_why": {},
    }
    assert evidence.degenerate_why == {"a zero gradient": 2}
    assert evidence.degenerate_examples == {"a zero gradient": {}}
    assert evidence.holding is None and evidence.violating is None


def test_the_first_degenerate_case_of_each_reason_keeps_its_details():
    with collecting() as evidence:
        record_degenerate("no plateau", run=3, depth=4)
        record_degenerate("no plateau", run=5, depth=4)
        record_degenerate("zero gradient", seed=7)
    built = evidence.to_builtin()
    assert built["degenerate_examples"] == {"no plateau": {"run": 3, "depth": 4}, "zero gradient": {"seed": 7}}
    assert built["degenerate_why"] == {"no plateau": 2, "zero gradient": 1}
    # a degenerate case's numbers are not evidence: no shown case, no kind tallied
    assert built["holding"] is None and built["counterexample"] is None and built["by_kind"] == {}


def test_a_degenerate_check_in_a_real_case_keeps_no_example():
    with collecting() as evidence, one_case():
        record_case(0.0, 0.0, degenerate="zero", seed=1)
        record_case(0.5, 1.0)
    assert evidence.to_builtin()["degenerate_examples"] == {}


def test_record_case_reads_the_degenerate_flags_truth_before_anything_else():
    """``degenerate`` is a reason or a flag, read as one truth value first: a flag with none (a vectorised
    check's array) is refused as such, not as whatever else is wrong with the case, and nothing is counted."""
    import numpy as np

    with collecting() as evidence:
        with pytest.raises(ValueError, match="truth value of an array"):
            record_case(math.nan, 1.0, degenerate=np.array([True, False]))
        record_case(0.0, 0.0, degenerate=np.bool_(True))
    assert (evidence.checks, evidence.to_builtin()["degenerate_why"]) == (1, {"no reason given": 1})


def test_degenerate_cases_are_counted_under_their_reasons():
    """Outside an example each check is its own case: its reason counts its units."""
    evidence = Evidence()
    evidence.add_case(0.0, 0.0, {}, degenerate="zero gradient")
    evidence.add_case(0.0, 0.0, {}, degenerate=True, units=3)
    evidence.add_case(0.0, 0.0, {}, degenerate="zero gradient")
    assert evidence.to_builtin()["degenerate_why"] == {"zero gradient": 2, "no reason given": 3}
    assert evidence.degenerate == 5


def test_record_degenerate_needs_a_reason():
    with collecting():
        for reason in ("", "  ", None):
            with pytest.raises(ValueError, match="non-empty string"):
                record_degenerate(reason)


def test_a_closed_case_leaves_only_its_counts():
    """Closing a case forgets its example: the evidence equals one built from the counts alone."""
    evidence = Evidence()
    evidence.add_case(0.0, 0.0, {}, degenerate=True)
    # KindTally compares by identity: the degenerate case tallied nothing into it
    assert evidence == Evidence(degenerate=1, checks=1, degenerate_why={"no reason given": 1},
                                degenerate_examples={"no reason given": {}}, by_kind=evidence.by_kind)


# --- the checks of one case ---------------------------------------------------------------------------


def recorded_block(*checks: dict) -> Evidence:
    """The evidence of ``checks`` recorded as one case."""
    with collecting() as evidence, one_case():
        for check in checks:
            record_case(**check)
    return evidence


def one_block(*checks: dict) -> dict:
    return counters(recorded_block(*checks))


HOLDS = {"error": 0.5, "tolerance": 1.0}
VIOLATES = {"error": 2.0, "tolerance": 1.0, "violates": True}
DEGENERATE = {"error": 0.0, "tolerance": 0.0, "degenerate": True}


def uninformative(why: str = "tied", **extra) -> dict:
    return {**HOLDS, **extra, "uninformative": why}


def reasons_of_one_block(*checks: dict) -> dict:
    return recorded_block(*checks).to_builtin()["degenerate_why"]


def test_a_degenerate_examples_reasons_are_counted_once_each_and_only_if_it_is_degenerate():
    zero, still = {**DEGENERATE, "degenerate": "zero"}, {**DEGENERATE, "degenerate": "still"}
    assert reasons_of_one_block(zero, zero, still, {**DEGENERATE, "units": 2}) == {
        "zero": 2, "still": 2, "no reason given": 2}
    assert reasons_of_one_block(zero, HOLDS) == reasons_of_one_block(HOLDS, zero) == {}


def test_a_degenerate_check_then_a_real_one_is_one_real_case():
    assert one_block(DEGENERATE, HOLDS) == one_block(HOLDS, DEGENERATE) == {
        "cases": 1, "degenerate": 0, "checks": 2, "informative": 1, "informative_holding": 1,
        "informative_violating": 0, "uninformative": 0, "uninformative_why": {},
    }


def test_an_informative_holding_check_then_an_uninformative_one_holds_informatively():
    assert one_block(HOLDS, uninformative()) == {
        "cases": 1, "degenerate": 0, "checks": 2, "informative": 1, "informative_holding": 1,
        "informative_violating": 0, "uninformative": 0, "uninformative_why": {},
    }


def test_an_uninformative_check_then_an_informative_holding_one_holds_informatively():
    assert one_block(uninformative(), HOLDS) == {
        "cases": 1, "degenerate": 0, "checks": 2, "informative": 1, "informative_holding": 1,
        "informative_violating": 0, "uninformative": 0, "uninformative_why": {},
    }


def test_an_informative_violation_then_an_uninformative_holding_check_violates_informatively_only():
    assert one_block(VIOLATES, uninformative()) == {
        "cases": 1, "degenerate": 0, "checks": 2, "informative": 1, "informative_holding": 0,
        "informative_violating": 1, "uninformative": 0, "uninformative_why": {},
    }


def test_an_uninformative_holding_check_then_an_informative_violation_violates_informatively_only():
    assert one_block(uninformative(), VIOLATES) == {
        "cases": 1, "degenerate": 0, "checks": 2, "informative": 1, "informative_holding": 0,
        "informative_violating": 1, "uninformative": 0, "uninformative_why": {},
    }


def test_an_informative_violation_then_a_holding_check_is_both():
    assert one_block(VIOLATES, HOLDS) == one_block(HOLDS, VIOLATES) == {
        "cases": 1, "degenerate": 0, "checks": 2, "informative": 1, "informative_holding": 1,
        "informative_violating": 1, "uninformative": 0, "uninformative_why": {},
    }


def test_two_informative_violations_are_one_violating_case():
    assert one_block(VIOLATES, VIOLATES)["informative_violating"] == 1


def test_a_degenerate_check_gives_no_reason_to_an_uninformative_case():
    """Only the non-degenerate checks of an uninformative case say why it is uninformative."""
    assert one_block({**DEGENERATE, "uninformative": "vacuous"}, uninformative("tied")) == {
        "cases": 1, "degenerate": 0, "checks": 2, "informative": 0, "informative_holding": 0,
        "informative_violating": 0, "uninformative": 1, "uninformative_why": {"tied": 1},
    }


def test_an_uninformative_case_counts_each_reason_once_with_its_units():
    assert one_block(uninformative("tied", units=2), uninformative("tied"), uninformative("saturated"))[
        "uninformative_why"] == {"tied": 2, "saturated": 2}


# --- add_case: defaults and refusals ------------------------------------------------------------------


def test_add_case_defaults_to_one_informative_holding_unit():
    evidence = Evidence()
    evidence.add_case(0.5, 1.0, {"relative_slack": 0.25})
    assert counters(evidence) == {
        "cases": 1, "degenerate": 0, "checks": 1, "informative": 1, "informative_holding": 1,
        "informative_violating": 0, "uninformative": 0, "uninformative_why": {},
    }
    assert evidence.holding == Case(0.5, 1.0, {"relative_slack": 0.25}) and evidence.violating is None
    assert evidence.min_slack == 0.25


def test_add_case_refuses_fewer_than_one_unit_with_its_count():
    with pytest.raises(ValueError) as refused:
        Evidence().add_case(0.5, 1.0, {}, units=0)
    assert str(refused.value) == "a case counts at least one unit, not 0"


@pytest.mark.parametrize(("error", "tolerance"), [(math.inf, 1.0), (0.5, math.inf), (math.nan, 1.0), (0.5, -math.inf)])
def test_add_case_refuses_a_non_finite_error_or_tolerance(error, tolerance):
    evidence = Evidence()
    with pytest.raises(ValueError) as refused:
        evidence.add_case(error, tolerance, {})
    assert str(refused.value) == (
        f"a case's error and tolerance are finite numbers, not {error!r} and {tolerance!r}")
    assert evidence.checks == 0


# --- which case is shown ------------------------------------------------------------------------------


def test_an_informative_violation_replaces_an_uninformative_one_nearer_to_acceptance():
    with collecting() as evidence:
        record_case(1.5, 1.0, violates=True, uninformative="tied")
        record_case(8.0, 1.0, violates=True)
    assert evidence.violating == Case(8.0, 1.0, {})


def test_an_informative_holding_case_replaces_an_uninformative_one_nearer_to_violating():
    with collecting() as evidence:
        record_case(0.75, 1.0, uninformative="tied", relative_slack=0.125)
        record_case(0.25, 1.0, relative_slack=0.5)
    assert evidence.holding == Case(0.25, 1.0, {"relative_slack": 0.5})
    assert evidence.min_slack == 0.5


def test_of_equally_near_cases_the_first_is_shown():
    with collecting() as evidence:
        record_case(0.5, 1.0, run="first")
        record_case(0.5, 1.0, run="second")
        record_case(2.0, 1.0, violates=True, run="first")
        record_case(2.0, 1.0, violates=True, run="second")
    assert evidence.holding.details == {"run": "first"}
    assert evidence.violating.details == {"run": "first"}


def test_of_equal_smallest_slacks_the_first_is_kept():
    with collecting() as evidence:
        record_case(0.5, 1.0, relative_slack=0.0)
        record_case(0.5, 1.0, relative_slack=-0.0)
    assert math.copysign(1.0, evidence.min_slack) == 1.0


def test_a_finding_evidences_the_claims_of_its_test():
    with collecting(claim_ids=["LJ22.T1", "LJ22.L2"]) as evidence:
        found = evidence.finding("wider hypothesis")
    assert found.claim_ids == ["LJ22.T1", "LJ22.L2"] and found.is_finding


# --- the series rows kept -----------------------------------------------------------------------------


def series_evidence(rows: int, limit: int | None) -> Evidence:
    evidence = Evidence(series=[{"series": "s", "i": i} for i in range(rows)])
    evidence.series_limits["s"] = limit
    return evidence


@pytest.mark.parametrize(("limit", "kept"), [(0, []), (1, [0]), (2, [0, 4]), (3, [0, 2, 4]), (5, [0, 1, 2, 3, 4])])
def test_kept_series_keeps_an_evenly_spaced_sample_first_and_last_included(limit, kept):
    rows, dropped = series_evidence(5, limit).kept_series()
    assert [row["i"] for row in rows] == kept
    assert dropped == ({"s": 5 - len(kept)} if len(kept) < 5 else {})


# --- the report's record ------------------------------------------------------------------------------


def test_to_builtin_writes_exactly_the_fields_the_report_reads():
    assert list(Evidence().to_builtin()) == [
        "cases", "degenerate", "degenerate_why", "degenerate_examples", "checks", "informative", "informative_holding",
        "informative_violating", "uninformative", "uninformative_why", "unit", "min_slack", "max_error", "tolerance",
        "details", "by_kind", "holding", "counterexample", "notes", "verdict", "correction", "violation",
        "failed_finding", "falsifying_example", "power", "findings", "series", "series_dropped", "trends", "figures",
        "errata",
    ]


def test_to_builtin_writes_the_shown_case_and_the_test_outcome():
    with collecting() as evidence:
        record_case(0.5, 1.0, relative_slack=0.25)
    evidence.correction, evidence.violation, evidence.failed_finding = "read 2 for 1", "a violation", "f"
    evidence.falsifying_example = "example(x=1.0)"
    built = evidence.to_builtin()
    assert (built["max_error"], built["tolerance"], built["details"]) == (0.5, 1.0, {"relative_slack": 0.25})
    assert (built["correction"], built["violation"], built["failed_finding"]) == ("read 2 for 1", "a violation", "f")
    assert built["falsifying_example"] == "example(x=1.0)"
    empty = Evidence().to_builtin()
    assert (empty["max_error"], empty["tolerance"], empty["details"]) == (None, None, {})


# --- outside a claim test -----------------------------------------------------------------------------

OUTSIDE = (" was called outside a claim test: checks and notes record evidence only inside a test marked "
           "@pytest.mark.claim('ID') that runs under the claims plugin (loaded by the project's conftest.py). "
           "Call it from such a test, or compute without recording.")


def test_current_outside_a_claim_test_says_what_to_do():
    with pytest.raises(OutsideClaimTest) as refused:
        current()
    assert str(refused.value) == "this function" + OUTSIDE


def test_record_case_outside_a_claim_test_names_itself():
    with pytest.raises(OutsideClaimTest) as refused:
        record_case(0.5, 1.0)
    assert str(refused.value) == "record_case" + OUTSIDE


# --- the unit of the cases ----------------------------------------------------------------------------


def test_count_cases_as_names_the_unit_again_unless_told_to_keep_a_named_one():
    with collecting() as evidence:
        count_cases_as("runs")
        count_cases_as("optima")
        assert evidence.unit == "optima"
        count_cases_as("trajectories", unless_named=True)
    assert evidence.unit == "optima"


@pytest.mark.parametrize(("name", "call"), [
    ("count_cases_as", lambda: count_cases_as("runs")),
    ("record_degenerate", lambda: record_degenerate("zero gradient")),
    ("record_series", lambda: record_series("s", x=1)),
    ("keep_series_rows", lambda: keep_series_rows("s", 3)),
    ("recorded_series", lambda: recorded_series("s")),
    ("record_erratum", lambda: record_erratum(
        "BSJ25.P22-E1", severity="sign or typo", location_kind="equation", location="Eq. (1)", printed="a",
        corrected="b", counterexample="x")),
    ("declare_verdict", lambda: declare_verdict("refuted")),
])
def test_each_recorder_outside_a_claim_test_names_itself(name, call):
    with pytest.raises(OutsideClaimTest) as refused:
        call()
    assert str(refused.value) == name + OUTSIDE


def test_count_cases_as_refuses_an_unknown_unit_naming_the_units():
    with collecting(), pytest.raises(ValueError) as refused:
        count_cases_as("apples")
    assert str(refused.value) == (
        "a test's cases are one of ('examples', 'checks', 'trajectories', 'runs', 'optima', 'paths', "
        "'instances', 'matrices', 'ratios'), not 'apples'")


def test_currently_in_example_is_true_only_inside_a_hypothesis_example():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    seen = []

    @settings(max_examples=2, database=None, derandomize=True)
    @given(st.integers(0, 1))
    def example(_):
        seen.append(currently_in_example())

    example()
    assert seen and all(seen)
    assert currently_in_example() is False


# --- series limits --------------------------------------------------------------------------------------


def test_keep_series_rows_takes_zero_rows_and_refuses_a_negative_count_naming_it():
    with collecting() as evidence:
        keep_series_rows("s", 0)
        assert evidence.series_limits == {"s": 0}
        with pytest.raises(ValueError) as refused:
            keep_series_rows("s", -1)
    assert str(refused.value) == "keep_series_rows: rows is a count >= 0 or None, not -1"


# --- declared verdicts -------------------------------------------------------------------------------


def test_a_correction_without_an_erratum_is_named_with_what_to_call():
    with collecting() as evidence:
        declare_verdict("verified-with-correction", "read 2 for 1")
    assert missing_erratum(evidence) == (
        "the test declared verified-with-correction but recorded no erratum: call record_erratum(...) "
        "with the printed text, the correction and the counterexample's numbers")


def test_a_correction_verdict_without_its_correction_is_refused_with_the_reason():
    with collecting(), pytest.raises(ValueError) as refused:
        declare_verdict("verified-with-correction")
    assert str(refused.value) == "a verified-with-correction verdict writes its correction out"


def test_declaring_the_same_verdict_again_takes_the_new_correction():
    with collecting() as evidence:
        declare_verdict("verified-with-correction", "read 2 for 1")
        declare_verdict("verified-with-correction", "read 3 for 1")
    assert (evidence.verdict, evidence.correction) == ("verified-with-correction", "read 3 for 1")


def test_a_weaker_verdict_declared_after_a_stronger_one_still_gives_its_correction():
    with collecting() as evidence:
        declare_verdict("refuted")
        declare_verdict("verified-with-correction", "read 2 for 1")
    assert (evidence.verdict, evidence.correction) == ("refuted", "read 2 for 1")
