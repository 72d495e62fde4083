"""The claims report: test outcomes and evidence aggregated per registered claim.

Pure data in, ``claims.json`` / ``claims.md`` out; the plugin feeds it test reports on the
controller. Schema ``lowrank-claims/report/1``: later versions add keys, never rename them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claims._evidence import VERDICTS, Case, margin
from claims._registry import CLAIMS, Claim

SCHEMA = "lowrank-claims/report/1"

_VERDICT_PRECEDENCE = ("error", "refuted", "verified-with-correction", "inconclusive", "verified")


@dataclass
class TestRecord:
    """One test's outcome over its phases, with the evidence its call recorded."""

    nodeid: str
    claim_ids: list[str]
    negative_control: bool
    outcome: str = "passed"
    evidence: dict[str, Any] = field(default_factory=dict)
    duration: float = 0.0

    def update(self, when: str, outcome: str, evidence: dict[str, Any] | None, duration: float) -> None:
        self.duration += duration
        if evidence is not None:
            self.evidence = evidence
        if outcome == "failed":
            refuted = when == "call" and self.evidence.get("violation")
            self.outcome = "failed" if refuted else "error"
        elif outcome == "skipped" and self.outcome == "passed":
            self.outcome = "skipped"

    def to_json(self) -> dict[str, Any]:
        e = self.evidence
        return {
            "nodeid": self.nodeid,
            "outcome": self.outcome,
            "negative_control": self.negative_control,
            "cases": e.get("cases", 0),
            "checks": e.get("checks", 0),
            "min_slack": e.get("min_slack"),
            "max_error": e.get("max_error"),
            "tolerance": e.get("tolerance"),
            "details": e.get("details", {}),
            "violation": e.get("violation"),
            "duration": round(self.duration, 3),
        }


def _finite(value: float | None) -> float | None:
    return value if value is None or math.isfinite(value) else None


def _control_status(controls: list[TestRecord]) -> str:
    ran = [t for t in controls if t.outcome in ("passed", "failed")]
    if not ran:
        return "absent"
    return "rejected" if all(t.outcome == "passed" for t in ran) else "accepted"


def claim_entry(claim: Claim, tests: list[TestRecord]) -> dict[str, Any]:
    """The report entry of one claim: verdict, aggregated evidence, per-test evidence.

    Tests are taken in nodeid order, so that the entry does not depend on xdist's scheduling.
    """
    tests = sorted(tests, key=lambda t: t.nodeid)
    checks = [t for t in tests if not t.negative_control and t.outcome != "skipped"]
    controls = [t for t in tests if t.negative_control and t.outcome != "skipped"]
    control = _control_status(controls)
    notes = list(claim.notes)
    for t in tests:
        notes += [n for n in t.evidence.get("notes", []) if n not in notes]

    corrections = [t.evidence["correction"] for t in checks if t.evidence.get("correction")]
    verdicts = set()
    for t in checks + controls:
        if t.outcome == "error":
            verdicts.add("error")
    for t in checks:
        if t.outcome == "failed":
            verdicts.add("refuted")
        elif t.outcome == "passed":
            verdicts.add(t.evidence.get("verdict") or "verified")
    if not checks:
        verdict = "error" if "error" in verdicts else "untested"
    else:
        verdict = next(v for v in _VERDICT_PRECEDENCE if v in verdicts)
    if verdict == "verified" and control != "rejected":
        verdict = "inconclusive"
        notes.append(f"Checks passed but the negative control is {control}, so the checks are not shown able to fail.")

    holding = [t.evidence["holding"] for t in checks if t.evidence.get("holding")]
    worst = min(holding, key=lambda c: Case(**c).key(), default=None)
    counterexamples = [t.evidence["counterexample"] for t in checks if t.evidence.get("counterexample")]
    counterexample = max(counterexamples, key=lambda c: Case(**c).key(), default=None)
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
        "correction": "; ".join(corrections) or None,
        "tests": len(checks) + len(controls),
        "cases": sum(t.evidence.get("cases", 0) for t in checks),
        "checks": sum(t.evidence.get("checks", 0) for t in checks),
        "min_slack": min(
            (t.evidence["min_slack"] for t in checks if t.evidence.get("min_slack") is not None), default=None
        ),
        "max_error": max_error,
        "tolerance": tolerance,
        "margin": _finite(margin(max_error, tolerance)) if worst else None,
        "negative_control": control,
        "counterexample": counterexample,
        "evidence": [t.to_json() for t in tests],
        "notes": notes,
    }


