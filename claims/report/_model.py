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

Figures: a test's evidence carries its figures as base64 PNGs (``claims.record_figure``); the
``TestRecord`` decodes them into ``Figure`` objects and drops them from the evidence, so the report
dict holds only their relative paths (``figures/<claim IDs>__<test>__<name>.png``). ``build_report``
returns a ``Report``: a plain dict (what ``claims.json`` holds) whose ``figure_bytes`` attribute is
the side table {path: PNG bytes} that ``write_report`` writes beside the report. The report also
carries ``citation``: the content digest of its results (``claims.report._citation``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from claims.report._citation import DIGEST_OF, citation_markdown, content_digest
from claims.evidence._record import VERDICTS, margin, nearest_to_acceptance, nearest_to_violating
from claims.evidence._registry import CLAIMS, PAPERS, Claim
from claims.session._selection import ClaimSuite

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


FIGURES = "figures"
"""The figures' directory, beside claims.json; report entries give paths relative to the report."""
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")
_STEM_MAX = 120


@dataclass(frozen=True)
class Figure:
    """A figure a test recorded: its name (unique within the test), caption and PNG bytes. The bytes
    stay here and in the report's side table, never in the report's JSON."""

    name: str
    caption: str
    png: bytes = field(repr=False)


def _safe(text: str) -> str:
    return _UNSAFE.sub("-", text).strip("-._") or "x"


def _short_hash(nodeid: str, name: str) -> str:
    return hashlib.sha256(f"{nodeid}\0{name}".encode()).hexdigest()[:10]


def figure_path(claim_ids: Iterable[str], nodeid: str, name: str, hashed: bool = False) -> str:
    """``figures/<IDs>__<test function[params]>__<name>.png``, filesystem-safe: the same test and name
    give the same path in every run. A stem longer than ``_STEM_MAX`` is cut and ends with a hash of
    the nodeid and name (as does every path when ``hashed``: ``figure_paths`` uses it on a clash)."""
    test = nodeid.rsplit("::", 1)[-1]
    stem = "__".join(_safe(part) for part in ("+".join(claim_ids), test, name))
    if hashed or len(stem) > _STEM_MAX:
        stem = f"{stem[: _STEM_MAX - 11].rstrip('-._')}-{_short_hash(nodeid, name)}"
    return f"{FIGURES}/{stem}.png"


def figure_paths(records: Iterable[TestRecord]) -> dict[tuple[str, str], str]:
    """{(nodeid, figure name): path} for every figure of ``records``; paths that two figures would
    share (two modules with one test name, names that differ only in unsafe characters) get the hash."""
    owners = {(r.nodeid, f.name): r.claim_ids for r in records for f in r.figures}
    plain = {key: figure_path(ids, *key) for key, ids in owners.items()}
    uses = Counter(plain.values())
    return {key: path if uses[path] == 1 else figure_path(owners[key], *key, hashed=True) for key, path in plain.items()}


class Report(dict):
    """The report: a plain dict of JSON data, and ``figure_bytes`` {path: PNG bytes}, the side table of
    the figures it lists (an attribute, so that the dict, its JSON and its comparisons hold no PNG)."""

    figure_bytes: dict[str, bytes]

    def __init__(self, *args: Any, figure_bytes: Mapping[str, bytes] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.figure_bytes = dict(figure_bytes or {})


@dataclass
class TestRecord:
    """One test's outcome over its phases, with the evidence its call recorded (figures apart)."""

    __test__ = False  # not a pytest test class, though its name says Test

    nodeid: str
    claim_ids: list[str]
    negative_control: bool
    outcome: str = NOT_RUN
    reason: str | None = "selected, but no call phase was reported (interrupted or stopped early)"
    evidence: dict[str, Any] = field(default_factory=dict)
    duration: float = 0.0
    figures: list[Figure] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.evidence = self._take_figures(self.evidence)

    def _take_figures(self, evidence: dict[str, Any] | None) -> dict[str, Any]:
        """The evidence without its figures, which become ``self.figures`` (decoded PNG bytes)."""
        if not evidence or "figures" not in evidence:
            return evidence or {}
        evidence = dict(evidence)
        self.figures = [
            Figure(f["name"], f.get("caption", ""), base64.b64decode(f["png_base64"]) if f.get("png_base64") else b"")
            for f in evidence.pop("figures") or []
        ]
        return evidence

    def update(self, when: str, outcome: str, evidence: dict[str, Any] | None, duration: float, message: str = "") -> None:
        """Fold in one phase's report. A failure or an error is never undone by a later report (a rerun,
        another worker running the same test): what once contradicted the claim stays in the record."""
        self.duration += duration
        if self.outcome in ("failed", "error"):
            return
        if when == "call":
            self.evidence = self._take_figures(evidence)
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

    def figure_entries(self, paths: Mapping[tuple[str, str], str] | None = None) -> list[dict[str, str]]:
        """{"name", "caption", "path"} of each figure (``paths`` from ``figure_paths``, else its own)."""
        return [
            {"name": f.name, "caption": f.caption,
             "path": (paths or {}).get((self.nodeid, f.name)) or figure_path(self.claim_ids, self.nodeid, f.name)}
            for f in self.figures
        ]

    def to_json(self, paths: Mapping[tuple[str, str], str] | None = None) -> dict[str, Any]:
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
            "trends": e.get("trends", []),
            "figures": self.figure_entries(paths),
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


def claim_entry(
    claim: Claim,
    tests: list[TestRecord],
    suite: ClaimSuite | None = None,
    paths: Mapping[tuple[str, str], str] | None = None,
) -> dict[str, Any]:
    """The report entry of one claim: verdict, aggregated evidence, per-test evidence.

    ``tests`` are the claim's selected tests; ``suite`` says what else the suite holds for it;
    ``paths`` the report's figure paths (``figure_paths``; by default those of ``tests``).
    Tests are taken in nodeid order, so that the entry does not depend on xdist's scheduling.
    """
    paths = figure_paths(tests) if paths is None else paths
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
        "trends": [{"nodeid": t.nodeid, **trend} for t in checks for trend in t.evidence.get("trends", [])],
        "figures": [{**f, "nodeid": t.nodeid} for t in tests for f in t.figure_entries(paths)],
        "evidence": [t.to_json(paths) for t in tests],
        "notes": notes,
    }


def build_report(
    run: dict[str, Any], tests: dict[str, TestRecord], suites: dict[str, ClaimSuite] | None = None
) -> Report:
    """The report of a run (JSON data; the figures' PNG bytes in its ``figure_bytes`` side table)."""
    by_claim: dict[str, list[TestRecord]] = {claim_id: [] for claim_id in CLAIMS}
    for record in tests.values():
        for claim_id in record.claim_ids:
            by_claim[claim_id].append(record)
    suites = suites or {}
    paths = figure_paths(tests.values())
    claims = [claim_entry(CLAIMS[i], records, suites.get(i), paths) for i, records in by_claim.items()]
    summary = {verdict: sum(c["verdict"] == verdict for c in claims) for verdict in VERDICTS}
    figure_bytes = {paths[(r.nodeid, f.name)]: f.png for r in tests.values() for f in r.figures if f.png}
    return Report(
        {
            "schema": SCHEMA,
            "papers": PAPERS,
            "run": run,
            "citation": {"digest": content_digest({"claims": claims}), "digest_of": DIGEST_OF},
            "claims": claims,
            "summary": summary,
        },
        figure_bytes=figure_bytes,
    )


def report_digest(report: dict[str, Any]) -> str:
    """The report's content digest: the stored one, or (a report from before digests) computed."""
    return (report.get("citation") or {}).get("digest") or content_digest(report)


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


# ------------------------------------------------------------------------------------ rendering
# The report's sentences are built once, as lists of parts (plain text, ``Code``, ``Strong``,
# ``Emphasis``), and written out by a ``Markup``: Markdown here, HTML in ``claims.report._html``. So
# claims.md and claims.html say the same thing, and only their structure (tables, lists) differs.


class Code(str):
    """A part written as code (a nodeid, a command)."""


class Strong(str):
    """A part written in bold (a verdict)."""


class Emphasis(str):
    """A part written in italics (a finding's name)."""


Parts = list[str]


@dataclass(frozen=True)
class Markup:
    """How parts are written: ``text`` escapes plain text; ``cell`` flattens text for a table cell."""

    text: Callable[[str], str]
    code: Callable[[str], str]
    strong: Callable[[str], str]
    emphasis: Callable[[str], str]
    cell: Callable[[str], str]

    def join(self, parts: Parts) -> str:
        out = []
        for part in parts:
            if isinstance(part, Code):
                out.append(self.code(part))
            elif isinstance(part, Strong):
                out.append(self.strong(part))
            elif isinstance(part, Emphasis):
                out.append(self.emphasis(part))
            else:
                out.append(self.text(part))
        return "".join(out)


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


MARKDOWN = Markup(
    text=str, code=lambda s: f"`{s}`", strong=lambda s: f"**{s}**", emphasis=lambda s: f"*{s}*", cell=_cell
)


def _replay(run: dict[str, Any]) -> Parts:
    if run.get("hypothesis_seed") is None:
        return ["derandomized: the same code and versions draw the same examples; replay with ", Code(run["replay"])]
    return [
        f"seed {run['hypothesis_seed']}: replay with ", Code(run["replay"]),
        " (Hypothesis first replays any failing example saved in this machine's .hypothesis/ database)",
    ]


def partial_parts(report: dict[str, Any]) -> Parts | None:
    run = report["run"]
    if run["selection"] != "partial":
        return None
    return [
        Strong("Partial run"),
        f": {'; '.join(run['selection_reasons'])}. Claims selected: {', '.join(run['selected_claims']) or 'none'}. "
        "Claims whose tests were not selected are ",
        Code(NOT_RUN),
        "; this report does not replace the suite's full report.",
    ]


def run_lines(report: dict[str, Any]) -> list[Parts]:
    """The run: when, how complete, profile and replay, workers; code and versions; command."""
    run = report["run"]
    v = run["versions"]
    git = run["git"]
    return [
        [
            f"Run {run['started']} to {run['finished']}; complete: {str(run['complete']).lower()} "
            f"(every selected test finished); selection: {run['selection']}; Hypothesis profile ",
            Code(run["profile"]), " (", *_replay(run), f"); {run['workers']} xdist workers.",
        ],
        [
            f"Code: lowrank-claims {v['lowrank-claims']}, git {git['commit']}"
            f"{' with uncommitted changes (dirty)' if git['dirty'] else ''}."
        ],
        ["Versions: " + ", ".join(f"{name} {value}" for name, value in v.items() if name != "lowrank-claims") + "."],
        ["Command: ", Code(run["command"]), "."],
    ]


def papers_parts(report: dict[str, Any]) -> Parts:
    parts: Parts = ["Papers: "]
    for i, (key, text) in enumerate(report["papers"].items()):
        parts += (["; "] if i else []) + [Strong(key), f" {text}"]
    return parts + ["."]


LEGEND: Parts = [
    "Cases are Hypothesis examples (or checks outside ", Code("@given"), ") with a non-degenerate check; "
    "degenerate cases (both sides identically zero) are counted apart and never shown as the worst case. "
    "Worst error, tolerance and margin = tolerance / error are those of the case nearest to violating "
    "among the cases where the (corrected) statement holds; ", Code("rel"), " marks an error relative to the "
    "scale the check states, ", Code("abs"), " an absolute one (margin exact: error 0). Min slack is the smallest "
    "relative slack (rhs - lhs) / scale of an inequality. The negative control is ", Code("rejected"), " when "
    "every control of the claim ran and the same check refused its cases, so the check is shown able "
    "to fail.",
]

SUMMARY_HEADER = ("ID", "Reference", "Verdict", "Cases", "Degenerate", "Worst error", "Tolerance", "Margin", "Min slack",
                  "Negative control")


def summary_cells(c: dict[str, Any]) -> list[str]:
    """One claim's row of the summary table, in ``SUMMARY_HEADER``'s order."""
    return [
        c["id"], c["ref"], c["verdict"], str(c["cases"]), str(c["degenerate"]), _error(c["max_error"], c["error_scale"]),
        _number(c["tolerance"]), _margin(c), _number(c["min_slack"]), c["negative_control"],
    ]


def unlisted_lines(report: dict[str, Any]) -> list[str]:
    """"Not-run (n): IDs." and "Untested (n): IDs.", for the verdicts that have claims."""
    lines = []
    for verdict in (NOT_RUN, "untested"):
        listed = [c["id"] for c in report["claims"] if c["verdict"] == verdict]
        if listed:
            lines.append(f"{verdict.capitalize()} ({len(listed)}): {', '.join(listed)}.")
    return lines


def shows_section(c: dict[str, Any]) -> bool:
    """A claim gets a section unless it is untested or not run with no test record at all."""
    return not (c["verdict"] in ("untested", NOT_RUN) and not c["evidence"])


def claim_heading(c: dict[str, Any]) -> str:
    return f"{c['id']}: {c['title']} ({c['ref']}, {c['paper']})"


def verdict_parts(c: dict[str, Any]) -> Parts:
    return ["Verdict: ", Strong(c["verdict"]), "."]


def violation_parts(failure: dict[str, Any]) -> Parts:
    return ["Refuting test ", Code(failure["nodeid"]), f": {failure['violation']}"]


def counterexample_parts(ce: dict[str, Any]) -> Parts:
    details = ", ".join(f"{k}={v}" for k, v in ce["details"].items() if k != "error_scale")
    return [
        "The printed statement fails in ", Code(ce["nodeid"]),
        f" (the case nearest to acceptance): error {_error(ce['error'], ce['details'].get('error_scale'))} > "
        f"tolerance {_number(ce['tolerance'])} ({details}).",
    ]


TEST_HEADER = ("Test", "Role", "Outcome", "Cases", "Degenerate", "Worst error", "Tolerance")


def test_cells(t: dict[str, Any], markup: Markup) -> list[str]:
    """One row of a claim's per-test table (written by ``markup``), in ``TEST_HEADER``'s order."""
    outcome = t["outcome"] if not t["reason"] else f"{t['outcome']} ({markup.cell(t['reason'])[:200]})"
    return [
        markup.code(t["nodeid"]), markup.text(t["role"]), markup.text(outcome), str(t["cases"]), str(t["degenerate"]),
        _error(t["max_error"], t["error_scale"]), _number(t["tolerance"]),
    ]


def finding_parts(name: str, f: dict[str, Any]) -> Parts:
    return [
        "Finding ", Emphasis(name),
        f" (beyond the statement, not counted as its evidence): {f['cases']} cases, {f['degenerate']} degenerate, "
        f"worst error {_error(f['max_error'], f['error_scale'])} vs tolerance {_number(f['tolerance'])}.",
    ]


def _table(header: Iterable[str], rows: Iterable[list[str]]) -> list[str]:
    header = list(header)
    return [f"| {' | '.join(header)} |", "|" + "---|" * len(header)] + [f"| {' | '.join(row)} |" for row in rows]


def render_markdown(report: dict[str, Any]) -> str:
    md = MARKDOWN.join
    lines = ["# Claims report", "", f"{summary_line(report)}.", "", citation_markdown(report, report_digest(report))]
    partial = partial_parts(report)
    if partial:
        lines += [md(partial), ""]
    lines += [md(parts) for parts in run_lines(report)]
    lines += ["", md(papers_parts(report)), "", md(LEGEND), ""]
    lines += _table(SUMMARY_HEADER, (summary_cells(c) for c in report["claims"]))
    lines += [line for text in unlisted_lines(report) for line in ("", text)]
    lines.append("")
    for c in report["claims"]:
        if not shows_section(c):
            continue
        lines += [f"## {claim_heading(c)}", "", f"Statement: {c['statement']}", ""]
        lines.append(md(verdict_parts(c)))
        lines += [f"- {reason}" for reason in c["why"]]
        for failure in c["violations"]:
            lines += ["", md(violation_parts(failure))]
            if failure["falsifying_example"]:
                lines += ["", "```", failure["falsifying_example"], "```"]
        for ce in c["counterexamples"]:
            lines += ["", md(counterexample_parts(ce))]
        if c["correction"]:
            lines += ["", f"Correction: {c['correction']}"]
        lines += [""] + _table(TEST_HEADER, (test_cells(t, MARKDOWN) for t in c["evidence"]))
        for name, f in c["findings"].items():
            lines += ["", md(finding_parts(name, f))]
            lines += [f"- {note}" for note in f["notes"]]
        if c["notes"]:
            lines += [""] + [f"- {note}" for note in c["notes"]]
        for figure in c.get("figures", []):
            lines += ["", f"![{_alt(figure['caption'])}]({figure['path']})"]
        lines.append("")
    return "\n".join(lines)


def _alt(caption: str) -> str:
    """A caption as Markdown image text: one line, no brackets that would end it."""
    return " ".join(caption.split()).replace("[", "(").replace("]", ")")


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


def listed_figures(report: dict[str, Any]) -> list[str]:
    """The relative paths of every figure the report lists, once each, in report order."""
    return list(dict.fromkeys(f["path"] for c in report["claims"] for f in c.get("figures", [])))


def write_report(report: dict[str, Any], directory: Path, figure_bytes: Mapping[str, bytes] | None = None) -> None:
    """claims.json, claims.md, claims.html and figures/*.png in ``directory``.

    PNG bytes come from ``figure_bytes``, by default the report's side table (``Report.figure_bytes``);
    a listed figure without bytes (a report read back from JSON) keeps the file already there. PNGs
    in figures/ that the report no longer lists are deleted (only *.png files there)."""
    from claims.report._html import render_html  # claims.report._html imports this module's renderers

    directory.mkdir(parents=True, exist_ok=True)
    figure_bytes = getattr(report, "figure_bytes", {}) if figure_bytes is None else figure_bytes
    listed = set(listed_figures(report))
    figures = directory / FIGURES
    if listed:
        figures.mkdir(exist_ok=True)
    for path in sorted(listed):
        if path in figure_bytes:
            (directory / path).write_bytes(figure_bytes[path])
    if figures.is_dir():
        for png in figures.glob("*.png"):
            if f"{FIGURES}/{png.name}" not in listed:
                png.unlink()
    (directory / "claims.json").write_text(dumps(report, indent=2) + "\n")
    (directory / "claims.md").write_text(render_markdown(report))
    (directory / "claims.html").write_text(render_html(report, directory), encoding="utf-8")
