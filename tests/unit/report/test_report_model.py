"""The report model's bookkeeping (``claims.report._model``): where each figure goes, what a test's report
entry holds, defaults for reports recorded before a count existed, and the report's summary. The verdict
rules are in test_verdict_rules.py."""

from __future__ import annotations

import base64
import hashlib

from claims.evidence._role import Role
from claims.session._phases import fold_phase
from claims.evidence._record import VERDICTS
from claims.evidence._registry import CLAIMS
from claims.report._citation import DIGEST_OF, content_digest
from claims.report._model import (
    FIGURES,
    SCHEMA,
    TestRecord,
    alternate_path,
    build_report,
    figure_path,
    figure_paths,
    ordered_notes,
    record_order,
    report_digest,
)
from claims.report._schema import upgrade
from claims.report._suite import ClaimSuite

PNG = b"\x89PNG\r\n\x1a\n"


def short_hash(nodeid: str, name: str) -> str:
    return hashlib.sha256(f"{nodeid}\0{name}".encode()).hexdigest()[:10]


# ------------------------------------------------------------------------------------------ figures


def test_a_figure_path_names_claims_test_and_figure_safely():
    assert FIGURES == "figures"
    assert figure_path(["LJ22.L2a", "LJ22.L2b"], "tests/t.py::test_drift[0.5-x]", "drift") == (
        "figures/LJ22.L2a+LJ22.L2b__test_drift-0.5-x__drift.png")
    # unsafe runs become one dash; dashes, dots and underscores are stripped from each part's ends
    assert figure_path(["GP22.F1"], "t.py::_test_.", "._a b/c_.") == "figures/GP22.F1__test__a-b-c.png"
    # the test is the nodeid's last part (a method: without its class; a file-level item: the whole id)
    assert figure_path(["GP22.F1"], "t.py::TestA::test_b", "f") == "figures/GP22.F1__test_b__f.png"
    assert figure_path(["GP22.F1"], "doc.txt", "f") == "figures/GP22.F1__doc.txt__f.png"
    assert figure_path(["GP22.F1"], "t.py::XtestX", "X-ray X") == "figures/GP22.F1__XtestX__X-ray-X.png"
    # a part with nothing safe left is "x"
    assert figure_path(["GP22.F1"], "t.py::test", "///") == "figures/GP22.F1__test__x.png"
    assert figure_path(["GP22.F1"], "t.py::test", "a", hashed=True) == (
        f"figures/GP22.F1__test__a-{short_hash('t.py::test', 'a')}.png"
    )


def test_a_long_figure_path_is_cut_and_ends_with_a_hash():
    """Stems up to 120 characters stay whole; longer ones keep 109 characters (less trailing separators)
    and end with "-" and a 10-digit hash of the nodeid and name, 120 characters in all."""
    fits = "a" * (120 - len("GP22.F1__test__"))
    assert figure_path(["GP22.F1"], "t.py::test", fits) == f"figures/GP22.F1__test__{fits}.png"
    longer = fits + "b"
    stem = figure_path(["GP22.F1"], "t.py::test", longer).removeprefix("figures/").removesuffix(".png")
    assert stem == f"GP22.F1__test__{'a' * (109 - 15)}-{short_hash('t.py::test', longer)}" and len(stem) == 120
    # a cut that ends on separators drops them before the hash
    dotted = "a" * (108 - 15) + "._-" + "c" * 20
    stem = figure_path(["GP22.F1"], "t.py::test", dotted).removeprefix("figures/").removesuffix(".png")
    assert stem == f"GP22.F1__test__{'a' * (108 - 15)}-{short_hash('t.py::test', dotted)}"
    # ... and only them
    x_ended = "a" * (108 - 15) + "X" + "c" * 20
    stem = figure_path(["GP22.F1"], "t.py::test", x_ended).removeprefix("figures/").removesuffix(".png")
    assert stem == f"GP22.F1__test__{'a' * (108 - 15)}X-{short_hash('t.py::test', x_ended)}"


