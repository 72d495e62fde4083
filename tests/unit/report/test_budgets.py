"""The renderings' budgets (``claims.report._lint.BUDGETS``, issue 36): claims.md at most 700 lines, claims.html at
most 500 KB with its figures, no Python repr and no number with more than 6 significant digits in prose. Checked on
the committed reference report rendered anew (``tests/data``; it holds no figure bytes) and on the report of a fresh
run in reports/ when there is one (its figures included)."""

from __future__ import annotations

from pathlib import Path

import pytest

from claims.report._history import load_report
from claims.report._html import render_html
from claims.report._lint import budget_problems, prose_problems, significant_digits
from claims.report._markdown import render_markdown

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
REFERENCE = sorted((ROOT / "tests" / "data").glob("report-v2-scoped_*_ci.json.gz"))[-1]
FRESH = ROOT / "reports"


def test_the_reference_report_renders_within_budget():
    report = load_report(REFERENCE)
    assert budget_problems(render_markdown(report), render_html(report, {})) == []


@pytest.mark.skipif(not (FRESH / "claims.json").is_file(),
                    reason="no full run's report in reports/ (pytest -n auto writes one)")
def test_a_fresh_runs_report_renders_within_budget():
    report = load_report(FRESH / "claims.json")
    assert budget_problems(render_markdown(report), render_html(report, FRESH)) == []


def test_the_budgets_fail_on_what_they_forbid():
    assert significant_digits("0.000886") == 3 and significant_digits("1.000000000") == 1
    assert significant_digits("10.295768934420508") == 17
    assert prose_problems("design_levels=[4.0, 4.0] and rule_min_slope=None; scale {'data': 1}", "md")
    assert prose_problems("responses (70 values) [1.5, 2.5, 3.5]", "md")
    assert prose_problems("slope 10.295768934420508", "md") == ["md: 10.295768934420508 printed with 17 significant "
                                                                "digits"]
    assert prose_problems("error 1.1102230246251565e-16, exact 1.000000000000000, interval [-0.96, -0.933], "
                          "[U Z]", "md") == []
    long_page = "x" * (500 * 1024 + 1)
    assert budget_problems("\n" * 701, long_page) == [
        "claims.md has 701 lines, over its budget of 700", "claims.html is 500 KB, over its budget of 500 KB"]
