"""The verdict rules of ``claims.report._model`` (its module docstring lists them), each at its boundary.

Evidence here is written by hand, as ``claims.evidence._record``'s ``to_builtin`` writes it, with exactly
representable numbers: a holding case of error 0.25 under tolerance 0.5, a counterexample of error 0.75.
One test record per rule and its neighbour, so that a rule weakened, dropped or reordered turns a test red.
"""

from __future__ import annotations

import pytest

from claims.evidence._role import Role
from claims.session._phases import fold_phase
from claims.evidence._registry import CLAIMS
from claims.report._model import (
    CONTROL_STATES,
    NOT_RUN,
    SKIPPED_IN_SETUP,
    TestRecord,
    claim_entry,
    control_status,
)
from claims.report._power import LACKED_POWER, lacked_power_reason
from claims.report._suite import ClaimSuite

CLAIM = CLAIMS["LJ22.L10"]
HOLDING = {"error": 0.25, "tolerance": 0.5, "details": {}}
COUNTEREXAMPLE = {"error": 0.75, "tolerance": 0.5, "details": {}}
NO_CALL = "selected, but no call phase was reported (interrupted or stopped early)"


def evidence(cases: int = 1, **fields) -> dict:
    """An evidence test's record: ``cases`` informative cases where the statement held."""
    return {"cases": cases, "checks": cases, "informative": cases, "informative_holding": cases, "holding": HOLDING,
            **fields}


def control_evidence(cases: int = 1, **fields) -> dict:
    """A negative control's record: ``cases`` informative cases that the check rejected."""
    return {"cases": cases, "checks": cases, "informative": cases, "informative_violating": cases,
            "counterexample": COUNTEREXAMPLE, **fields}


def record(nodeid: str = "t.py::a", fields: dict | None = None, *, control: bool = False, outcome: str = "passed",
           line: int | None = None) -> TestRecord:
    """A test that reported its call phase with ``outcome`` and ``fields`` as evidence."""
    test = TestRecord(nodeid, [CLAIM.id], Role.of_marker(control), line=line)
    if outcome != NOT_RUN:
        fold_phase(test, "call", outcome,
                   fields if fields is not None else (control_evidence() if control else evidence()), 0.0)
    return test


def control(**fields) -> TestRecord:
    return record("t.py::control", control_evidence(**fields), control=True)


def entry(*tests: TestRecord, suite: ClaimSuite | None = None) -> dict:
    return claim_entry(CLAIM, list(tests), suite)


# ------------------------------------------------------------------------------- a test's outcome


@pytest.mark.parametrize("when, outcome, fields, message, expected", [
    ("call", "passed", {"cases": 1}, "", ("passed", None)),
    ("call", "failed", {"violation": "lhs > rhs"}, "assert", ("failed", None)),
    ("call", "failed", {"violation": "lhs > rhs", "failed_finding": "rate"}, "boom",
     ("error", "finding 'rate' failed: boom")),
    ("call", "failed", {"failed_finding": "rate"}, "boom", ("error", "finding 'rate' failed: boom")),
    ("call", "failed", {}, "ZeroDivisionError", ("error", "ZeroDivisionError")),
    ("call", "failed", {}, "", ("error", "failed")),
    ("call", "failed", None, "", ("error", "failed")),
    ("call", "skipped", {}, "needs nightly", (NOT_RUN, "skipped: needs nightly")),
    ("setup", "failed", None, "fixture broke", ("error", "setup failed: fixture broke")),
    ("teardown", "failed", None, "cleanup broke", ("error", "teardown failed: cleanup broke")),
    ("setup", "skipped", None, "Skipped: nightly only", (NOT_RUN, SKIPPED_IN_SETUP + "Skipped: nightly only")),
    ("???", "failed", None, "worker 'gw1' crashed", (NOT_RUN, "worker 'gw1' crashed")),
    ("???", "failed", None, "", (NOT_RUN, "the worker running it crashed")),
    ("setup", "passed", None, "", (NOT_RUN, NO_CALL)),
    ("teardown", "passed", None, "", (NOT_RUN, NO_CALL)),
    ("teardown", "skipped", None, "", (NOT_RUN, NO_CALL)),
])
def test_a_phase_report_sets_the_outcome_and_its_reason(when, outcome, fields, message, expected):
    """Only the call phase passes or fails a test; a violation without a failing finding is a failure of
    the claim, anything else that fails is an error (setup, teardown, a finding, an exception); a skip or a
    crash leaves it not-run with the reason."""
    test = TestRecord("t.py::a", [CLAIM.id], Role.EVIDENCE)
    fold_phase(test, when, outcome, fields, 0.0, message)
    assert (test.outcome, test.reason) == expected


@pytest.mark.parametrize("first", [("call", "failed", {"violation": "v"}), ("setup", "failed", None),
                                   ("call", "failed", {})])
