"""``claims.report._schema.upgrade``: an older report of schema 2, as ``load_report`` reads it, carries every field
the current run writes; a current report comes through unchanged; the digest is the stored content's."""

from __future__ import annotations

import copy
import gzip
import json
import re
from pathlib import Path

import pytest

from claims.evidence._kinds import from_cases, merge
from claims.report._citation import content_digest
from claims.report._history import load_report
from claims.report._json import loads
from claims.report._model import SCHEMA, build_report, report_digest
from claims.report._schema import upgrade
from claims.report._validate import BaselineError

DATA = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file()) / "tests" / "data"
BEFORE_TALLIES = DATA / "report-v2_1b3f822b8825_ci.json.gz"
"""From before the kinds' tallies, errata, scoped verdicts and the readings (tests/data/README.md)."""
SCOPED = DATA / "report-v2-scoped_12b489f97382_ci.json.gz"
"""From after all of them: every field the upgrade fills is there."""


def _stored(path: Path) -> dict:
    return loads(gzip.decompress(path.read_bytes()).decode())


@pytest.fixture(scope="module")
def before_tallies() -> tuple[dict, dict]:
    """(the report as stored, as ``load_report`` returns it)."""
    return _stored(BEFORE_TALLIES), load_report(BEFORE_TALLIES)


def test_an_older_report_is_loaded_with_every_field_the_renderers_index(before_tallies):
    stored, loaded = before_tallies
    assert all("by_kind" not in c and "origin" not in c and "errata" not in c for c in stored["claims"])
    assert "summary_beyond_papers" not in stored
    for claim in loaded["claims"]:
        assert claim["origin"] == "paper" and claim["errata"] == []
        assert claim["tested_as"] is None and claim["extraction"] is None
        assert claim["setting"] is None and claim["at_paper_setting"] is None
        assert claim["by_kind"] == merge(t["by_kind"] for t in claim["evidence"] if t["role"] != "control")
        for test in claim["evidence"]:
            assert isinstance(test["by_kind"], dict) and test["power"] == [] and test["degenerate_why"] == {}
            assert "series" not in test  # an entry without series stays one (``series_dropped``)
    assert loaded["summary_beyond_papers"] == dict.fromkeys(stored["summary"], 0)


def test_an_older_tests_tally_is_read_from_its_shown_case():
    """The shown case holds where its error is within its tolerance, and violates beyond it or in a control; a
    trend's side is its verdict's (undecided at this scale: a holding case beyond its tolerance)."""
    details = {"evidence": "identity", "error_scale": "relative"}
    held = {"role": "evidence", "max_error": 1e-16, "tolerance": 1e-15, "details": details}
    beyond = {**held, "max_error": 1e-3}
    control = {**held, "role": "control"}
    trend = {"role": "evidence", "max_error": 0.4, "tolerance": 0.05, "details": {"evidence": "trend"}}
    refuted = {**trend, "details": {"evidence": "trend", "verdict": "refuted"}}
    report = {"run": {}, "summary": {}, "citation": {"digest": "d"}, "claims": [
        {"id": "X", "verdict": "verified", "evidence": [held, beyond, control, trend, refuted,
                                                        {"role": "evidence", "max_error": None}]}]}
    tests = upgrade(report)["claims"][0]["evidence"]
    case = {"error": 1e-16, "tolerance": 1e-15, "details": details}
    assert tests[0]["by_kind"] == from_cases(case, None)
    assert tests[1]["by_kind"] == from_cases(None, {**case, "error": 1e-3})
    assert tests[2]["by_kind"] == from_cases(None, case)
    assert list(tests[3]["by_kind"]["trend"]) == ["holding"] and list(tests[4]["by_kind"]["trend"]) == ["violating"]
    assert tests[5]["by_kind"] == {}
    assert report["claims"][0]["by_kind"] == merge(t["by_kind"] for t in tests[:2] + tests[3:])


