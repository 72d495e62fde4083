"""What the terminal says last about a run's claims: the one-line summary with where the report is
(its claims.html), then one line per verdict other than plain ``verified`` naming its claims, so that a
reader sees which claims to look at without opening the report::

    claims: 21 verified, 12 verified-with-correction, 7 inconclusive; report: /repo/reports/claims.html
      verified-with-correction (12): LJ22.L2b, LJ22.L3, ...
      inconclusive (7): GP22.P1, GP22.S32, ...

then, when a test failed or ended in an error, one line naming those tests and the claims they touch (the
report is not citable: ``claims.report._citation.not_citable_because``)::

      failed or errored tests (2), not citable: t.py::test_a (failed; GP22.L1), t.py::test_b (error; GP22.L2)

A partial run names only the claims it selected (the others are ``not-run`` by design, and counted in
the summary line); a long list is cut, saying how many more the report names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claims.evidence._record import VERDICTS
from claims.report._citation import failed_test_text, failed_tests
from claims.report._parts import summary_line

SHOWN_IDS = 20
"""At most this many claim IDs on one verdict's line; the rest are counted."""

_ORDER = ("error", "refuted", "not-reproduced", "inconclusive", "verified-with-correction", "not-run", "untested")
"""Verdict lines from the most to the least pressing (``verified`` has none)."""


def verdict_lines(report: dict[str, Any]) -> list[str]:
    """One line per verdict other than ``verified``: the verdict, how many claims, their IDs."""
    run = report["run"]
    chosen = set(run.get("selected_claims") or []) if run.get("selection") == "partial" else None
    by_verdict: dict[str, list[str]] = {}
    beyond: list[str] = []
    for claim in report["claims"]:
        if chosen is None or claim["id"] in chosen:
            if claim.get("origin") == "suite":  # a question beyond the papers: counted apart, never a paper's
                beyond.append(f"{claim['id']} {claim['verdict']}")
            else:
                by_verdict.setdefault(claim["verdict"], []).append(claim["id"])
    order = [*_ORDER, *(v for v in VERDICTS if v not in _ORDER and v != "verified")]
    lines = []
    for verdict in order:
        ids = by_verdict.get(verdict)
        if not ids:
            continue
        shown = ", ".join(ids[:SHOWN_IDS]) + (f", and {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else "")
        lines.append(f"  {verdict} ({len(ids)}): {shown}")
    if beyond:
        lines.append(f"  questions beyond the papers ({len(beyond)}): {', '.join(beyond)}")
    return lines


def failure_line(report: dict[str, Any]) -> str | None:
    """The tests that failed or ended in an error, each with its outcome and claims, on one line (at most
    ``SHOWN_IDS``, the rest counted); None when there is none."""
    failures = failed_tests(report)
    if not failures:
        return None
    shown = ", ".join(failed_test_text(*failure) for failure in failures[:SHOWN_IDS])
    if len(failures) > SHOWN_IDS:
        shown += f", and {len(failures) - SHOWN_IDS} more"
    return f"  failed or errored tests ({len(failures)}), not citable: {shown}"


def terminal_lines(report: dict[str, Any], directory: Path, full_directory: Path | None = None) -> list[str]:
    """The summary line with the path of claims.html (and, for a run written to partial/, that the full
    report in ``full_directory`` is unchanged, or that there is none yet), then ``verdict_lines``, then
    ``failure_line``."""
    where = f"report: {directory / 'claims.html'}"
    if full_directory is not None and (full_directory / "claims.json").is_file():
        where += f" (not a full, complete run: the full report in {full_directory} is unchanged)"
    elif full_directory is not None:
        where += f" (not a full, complete run: there is no full report yet; a complete run of the whole suite " \
                 f"writes it to {full_directory})"
    failures = failure_line(report)
    return [f"{summary_line(report)}; {where}", *verdict_lines(report), *([failures] if failures else [])]