def test_a_failure_or_error_is_never_undone_by_a_later_report(first):
    """A rerun or a second worker that passes does not erase what once contradicted the claim; a teardown
    failure after a passing call turns the test into an error; durations add up."""
    test = TestRecord("t.py::a", [CLAIM.id], Role.EVIDENCE)
    fold_phase(test, *first, 0.5, "first")
    kept = (test.outcome, test.reason)
    fold_phase(test, "call", "passed", evidence(), 0.25)
    fold_phase(test, "teardown", "failed", None, 0.125, "later")
    assert (test.outcome, test.reason) == kept and test.duration == 0.875
    passed = record()
    fold_phase(passed, "teardown", "failed", None, 0.0, "cleanup broke")
    assert (passed.outcome, passed.reason) == ("error", "teardown failed: cleanup broke")


def test_the_call_phase_evidence_replaces_and_passes_clear_the_reason():
    test = TestRecord("t.py::a", [CLAIM.id], Role.EVIDENCE)
    assert (test.outcome, test.reason, test.evidence) == (NOT_RUN, NO_CALL, {})
    fold_phase(test, "setup", "passed", None, 0.0)
    fold_phase(test, "call", "passed", evidence(3), 0.0)
    assert (test.outcome, test.reason, test.cases) == ("passed", None, 3)


# ------------------------------------------------------------------------------ the negative control


@pytest.mark.parametrize("controls, suite, expected", [
    ([], ClaimSuite(has_controls=True), "control not run in this selection"),
    ([], ClaimSuite(has_controls=False), "absent"),
    ([], ClaimSuite(has_controls=False, unselected_controls=1), "absent"),
    ([control()], ClaimSuite(has_controls=True), "rejected"),
    ([control()], ClaimSuite(has_controls=True, unselected_controls=1), "partly run in this selection"),
    ([control(informative_violating=0)], ClaimSuite(unselected_controls=1), "uninformative"),
    ([control(), control(informative_violating=0)], ClaimSuite(), "uninformative"),
    ([control(cases=0)], ClaimSuite(), "no cases"),
    ([control(counterexample=None)], ClaimSuite(), "no cases"),
    ([control(), control(cases=0, informative_violating=0)], ClaimSuite(), "no cases"),
    ([control(), record("t.py::c2", control=True, outcome=NOT_RUN)], ClaimSuite(), "did not finish"),
    ([control(cases=0), record("t.py::c2", control=True, outcome=NOT_RUN)], ClaimSuite(), "did not finish"),
    ([record("t.py::c2", {}, control=True, outcome="failed"), record("t.py::c3", control=True, outcome=NOT_RUN)],
     ClaimSuite(), "error"),
    ([record("t.py::c2", {"violation": "v"}, control=True, outcome="failed"),
      record("t.py::c3", {}, control=True, outcome="failed")], ClaimSuite(), "accepted"),
])
def test_the_control_state_is_the_first_that_applies(controls, suite, expected):
    """accepted > error > did not finish > no cases > uninformative > partly run > rejected: a control that
    accepted a case says the check cannot fail, whatever the others did."""
    assert control_status(controls, suite) == expected


def test_every_control_state_has_its_explanation():
    assert CONTROL_STATES["rejected"] == "every control ran and the same check rejected its cases"
    assert CONTROL_STATES["partly run in this selection"] == (
        "some of the claim's controls were not selected in this run"
    )


# ------------------------------------------------------------------------------------ the verdict


def declaring(verdict: str, correction: str | None = None, counterexample: dict | None = COUNTEREXAMPLE, **fields):
    return evidence(verdict=verdict, correction=correction, counterexample=counterexample, **fields)


@pytest.mark.parametrize("declared, expected", [
    ([None], "verified"),
    ([None, "verified-with-correction"], "verified-with-correction"),
    (["verified-with-correction", "inconclusive"], "inconclusive"),
    (["inconclusive", "refuted"], "refuted"),
    (["verified-with-correction", "refuted", None], "refuted"),
])
def test_declared_verdicts_combine_by_precedence(declared, expected):
    """refuted > inconclusive > verified-with-correction > verified: a correction never hides a refutation,
    and a trend that did not reproduce is never averaged into a corrected claim."""
    tests = [record(f"t.py::t{i}", declaring(v, "c" if v == "verified-with-correction" else None,
                                             COUNTEREXAMPLE if v in ("refuted", "verified-with-correction") else None))
             for i, v in enumerate(declared)]
    result = entry(*tests, control())
    assert result["verdict"] == expected


def test_an_error_anywhere_hides_every_other_verdict():
    """A control's error (e.g. its teardown failed) or a check's, over a failed check and a declaration."""
    broken = record("t.py::control", control_evidence(), control=True)
    fold_phase(broken, "teardown", "failed", None, 0.0, "cleanup broke")
    failed = record("t.py::b", {"violation": "lhs > rhs"}, outcome="failed")
    assert entry(record(), failed, broken)["verdict"] == "error"
    assert entry(record(), record("t.py::b", {}, outcome="failed"), control())["verdict"] == "error"


