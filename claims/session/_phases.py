"""pytest's phase reports folded into a test's record (``claims.report.TestRecord``): the one place that
knows pytest's phases (setup, call, teardown; xdist's "???" for a worker that crashed), so the report layer
receives records with an outcome and a reason."""

from __future__ import annotations

from typing import Any

from claims.report._model import NOT_RUN, SKIPPED_IN_SETUP, TestRecord

PHASES = ("setup", "call", "teardown")


def fold_phase(record: TestRecord, when: str, outcome: str, evidence: dict[str, Any] | None, duration: float,
               message: str = "") -> None:
    """Fold one phase's report into ``record``. The call's outcome decides: passed; failed on a recorded
    violation (a counterexample, unless a finding failed); any other failure an error; skipped not-run. A
    failed setup or teardown is an error, a skip in setup not-run, and a crashed worker's report not-run.
    A failure or an error is never undone by a later report (a rerun, another worker running the test)."""
    if when == "call":
        evidence = evidence or {}
        if outcome == "passed":
            settled = ("passed", None)
        elif outcome == "failed":
            finding = evidence.get("failed_finding")
            if evidence.get("violation") and not finding:
                settled = ("failed", None)
            else:
                settled = ("error", f"finding {finding!r} failed: {message}" if finding else message or "failed")
        else:
            settled = (NOT_RUN, f"{outcome}: {message}")
        record.settle(*settled, evidence=evidence, duration=duration)
    elif when in ("setup", "teardown") and outcome == "failed":
        record.settle("error", f"{when} failed: {message}", duration=duration)
    elif when == "setup" and outcome == "skipped":
        record.settle(NOT_RUN, f"{SKIPPED_IN_SETUP}{message}", duration=duration)
    elif when not in PHASES:  # xdist's "???": the worker crashed
        record.settle(NOT_RUN, message or "the worker running it crashed", duration=duration)
    else:
        record.duration += duration
