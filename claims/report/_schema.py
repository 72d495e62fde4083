"""Reading an older report as a current one: ``upgrade`` fills, once, where a report is read from disk
(``claims.report._history.load_report``, behind every command of ``python -m claims`` and the plugin's
baseline), the fields that a report of this schema written before them lacks. The renderers and the
comparison then read each field as the current run writes it, instead of each guessing a default.

Schema ``lowrank-claims/report/2`` grew by fields, not by versions, so a field's absence says what a report
is from (``tests/data/README.md`` keeps one of each):

- before digests, no ``citation.digest``: the digest of the report's content as stored, computed first,
  before any field is filled (the digest hashes the claims, which the other fields change);
- before scoped verdicts, no claim ``origin`` (every claim is a paper's) and no ``summary_beyond_papers``
  (no question beyond the papers, so none counted);
- before the kinds' tallies, no ``by_kind`` (a test's is read from its recorded cases, ``from_cases``; a
  claim's is its evidence tests' merged);
- before errata, no claim ``errata`` (none recorded);
- before the readings were recorded, no claim ``tested_as`` or ``extraction`` (none);
- before the trends' rules were recorded, a trend without ``rule`` or ``scale``: read from the note that
  states them (``claims.checks._trends``: "Trend '<statement>': ... ; rule: <rule>) ... ; scale used:
  <scale>."), the one place the report layer reads them from prose.

The report as stored is what its digest covers (``claims.report._citation.digest_mismatch``), so
``load_report`` checks the digest before it upgrades.
"""

from __future__ import annotations

from typing import Any, Mapping

from claims.evidence._kinds import from_cases, kind_of, merge
from claims.report._citation import content_digest
from claims.report._scope import PAPER, counted, summaries


def upgrade(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` (validated: ``claims.report._validate``) with every field the current schema writes, filled
    in place where it was missing (see the module's docstring); returned."""
    citation = report.get("citation") or {}
    if not citation.get("digest"):
        report["citation"] = {**citation, "digest": content_digest(report)}
    for claim in report["claims"]:
        claim.setdefault("origin", PAPER)
        claim.setdefault("errata", [])
        claim.setdefault("tested_as", None)
        claim.setdefault("extraction", None)
        tests = claim.get("evidence") or []
        for test in tests:
            if test.get("by_kind") is None:
                test["by_kind"] = _tally_from_cases(test)
        if claim.get("by_kind") is None:  # merged before the ranges are filled: a merge joins recorded ranges only
            claim["by_kind"] = merge(t["by_kind"] for t in tests if t.get("role") != "control")
    if "summary_beyond_papers" not in report:
        report["summary_beyond_papers"] = summaries(counted(report["claims"], report["run"]),
                                                    tuple(report["summary"]))[1]
    return report


def _tally_from_cases(test: Mapping[str, Any]) -> dict[str, Any]:
    """A test's ``by_kind`` read from its shown case (a report from before the tallies recorded one case)."""
    if test.get("max_error") is None:
        return {}
    details = test.get("details") or {}
    case = {"error": test["max_error"], "tolerance": test["tolerance"], "details": details}
    # the shown case is the holding one when the test has one; a trend undecided at this scale is a holding case
    # beyond its tolerance, a refuted one a violating case
    if kind_of(details) == "trend":
        violates = test.get("role") == "control" or details.get("verdict") == "refuted"
    else:
        violates = test.get("role") == "control" or test["max_error"] > test["tolerance"]
    return from_cases(None if violates else case, case if violates else None)

