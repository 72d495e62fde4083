"""The session's exit status when the run has a baseline: which failures are expected verdicts.

A red run (a non-zero exit status) should mean that something broke or got worse: an error, a crash, an
unexpected failure, or a regression against the baseline. Without a baseline (no ``--claims-compare``, or
none saved yet) nothing here applies: pytest's own exit status stands, and any failed test makes it 1.

With a baseline, a failed test is an *expected verdict* (``expected_failure``) when all of these hold:

- it failed in its call phase and is a claim test's evidence test, not a negative control;
- its outcome in the report is ``failed``: a check of ``claims.checks`` raised ``ClaimViolation`` (a
  counterexample), not an ``error`` (a broken test, a NaN, a failing finding, a setup or teardown failure);
- every claim it evidences was already ``refuted`` or ``not-reproduced`` (an empirical claim's failure away
  from the paper's setting, ``claims.report._scope``) in the baseline, and is one of the two in this run (a
  baseline saved before the scope rule says ``refuted`` where this run says ``not-reproduced``).

When every failure of the run is an expected verdict (``expected_failures``) and the run is otherwise
clean (pytest's status is "tests failed", not an interruption or an internal error; no collection error; the
run is complete; the comparison flags no regression under ``--claims-compare-fail``; the report's own checks
found no problem), the session exits 0 (``ClaimsReporter`` sets ``session.exitstatus``, and the terminal says
which failures it counted as expected). Anything else stays red: a plain pytest failure (a test that is no
claim test), any error, a control that failed, a claim refuted now but not in the baseline (a new refutation),
a regression flagged by the comparison.

Such a run is still not citable: its report names the failed tests (``claims.report._citation``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from claims.evidence._role import Role
from claims.report._model import TestRecord


REFUTING = ("refuted", "not-reproduced")
"""The verdicts a failing check gives a claim (a counterexample; away from the paper's setting, not reproduced)."""


def _verdicts(report: Mapping[str, Any]) -> dict[str, str]:
    return {c.get("id"): c.get("verdict") for c in report.get("claims") or [] if isinstance(c, Mapping)}


def expected_failure(nodeid: str, when: str, record: TestRecord | None, baseline: Mapping[str, Any],
                     report: Mapping[str, Any]) -> bool:
    """Whether one failed test report (``nodeid``, its phase ``when``) is an expected verdict: the call of
    an evidence test that found a counterexample to claims the baseline and this run's report both call
    refuted."""
    if when != "call" or record is None or record.role is Role.CONTROL or record.outcome != "failed":
        return False
    before, now = _verdicts(baseline), _verdicts(report)
    return bool(record.claim_ids) and all(
        before.get(i) in REFUTING and now.get(i) in REFUTING for i in record.claim_ids)


def expected_failures(failures: Sequence[tuple[str, str]], records: Mapping[str, TestRecord],
                      baseline: Mapping[str, Any], report: Mapping[str, Any]) -> list[str] | None:
    """The failed tests (``failures``: (nodeid, phase) of every failed test report of the run), each as
    ``nodeid (claim IDs)``, when every one is an expected verdict (``expected_failure``); None when one is
    not, or when nothing failed."""
    if not failures:
        return None
    named: dict[str, str] = {}
    for nodeid, when in failures:
        record = records.get(nodeid)
        if not expected_failure(nodeid, when, record, baseline, report):
            return None
        named[nodeid] = f"{nodeid} ({', '.join(record.claim_ids)})"
    return list(named.values())