def test_a_failed_check_refutes_and_stays_refuted_whatever_else_is_missing():
    """A failing check is a counterexample the run found: refuted, even with no control and unfinished tests
    (the notes say what is missing, the verdict does not soften)."""
    failed = record("t.py::b", {"violation": "lhs > rhs"}, outcome="failed")
    result = entry(failed, record("t.py::c", outcome=NOT_RUN), suite=ClaimSuite(has_controls=True))
    assert result["verdict"] == "refuted" and result["control_state"] == "control not run in this selection"
    assert result["violations"] == [{"nodeid": "t.py::b", "violation": "lhs > rhs", "falsifying_example": None}]
    hypothesis = record("t.py::d", {"violation": "lhs > rhs", "falsifying_example": "test(x=0.5)"},
                        outcome="failed")
    assert entry(hypothesis)["violations"] == [
        {"nodeid": "t.py::d", "violation": "lhs > rhs", "falsifying_example": "test(x=0.5)"}]
    # a control that failed (accepted a case) refutes nothing: the check is not shown able to fail
    accepted = record("t.py::control", {"violation": "v"}, control=True, outcome="failed")
    result = entry(record(), accepted)
    assert (result["verdict"], result["control_state"]) == ("inconclusive", "accepted")
    assert result["why"] == [("Checks passed, but the negative control: accepted (a control's case was accepted: "
                              "the check is not shown able to fail).")]


def test_a_claim_without_selected_tests_is_not_run_or_untested():
    assert entry(suite=ClaimSuite(has_evidence_tests=True))["verdict"] == NOT_RUN
    assert entry(suite=ClaimSuite(has_controls=True))["verdict"] == NOT_RUN
    assert entry(suite=ClaimSuite())["verdict"] == "untested"
    assert entry()["verdict"] == "untested"


def test_no_finished_evidence_test_is_not_run_with_the_skip_reasons():
    skipped = [TestRecord(f"t.py::s{i}", [CLAIM.id], Role.EVIDENCE) for i in range(3)]
    for test, why in zip(skipped, ["Skipped: nightly only", "nightly only", "needs a GPU"]):
        fold_phase(test, "setup", "skipped", None, 0.0, why)
    result = entry(*skipped, control())
    assert result["verdict"] == NOT_RUN
    assert result["why"] == ["No evidence test of this claim finished in this run.",
                             "Skipped: nightly only; needs a GPU."]
    interrupted = entry(skipped[0], record("t.py::i", outcome=NOT_RUN), control())
    assert interrupted["verdict"] == NOT_RUN
    assert interrupted["why"] == ["No evidence test of this claim finished in this run."]
    only_controls = entry(control())
    assert (only_controls["verdict"], only_controls["why"]) == (NOT_RUN, [
        "No evidence test of this claim finished in this run."])


def test_verified_needs_everything_and_says_nothing():
    result = entry(record(), control())
    assert (result["verdict"], result["why"], result["control_state"]) == ("verified", [], "rejected")


@pytest.mark.parametrize("declared", ["refuted", "verified-with-correction"])
def test_a_declared_refutation_or_correction_needs_a_kept_counterexample(declared):
    with_one = entry(record("t.py::a", declaring(declared, "c")), control())
    assert (with_one["verdict"], with_one["why"]) == (declared, [])
    without = entry(record("t.py::a", declaring(declared, "c", None)), record("t.py::b"), control())
    assert without["verdict"] == "inconclusive"
    assert without["why"][0] == (
        "t.py::a declared a verdict without recording a counterexample to the printed statement."
    )
    trivial = dict(COUNTEREXAMPLE, details={"uninformative": "the responses are tied"})
    shown_nothing = entry(record("t.py::a", declaring(declared, "c", trivial)), control())
    assert shown_nothing["verdict"] == "inconclusive"
    assert shown_nothing["why"][0] == ("t.py::a declared a verdict on a counterexample that could not have come out "
                                       "the other way: the responses are tied.")


def test_a_declared_inconclusive_trend_says_so_and_names_the_control():
    result = entry(record("t.py::a", declaring("inconclusive", counterexample=None)), record("t.py::b"),
                   suite=ClaimSuite(has_controls=True))
    assert result["verdict"] == "inconclusive"
    assert result["why"] == [
        ("t.py::a: declared inconclusive: a test fixed before the data (a trend, or a threshold within the run's "
         "length) came out neither way at this run's scale; its numbers and reasons are in the notes."),
        ("The negative control: control not run in this selection (the claim has a control, but this run did not "
         "select it)."),
    ]
    with_control = entry(record("t.py::a", declaring("inconclusive", counterexample=None)), control())
    assert len(with_control["why"]) == 1


