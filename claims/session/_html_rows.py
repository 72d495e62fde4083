"""pytest-html, when installed and active (never required): a Claims column in its results table,
with each claim test's IDs and a short line of its evidence (``evidence_line``)."""

from __future__ import annotations

import html

import pytest

from claims.evidence._role import Role, encode_role
from claims.report._headline import per_test_headline
from claims.session._claim_tests import EVIDENCE_PROPERTY, recorded_meta, recorded_property


class HtmlRows:
    """pytest-html, when installed and active (never required): a Claims column in its results table with
    each claim test's IDs and a short evidence line."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_header(self, cells: list) -> None:
        cells.insert(2, "<th>Claims</th>")

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_row(self, report: pytest.TestReport, cells: list) -> None:
        cells.insert(2, f"<td>{html.escape(evidence_line(report))}</td>")


def evidence_line(report: pytest.TestReport) -> str:
    """"LJ22.L1 · 100 cases · identity: worst error 2.1e-16 rel <= tolerance 4.7e-15", "LJ22.L1 · control: rejected ·
    100 cases · rejected: error 0.5 rel > tolerance 1e-15" (its cases violate a hypothesis, and the check rejected
    them; the figures by kind of check, ``claims.report._headline.per_test_headline``), or "" for a test of no claim."""
    meta, evidence = recorded_meta(report), recorded_property(report, EVIDENCE_PROPERTY)
    if meta is None:
        return ""
    parts = [", ".join(meta["ids"])]
    if meta["role"] is Role.CONTROL:
        rejected = report.passed and evidence and evidence.get("cases")
        parts.append("control: rejected" if rejected else f"control: {report.outcome}")
    if evidence:
        parts.append(f"{evidence.get('cases', 0)} cases")
        headline = per_test_headline({**evidence, "role": encode_role(meta["role"])})
        if headline != ["-"]:
            parts.append("; ".join(headline))
        if evidence.get("verdict"):
            parts.append(f"declared {evidence['verdict']}")
    return " · ".join(parts)
