"""The claims report: test outcomes and evidence aggregated per registered claim.

Pure data in, ``claims.json`` / ``claims.md`` out; the plugin feeds it test records on the
controller. Schema ``lowrank-claims/report/2`` (version 1 had no ``not-run`` verdict, counted
degenerate cases as evidence and wrote every run, partial or not, over the full report).

The rules that turn tests into a verdict are here and nowhere else:

- a test's outcome is ``passed`` or ``failed`` only from its call phase; a test with no call-phase
  report (interrupted, worker crashed, skipped) is ``not-run``; a failure in setup or teardown, a
  NaN, or a failing finding, is ``error``;
- ``error`` > ``refuted`` > ``inconclusive`` > ``verified-with-correction`` > ``verified`` (a
  correction never hides a refutation, a trend that did not reproduce is never averaged into a
  verified claim, nothing hides an error);
- ``verified`` and ``verified-with-correction`` need every control of the claim selected, finished,
  with cases, and ``rejected``; every selected evidence test finished; and at least one
  non-degenerate case. Otherwise the verdict is ``inconclusive`` and the notes say why;
- a claim with tests none of which ran is ``not-run``; a claim without tests is ``untested``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claims._evidence import VERDICTS, margin, nearest_to_acceptance, nearest_to_violating
from claims._registry import CLAIMS, PAPERS, Claim
from claims._selection import ClaimSuite

SCHEMA = "lowrank-claims/report/2"

_PRECEDENCE = ("error", "refuted", "inconclusive", "verified-with-correction", "verified")

NOT_RUN = "not-run"
CONTROL_STATES = {
    "rejected": "every control ran and the same check rejected its cases",
    "accepted": "a control's case was accepted: the check is not shown able to fail",
    "error": "a control ended in an error",
    "did not finish": "a control did not finish (interrupted, crashed or skipped)",
    "no cases": "a control finished without a case that the check rejected",
    "control not run in this selection": "the claim has a control, but this run did not select it",
    "partly run in this selection": "some of the claim's controls were not selected in this run",
    "absent": "the suite has no negative control for this claim",
}


@dataclass
class TestRecord:
    """One test's outcome over its phases, with the evidence its call recorded."""

    nodeid: str
    claim_ids: list[str]
    negative_control: bool
    outcome: str = NOT_RUN
    reason: str | None = "selected, but no call phase was reported (interrupted or stopped early)"
    evidence: dict[str, Any] = field(default_factory=dict)
    duration: float = 0.0

    def update(self, when: str, outcome: str, evidence: dict[str, Any] | None, duration: float, message: str = "") -> None:
        """Fold in one phase's report. A failure or an error is never undone by a later report (a rerun,
        another worker running the same test): what once contradicted the claim stays in the record."""
        self.duration += duration
        if self.outcome in ("failed", "error"):
            return
        if when == "call":
            self.evidence = evidence or {}
            if outcome == "passed":
                self.outcome, self.reason = "passed", None
            elif outcome == "failed":
                finding = self.evidence.get("failed_finding")
                if self.evidence.get("violation") and not finding:
                    self.outcome, self.reason = "failed", None
                else:
                    self.outcome = "error"
                    self.reason = f"finding {finding!r} failed: {message}" if finding else message or "failed"
            else:
                self.outcome, self.reason = NOT_RUN, f"{outcome}: {message}"
        elif when in ("setup", "teardown") and outcome == "failed":
            self.outcome, self.reason = "error", f"{when} failed: {message}"
        elif when == "setup" and outcome == "skipped":
            self.outcome, self.reason = NOT_RUN, f"skipped in setup: {message}"
        elif when not in ("setup", "call", "teardown"):  # xdist's "???": the worker crashed
            self.outcome, self.reason = NOT_RUN, message or "the worker running it crashed"

    @property
    def cases(self) -> int:
        return self.evidence.get("cases", 0)

    def to_json(self) -> dict[str, Any]:
        e = self.evidence
        return {
            "nodeid": self.nodeid,
            "role": "control" if self.negative_control else "evidence",
            "outcome": self.outcome,
            "reason": self.reason,
            "negative_control": self.negative_control,
            "cases": e.get("cases", 0),
            "degenerate": e.get("degenerate", 0),
            "checks": e.get("checks", 0),
            "min_slack": e.get("min_slack"),
            "max_error": e.get("max_error"),
            "tolerance": e.get("tolerance"),
            "error_scale": (e.get("details") or {}).get("error_scale"),
            "details": e.get("details", {}),
            "violation": e.get("violation"),
            "falsifying_example": e.get("falsifying_example"),
            "series": e.get("series", []),
            "duration": round(self.duration, 3),
        }