@pytest.mark.parametrize("tests, suite, why", [
    ([record("t.py::b", outcome=NOT_RUN)], ClaimSuite(),
     ["1 of 2 selected evidence tests did not finish."]),
    ([record("t.py::b", evidence(0, holding=None))], ClaimSuite(),
     ["t.py::b passed without a non-degenerate case."]),
    ([record("t.py::b", evidence(2, informative=0, informative_holding=0,
                                 uninformative_why={"the bound is above 1": 2}))], ClaimSuite(),
     ["The evidence could not have failed: t.py::b: 0 informative of 2 cases (2: the bound is above 1)."]),
    ([record("t.py::b", evidence(4, holding=dict(HOLDING, error=0.75)))], ClaimSuite(),
     ["t.py::b recorded a case beyond its tolerance (an undecided trend) without declaring a verdict."]),
    ([record("t.py::b", evidence(counterexample=COUNTEREXAMPLE))], ClaimSuite(),
     ["A test recorded a counterexample to the printed statement but declared no verdict."]),
    ([], ClaimSuite(unselected_evidence=2),
     [("2 evidence test(s) of this claim were not selected in this run, and they may show what the selected ones "
       "do not (a correction, a counterexample).")]),
])
def test_each_gap_in_the_evidence_makes_a_passing_claim_inconclusive_and_says_so(tests, suite, why):
    result = entry(record(), *tests, control(), suite=suite)
    assert (result["verdict"], result["why"]) == ("inconclusive", why)


def test_a_holding_case_that_could_not_have_failed_shows_nothing():
    """Cases exist and are informative (e.g. counterexamples), but no holding case could have failed."""
    result = entry(record("t.py::a", evidence(2, informative_holding=0, uninformative_why={"at the floor": 2})),
                   control())
    assert result["verdict"] == "inconclusive"
    assert result["why"] == [("The evidence could not have failed: no case where the (corrected) statement holds "
                              "could have come out the other way (t.py::a: 2: at the floor).")]
    none_informative = entry(record("t.py::a", evidence(2, informative_holding=0)), control())
    assert none_informative["why"][0].endswith("come out the other way (t.py::a: none informative).")
    no_holding = entry(record("t.py::a", evidence(2, holding=None)), control())
    assert no_holding["why"] == ["No case where the statement holds was checked."]


def test_a_case_exactly_at_its_tolerance_holds():
    """error == tolerance is within it (the check core passes it): not "beyond its tolerance"."""
    at = entry(record("t.py::a", evidence(holding={"error": 0.5, "tolerance": 0.5, "details": {}})), control())
    assert (at["verdict"], at["why"]) == ("verified", [])


# ------------------------------------------------------------------------------ the claim's numbers


def test_the_claim_entry_aggregates_its_evidence_tests_not_its_controls():
    """Counts add up over the evidence tests (a control's cases are no evidence for the claim); the worst
    case is the holding case nearest to violating, the counterexample shown the one nearest to acceptance."""
    near = {"error": 0.375, "tolerance": 0.5, "details": {"error_scale": "relative"}}
    far_ce = {"error": 4.0, "tolerance": 0.5, "details": {}}
    first = record("t.py::a", evidence(3, checks=6, degenerate=1, informative=2, informative_holding=1, min_slack=0.5,
                                       unit="runs", correction="k > 1", trends=[{"verdict": "verified"}]), line=20)
    second = record("t.py::b", evidence(2, holding=near, min_slack=0.25, informative_holding=2,
                                        counterexample=COUNTEREXAMPLE, verdict="verified-with-correction",
                                        correction="k > 1"), line=10)
    third = record("t.py::c", evidence(0, holding=None, counterexample=far_ce, min_slack=None, unit="optima",
                                       correction="k > 2", verdict="verified-with-correction"), line=30)
    result = entry(first, second, third, control(cases=7, degenerate=5, checks=9, min_slack=0.125))
    assert (result["tests"], result["cases"], result["checks"], result["degenerate"]) == (4, 5, 8, 1)
    assert (result["informative"], result["informative_holding"]) == (4, 3)
    assert result["units"] == ["cases", "runs"]  # optima: a test without cases names no unit
    assert result["min_slack"] == 0.25
    assert (result["max_error"], result["tolerance"], result["error_scale"]) == (0.375, 0.5, "relative")
    assert result["margin"] == 0.5 / 0.375
    assert result["counterexample"] == COUNTEREXAMPLE
    assert [c["nodeid"] for c in result["counterexamples"]] == ["t.py::b", "t.py::c"]
    assert result["correction"] == "k > 1; k > 2"
    assert result["trends"] == [{"nodeid": "t.py::a", "verdict": "verified"}]
    assert [t["nodeid"] for t in result["evidence"]] == ["t.py::b", "t.py::a", "t.py::c", "t.py::control"]
    assert [t["role"] for t in result["evidence"]] == ["evidence"] * 3 + ["control"]


