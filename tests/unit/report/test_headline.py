"""The report's headline figures by kind, the plain reading of a verdict, the order of a claim's tests and
notes, and the report lint (``claims.report._headline``, ``claims.report._model``, ``claims.report._lint``),
on the committed ``ci`` report of schema 2 (tests/data) and on small entries."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from claims.evidence._role import Role
from claims.evidence._registry import CLAIMS
from claims.report._headline import (
    claim_headline,
    format_error,
    format_number,
    per_test_headline,
    reading,
    slack_text,
    trend_text,
)
from claims.report._html import render_html
from claims.report._json import loads
from claims.report._lint import html_summary_rows, json_problems, markdown_summary_rows, rendered_problems
from claims.report._markdown import render_markdown
from claims.report._model import TestRecord, claim_entry, ordered_notes, record_order
from claims.report._schema import upgrade

REFERENCE = (
    next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
    / "tests" / "data" / "report-v2_1b3f822b8825_ci.json.gz"
)
"""A committed full ``ci`` report (tests/data/README.md), from before the kinds' tallies."""


@pytest.fixture(scope="module")
def reference() -> tuple[dict, str, str]:
    report = upgrade(loads(gzip.decompress(REFERENCE.read_bytes()).decode()))  # as load_report reads it
    return report, render_markdown(report), render_html(report)


def test_the_committed_report_reads_by_kind_without_stand_ins(reference):
    """Its JSON carries 1e300 stand-ins (it still loads), but neither rendering shows one, no summary row shows a
    negative slack unexplained, and every invariance is headlined by its drift orders' slopes."""
    report, markdown, page = reference
    assert json_problems(report) == ["claims.json carries stand-in numbers [1e-300, 1e+300]"]
    assert rendered_problems(report, markdown, page) == []
    for rows in (markdown_summary_rows(markdown), html_summary_rows(page)):
        assert [r["ID"] for r in rows] == [c["id"] for c in report["claims"]]
        row = {r["ID"]: r for r in rows}
        assert "slope" in row["LJ22.L2a"]["Headline"] and "worst error 0.346" not in row["LJ22.L2a"]["Headline"]
        assert "within rounding" in row["LJ22.L10"]["Headline"] and "-8" not in row["LJ22.L10"]["Headline"]
        assert "unbounded" not in row["GP22.P1"]["Headline"]


def test_a_slack_within_rounding_reads_as_zero_and_one_beyond_its_tolerance_is_flagged():
    within = {"relative_slack": -1e-16, "scale": 2.0, "tolerance": 4e-16, "error": 2e-16}
    assert slack_text(within) == "min slack 0 within rounding (lhs over rhs by 1e-16 <= tolerance 2e-16)"
    beyond = {"relative_slack": -1e-12, "scale": 2.0, "tolerance": 4e-16, "error": 2e-12}
    assert slack_text(beyond) == "min slack -1e-12, BEYOND its tolerance 2e-16"
    sourced = {"relative_slack": 0.25, "scale": 4.0, "tolerance": 0.4, "tolerance_source": "the path's drift"}
    assert slack_text(sourced) == "min slack 0.25 (tolerance 0.1; tolerance: the path's drift)"
    report = {"claims": [{"id": "X", "kind": "inequality"}]}
    flagged = rendered_problems(
        report, "| ID | Headline |\n|---|---|\n| X | inequality: " + slack_text(beyond) + " |\n", ""
    )
    assert flagged == ["claims.md summary: X's Headline shows a negative slack -1e-12 not marked as rounding"]