def _finite(value: float | None) -> float | None:
    return value if value is None or math.isfinite(value) else None


def control_status(controls: list[TestRecord], suite: ClaimSuite) -> str:
    """All of the claim's controls must have run and rejected; any other state says what is missing."""
    if not controls:
        return "control not run in this selection" if suite.has_controls else "absent"
    outcomes = {t.outcome for t in controls}
    if "failed" in outcomes:
        return "accepted"
    if "error" in outcomes:
        return "error"
    if NOT_RUN in outcomes:
        return "did not finish"
    if any(t.cases == 0 or not t.evidence.get("counterexample") for t in controls):
        return "no cases"
    if suite.unselected_controls:
        return "partly run in this selection"
    return "rejected"


def _findings(checks: list[TestRecord]) -> dict[str, Any]:
    merged: dict[str, dict[str, Any]] = {}
    for t in checks:
        for name, f in t.evidence.get("findings", {}).items():
            m = merged.setdefault(name, {"cases": 0, "degenerate": 0, "checks": 0, "holding": [], "notes": []})
            m["cases"] += f["cases"]
            m["degenerate"] += f["degenerate"]
            m["checks"] += f["checks"]
            m["holding"] += [f["holding"]] if f.get("holding") else []
            m["notes"] += [n for n in f.get("notes", []) if n not in m["notes"]]
    out = {}
    for name, m in merged.items():
        worst = nearest_to_violating(m.pop("holding"))
        out[name] = {
            **m,
            "max_error": worst["error"] if worst else None,
            "tolerance": worst["tolerance"] if worst else None,
            "error_scale": worst["details"].get("error_scale") if worst else None,
        }
    return out