def test_figures_that_would_share_a_path_get_the_hash_and_others_do_not():
    def with_figures(nodeid, *names):
        record = TestRecord(nodeid, ["GP22.F1"], Role.EVIDENCE)
        record.figures = [type("F", (), {"name": n})() for n in names]
        return record

    records = [with_figures("a/t.py::test", "x y", "x/y", "z"), with_figures("b/t.py::test", "z")]
    paths = figure_paths(records)
    assert paths[("a/t.py::test", "x y")] == f"figures/GP22.F1__test__x-y-{short_hash('a/t.py::test', 'x y')}.png"
    assert paths[("a/t.py::test", "x/y")] == f"figures/GP22.F1__test__x-y-{short_hash('a/t.py::test', 'x/y')}.png"
    assert paths[("b/t.py::test", "z")] == f"figures/GP22.F1__test__z-{short_hash('b/t.py::test', 'z')}.png"
    alone = figure_paths([with_figures("a/t.py::test", "z")])
    assert alone == {("a/t.py::test", "z"): "figures/GP22.F1__test__z.png"}


def test_an_alternate_goes_beside_its_png():
    assert alternate_path("figures/a.png", "svg") == "figures/a.svg"
    assert alternate_path("figures/a.png.png", "pdf") == "figures/a.png.pdf"


def test_a_tests_figures_are_decoded_out_of_its_evidence():
    evidence = {"cases": 1, "figures": [
        {"name": "a", "caption": "the caption", "png_base64": base64.b64encode(PNG).decode(),
         "alternates_base64": {"svg": base64.b64encode(b"<svg/>").decode()}},
        {"name": "b"},
    ]}
    record = TestRecord("t.py::test", ["GP22.F1"], Role.EVIDENCE, evidence=evidence)
    assert "figures" not in record.evidence and evidence["figures"]  # the caller's evidence is left whole
    a, b = record.figures
    assert (a.name, a.caption, a.png, dict(a.alternates)) == ("a", "the caption", PNG, {"svg": b"<svg/>"})
    assert (b.name, b.caption, b.png, dict(b.alternates)) == ("b", "", b"", {})
    assert record.figure_entries() == [
        {"name": "a", "caption": "the caption", "path": "figures/GP22.F1__test__a.png"},
        {"name": "b", "caption": "", "path": "figures/GP22.F1__test__b.png"},
    ]
    assert record.figure_entries({("t.py::test", "a"): "figures/elsewhere.png"})[0]["path"] == "figures/elsewhere.png"
    fold_phase(record, "call", "passed", {"cases": 2, "figures": None}, 0.0)
    assert record.figures == [] and record.evidence == {"cases": 2}


def test_a_report_carries_each_figures_bytes_beside_its_json():
    evidence = {"cases": 1, "informative": 1, "informative_holding": 1,
                "holding": {"error": 0.25, "tolerance": 0.5, "details": {}},
                "figures": [{"name": "a", "png_base64": base64.b64encode(PNG).decode(),
                             "alternates_base64": {"pdf": base64.b64encode(b"%PDF").decode()}},
                            {"name": "empty"}]}
    record = TestRecord("t.py::test", ["GP22.F1"], Role.EVIDENCE)
    fold_phase(record, "call", "passed", evidence, 0.0)
    report = build_report({"selection": "full", "complete": True}, {record.nodeid: record})
    assert report.figure_bytes == {"figures/GP22.F1__test__a.png": PNG, "figures/GP22.F1__test__a.pdf": b"%PDF"}
    entry = next(c for c in report["claims"] if c["id"] == "GP22.F1")
    assert [f["path"] for f in entry["figures"]] == ["figures/GP22.F1__test__a.png", "figures/GP22.F1__test__empty.png"]
    assert entry["figures"][0]["nodeid"] == "t.py::test"


# ----------------------------------------------------------------------------- a test's entry


def test_counts_recorded_before_they_existed_default_from_the_cases():
    """A report recorded before the informative counts: every case informative; holding and violating cases
    counted when the test kept a holding case or a counterexample."""
    case = {"error": 0.25, "tolerance": 0.5, "details": {}}
    old = TestRecord("t.py::a", ["GP22.F1"], Role.EVIDENCE,
                     evidence={"cases": 3, "holding": case, "counterexample": case})
    assert (old.cases, old.informative, old.informative_holding, old.informative_violating) == (3, 3, 3, 3)
    bare = TestRecord("t.py::a", ["GP22.F1"], Role.EVIDENCE, evidence={"cases": 3})
    assert (bare.informative, bare.informative_holding, bare.informative_violating, bare.unit) == (3, 0, 0, "cases")
    new = TestRecord("t.py::a", ["GP22.F1"], Role.EVIDENCE, evidence={
        "cases": 3, "informative": 2, "informative_holding": 1, "informative_violating": 0, "holding": case,
        "counterexample": case, "unit": "runs", "uninformative_why": {"tied": 1, "saturated": 2}})
    assert (new.informative, new.informative_holding, new.informative_violating, new.unit) == (2, 1, 0, "runs")
    assert new.uninformative_text() == "1: tied; 2: saturated" and bare.uninformative_text() == ""
    assert TestRecord("t.py::a", ["GP22.F1"], Role.EVIDENCE).cases == 0