def test_the_claims_kind_tally_merges_its_evidence_tests_and_a_test_without_a_checks_count_adds_none():
    """``by_kind``: the evidence tests' tallies merged (a control's left out); ``checks``: a test that
    recorded no count (a report from before the count) adds 0."""
    from claims.evidence._kinds import from_cases, merge

    near = {"error": 0.375, "tolerance": 0.5, "details": {}}
    result = entry(record("t.py::a", {"cases": 1, "holding": HOLDING}),
                   record("t.py::b", evidence(holding=near)), control())
    assert result["checks"] == 1
    assert result["by_kind"] == merge([from_cases(HOLDING, None), from_cases(near, None)])
    assert sum(part["checks"] for sides in result["by_kind"].values() for part in sides.values()) == 2


def test_without_a_holding_case_there_is_no_worst_case():
    result = entry(record("t.py::a", evidence(0, holding=None, counterexample=COUNTEREXAMPLE)), control())
    assert (result["max_error"], result["tolerance"], result["error_scale"], result["margin"]) == (None,) * 4
    assert result["min_slack"] is None and result["units"] == [] and result["correction"] is None


def test_an_exact_worst_case_has_no_finite_margin_to_show():
    """error 0: the margin is infinite, which the entry stores as None (strict JSON), not as a number."""
    result = entry(record("t.py::a", evidence(holding={"error": 0.0, "tolerance": 0.5, "details": {}})), control())
    assert (result["max_error"], result["margin"]) == (0.0, None)


def test_findings_merge_by_name_over_the_evidence_tests():
    """A finding (a named sub-question a test records) adds up over the claim's evidence tests: counts summed,
    trends joined, notes once each, its worst holding case (nearest to violating) with its numbers."""
    near = {"error": 0.375, "tolerance": 0.5, "details": {"error_scale": "absolute"}}

    def finding(cases, holding, notes, trends=(), counterexample=None):
        return {"cases": cases, "degenerate": cases - 1, "checks": 2 * cases, "holding": holding, "notes": notes,
                "trends": list(trends), "counterexample": counterexample}

    first = record("t.py::a", evidence(findings={"wider": finding(1, HOLDING, ["n1", "n2"], [{"verdict": "verified"}]),
                                                 "other": finding(2, None, [], counterexample=COUNTEREXAMPLE)}))
    second = record("t.py::b", evidence(findings={"wider": finding(3, near, ["n2", "n3"], [{"verdict": "refuted"}])}))
    ignored = record("t.py::control", control_evidence(findings={"wider": finding(5, HOLDING, ["c"])}), control=True)
    findings = entry(first, second, ignored)["findings"]
    assert list(findings) == ["wider", "other"]
    wider = findings["wider"]
    assert (wider["cases"], wider["degenerate"], wider["checks"]) == (4, 2, 8)
    assert wider["notes"] == ["n1", "n2", "n3"]
    assert wider["trends"] == [{"verdict": "verified"}, {"verdict": "refuted"}]
    assert (wider["max_error"], wider["tolerance"], wider["error_scale"]) == (0.375, 0.5, "absolute")
    assert sum(part["checks"] for sides in wider["by_kind"].values() for part in sides.values()) == 2
    other = findings["other"]
    assert (other["cases"], other["max_error"], other["tolerance"], other["error_scale"]) == (2, None, None, None)
    assert "holding" not in wider and "holding" not in other


def test_a_findings_counts_add_up_and_its_worst_case_is_taken_over_every_test():
    """Degenerate cases add up from the first test on, and the worst holding case is the one nearest to
    violating over all the tests (here the first one's), not the last test's; a finding recorded before
    tallies is tallied from its two cases, its counterexample as a violating check."""
    from claims.evidence._kinds import from_cases

    near = {"error": 0.375, "tolerance": 0.5, "details": {"error_scale": "absolute"}}
    first = {"cases": 2, "degenerate": 2, "checks": 2, "holding": near, "counterexample": COUNTEREXAMPLE}
    second = {"cases": 1, "degenerate": 1, "checks": 1, "holding": HOLDING}
    result = entry(record("t.py::a", evidence(findings={"f": first})),
                   record("t.py::b", evidence(findings={"f": second})), control())["findings"]["f"]
    assert (result["cases"], result["degenerate"], result["checks"]) == (3, 3, 3)
    assert (result["max_error"], result["tolerance"], result["error_scale"]) == (0.375, 0.5, "absolute")
    assert result["by_kind"]["other"] == {**from_cases(HOLDING, None)["other"],
                                          **from_cases(None, COUNTEREXAMPLE)["other"]}
    # a case with an error scale and nothing else is read as an identity (kind_of)
    assert result["by_kind"]["identity"] == from_cases(near, None)["identity"]


def test_the_entry_carries_the_registry_text_and_none_for_what_is_empty():
    result = entry(record(), control())
    assert {k: result[k] for k in ("id", "paper", "ref", "title", "kind", "statement", "origin")} == {
        "id": CLAIM.id, "paper": CLAIM.paper, "ref": CLAIM.ref, "title": CLAIM.title, "kind": CLAIM.kind,
        "statement": CLAIM.statement, "origin": CLAIM.origin}
    assert result["tested_as"] == CLAIM.tested_as and result["extraction"] == CLAIM.extraction
    assert CLAIM.tested_as and CLAIM.extraction
    suite_claim = CLAIMS["LJ22.X1"]
    other = claim_entry(suite_claim, [])
    assert other["origin"] == "suite" and other["id"] == "LJ22.X1"
    bare = next(c for c in CLAIMS.values() if not c.tested_as)
    assert claim_entry(bare, [])["tested_as"] is None
    bare = next(c for c in CLAIMS.values() if not c.extraction)
    assert claim_entry(bare, [])["extraction"] is None


