"""``record_erratum``: what a record must hold (severity, location kind, ID, claim, texts, numbers), that it
works only inside a claim test, how one ID recorded twice is kept, and how the report gathers the records
of a claim's tests (one ID with two contents is an error)."""

from __future__ import annotations

import pytest

from claims.evidence._role import Role
from claims.session._phases import fold_phase
from claims import OutsideClaimTest, record_erratum
from claims.evidence import LOCATION_KINDS, SEVERITIES, ErratumError
from claims.evidence._record import collecting, declare_verdict, missing_erratum
from claims.report._model import TestRecord, claim_entry, claim_errata
from claims.evidence._registry import CLAIMS

GOOD = dict(
    severity="constant or factor wrong", location_kind="equation", location="Proposition 2.2, Eq. (A.2)",
    printed="s", corrected="s L^{-L/2}", counterexample={"L": 3, "relative error": 0.42},
)


def recorded(claim_ids=("BSJ25.P22",), **changes) -> list[dict]:
    with collecting(claim_ids=list(claim_ids)) as evidence:
        record_erratum("BSJ25.P22-E1", **{**GOOD, **changes})
    return evidence.to_builtin()["errata"]


def test_a_good_record_is_kept_with_its_claim_and_paper():
    (entry,) = recorded()
    assert entry == {"id": "BSJ25.P22-E1", "claim": "BSJ25.P22", "paper": "BSJ25", **GOOD}


def test_the_vocabularies():
    assert SEVERITIES == ("statement false as printed", "constant or factor wrong", "hypothesis missing",
                          "sign or typo", "text inconsistency", "proof step wrong, statement holds",
                          "hypothesis not needed, statement holds")
    assert LOCATION_KINDS == ("statement", "hypothesis", "constant", "equation", "proof step", "text")


def test_outside_a_claim_test_it_raises():
    with pytest.raises(OutsideClaimTest, match="record_erratum"):
        record_erratum("BSJ25.P22-E1", **GOOD)


@pytest.mark.parametrize("changes, message", [
    ({"severity": "minor"}, "severity is one of"),
    ({"severity": "Sign or typo"}, "severity is one of"),
    ({"location_kind": "figure"}, "location_kind is one of"),
    ({"printed": " "}, "printed is a nonempty text"),
    ({"corrected": ""}, "corrected is a nonempty text"),
    ({"location": None}, "location is a nonempty text"),
    ({"counterexample": None}, "counterexample is a nonempty"),
    ({"counterexample": {}}, "counterexample is a nonempty"),
    ({"counterexample": [1, 2]}, "counterexample is a nonempty"),
])
def test_a_bad_record_is_refused(changes, message):
    with pytest.raises(ErratumError, match=message):
        recorded(**changes)


def test_only_a_text_inconsistency_may_go_without_numbers():
    (entry,) = recorded(severity="text inconsistency", location_kind="text", counterexample=None)
    assert entry["counterexample"] is None


@pytest.mark.parametrize("erratum_id, message", [
    ("BSJ25.P22", "'<claim ID>-E<n>'"),
    ("BSJ25.P22-E0", "'<claim ID>-E<n>'"),
    ("BSJ25.P22-e1", "'<claim ID>-E<n>'"),
    ("BSJ25.P99-E1", "unknown claim ID 'BSJ25.P99'"),
])
def test_a_malformed_or_unknown_id_is_refused(erratum_id, message):
    with collecting(claim_ids=["BSJ25.P22"]), pytest.raises(ErratumError, match=message):
        record_erratum(erratum_id, **GOOD)


def test_a_test_records_errata_of_its_own_claims_only():
    with pytest.raises(ErratumError, match="marked with BSJ25.ESC"):
        recorded(claim_ids=["BSJ25.ESC"])