def test_a_tests_json_entry():
    case = {"error": 0.25, "tolerance": 0.5, "details": {"error_scale": "relative"}}
    record = TestRecord("t.py::a", ["GP22.F1"], Role.CONTROL)
    fold_phase(record, "setup", "passed", None, 0.25)
    fold_phase(record, "call", "passed", {"cases": 2, "checks": 4, "degenerate": 1, "min_slack": 0.5, "max_error": 0.25,
                                     "tolerance": 0.5, "details": case["details"], "counterexample": case,
                                     "series": [{"step": 0}], "trends": [{"verdict": "verified"}],
                                     "by_kind": {"inequality": {}}}, 1.0004)
    entry = record.to_json()
    assert entry == {
        "nodeid": "t.py::a", "role": "control", "outcome": "passed", "reason": None,
        "cases": 2, "informative": 2, "informative_holding": 0, "uninformative_why": {}, "unit": "cases",
        "degenerate": 1, "degenerate_why": {}, "degenerate_examples": {}, "checks": 4, "min_slack": 0.5,
        "max_error": 0.25, "tolerance": 0.5, "error_scale": "relative", "details": {"error_scale": "relative"},
        "by_kind": {"inequality": {}}, "violation": None, "falsifying_example": None, "power": [],
        "series": [{"step": 0}], "trends": [{"verdict": "verified"}], "figures": [], "duration": 1.25,
    }
    empty = TestRecord("t.py::b", ["GP22.F1"], Role.EVIDENCE).to_json()
    assert (empty["role"], empty["cases"], empty["degenerate"], empty["checks"], empty["error_scale"]) == (
        "evidence", 0, 0, 0, None)
    assert (empty["details"], empty["series"], empty["trends"], empty["uninformative_why"], empty["by_kind"]) == (
        {}, [], [], {}, {})


def test_a_tests_json_entry_carries_its_violation_and_the_reasons_its_cases_were_set_apart():
    """The fields the report shows for a failed test (its violation and Hypothesis' falsifying example) and
    for cases counted apart (the reasons an informative check could not fail, a degenerate case's example)."""
    record = TestRecord("t.py::a", ["GP22.F1"], Role.EVIDENCE)
    fold_phase(record, "call", "failed", {"cases": 3, "informative": 1, "degenerate": 1,
                                     "violation": "lhs 0.75 > rhs 0.5",
                                     "falsifying_example": "test(x=0.5)", "uninformative_why": {"tied": 1},
                                     "degenerate_why": {"zero gradient": 1},
                                     "degenerate_examples": {"zero gradient": {"seed": 7}}}, 0.0)
    entry = record.to_json()
    assert (entry["outcome"], entry["violation"], entry["falsifying_example"]) == (
        "failed", "lhs 0.75 > rhs 0.5", "test(x=0.5)")
    assert entry["uninformative_why"] == {"tied": 1} and entry["degenerate_why"] == {"zero gradient": 1}
    assert entry["degenerate_examples"] == {"zero gradient": {"seed": 7}}


def test_a_tests_kinds_come_from_its_tally_or_its_two_cases():
    case = {"error": 0.25, "tolerance": 0.5, "details": {}}
    assert TestRecord("t.py::a", ["GP22.F1"], Role.EVIDENCE, evidence={"by_kind": None}).by_kind == {}
    old = TestRecord("t.py::a", ["GP22.F1"], Role.EVIDENCE, evidence={"holding": case})
    assert sum(part["checks"] for sides in old.by_kind.values() for part in sides.values()) == 1