def test_vacuous_evidence_is_named_once_not_also_as_no_informative_holding_case():
    result = entry(record("t.py::a", evidence(2, informative=0, informative_holding=0, uninformative_why={"tied": 2})),
                   control())
    assert result["why"] == ["The evidence could not have failed: t.py::a: 0 informative of 2 cases (2: tied)."]


def test_a_findings_kind_tally_is_read_when_recorded():
    tally = {"inequality": {"holding": {"checks": 3, "informative": 3, "nearest": HOLDING, "ranges": {}}}}
    finding = {"cases": 1, "degenerate": 0, "checks": 3, "holding": HOLDING, "by_kind": tally}
    result = entry(record("t.py::a", evidence(findings={"f": finding})), control())
    assert result["findings"]["f"]["by_kind"]["inequality"]["holding"]["checks"] == 3


def test_a_report_without_a_message_gets_the_default_reason():
    failed, crashed, skipped = (TestRecord(f"t.py::{n}", [CLAIM.id], Role.EVIDENCE) for n in "abc")
    fold_phase(failed, "call", "failed", {}, 0.0)
    fold_phase(crashed, "???", "failed", None, 0.0)
    fold_phase(skipped, "setup", "skipped", None, 0.0)
    assert [t.reason for t in (failed, crashed, skipped)] == ["failed", "the worker running it crashed",
                                                             SKIPPED_IN_SETUP]


def test_unshown_declarations_are_listed_together_and_only_for_the_verdict_they_made():
    two = entry(record("t.py::a", declaring("refuted", counterexample=None)),
                record("t.py::b", declaring("refuted", counterexample=None)), control())
    assert two["why"] == [("t.py::a, t.py::b declared a verdict without recording a counterexample to the printed "
                           "statement.")]
    # an inconclusive trend outranks an unshown correction: the verdict is inconclusive for the trend's reason alone
    mixed = entry(record("t.py::a", declaring("inconclusive", counterexample=None)),
                  record("t.py::b", declaring("verified-with-correction", "c", None)), control())
    assert mixed["verdict"] == "inconclusive" and len(mixed["why"]) == 1
    assert mixed["why"][0].startswith("t.py::a: declared inconclusive")
    # a refutation by a failing check does not read the other tests' declarations
    failed = entry(record("t.py::a", {"violation": "v"}, outcome="failed"),
                   record("t.py::b", declaring("verified-with-correction", "c", None)), control())
    assert (failed["verdict"], failed["why"]) == ("refuted", [])


def test_several_tests_are_named_together_in_one_sentence():
    tied = dict(COUNTEREXAMPLE, details={"uninformative": "tied"})
    saturated = dict(COUNTEREXAMPLE, details={"uninformative": "saturated"})
    trivial = entry(record("t.py::a", declaring("refuted", counterexample=tied)),
                    record("t.py::b", declaring("refuted", counterexample=saturated)), control())
    assert trivial["why"] == [("t.py::a, t.py::b declared a verdict on a counterexample that could not have come out "
                               "the other way: tied; saturated.")]
    undecided = entry(record("t.py::a", declaring("inconclusive", counterexample=None)),
                      record("t.py::b", declaring("inconclusive", counterexample=None)), control())
    assert undecided["why"][0].startswith("t.py::a, t.py::b: declared inconclusive: ")


def test_each_gap_names_every_test_it_found():
    empty = [record(f"t.py::{n}", evidence(0, holding=None)) for n in "bc"]
    assert entry(record(), *empty, control())["why"] == ["t.py::b, t.py::c passed without a non-degenerate case."]
    zero = [record("t.py::b", evidence(0, holding=None, degenerate=2, degenerate_why={"zero gradient": 2}))]
    assert entry(record(), *zero, control())["why"] == [
        "t.py::b (2: zero gradient) passed without a non-degenerate case."]
    vacuous = [record(f"t.py::{n}", evidence(1, informative=0, informative_holding=0, uninformative_why={"tied": 1}))
               for n in "bc"]
    assert entry(record(), *vacuous, control())["why"] == [(
        "The evidence could not have failed: t.py::b: 0 informative of 1 cases (1: tied); t.py::c: 0 informative of 1 "
        "cases (1: tied).")]
    floor = [record(f"t.py::{n}", evidence(1, informative_holding=0, uninformative_why={"floor": 1})) for n in "ab"]
    assert entry(*floor, control())["why"] == [(
        "The evidence could not have failed: no case where the (corrected) statement holds could have come out the "
        "other way (t.py::a: 1: floor; t.py::b: 1: floor).")]
    beyond = [record(f"t.py::{n}", evidence(holding=dict(HOLDING, error=0.75))) for n in "bc"]
    assert entry(record(), *beyond, control())["why"] == [
        "t.py::b, t.py::c recorded a case beyond its tolerance (an undecided trend) without declaring a verdict."]


