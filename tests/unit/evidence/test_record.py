"""``claims.evidence._record`` as the checks use it: findings recorded apart from a test's cases, recording
outside a claim test, declared verdicts, and the claim-level worst case (the case nearest to violating, or to
acceptance)."""

from __future__ import annotations

import pytest

from claims.checks import (
    check_close,
    check_exact,
    check_inequality,
    check_inequality_rejected,
    check_property,
    check_rejected,
)
from claims.evidence._record import (
    ClaimViolation,
    OutsideClaimTest,
    collecting,
    declare_verdict,
    finding,
    nearest_to_acceptance,
    nearest_to_violating,
    record_case,
    record_degenerate,
    record_note,
)

# --- findings ---------------------------------------------------------------------------------------


def test_checks_inside_a_finding_are_recorded_apart_from_the_test_cases():
    with collecting() as evidence:
        check_close(1.0, 1.0, tolerance=0.0)
        with finding("wider hypothesis") as found:
            check_inequality(1.0, 2.0, tolerance=0.0)
            check_inequality(1.0, 4.0, tolerance=0.0)
            declare_verdict("refuted")  # the verdict belongs to the test, not the finding
        check_property(True, "p")
    assert evidence.findings["wider hypothesis"] is found and found.is_finding
    assert (found.cases, found.checks, found.min_slack) == (2, 2, pytest.approx(1 / 3))
    assert (evidence.cases, evidence.checks, evidence.min_slack) == (2, 2, None)
    assert evidence.failed_finding is None
    assert (evidence.verdict, found.verdict) == ("refuted", None)
    built = evidence.to_builtin()
    assert built["findings"]["wider hypothesis"]["cases"] == 2


def test_a_violation_inside_a_finding_sets_failed_finding():
    with collecting() as evidence:
        with finding("sharper constant"):
            check_close(1.0, 1.0, tolerance=0.0)
        with pytest.raises(ClaimViolation):
            with finding("wider hypothesis"):
                check_inequality(2.0, 1.0, tolerance=0.0)
        with pytest.raises(ClaimViolation):
            with finding("another"):
                check_property(False, "q")
    assert evidence.failed_finding == "wider hypothesis"  # the first one that failed
    assert evidence.findings["wider hypothesis"].violating.error == 1.0
    assert evidence.cases == 0 and evidence.holding is None


def test_a_finding_reentered_by_name_accumulates():
    with collecting() as evidence:
        for rhs in (2.0, 3.0):
            with finding("f"):
                check_inequality(1.0, rhs, tolerance=0.0)
    assert list(evidence.findings) == ["f"] and evidence.findings["f"].cases == 2


# --- outside a claim test ---------------------------------------------------------------------------


OUTSIDE = {
    "check_close": lambda: check_close(1.0, 1.0, tolerance=0.0),
    "check_rejected": lambda: check_rejected(2.0, 1.0, tolerance=0.0),
    "check_exact": lambda: check_exact([1], [1]),
    "check_property": lambda: check_property(True, "p"),
    "check_inequality": lambda: check_inequality(1.0, 2.0, tolerance=0.0),
    "check_inequality_rejected": lambda: check_inequality_rejected(2.0, 1.0, tolerance=0.0),
    "record_note": lambda: record_note("a note"),
    "record_case": lambda: record_case(0.0, 0.0),
    "record_degenerate": lambda: record_degenerate("zero"),
    "declare_verdict": lambda: declare_verdict("refuted"),
    "finding": lambda: finding("f").__enter__(),
}


@pytest.mark.parametrize("call", OUTSIDE.values(), ids=OUTSIDE.keys())
def test_recording_outside_a_claim_test_raises_outside_claim_test(call):
    message = r"outside a claim test.*only inside a test marked @pytest.mark.claim"
    with pytest.raises(OutsideClaimTest, match=message):
        call()


def test_recording_after_collecting_closes_raises_again():
    with collecting() as evidence:
        record_note("inside")
        record_note("inside")  # a note is kept once
    assert evidence.notes == ["inside"]
    with pytest.raises(OutsideClaimTest, match="record_note was called outside a claim test"):
        record_note("after")