def test_tests_are_ordered_by_file_then_line_then_nodeid():
    records = [TestRecord("b.py::t", [], Role.EVIDENCE, line=1), TestRecord("a.py::t2", [], Role.EVIDENCE),
               TestRecord("a.py::t1", [], Role.EVIDENCE), TestRecord("a.py::t3", [], Role.EVIDENCE, line=0),
               TestRecord("a.py::t0", [], Role.EVIDENCE, line=7)]
    assert [r.nodeid for r in sorted(records, key=record_order)] == ["a.py::t3", "a.py::t0", "a.py::t1", "a.py::t2",
                                                                     "b.py::t"]
    # the file is the nodeid's first part: a method's class does not make it another file
    records = [TestRecord("a.py::t", [], Role.EVIDENCE, line=5),
               TestRecord("a.py::TestC::t", [], Role.EVIDENCE, line=1),
               TestRecord("a.py::TestC::u[x::y]", [], Role.EVIDENCE, line=3)]
    assert [record_order(r)[0] for r in records] == ["a.py"] * 3
    assert [r.nodeid for r in sorted(records, key=record_order)] == ["a.py::TestC::t", "a.py::TestC::u[x::y]",
                                                                     "a.py::t"]


# ------------------------------------------------------------------------------------------ report


def test_the_report_counts_every_registered_claim_once_in_its_summary():
    case = {"error": 0.25, "tolerance": 0.5, "details": {}}
    record = TestRecord("t.py::a", ["GP22.F1", "LJ22.L1"], Role.EVIDENCE)
    fold_phase(record, "call", "passed", {"cases": 1, "holding": case}, 0.0)
    report = build_report({"selection": "partial", "complete": True}, {record.nodeid: record})
    assert report["schema"] == SCHEMA and list(report) == ["schema", "papers", "run", "citation", "claims", "summary",
                                                           "summary_beyond_papers"]
    assert [c["id"] for c in report["claims"]] == list(CLAIMS)
    beyond = [c for c in CLAIMS.values() if c.origin == "suite"]  # the suite's own questions, counted apart
    assert list(report["summary"]) == list(VERDICTS) == list(report["summary_beyond_papers"])
    assert sum(report["summary"].values()) == len(CLAIMS) - len(beyond) > 0
    assert sum(report["summary_beyond_papers"].values()) == len(beyond) > 0
    assert report["summary"]["untested"] + report["summary_beyond_papers"]["untested"] == len(CLAIMS) - 2
    assert report["citation"] == {
        "digest": content_digest(report), "digest_of": DIGEST_OF, "citable": False,
        "not_citable_because": "it is the report of a partial run (only some claim tests were selected)"}
    assert all(c["evidence"][0]["nodeid"] == "t.py::a" for c in report["claims"] if c["id"] in ("GP22.F1", "LJ22.L1"))


def test_a_full_complete_run_is_citable_and_each_claim_is_judged_with_its_suite():
    """``suites`` says what the suite holds beyond the selection: a claim with tests none of which was
    selected is not-run, not untested; a claim's entry (and so its verdict) is the one ``claim_entry`` gives
    with its suite."""
    report = build_report({"selection": "full", "complete": True}, {},
                          {"GP22.F1": ClaimSuite(has_evidence_tests=True, has_controls=True)})
    assert report["citation"]["citable"] is True and report["citation"]["not_citable_because"] is None
    verdicts = {c["id"]: c["verdict"] for c in report["claims"]}
    assert verdicts["GP22.F1"] == "not-run" and verdicts["LJ22.L1"] == "untested"
    beyond = sum(c.origin == "suite" for c in CLAIMS.values())
    assert report["summary"]["not-run"] == 1 and report["summary"]["untested"] == len(CLAIMS) - 1 - beyond


def test_every_figure_a_claim_lists_is_one_the_side_table_holds():
    """Claim entries take their figure paths from the report-wide table (``figure_paths`` over every record),
    the one the side table is keyed by, not from their own records alone: two records under one nodeid
    (entered under two keys) share one path in both."""
    png = base64.b64encode(PNG).decode()
    tests = {}
    for key, claim_id in (("first", "GP22.F1"), ("second", "LJ22.L1")):
        tests[key] = TestRecord("t.py::test", [claim_id], Role.EVIDENCE)
        fold_phase(tests[key], "call", "passed", {"cases": 1, "figures": [{"name": "f", "png_base64": png}]}, 0.0)
    report = build_report({"selection": "full", "complete": True}, tests)
    listed = [f["path"] for c in report["claims"] for f in c["figures"]]
    assert listed == ["figures/LJ22.L1__test__f.png"] * 2 and set(listed) == set(report.figure_bytes)
    assert [t["figures"][0]["path"] for c in report["claims"] for t in c["evidence"]] == listed