def test_one_id_twice_in_a_test_keeps_the_first_numbers_or_the_smallest_size():
    with collecting(claim_ids=["BSJ25.P22"]) as evidence:
        record_erratum("BSJ25.P22-E1", **GOOD)
        record_erratum("BSJ25.P22-E1", **{**GOOD, "counterexample": {"L": 5}})
    assert [e["counterexample"] for e in evidence.errata] == [GOOD["counterexample"]]
    with collecting(claim_ids=["BSJ25.P22"]) as evidence:
        for size in (3.0, 1.0, 2.0):
            record_erratum("BSJ25.P22-E1", **{**GOOD, "counterexample": {"size": size}}, size=size)
    assert [e["counterexample"] for e in evidence.errata] == [{"size": 1.0}]
    with collecting(claim_ids=["BSJ25.P22"]) as evidence:  # the first is the smallest: a larger one never replaces it
        for size in (1.0, 3.0):
            record_erratum("BSJ25.P22-E1", **{**GOOD, "counterexample": {"size": size}}, size=size)
    assert [e["counterexample"] for e in evidence.errata] == [{"size": 1.0}]


def test_one_id_twice_at_an_equal_size_keeps_the_first_numbers():
    with collecting(claim_ids=["BSJ25.P22"]) as evidence:
        for first in (True, False):
            record_erratum("BSJ25.P22-E1", **{**GOOD, "counterexample": {"first": first}}, size=1.0)
    assert [e["counterexample"] for e in evidence.errata] == [{"first": True}]


def test_one_id_twice_with_another_text_names_the_differing_fields():
    with collecting(claim_ids=["BSJ25.P22"]), pytest.raises(ErratumError) as refused:
        record_erratum("BSJ25.P22-E1", **GOOD)
        record_erratum("BSJ25.P22-E1", **{**GOOD, "severity": "sign or typo", "printed": "t"})
    assert str(refused.value) == (
        "erratum BSJ25.P22-E1 recorded twice in one test with different severity, printed: "
        "an erratum ID names one error"
    )


def test_one_id_twice_in_a_test_with_another_text_is_refused():
    with collecting(claim_ids=["BSJ25.P22"]), pytest.raises(ErratumError, match="different severity"):
        record_erratum("BSJ25.P22-E1", **GOOD)
        record_erratum("BSJ25.P22-E1", **{**GOOD, "severity": "sign or typo"})


def test_a_correction_without_an_erratum_is_incomplete_evidence():
    with collecting(claim_ids=["BSJ25.P22"]) as evidence:
        declare_verdict("verified-with-correction", correction="s L^{-L/2}")
        assert "recorded no erratum" in missing_erratum(evidence)
        record_erratum("BSJ25.P22-E1", **GOOD)
        assert missing_erratum(evidence) is None
    with collecting(claim_ids=["BSJ25.P22"]) as evidence:
        declare_verdict("inconclusive")
        assert missing_erratum(evidence) is None


def test_counterexample_numbers_are_made_plain():
    import numpy
    import torch

    (entry,) = recorded(counterexample={"ratio": numpy.float64(0.5), "values": torch.tensor([1.0, 2.0])})
    assert entry["counterexample"] == {"ratio": 0.5, "values": [1.0, 2.0]}
    assert type(entry["counterexample"]["ratio"]) is float


# ----------------------------------------------------------------------------- gathered by the report


def record(nodeid: str, outcome: str = "passed", *errata: dict, claim_ids=("BSJ25.P22",)) -> TestRecord:
    t = TestRecord(nodeid, list(claim_ids), Role.EVIDENCE)
    fold_phase(t, "call", outcome, {"cases": 1, "informative": 1, "informative_holding": 1, "errata": list(errata),
                               "holding": {"error": 0.0, "tolerance": 1.0, "details": {}}}, 0.1)
    return t


def erratum(**changes) -> dict:
    return {"id": "BSJ25.P22-E1", "claim": "BSJ25.P22", "paper": "BSJ25", **GOOD, **changes}