def test_a_failing_check_keeps_a_refutation_that_an_unshown_declaration_would_undo():
    """A declared refutation without its counterexample makes a claim inconclusive, unless a check failed: then
    the run found the counterexample itself, and the note about the declaration does not soften the verdict."""
    unshown = record("t.py::b", declaring("refuted", counterexample=None))
    failed = entry(record("t.py::a", {"violation": "v"}, outcome="failed"), unshown, control())
    assert failed["verdict"] == "refuted"
    assert failed["why"] == ["t.py::b declared a verdict without recording a counterexample to the printed statement."]
    assert entry(record("t.py::a"), unshown, control())["verdict"] == "inconclusive"


# ------------------------------------------------------------------------------- power (claims.report._power):
# a test that lacked power makes its claim inconclusive, never refuted; only a failed statement check refutes.

MET = {"requirement": "at least 8 of 256 restarts reach s2", "achieved": True, "reached": 12}
MISSED = {"requirement": "at least 8 of 256 restarts reach s2", "achieved": False, "reached": 3}


def powered_entry(*tests):
    return claim_entry(CLAIM, list(tests), ClaimSuite(has_evidence_tests=True, has_controls=True))


def test_a_met_power_check_leaves_the_verdict_verified():
    claim = powered_entry(record(fields=evidence(power=[MET])), control())
    assert claim["verdict"] == "verified" and claim["why"] == []


def test_a_shortfall_makes_a_verified_claim_inconclusive_and_says_why():
    claim = powered_entry(record(fields=evidence(power=[MET, MISSED])), control())
    assert claim["verdict"] == "inconclusive"
    assert claim["why"] == ["The test lacked power: at least 8 of 256 restarts reach s2 (t.py::a). This says "
                            "nothing about the statement either way."]


@pytest.mark.parametrize("declared", ["refuted", "verified-with-correction", "inconclusive"])
def test_a_shortfall_makes_a_declared_verdict_inconclusive(declared):
    fields = evidence(power=[MISSED], verdict=declared, counterexample=COUNTEREXAMPLE, informative_violating=1,
                      correction="x" if declared == "verified-with-correction" else None)
    claim = powered_entry(record(fields=fields), control())
    assert claim["verdict"] == "inconclusive"
    assert any(w.startswith("The test lacked power:") for w in claim["why"])


def test_another_tests_shortfall_takes_nothing_from_a_declared_refutation():
    declared = evidence(verdict="refuted", counterexample=COUNTEREXAMPLE, informative_violating=1, power=[MET])
    claim = powered_entry(record("t.py::a", declared), record("t.py::b", evidence(power=[MISSED])), control())
    assert claim["verdict"] == "refuted"
    lacking = evidence(verdict="refuted", counterexample=COUNTEREXAMPLE, informative_violating=1, power=[MISSED])
    assert powered_entry(record("t.py::a", lacking), control())["verdict"] == "inconclusive"


def test_one_powered_refutation_stands_beside_another_that_lacked_power():
    """GP22.F2: the ResNet profile's powered refutation stands though the MLP profile's test, which also declared
    refuted, fell short of its power; only when every declaring test fell short is the claim inconclusive."""
    powered = evidence(verdict="refuted", counterexample=COUNTEREXAMPLE, informative_violating=1, power=[MET])
    lacking = evidence(verdict="refuted", counterexample=COUNTEREXAMPLE, informative_violating=1, power=[MISSED])
    claim = powered_entry(record("t.py::a", lacking), record("t.py::b", powered), control())
    assert claim["verdict"] == "refuted" and not any(w.startswith("The test lacked power") for w in claim["why"])
    both = powered_entry(record("t.py::a", lacking), record("t.py::b", lacking), control())
    assert both["verdict"] == "inconclusive"


def test_a_failed_statement_check_stays_refuted_whatever_the_power():
    failed = record("t.py::b", {"violation": "s > 1/2", "counterexample": COUNTEREXAMPLE, "power": [MISSED]},
                    outcome="failed")
    assert powered_entry(record(fields=evidence(power=[MISSED])), failed, control())["verdict"] == "refuted"


def test_a_control_that_lacked_power_is_its_own_state():
    suite = ClaimSuite(has_evidence_tests=True, has_controls=True)
    lacking = record("t.py::control", control_evidence(power=[MISSED]), control=True)
    assert control_status([lacking], suite) == LACKED_POWER and LACKED_POWER in CONTROL_STATES
    assert control_status([record("t.py::control", control_evidence(power=[MET]), control=True)], suite) == "rejected"
    assert powered_entry(record(), lacking)["verdict"] == "inconclusive"