def claim_entry(claim: Claim, tests: list[TestRecord], suite: ClaimSuite | None = None) -> dict[str, Any]:
    """The report entry of one claim: verdict, aggregated evidence, per-test evidence.

    ``tests`` are the claim's selected tests; ``suite`` says what else the suite holds for it.
    Tests are taken in nodeid order, so that the entry does not depend on xdist's scheduling.
    """
    if suite is None:
        suite = ClaimSuite(
            has_evidence_tests=any(not t.negative_control for t in tests),
            has_controls=any(t.negative_control for t in tests),
        )
    tests = sorted(tests, key=lambda t: t.nodeid)
    checks = [t for t in tests if not t.negative_control]
    controls = [t for t in tests if t.negative_control]
    control = control_status(controls, suite)
    notes = list(claim.notes)
    for t in tests:
        notes += [n for n in t.evidence.get("notes", []) if n not in notes]
    why: list[str] = []

    outcomes = {t.outcome for t in tests}
    finished = [t for t in checks if t.outcome == "passed"]
    declared = {t.evidence.get("verdict") for t in finished}
    if not tests:
        verdict = NOT_RUN if (suite.has_evidence_tests or suite.has_controls) else "untested"
    elif "error" in outcomes:
        verdict = "error"
    elif any(t.outcome == "failed" for t in checks):
        verdict = "refuted"
    elif not finished:
        verdict = NOT_RUN
        why.append("No evidence test of this claim finished in this run.")
    else:
        verdict = next(v for v in _PRECEDENCE if v in declared | {"verified"})
    cases = sum(t.cases for t in checks)
    if verdict in ("refuted", "verified-with-correction") and verdict in declared:
        unshown = [
            t.nodeid for t in finished
            if t.evidence.get("verdict") in ("refuted", "verified-with-correction") and not t.evidence.get("counterexample")
        ]
        if unshown:
            why.append(f"{', '.join(unshown)} declared a verdict without recording a counterexample to the printed statement.")
    if verdict == "inconclusive" and verdict in declared:
        undecided = [t.nodeid for t in finished if t.evidence.get("verdict") == "inconclusive"]
        why.append(
            f"{', '.join(undecided)}: declared inconclusive: a test fixed before the data (a trend, or a threshold "
            "within the run's length) came out neither way at this run's scale; its numbers and reasons are in the notes."
        )
        if control != "rejected":
            why.append(f"The negative control: {control} ({CONTROL_STATES[control]}).")
    if verdict in ("verified", "verified-with-correction"):
        if control != "rejected":
            why.append(f"Checks passed, but the negative control: {control} ({CONTROL_STATES[control]}).")
        unfinished = [t for t in checks if t.outcome == NOT_RUN]
        if unfinished:
            why.append(f"{len(unfinished)} of {len(checks)} selected evidence tests did not finish.")
        empty = [t.nodeid for t in finished if t.cases == 0]
        if empty:
            why.append(f"{', '.join(empty)} passed without a non-degenerate case.")
        if not any(t.evidence.get("holding") for t in finished):
            why.append("No case where the statement holds was checked.")
        exceeded = [
            t.nodeid for t in finished
            if t.evidence.get("holding") and t.evidence["holding"]["error"] > t.evidence["holding"]["tolerance"]
        ]
        if exceeded:
            why.append(
                f"{', '.join(exceeded)} recorded a case beyond its tolerance (an undecided trend) without declaring a verdict."
            )
        if verdict == "verified" and any(t.evidence.get("counterexample") for t in finished):
            why.append("A test recorded a counterexample to the printed statement but declared no verdict.")
        if suite.unselected_evidence:
            why.append(
                f"{suite.unselected_evidence} evidence test(s) of this claim were not selected in this run, "
                "and they may show what the selected ones do not (a correction, a counterexample)."
            )
    refuted_by_a_check = any(t.outcome == "failed" for t in checks)
    if why and verdict in ("verified", "verified-with-correction", "refuted") and not refuted_by_a_check:
        verdict = "inconclusive"

    corrections = list(dict.fromkeys(t.evidence["correction"] for t in finished if t.evidence.get("correction")))
    worst = nearest_to_violating([t.evidence["holding"] for t in checks if t.evidence.get("holding")])
    counterexample = nearest_to_acceptance(
        [t.evidence["counterexample"] for t in checks if t.evidence.get("counterexample")]
    )
    failed = [t for t in checks if t.outcome == "failed"]
    max_error = worst["error"] if worst else None
    tolerance = worst["tolerance"] if worst else None
    return {
        "id": claim.id,
        "paper": claim.paper,
        "ref": claim.ref,
        "title": claim.title,
        "kind": claim.kind,
        "statement": claim.statement,
        "verdict": verdict,
        "why": why,
        "correction": "; ".join(corrections) or None,
        "tests": len(tests),
        "cases": cases,
        "degenerate": sum(t.evidence.get("degenerate", 0) for t in checks),
        "checks": sum(t.evidence.get("checks", 0) for t in checks),
        "min_slack": min(
            (t.evidence["min_slack"] for t in checks if t.evidence.get("min_slack") is not None), default=None
        ),
        "max_error": max_error,
        "tolerance": tolerance,
        "error_scale": worst["details"].get("error_scale") if worst else None,
        "margin": _finite(margin(max_error, tolerance)) if worst else None,
        "negative_control": control,
        "counterexample": counterexample,
        "counterexamples": [
            {"nodeid": t.nodeid, **t.evidence["counterexample"]} for t in checks if t.evidence.get("counterexample")
        ],
        "violations": [
            {"nodeid": t.nodeid, "violation": t.evidence.get("violation"), "falsifying_example": t.evidence.get("falsifying_example")}
            for t in failed
        ],
        "findings": _findings(checks),
        "evidence": [t.to_json() for t in tests],
        "notes": notes,
    }