def test_the_report_keeps_one_entry_per_id_with_every_test_that_recorded_it():
    errata, conflicts = claim_errata("BSJ25.P22", [
        record("t::a", "passed", erratum(), erratum(id="BSJ25.P22-E10")),
        record("t::b", "passed", erratum(), erratum(id="BSJ25.P22-E2")),
        record("t::c", "failed", erratum(id="BSJ25.P22-E3")),  # a test that did not pass shows no erratum
    ])
    assert conflicts == []
    assert [(e["id"], e["nodeids"]) for e in errata] == [
        ("BSJ25.P22-E1", ["t::a", "t::b"]), ("BSJ25.P22-E2", ["t::b"]), ("BSJ25.P22-E10", ["t::a"])]


def test_a_test_that_did_not_pass_is_skipped_and_the_tests_after_it_are_still_read():
    errata, conflicts = claim_errata("BSJ25.P22", [
        record("t::a", "failed", erratum()), record("t::b", "passed", erratum(id="BSJ25.P22-E2"))])
    assert [(e["id"], e["nodeids"]) for e in errata] == [("BSJ25.P22-E2", ["t::b"])] and conflicts == []


def test_a_conflict_names_every_test_that_recorded_the_kept_content():
    tests = [record("t::a", "passed", erratum()), record("t::b", "passed", erratum()),
             record("t::c", "passed", erratum(printed="t"))]
    assert claim_errata("BSJ25.P22", tests)[1] == [
        ("Erratum BSJ25.P22-E1 was recorded with different printed by t::a, t::b and t::c: "
         "an erratum ID names one error.")]


def test_a_test_of_two_claims_gives_each_claim_its_own_errata():
    both = record("t::a", "passed", erratum(), erratum(id="BSJ25.ESC-E1", claim="BSJ25.ESC"),
                  claim_ids=("BSJ25.P22", "BSJ25.ESC"))
    assert [e["id"] for e in claim_errata("BSJ25.ESC", [both])[0]] == ["BSJ25.ESC-E1"]


def test_one_id_with_two_contents_in_two_tests_makes_the_claim_an_error():
    tests = [record("t::a", "passed", erratum()), record("t::b", "passed", erratum(counterexample={"L": 4}))]
    entry = claim_entry(CLAIMS["BSJ25.P22"], tests)
    assert entry["verdict"] == "error"
    assert any("BSJ25.P22-E1 was recorded with different counterexample by t::a and t::b" in w for w in entry["why"])
    same = claim_entry(CLAIMS["BSJ25.P22"], [record("t::a", "passed", erratum()), record("t::b", "passed", erratum())])
    assert same["verdict"] != "error" and [e["nodeids"] for e in same["errata"]] == [["t::a", "t::b"]]


def test_a_conflict_sentence_names_the_fields_and_both_tests_and_a_rerun_is_no_second_recorder():
    tests = [record("t::a", "passed", erratum()), record("t::a", "passed", erratum()),
             record("t::b", "passed", erratum(printed="t", corrected="u"))]
    errata, conflicts = claim_errata("BSJ25.P22", tests)
    assert [e["nodeids"] for e in errata] == [["t::a"]]
    assert conflicts == [("Erratum BSJ25.P22-E1 was recorded with different printed, corrected by t::a and t::b: "
                          "an erratum ID names one error.")]
    entry = claim_entry(CLAIMS["BSJ25.P22"], tests)
    assert entry["verdict"] == "error" and entry["why"][-1] == conflicts[0]


def test_an_erratum_conflict_is_added_to_the_other_notes_not_in_their_place():
    tests = [record("t::a", "passed", erratum()), record("t::b", "passed", erratum(printed="t"))]
    entry = claim_entry(CLAIMS["BSJ25.P22"], tests)
    assert entry["verdict"] == "error" and len(entry["why"]) == 2
    assert entry["why"][0].startswith("Checks passed, but the negative control: ")
    assert entry["why"][1].startswith("Erratum BSJ25.P22-E1 was recorded with different printed by t::a and t::b")