def test_evidence_without_power_checks_has_no_shortfall():
    assert lacked_power_reason([record(fields=evidence())]) is None


def test_a_control_whose_limits_did_not_settle_reads_undecided_not_accepted():
    """Words match outcomes: a control whose only cases are undecided limits is 'undecided' (and the claim
    inconclusive), never 'accepted'; an uninformative case for another reason keeps 'uninformative'."""
    suite = ClaimSuite(has_evidence_tests=True, has_controls=True)
    why = {"the limit is undecided at this length: the change over the last doubling did not shrink": 1}
    undecided = record("t.py::control", control_evidence(informative_violating=0, uninformative_why=why),
                       control=True)
    assert control_status([undecided], suite) == "undecided" and "undecided" in CONTROL_STATES
    claim = powered_entry(record(), undecided)
    assert claim["verdict"] == "inconclusive" and claim["control_state"] == "undecided"
    assert "undecided" in " ".join(claim["why"]) and "accepted" not in " ".join(claim["why"])
    saturated = record("t.py::control", control_evidence(informative_violating=0, uninformative_why={"tied": 1}),
                       control=True)
    assert control_status([saturated], suite) == "uninformative"


# ------------------------------------------------------------------------------- scope (claims.report._scope):
# not reproduced at this scale, the setting beside the verdict, questions beyond the papers counted apart.

def _refuting_test() -> TestRecord:
    return record("t.py::a", {"violation": "trend reversed", "counterexample": COUNTEREXAMPLE}, outcome="failed")


def test_an_empirical_claim_refuted_away_from_the_papers_setting_is_not_reproduced():
    from dataclasses import replace

    from claims.report._scope import NOT_REPRODUCED

    empirical = CLAIMS["GP22.F1"]
    assert empirical.setting is not None and not empirical.setting.at_paper_setting
    claim = claim_entry(empirical, [_refuting_test()])
    assert claim["verdict"] == NOT_REPRODUCED and claim["why"][-1].startswith("Not reproduced at this scale")
    assert claim["setting"]["dataset"]["tested"] and claim["at_paper_setting"] is False
    at_paper = replace(empirical, setting=replace(empirical.setting, at_paper_setting=True))
    assert claim_entry(at_paper, [_refuting_test()])["verdict"] == "refuted"  # a powered design at the paper's own
    assert claim_entry(CLAIM, [_refuting_test()])["verdict"] == "refuted"  # a formal claim: a counterexample


def test_an_empirical_verdict_names_its_scale_and_a_formal_one_does_not():
    from claims.report._parts import verdict_parts
    from claims.report._scope import scale_sentence

    empirical = claim_entry(CLAIMS["GP22.F1"], [record()])
    assert scale_sentence(empirical).startswith("Decided at a scale other than the paper's: dataset ")
    assert "(the paper: dataset MNIST" in "".join(verdict_parts(empirical))
    assert scale_sentence(claim_entry(CLAIM, [record()])) is None


def test_questions_beyond_the_papers_are_counted_apart_and_have_no_errata():
    from claims.report._errata import report_errata
    from claims.report._model import build_report
    from claims.session._summary import verdict_lines

    question = next(c for c in CLAIMS.values() if c.origin == "suite")
    test = TestRecord("t.py::x1", [question.id], Role.EVIDENCE)
    erratum = {"id": f"{question.id}-E1", "claim": question.id, "paper": question.paper}
    fold_phase(test, "call", "passed",
               evidence(verdict="refuted", counterexample=COUNTEREXAMPLE, informative_violating=1, errata=[erratum]),
               0.0)
    report = build_report({"selection": "full", "complete": True}, {test.nodeid: test})
    assert report["summary"]["refuted"] == 0 and report["summary_beyond_papers"]["refuted"] == 1
    assert [c["errata"] for c in report["claims"] if c["id"] == question.id] == [[{**erratum, "nodeids": ["t.py::x1"]}]]
    assert report_errata(report) == []  # recorded, but no paper's error
    lines = verdict_lines(report)
    assert f"  questions beyond the papers (1): {question.id} refuted" in lines
    assert not any(line.startswith("  refuted") for line in lines)


def test_the_report_lint_flags_a_verdict_that_says_more_than_its_scope():
    from claims.report._lint import scope_problems
    from claims.report._model import build_report

    report = build_report({"selection": "full", "complete": True}, {})
    assert scope_problems(report) == []
    f1 = next(c for c in report["claims"] if c["id"] == "GP22.F1")
    f1["verdict"] = "refuted"  # an empirical claim refuted at the suite's scale: not-reproduced, never refuted
    x1 = next(c for c in report["claims"] if c.get("origin") == "suite")
    report["summary"][x1["verdict"]] += 1  # a question beyond the papers counted as a paper's
    assert scope_problems(report) == [
        "GP22.F1 is refuted at a scale other than the paper's: that is not-reproduced, not a refutation",
        "the summary counts a question beyond the papers among the papers' verdicts"]