def test_an_invariance_is_headlined_by_its_slopes_per_integrator():
    by_kind = {"drift order": {"holding": {"checks": 3, "informative": 3, "nearest": {"error": 0.3, "tolerance": 1.0},
                                           "ranges": {"rk4": {"slope": [3.98, 4.07], "relative_drift": [1e-7, 2e-6],
                                                              "order": [4, 4], "band": [0.5, 0.5],
                                                              "ratio": [1e-4, 1e-4]},
                                                      "euler": {"slope": [1.0, 1.01], "relative_drift": [1e-4, 3e-3],
                                                                "order": [1, 1], "band": [0.5, 0.5],
                                                                "ratio": [0.01, 0.01]}}}}}
    assert claim_headline({"by_kind": by_kind, "trends": []}) == [
        "drift order: euler slope 1..1.01 (order 1, needs >= 0.5), finest drift <= 0.003 of its terms' motion "
        "(needs < 0.01); rk4 slope 3.98..4.07 (order 4, needs >= 3.5), finest drift <= 2e-06 of its terms' motion "
        "(needs < 0.0001)"
    ]
    by_kind["drift order"]["holding"]["ranges"]["rk4"]["slope"] = [3.99999, 4.00001]  # one slope as shown
    assert "; rk4 slope 4 (order 4, needs >= 3.5)" in claim_headline({"by_kind": by_kind, "trends": []})[0]


def test_the_reports_numbers_print_at_four_significant_digits():
    """One formatter (``format_number``) for the report's ordinary numbers (issue 36): 4 significant digits; zero,
    none and integral values in their exact form; a tolerance (gamma(20), a rounding bound) like any other number."""
    from claims.models import gamma

    assert format_number(0.12345) == "0.1235" and format_number(-0.00123456) == "-0.001235"
    assert format_number(1234.56) == "1235" and format_number(123456.0) == "1.235e+05"
    assert format_number(gamma(20)) == "2.22e-15" and format_number(3.9968028886505635e-14) == "3.997e-14"
    assert format_number(0.0) == "0" and format_number(None) == "-" and format_number(1.0) == "1"
    assert format_number(97) == "97" and format_number(4.0) == "4"  # a count, an order: exact
    assert format_number(0.123456, signed=True) == "+0.1235" and format_number(-0.5, signed=True) == "-0.5"
    assert format_error(8.882e-16 * 1.00001, "absolute") == "8.882e-16 abs"
    assert slack_text({"relative_slack": 0.0037612, "tolerance": 7.0943e-14, "scale": 1.0}) == (
        "min slack 0.003761 (tolerance 7.094e-14)")
    trend = {"verdict": "verified", "effect": 0.612345, "effect_interval": [0.41234, 0.81236], "p_predicted": 0.0123456,
             "n": 9, "levels": 3}
    assert trend_text([trend]) == "effect +0.6123 [+0.4123, +0.8124], p 0.01235, 9 runs at 3 levels (verified)"


def test_a_trend_shows_the_p_of_the_direction_it_concluded():
    refuted = {"verdict": "refuted", "effect": -0.85, "effect_interval": [-0.9, -0.7], "p_predicted": 1.0,
               "p_opposite": 0.0033, "n": 9, "levels": 3, "statement": "smaller batches, lower rank"}
    verified = {**refuted, "verdict": "verified", "effect": 0.6, "effect_interval": [0.4, 0.8], "p_predicted": 0.01,
                "p_opposite": 0.99, "statement": "larger rate, lower rank"}
    assert trend_text([refuted]) == (
        "effect -0.85 [-0.9, -0.7], p 0.0033 against the prediction, 9 runs at 3 levels (refuted)"
    )
    assert trend_text([verified, refuted]).startswith("2 trends (1 refuted, 1 verified); deciding: 'smaller batches")


def test_a_tests_headline_shows_the_printed_statements_counterexample_apart():
    by_kind = {"conserved rate": {"violating": {"checks": 1, "informative": 1, "nearest": {
        "error": 4.33e-5, "tolerance": 3.22e-15}, "ranges": {}}}}
    assert per_test_headline({"role": "evidence", "by_kind": by_kind}) == [
        "printed statement fails: |dQ/dt| 4.33e-05 of its scale > rounding bound 3.22e-15"]
    assert per_test_headline({"role": "control", "by_kind": by_kind}) == [
        "rejected: |dQ/dt| 4.33e-05 of its scale > rounding bound 3.22e-15"]