def test_notes_come_once_registry_first():
    tests = [TestRecord("t.py::a", [], Role.EVIDENCE, evidence={"notes": ["x", "(b) b", "(a) a", "y"]}),
             TestRecord("t.py::b", [], Role.EVIDENCE, evidence={"notes": ["r", "(a) a", "z"]})]
    assert ordered_notes(["r", "s", "r"], tests) == ["r", "s", "x", "y", "(a) a", "(b) b", "z"]
    # within a test: unlabelled notes, and notes of one label, keep the order they were recorded in
    recorded = [TestRecord("t.py::a", [], Role.EVIDENCE, evidence={"notes": ["z", "(b) y", "(a) x", "a", "(a) w"]})]
    assert ordered_notes([], recorded) == ["z", "a", "(a) x", "(a) w", "(b) y"]


def test_a_report_without_figures_has_an_empty_side_table():
    from claims.report._model import Report

    assert Report({"a": 1}).figure_bytes == {} and Report(a=1) == {"a": 1}
    side = {"figures/a.png": PNG}
    report = Report({}, figure_bytes=side)
    side.clear()
    assert report.figure_bytes == {"figures/a.png": PNG}


def test_a_claim_entry_uses_the_reports_figure_paths_or_resolves_its_own_clashes():
    from claims.report._model import claim_entry

    claim = CLAIMS["GP22.F1"]

    def with_figure(nodeid):
        record = TestRecord(nodeid, [claim.id], Role.EVIDENCE)
        fold_phase(record, "call", "passed", {"cases": 1, "figures": [{"name": "f"}]}, 0.0)
        return record

    one, two = with_figure("a/t.py::test"), with_figure("b/t.py::test")
    own = [f["path"] for f in claim_entry(claim, [one, two])["figures"]]
    assert own == [f"figures/GP22.F1__test__f-{short_hash(r.nodeid, 'f')}.png" for r in (one, two)]
    given = {("a/t.py::test", "f"): "figures/given-a.png", ("b/t.py::test", "f"): "figures/given-b.png"}
    assert [f["path"] for f in claim_entry(claim, [one, two], paths=given)["figures"]] == [
        "figures/given-a.png", "figures/given-b.png"]
    assert [t["figures"][0]["path"] for t in claim_entry(claim, [one, two], paths=given)["evidence"]] == [
        "figures/given-a.png", "figures/given-b.png"]


# ------------------------------------------------------------------------------------------ digest


def test_a_reports_stored_digest_is_the_one_cited_and_one_without_is_computed_where_it_is_loaded():
    built = build_report({"profile": "ci"}, {})
    assert report_digest(built) == built["citation"]["digest"] == content_digest(built)
    # a report read back cites the digest it was published with, even where today's digest of it differs
    stored = {**built, "citation": {**built["citation"], "digest": "0" * 64}}
    assert report_digest(stored) == "0" * 64 != content_digest(stored)
    older = {key: value for key, value in built.items() if key != "citation"}  # from before digests
    assert report_digest(upgrade(dict(older))) == content_digest(older) == content_digest(built)
    assert report_digest(upgrade({**older, "citation": None})) == content_digest(older)


def test_a_tests_degenerate_cases_show_their_reasons():
    from claims.report._parts import degenerate_count

    assert degenerate_count({"degenerate": 3, "degenerate_why": {"zero gradient": 2, "no reason given": 1}}) == (
        "3 (2: zero gradient; 1: no reason given)")
    # a report from before the reasons: the count alone (its tests get no reason where it is loaded)
    older = {"degenerate": 3}
    upgrade({"run": {}, "summary": {}, "citation": {"digest": "d"}, "claims": [{"id": "X", "evidence": [older]}]})
    assert degenerate_count(older) == degenerate_count({"degenerate": 3, "degenerate_why": {}}) == "3"
    record = TestRecord("t.py::a", ["GP22.F1"], Role.EVIDENCE)
    fold_phase(record, "call", "passed", {"cases": 0, "degenerate": 2, "degenerate_why": {"zero gradient": 2}}, 1.0)
    assert record.degenerate_text() == "2: zero gradient" and record.to_json()["degenerate_why"] == {"zero gradient": 2}