def test_the_digest_is_the_stored_contents_computed_before_any_field_is_filled(before_tallies):
    stored, loaded = before_tallies
    assert report_digest(loaded) == stored["citation"]["digest"]  # the full run's (this entry has no series)
    assert content_digest(loaded) != content_digest(stored)  # the filled fields are in the claims it hashes
    older = copy.deepcopy(stored)
    del older["citation"]  # a report from before digests
    assert report_digest(upgrade(older)) == content_digest(stored)


def _without_stated_rules(report: dict) -> dict:
    for claim in report["claims"]:
        lists = [t["trends"] for t in claim["evidence"]] + [claim["trends"]]
        for trend in (t for trends in lists + [f["trends"] for f in claim["findings"].values()] for t in trends):
            del trend["rule"], trend["scale"]
    return report


def _as_current(report: dict) -> dict:
    """A schema-2 report as the current schema writes it: the claim's control state named ``control_state`` in the
    same place, a test's role in ``role`` only."""
    report["schema"] = SCHEMA
    for index, claim in enumerate(report["claims"]):
        report["claims"][index] = {("control_state" if k == "negative_control" else k): v for k, v in claim.items()}
        for test in claim["evidence"]:
            del test["negative_control"]
    return report


def test_a_current_report_comes_through_unchanged():
    built = build_report({"profile": "ci"}, {})
    assert upgrade(copy.deepcopy(built)) == built
    scoped = _stored(SCOPED)  # every field but the trends' rules and scales
    upgraded = _without_stated_rules(upgrade(copy.deepcopy(scoped)))
    assert upgraded == _as_current(scoped)
    assert [list(c) for c in upgraded["claims"]] == [list(c) for c in _as_current(_stored(SCOPED))["claims"]]


def test_a_tests_role_is_kept_in_role_alone_and_read_from_the_boolean_where_role_is_absent():
    tests = [{"role": "control", "negative_control": True}, {"role": "evidence", "negative_control": False},
             {"negative_control": True}, {"negative_control": False}, {}]
    upgrade({"run": {}, "summary": {}, "citation": {"digest": "d"},
             "claims": [{"id": "X", "verdict": "verified", "evidence": tests}]})
    assert [t["role"] for t in tests] == ["control", "evidence", "control", "evidence", "evidence"]
    assert not any("negative_control" in t for t in tests)


def test_an_older_trends_rule_and_scale_are_read_from_the_note_that_states_them():
    """The k-th trend of a statement gets the k-th note's (a statement judged under two rules); a finding's trend its
    finding's notes'; a trend no note states (a control's) none."""
    def note(statement: str, rule: str, scale: str = "") -> str:
        return f"Trend '{statement}': verified (rho +0.5, 8 runs; rule: {rule} (p <= 0.05)); power 0.8" + (
            f"; scale used: {scale}." if scale else ".")

    claim = {"id": "X", "verdict": "verified", "notes": [note("a", "R-a1", "s1"), note("a", "R-a2"), "Trend 'c': x."],
             "evidence": [{"role": "evidence", "trends": [{"statement": "a"}, {"statement": "a"}, {"statement": "c"}]}],
             "findings": {"f": {"notes": [note("a", "R-f", "s; the memo's scale: m")], "trends": [{"statement": "a"}]}}}
    upgrade({"run": {}, "summary": {}, "citation": {"digest": "d"}, "claims": [claim]})
    first, second, control = claim["evidence"][0]["trends"]
    assert (first["rule"], first["scale"]) == ("R-a1 (p <= 0.05)", "s1")
    assert (second["rule"], second["scale"]) == ("R-a2 (p <= 0.05)", None)
    assert (control["rule"], control["scale"]) == (None, None)
    (found,) = claim["findings"]["f"]["trends"]
    assert (found["rule"], found["scale"]) == ("R-f (p <= 0.05)", "s; the memo's scale: m")