def build_report(run: dict[str, Any], tests: dict[str, TestRecord]) -> dict[str, Any]:
    by_claim: dict[str, list[TestRecord]] = {claim_id: [] for claim_id in CLAIMS}
    for record in tests.values():
        for claim_id in record.claim_ids:
            by_claim[claim_id].append(record)
    claims = [claim_entry(CLAIMS[claim_id], records) for claim_id, records in by_claim.items()]
    summary = {verdict: sum(c["verdict"] == verdict for c in claims) for verdict in VERDICTS}
    return {"schema": SCHEMA, "run": run, "claims": claims, "summary": summary}


def summary_line(report: dict[str, Any]) -> str:
    counts = ", ".join(f"{n} {verdict}" for verdict, n in report["summary"].items() if n)
    state = "" if report["run"]["complete"] else " (incomplete run)"
    return f"claims: {counts}{state}"


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return "0" if value == 0 else f"{value:.3g}"


def _margin(entry: dict[str, Any]) -> str:
    if entry["max_error"] is None:
        return "-"
    return "exact" if entry["max_error"] == 0 else _number(entry["margin"])


def _seed(run: dict[str, Any]) -> str:
    seed = run.get("hypothesis_seed")
    return "derandomized" if seed is None else f"seed {seed}: replay with `--hypothesis-seed={seed}`"


def render_markdown(report: dict[str, Any]) -> str:
    run = report["run"]
    lines = [
        "# Claims report",
        "",
        f"{summary_line(report)}.",
        "",
        f"Run {run['started']} to {run['finished']}, complete: {str(run['complete']).lower()}, "
        f"Hypothesis profile `{run['profile']}` ({_seed(run)}), {run['workers']} xdist workers, "
        f"git {run['git_commit']}.",
        f"Versions: Python {run['python']}, torch {run['torch']}, hypothesis {run['hypothesis']}. "
        f"Command: `{run['command']}`.",
        "",
        "Worst error, tolerance and margin = tolerance / error are those of the case nearest to "
        "violating among the cases where the (corrected) statement holds (margin exact: error 0); "
        "a counterexample to a printed statement is listed in the claim's section; min slack "
        "is the smallest relative slack (rhs - lhs) / (|lhs| + |rhs|) of an inequality claim; the "
        "negative control is `rejected` when the same check refuses a case that violates a "
        "hypothesis, so the check is shown able to fail.",
        "",
        "| ID | Reference | Verdict | Cases | Worst error | Tolerance | Margin | Min slack | Negative control |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in report["claims"]:
        lines.append(
            f"| {c['id']} | {c['ref']} | {c['verdict']} | {c['cases']} | {_number(c['max_error'])} "
            f"| {_number(c['tolerance'])} | {_margin(c)} | {_number(c['min_slack'])} | {c['negative_control']} |"
        )
    untested = [c["id"] for c in report["claims"] if c["verdict"] == "untested"]
    lines += ["", f"Untested ({len(untested)}): {', '.join(untested) or 'none'}.", ""]
    for c in report["claims"]:
        if c["verdict"] == "untested":
            continue
        lines += [f"## {c['id']}: {c['title']} ({c['ref']})", "", f"Statement: {c['statement']}", ""]
        lines.append(f"Verdict: **{c['verdict']}**.")
        if c["counterexample"]:
            ce = c["counterexample"]
            lines.append(
                f"The printed statement fails: error {_number(ce['error'])} > tolerance {_number(ce['tolerance'])} "
                f"({', '.join(f'{k}={v}' for k, v in ce['details'].items())})."
            )
        if c["correction"]:
            lines.append(f"Correction: {c['correction']}")
        lines += ["", "| Test | Outcome | Cases | Worst error | Tolerance |", "|---|---|---|---|---|"]
        for t in c["evidence"]:
            role = " (negative control)" if t["negative_control"] else ""
            lines.append(
                f"| `{t['nodeid']}`{role} | {t['outcome']} | {t['cases']} | {_number(t['max_error'])} "
                f"| {_number(t['tolerance'])} |"
            )
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


def write_report(report: dict[str, Any], directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "claims.json").write_text(json.dumps(_json_safe(report), indent=2, allow_nan=False) + "\n")
    (directory / "claims.md").write_text(render_markdown(report))