def test_nested_collecting_records_into_the_innermost():
    with collecting() as outer:
        with collecting() as inner:
            check_property(True, "p")
        check_property(True, "q")
    assert (outer.checks, inner.checks) == (1, 1)


# --- verdicts -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("verdict", ["verified", "error", "not-run", "untested", "bogus", ""])
def test_declare_verdict_rejects_verdicts_a_test_cannot_declare(verdict):
    with collecting() as evidence:
        with pytest.raises(ValueError, match="declares one of"):
            declare_verdict(verdict, correction="something")
    assert evidence.verdict is None


@pytest.mark.parametrize("correction", [None, ""])
def test_declare_verdict_with_correction_needs_the_correction_written_out(correction):
    with collecting() as evidence:
        with pytest.raises(ValueError, match="writes its correction out"):
            declare_verdict("verified-with-correction", correction)
    assert evidence.verdict is None


def test_declare_verdict_records_the_declared_verdict_and_correction():
    with collecting() as evidence:
        declare_verdict("verified-with-correction", "the constant is 2, not 1")
    assert (evidence.verdict, evidence.correction) == ("verified-with-correction", "the constant is 2, not 1")


# --- the claim-level worst case -------------------------------------------------------------------------


def _case(error, tolerance, **details):
    return {"error": error, "tolerance": tolerance, "details": details}


def test_nearest_to_violating_picks_the_smallest_margin_not_the_best():
    far, exact, near, middle = _case(1e-12, 1e-9), _case(0.0, 1e-9), _case(9e-10, 1e-9), _case(1e-10, 1e-9)
    assert nearest_to_violating([far, exact, near, middle]) is near
    assert nearest_to_violating([exact, far]) is far
    assert nearest_to_violating([]) is None


def test_nearest_to_violating_among_exact_cases_picks_the_smallest_slack():
    loose, tight = _case(0.0, 0.0, relative_slack=0.5), _case(0.0, 0.0, relative_slack=1e-6)
    assert nearest_to_violating([loose, tight, _case(0.0, 0.0, relative_slack=0.1)]) is tight


def test_nearest_to_violating_on_equal_margins_picks_the_larger_error():
    small, large = _case(1e-10, 1e-9), _case(1e-8, 1e-7)
    assert nearest_to_violating([small, large]) is large


def test_nearest_to_acceptance_picks_the_violation_nearest_to_being_accepted():
    blatant, marginal, middle = _case(10.0, 1.0), _case(1.5, 1.0), _case(3.0, 1.0)
    assert nearest_to_acceptance([blatant, marginal, middle]) is marginal
    assert nearest_to_acceptance([]) is None


def test_test_evidence_keeps_the_holding_case_nearest_to_violating():
    with collecting() as evidence:
        for error in (1e-12, 9e-10, 0.0, 1e-10):
            check_close(1.0, 1.0 + error, tolerance=1e-9)
        for rhs in (2.0, 1.001, 5.0):
            check_inequality(1.0, rhs, tolerance=0.0)
    assert evidence.holding.error == pytest.approx(9e-10, rel=1e-3, abs=0)
    assert evidence.min_slack == pytest.approx(0.001 / 2.001)
    assert evidence.to_builtin()["max_error"] == evidence.holding.error


def test_test_evidence_keeps_the_violating_case_nearest_to_acceptance():
    with collecting() as evidence:
        for observed in (10.0, 1.5, 3.0):
            check_rejected(observed, 0.0, tolerance=1.0)
        for lhs in (4.0, 3.0, 9.0):  # excess 3, 2, 8: margins below 1 / 1.5
            check_inequality_rejected(lhs, 1.0, tolerance=1.0)
    assert evidence.violating.error == pytest.approx(1.5)
    built = evidence.to_builtin()
    assert built["counterexample"]["error"] == pytest.approx(1.5)
    assert built["holding"] is None and built["cases"] == 6