@pytest.mark.parametrize("path", [BEFORE_TALLIES, SCOPED], ids=["before-tallies", "scoped"])
def test_every_rule_and_scale_an_older_reports_notes_state_is_named(path):
    """Once loaded, the rules and scales its trends carry name every one its notes state: none is left inline."""
    from claims.report._parts import claim_notes

    named = 0
    for claim in load_report(path)["claims"]:
        names, notes, findings = claim_notes(claim)
        named += len(names)
        for note in notes + [n for shown in findings.values() for n in shown]:
            assert "; rule: " not in note and "; scale used: " not in note, (claim["id"], note)
    assert named > 20


def test_the_upgrade_is_idempotent_and_keeps_the_digest_check_on_the_report_as_stored(tmp_path):
    """Loading twice reads the same report; an edited older report is still refused (the digest is checked before
    the upgrade fills anything)."""
    loaded = load_report(SCOPED)
    assert upgrade(copy.deepcopy(loaded)) == loaded
    edited = _stored(SCOPED)
    edited["claims"][0]["verdict"] = "refuted" if edited["claims"][0]["verdict"] != "refuted" else "verified"
    path = tmp_path / "edited.json.gz"
    path.write_bytes(gzip.compress(json.dumps(edited).encode()))
    with pytest.raises(BaselineError, match="does not match its stored entry digest"):
        load_report(path)


@pytest.mark.parametrize("path", [BEFORE_TALLIES, SCOPED], ids=["before-tallies", "scoped"])
def test_an_older_reports_control_state_arrives_as_control_state(path):
    """Schema 2's claim-level ``negative_control`` (a state, not a boolean) is ``control_state`` once loaded, the
    report says the current schema, a test's role is its ``role`` alone, and the stored digest still verifies
    (``load_report`` checks it on the report as stored, before the upgrade)."""
    stored, loaded = _stored(path), load_report(path)
    assert stored["schema"] == "lowrank-claims/report/2" and loaded["schema"] == SCHEMA
    assert [c["control_state"] for c in loaded["claims"]] == [c["negative_control"] for c in stored["claims"]]
    assert {c["control_state"] for c in loaded["claims"]} >= {"rejected"}
    assert not any("negative_control" in c for c in loaded["claims"])
    roles = [[t["role"] for t in c["evidence"]] for c in loaded["claims"]]
    assert roles == [[t["role"] for t in c["evidence"] or []] for c in stored["claims"]]
    assert not any("negative_control" in t for c in loaded["claims"] for t in c["evidence"])
    assert report_digest(loaded) == stored["citation"]["digest"]


CLAIMS_REPORT = DATA.parent.parent / "claims" / "report"
OLD_NAME = re.compile(r"\bnegative_control\b")


def test_the_control_state_is_read_under_its_old_name_nowhere_but_the_upgrade():
    """Only ``claims.report._schema`` (the upgrade, which renames it) names ``negative_control``: the renderers,
    the comparison, lint, errata, history, LaTeX and the CLI read ``control_state``."""
    named = [f"{path.name}:{number}: {line.strip()}"
             for path in sorted(CLAIMS_REPORT.glob("*.py")) if path.name != "_schema.py"
             for number, line in enumerate(path.read_text().splitlines(), 1) if OLD_NAME.search(line)]
    named += [f"__main__.py:{number}" for number, line in
              enumerate((CLAIMS_REPORT.parent / "__main__.py").read_text().splitlines(), 1) if OLD_NAME.search(line)]
    assert named == []
    assert OLD_NAME.search((CLAIMS_REPORT / "_schema.py").read_text())  # the check reads the right folder


def test_a_report_saved_under_this_schema_compares_with_its_schema_2_original_as_no_change(tmp_path):
    from claims.report._compare import compare
    from claims.report._history import save_run

    saved = save_run(load_report(SCOPED), tmp_path)  # written as a current run writes it: schema 3, control_state
    written = _stored(saved)
    assert written["schema"] == SCHEMA and all("control_state" in c and "negative_control" not in c
                                               for c in written["claims"])
    assert compare(load_report(SCOPED), load_report(saved)).changes == []