def build_report(
    run: dict[str, Any], tests: dict[str, TestRecord], suites: dict[str, ClaimSuite] | None = None
) -> dict[str, Any]:
    by_claim: dict[str, list[TestRecord]] = {claim_id: [] for claim_id in CLAIMS}
    for record in tests.values():
        for claim_id in record.claim_ids:
            by_claim[claim_id].append(record)
    suites = suites or {}
    claims = [claim_entry(CLAIMS[i], records, suites.get(i)) for i, records in by_claim.items()]
    summary = {verdict: sum(c["verdict"] == verdict for c in claims) for verdict in VERDICTS}
    return {"schema": SCHEMA, "papers": PAPERS, "run": run, "claims": claims, "summary": summary}


def summary_line(report: dict[str, Any]) -> str:
    run = report["run"]
    counts = ", ".join(f"{n} {verdict}" for verdict, n in report["summary"].items() if n)
    scope = ""
    if run.get("selection") == "partial":
        scope = f" (partial run, {len(run.get('selected_claims', []))} claims selected)"
    state = "" if run["complete"] else " (incomplete run: not every selected test finished)"
    return f"claims{scope}: {counts}{state}"


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return "0" if value == 0 else f"{value:.3g}"


_SCALE = {"relative": "rel", "absolute": "abs"}


def _error(value: float | None, scale: str | None) -> str:
    text = _number(value)
    return f"{text} {_SCALE[scale]}" if value is not None and scale in _SCALE else text


def _margin(entry: dict[str, Any]) -> str:
    if entry["max_error"] is None:
        return "-"
    return "exact" if entry["max_error"] == 0 else _number(entry["margin"])