@pytest.mark.parametrize(
    "verdict, why, control, start",
    [
        ("verified", [], "rejected", "Holds as printed"),
        ("verified-with-correction", [], "rejected", "False as printed"),
        ("refuted", [], "rejected", "False as printed: a check found"),
        ("inconclusive", ["t: declared inconclusive: a test fixed before the data ..."], "rejected",
         "Undecided: a test fixed"),
        ("inconclusive", ["The evidence could not have failed: ..."], "rejected",
         "Undecided: the checks passed, but on no"),
        ("inconclusive", ["Checks passed, but the negative control: accepted"], "accepted",
         "Undecided: the checks passed, but the negative control (accepted)"),
        ("error", [], "rejected", "No verdict"),
    ],
)
def test_every_verdict_reads_in_one_plain_sentence(verdict, why, control, start):
    text = reading({"verdict": verdict, "why": why, "control_state": control, "counterexamples": []})
    assert text.startswith(start) and text.endswith(".") and "\n" not in text


def test_a_claims_tests_and_notes_follow_their_files_order_and_labels():
    claim = CLAIMS["LJ22.L1"]
    records = [
        TestRecord("t.py::test_eq2", ["LJ22.L1"], Role.EVIDENCE, line=150, evidence={"notes": ["(d) Eq. (2)."]}),
        TestRecord("t.py::test_control", ["LJ22.L1"], Role.CONTROL, line=180,
                   evidence={"notes": ["Negative control."]}),
        TestRecord("t.py::test_nu", ["LJ22.L1"], Role.EVIDENCE, line=60,
                   evidence={"notes": ["(b) exactly.", "intro", "(a) float."]}),
        TestRecord("t.py::test_mu", ["LJ22.L1"], Role.EVIDENCE, line=100,
                   evidence={"notes": ["(c) one mu.", "(a) float."]}),
    ]
    assert [r.nodeid for r in sorted(records, key=record_order)] == [
        "t.py::test_nu", "t.py::test_mu", "t.py::test_eq2", "t.py::test_control"]
    notes = ordered_notes((), sorted(records, key=record_order))
    assert notes == ["intro", "(a) float.", "(b) exactly.", "(c) one mu.", "(d) Eq. (2).", "Negative control."]
    assert claim_entry(claim, list(reversed(records)))["notes"] == notes


def test_a_settled_limit_is_headlined_by_its_value_error_bar_and_interval():
    from claims.checks import check_settled_limit
    from claims.evidence._record import collecting

    with collecting() as evidence:
        # a ratio halving its distance to 0.9 at each doubling: settled well inside [1/8, 1]
        check_settled_limit(None, [0.9 - 0.1 * 2.0 ** -k for k in range(6)], 0.125, 1.0, value_range=(0.0, 1.0),
                            resolution=0.01)
    record = evidence.to_builtin()
    assert set(record["by_kind"]) == {"settled limit"}
    (line,) = claim_headline({"by_kind": record["by_kind"], "trends": []})
    assert line.startswith("settled limit: ") and "+-" in line and "against [0.125, 1] (resolution 0.01)" in line


def test_a_cases_details_read_as_prose_without_python_reprs():
    """A counterexample's details in claims.md/html: numbers at 4 significant digits, short lists in parentheses,
    long ones as their count and range, no ``[``, ``{`` or ``=None``, and no trend rule or scale repeated."""
    from claims.report._parts import counterexample_parts, detail_value, details_text

    details = {"design_levels": [4.0] * 22 + [10.295768934420508] * 22, "pair": [2, 3], "rule_seed": 0,
               "rule_min_slope": None, "memo_scale": "CIFAR10", "flag": None, "ok": True, "width": 4,
               "slope": 3.14159265, "scale": {"data": "digits"}, "matrices": ["W1", "W2"]}
    text = details_text(details, set())
    assert text == ("design_levels 44 values, 4 to 10.3; pair (2, 3); flag none; ok yes; width 4; slope 3.142; "
                    "matrices (W1, W2)")
    assert detail_value({"a": 1}) == "1 fields" and detail_value([[1, 2]]) == "1 values"
    ce = {"nodeid": "t.py::t", "error": 2.0, "tolerance": 1.0, "details": details}
    prose = "".join(counterexample_parts(ce))
    assert "[" not in prose.split("(the case nearest")[1] and "{" not in prose and "=None" not in prose