def _replay(run: dict[str, Any]) -> str:
    if run.get("hypothesis_seed") is None:
        return (
            f"derandomized: the same code and versions draw the same examples; replay with `{run['replay']}`"
        )
    return (
        f"seed {run['hypothesis_seed']}: replay with `{run['replay']}` (Hypothesis first replays any failing "
        "example saved in this machine's .hypothesis/ database)"
    )


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(report: dict[str, Any]) -> str:
    run = report["run"]
    v = run["versions"]
    git = run["git"]
    selection = run["selection"]
    lines = ["# Claims report", "", f"{summary_line(report)}.", ""]
    if selection == "partial":
        lines += [
            f"**Partial run**: {'; '.join(run['selection_reasons'])}. Claims selected: "
            f"{', '.join(run['selected_claims']) or 'none'}. Claims whose tests were not selected are "
            "`not-run`; this report does not replace the suite's full report.",
            "",
        ]
    lines += [
        f"Run {run['started']} to {run['finished']}; complete: {str(run['complete']).lower()} "
        f"(every selected test finished); selection: {selection}; Hypothesis profile `{run['profile']}` "
        f"({_replay(run)}); {run['workers']} xdist workers.",
        f"Code: lowrank-claims {v['lowrank-claims']}, git {git['commit']}"
        f"{' with uncommitted changes (dirty)' if git['dirty'] else ''}.",
        "Versions: " + ", ".join(f"{name} {value}" for name, value in v.items() if name != "lowrank-claims") + ".",
        f"Command: `{run['command']}`.",
        "",
        "Papers: " + "; ".join(f"**{key}** {text}" for key, text in report["papers"].items()) + ".",
        "",
        "Cases are Hypothesis examples (or checks outside `@given`) with a non-degenerate check; "
        "degenerate cases (both sides identically zero) are counted apart and never shown as the worst case. "
        "Worst error, tolerance and margin = tolerance / error are those of the case nearest to violating "
        "among the cases where the (corrected) statement holds; `rel` marks an error relative to the "
        "scale the check states, `abs` an absolute one (margin exact: error 0). Min slack is the smallest "
        "relative slack (rhs - lhs) / scale of an inequality. The negative control is `rejected` when "
        "every control of the claim ran and the same check refused its cases, so the check is shown able "
        "to fail.",
        "",
        "| ID | Reference | Verdict | Cases | Degenerate | Worst error | Tolerance | Margin | Min slack | Negative control |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in report["claims"]:
        lines.append(
            f"| {c['id']} | {c['ref']} | {c['verdict']} | {c['cases']} | {c['degenerate']} "
            f"| {_error(c['max_error'], c['error_scale'])} | {_number(c['tolerance'])} | {_margin(c)} "
            f"| {_number(c['min_slack'])} | {c['negative_control']} |"
        )
    for verdict in (NOT_RUN, "untested"):
        listed = [c["id"] for c in report["claims"] if c["verdict"] == verdict]
        if listed:
            lines += ["", f"{verdict.capitalize()} ({len(listed)}): {', '.join(listed)}."]
    lines.append("")
    for c in report["claims"]:
        if c["verdict"] in ("untested", NOT_RUN) and not c["evidence"]:
            continue
        lines += [f"## {c['id']}: {c['title']} ({c['ref']}, {c['paper']})", "", f"Statement: {c['statement']}", ""]
        lines.append(f"Verdict: **{c['verdict']}**.")
        lines += [f"- {reason}" for reason in c["why"]]
        for failure in c["violations"]:
            lines += ["", f"Refuting test `{failure['nodeid']}`: {failure['violation']}"]
            if failure["falsifying_example"]:
                lines += ["", "```", failure["falsifying_example"], "```"]
        for ce in c["counterexamples"]:
            lines += [
                "",
                f"The printed statement fails in `{ce['nodeid']}` (the case nearest to acceptance): error "
                f"{_error(ce['error'], ce['details'].get('error_scale'))} > tolerance {_number(ce['tolerance'])} "
                f"({', '.join(f'{k}={v}' for k, v in ce['details'].items() if k != 'error_scale')}).",
            ]
        if c["correction"]:
            lines += ["", f"Correction: {c['correction']}"]
        lines += [
            "",
            "| Test | Role | Outcome | Cases | Degenerate | Worst error | Tolerance |",
            "|---|---|---|---|---|---|---|",
        ]
        for t in c["evidence"]:
            outcome = t["outcome"] if not t["reason"] else f"{t['outcome']} ({_cell(t['reason'])[:200]})"
            lines.append(
                f"| `{t['nodeid']}` | {t['role']} | {outcome} | {t['cases']} | {t['degenerate']} "
                f"| {_error(t['max_error'], t['error_scale'])} | {_number(t['tolerance'])} |"
            )
        for name, f in c["findings"].items():
            lines += [
                "",
                f"Finding *{name}* (beyond the statement, not counted as its evidence): {f['cases']} cases, "
                f"{f['degenerate']} degenerate, worst error {_error(f['max_error'], f['error_scale'])} "
                f"vs tolerance {_number(f['tolerance'])}.",
            ]
            lines += [f"- {note}" for note in f["notes"]]
        if c["notes"]:
            lines += [""] + [f"- {note}" for note in c["notes"]]
        lines.append("")
    return "\n".join(lines)


def _json_safe(value: Any) -> Any:
    """Strict JSON: a non-finite float (an infinite or NaN error) is written as its name."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def _revive(value: Any) -> Any:
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    if isinstance(value, dict):
        return {k: _revive(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_revive(v) for v in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """Strict JSON text (the report files, and test-report properties such as JUnit XML's)."""
    return json.dumps(_json_safe(value), allow_nan=False, **options)


def loads(text: str) -> Any:
    """The inverse of ``dumps``: non-finite floats come back as floats."""
    return _revive(json.loads(text))


def write_report(report: dict[str, Any], directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "claims.json").write_text(dumps(report, indent=2) + "\n")
    (directory / "claims.md").write_text(render_markdown(report))
