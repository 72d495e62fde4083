"""The claims report's model: test outcomes and evidence aggregated per registered claim.

Pure data in, the report dict out; the plugin feeds it test records on the controller. Schema
``lowrank-claims/report/3`` (3 renamed a claim's control state to ``control_state`` and wrote a test's role in
``role`` alone; ``claims.report._schema`` reads a 2 as a 3. 1 had no ``not-run`` verdict, counted degenerate
cases as evidence and wrote every run, partial or not, over the full report). It is written out by
``claims.report._write`` (as JSON, ``claims.report._json``; Markdown, ``claims.report._markdown``;
HTML, ``claims.report._html``); this module imports none of them.

The rules that turn tests into a verdict are here and nowhere else:

- a test's outcome is ``passed`` or ``failed`` only from its call phase; a test with no call-phase
  report (interrupted, worker crashed, skipped) is ``not-run``; a failure in setup or teardown, a
  NaN, or a failing finding, is ``error``;
- ``error`` > ``refuted`` > ``inconclusive`` > ``verified-with-correction`` > ``verified`` (a
  correction never hides a refutation, a trend that did not reproduce is never averaged into a
  verified claim, nothing hides an error);
- ``verified`` and ``verified-with-correction`` need every control of the claim selected, finished,
  with cases, and ``rejected`` on informative cases (cases where the check could have accepted); every
  selected evidence test finished with at least one informative case (one where its check could have
  failed). Otherwise the verdict is ``inconclusive`` and the notes say why ("the evidence could not have
  failed: ..." with the counts);
- a declared refutation (or correction) needs its counterexample to be an informative case;
- a power check that fell short (``claims.checks.check_power``) makes the claim ``inconclusive``, never
  ``refuted``; only a failed statement check refutes (``claims.report._power``);
- a claim with tests none of which ran is ``not-run``; a claim without tests is ``untested``.

Figures: a test's evidence carries its figures as base64 PNGs (``claims.record_figure``), decoded by
``TestRecord``; the report dict holds their relative paths, ``build_report``'s ``Report`` the bytes
(``figure_bytes``). ``citation``: the results' content digest and whether the report may be cited (only a
full, complete run's in which no test failed or ended in an error; ``claims.report._citation``). Scope
(``claims.report._scope``): ``not-reproduced``, settings, questions beyond the papers counted apart.

Evidence by kind (additive to schema 2): each test entry and each claim entry has ``by_kind``, its cases
tallied per kind of check (``claims.evidence._kinds``; a claim's over its evidence tests), from which the
report's headline figures are read (``claims.report._headline``); the claim-level ``max_error``,
``tolerance``, ``margin`` and ``min_slack`` stay, as the comparison of runs reads them. A claim entry also
has ``tested_as`` and ``extraction`` from the registry, apart from its ``statement`` as printed, and ``origin``
(``"paper"``, or ``"suite"`` for the suite's own question about a paper: its statement is no quotation). A report
written before these keys is read as before (its headline from its recorded cases).
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from claims.evidence._erratum import differing_fields, erratum_number
from claims.checks._limits import UNDECIDED
from claims.evidence._kinds import from_cases, merge
from claims.evidence._record import VERDICTS, margin, nearest_to_acceptance, nearest_to_violating
from claims.evidence._registry import CLAIMS, PAPERS, Claim
from claims.evidence._role import Role, encode_role
from claims.report._citation import DIGEST_OF, content_digest, not_citable_because
from claims.report._power import LACKED_POWER, lacked_power_reason, shortfalls
from claims.report._scope import counted, scoped_verdict, setting_fields, summaries
from claims.report._suite import ClaimSuite

SCHEMA = "lowrank-claims/report/3"

_PRECEDENCE = ("error", "refuted", "not-reproduced", "inconclusive", "verified-with-correction", "verified")

NOT_RUN = "not-run"
SKIPPED_IN_SETUP = "skipped in setup: "
CONTROL_STATES = {
    "rejected": "every control ran and the same check rejected its cases",
    "accepted": "a control's case was accepted: the check is not shown able to fail",
    "error": "a control ended in an error",
    "did not finish": "a control did not finish (interrupted, crashed or skipped)",
    "no cases": "a control finished without a case that the check rejected",
    "undecided": "a control's limits did not settle at this run's length: no case showed that the check can fail",
    LACKED_POWER: "a control fell short of a requirement on its own power (e.g. too few of its paths settled)",
    "uninformative": "a control's cases could not have been accepted (e.g. constant or saturated data, a bound below "
                     "the left side's floor): it does not show that the check can fail",
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
    alternates: Mapping[str, bytes] = field(default_factory=dict, repr=False)
    """The same figure as SVG or PDF, by format, when the run asked for them (written beside the PNG)."""


def why_text(counts: Mapping[str, int]) -> str:
    """Reasons with their counts, as "count: reason; ..." ("" for none)."""
    return "; ".join(f"{count}: {reason}" for reason, count in counts.items())


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


def alternate_path(path: str, kind: str) -> str:
    """Where a figure's SVG or PDF goes: beside its PNG, ``figures/<stem>.<kind>``."""
    return f"{path.removesuffix('.png')}.{kind}"


def figure_paths(records: Iterable[TestRecord]) -> dict[tuple[str, str], str]:
    """{(nodeid, figure name): path} for every figure of ``records``; paths that two figures would
    share (two modules with one test name, names that differ only in unsafe characters) get the hash."""
    owners = {(r.nodeid, f.name): r.claim_ids for r in records for f in r.figures}
    plain = {key: figure_path(ids, *key) for key, ids in owners.items()}
    uses = Counter(plain.values())
    return {
        key: path if uses[path] == 1 else figure_path(owners[key], *key, hashed=True) for key, path in plain.items()
    }


class Report(dict):
    """The report: a plain dict of JSON data, and ``figure_bytes`` {path: PNG bytes, and the SVG or PDF
    bytes under ``alternate_path`` when the run asked for them}, the side table of the figures it lists (an
    attribute, so that the dict, its JSON and its comparisons hold no PNG)."""

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
    role: Role
    outcome: str = NOT_RUN
    reason: str | None = "selected, but no call phase was reported (interrupted or stopped early)"
    evidence: dict[str, Any] = field(default_factory=dict)
    duration: float = 0.0
    figures: list[Figure] = field(default_factory=list)
    line: int | None = None
    """Where the test is defined in its file (0-based; None: not known): orders a claim's tests and notes."""

    def __post_init__(self) -> None:
        self.role = Role(self.role)
        self.evidence = self._take_figures(self.evidence)

    def _take_figures(self, evidence: dict[str, Any] | None) -> dict[str, Any]:
        """The evidence without its figures, which become ``self.figures`` (decoded PNG bytes)."""
        if not evidence or "figures" not in evidence:
            return evidence or {}
        evidence = dict(evidence)
        self.figures = [
            Figure(f["name"], f.get("caption", ""), base64.b64decode(f["png_base64"]) if f.get("png_base64") else b"",
                   {kind: base64.b64decode(data) for kind, data in (f.get("alternates_base64") or {}).items()})
            for f in evidence.pop("figures") or []
        ]
        return evidence

    def settle(self, outcome: str, reason: str | None, evidence: dict[str, Any] | None = None,
               duration: float = 0.0) -> None:
        """The test's outcome and why (``claims.session`` folds pytest's phases into it), its call's evidence
        when given (figures apart), and ``duration`` more seconds. A failure or an error is never undone:
        what once contradicted the claim stays in the record."""
        self.duration += duration
        if self.outcome in ("failed", "error"):
            return
        if evidence is not None:
            self.evidence = self._take_figures(evidence)
        self.outcome, self.reason = outcome, reason

    @property
    def cases(self) -> int:
        return self.evidence.get("cases", 0)

    @property
    def informative(self) -> int:
        """Cases where the check could have come out the other way (a report from before the count:
        every non-degenerate case)."""
        return self.evidence.get("informative", self.cases)

    @property
    def informative_holding(self) -> int:
        """Informative cases where the (corrected) statement held (a report from before the count: every
        case with a holding check)."""
        return self.evidence.get("informative_holding", self.cases if self.evidence.get("holding") else 0)

    @property
    def informative_violating(self) -> int:
        """Informative cases where a check rejected (a control's evidence that the check can fail; a
        report from before the count: every case of a test with a counterexample)."""
        return self.evidence.get("informative_violating", self.cases if self.evidence.get("counterexample") else 0)

    @property
    def unit(self) -> str:
        return self.evidence.get("unit") or "cases"

    def uninformative_text(self) -> str:
        return why_text(self.evidence.get("uninformative_why") or {})

    def degenerate_text(self) -> str:
        """Why the test's degenerate cases had nothing to test, with their counts ("" for a report from
        before the reasons were kept)."""
        return why_text(self.evidence.get("degenerate_why") or {})

    @property
    def by_kind(self) -> dict[str, Any]:
        """The test's cases by kind of check (``claims.evidence._kinds``); evidence recorded before the
        tallies: from its two recorded cases."""
        if "by_kind" in self.evidence:
            return self.evidence["by_kind"] or {}
        return from_cases(self.evidence.get("holding"), self.evidence.get("counterexample"))

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
            "role": encode_role(self.role),
            "outcome": self.outcome,
            "reason": self.reason,
            "cases": e.get("cases", 0),
            "informative": self.informative,
            "informative_holding": self.informative_holding,
            "uninformative_why": e.get("uninformative_why", {}),
            "unit": self.unit,
            "degenerate": e.get("degenerate", 0),
            "degenerate_why": e.get("degenerate_why", {}),
            "degenerate_examples": e.get("degenerate_examples", {}),
            "checks": e.get("checks", 0),
            "min_slack": e.get("min_slack"),
            "max_error": e.get("max_error"),
            "tolerance": e.get("tolerance"),
            "error_scale": (e.get("details") or {}).get("error_scale"),
            "details": e.get("details", {}),
            "by_kind": self.by_kind,
            "violation": e.get("violation"),
            "falsifying_example": e.get("falsifying_example"),
            "power": e.get("power", []),
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
    if any(shortfalls(t) for t in controls):
        return LACKED_POWER
    if any(t.informative_violating == 0 for t in controls):
        undecided = all(why.startswith(UNDECIDED) for t in controls if t.informative_violating == 0
                        for why in t.evidence.get("uninformative_why") or {"": 0})
        return "undecided" if undecided else "uninformative"
    if suite.unselected_controls:
        return "partly run in this selection"
    return "rejected"


def record_order(record: TestRecord) -> tuple[str, float, str]:
    """A test's place in the report: its file, its line in the file (unknown lines last), its nodeid (the
    parameters of one test function in nodeid order)."""
    path = record.nodeid.split("::", 1)[0]
    return (path, math.inf if record.line is None else record.line, record.nodeid)


_LABEL = re.compile(r"^\(([a-z0-9]{1,3})\)\s")


def ordered_notes(claim_notes: Iterable[str], tests: list[TestRecord]) -> list[str]:
    """The claim's notes: the registry's first, then each test's in ``tests``' order (their files' order),
    within a test those with a label such as "(a) " by label, after the unlabelled ones in the order
    recorded; a note that two tests record appears once, at its first place."""
    notes = list(dict.fromkeys(claim_notes))
    for t in tests:
        own = list(enumerate(t.evidence.get("notes", [])))
        own.sort(key=lambda item: ((m := _LABEL.match(item[1])) is not None, m.group(1) if m else "", item[0]))
        notes += [n for _, n in own if n not in notes]
    return notes


def _findings(checks: list[TestRecord]) -> dict[str, Any]:
    merged: dict[str, dict[str, Any]] = {}
    for t in checks:
        for name, f in t.evidence.get("findings", {}).items():
            m = merged.setdefault(name, {"cases": 0, "degenerate": 0, "checks": 0, "holding": [], "notes": [],
                                         "by_kind": [], "trends": []})
            m["cases"] += f["cases"]
            m["degenerate"] += f["degenerate"]
            m["checks"] += f["checks"]
            m["by_kind"].append(
                f.get("by_kind") if "by_kind" in f else from_cases(f.get("holding"), f.get("counterexample"))
            )
            m["trends"] += f.get("trends") or []
            m["holding"] += [f["holding"]] if f.get("holding") else []
            m["notes"] += [n for n in f.get("notes", []) if n not in m["notes"]]
    out = {}
    for name, m in merged.items():
        worst = nearest_to_violating(m.pop("holding"))
        out[name] = {
            **m,
            "by_kind": merge(m["by_kind"]),
            "max_error": worst["error"] if worst else None,
            "tolerance": worst["tolerance"] if worst else None,
            "error_scale": worst["details"].get("error_scale") if worst else None,
        }
    return out


def claim_errata(claim_id: str, tests: list[TestRecord]) -> tuple[list[dict[str, Any]], list[str]]:
    """The errata of claim ``claim_id`` that its passed tests recorded (``claims.record_erratum``), each
    once with the tests that recorded it (``nodeids``), sorted by ID; and a sentence per ID that two tests
    recorded with different contents (an error of the suite). ``tests`` in nodeid order."""
    merged: dict[str, dict[str, Any]] = {}
    conflicts: list[str] = []
    for t in tests:
        if t.outcome != "passed":
            continue
        for record in t.evidence.get("errata") or []:
            if record.get("claim") != claim_id:
                continue  # a test of several claims: the erratum belongs to another of them
            kept = merged.get(record["id"])
            if kept is None:
                merged[record["id"]] = {**record, "nodeids": [t.nodeid]}
                continue
            differ = differing_fields(kept, record)
            if differ:
                conflicts.append(f"Erratum {record['id']} was recorded with different {', '.join(differ)} by "
                                 f"{', '.join(kept['nodeids'])} and {t.nodeid}: an erratum ID names one error.")
            elif t.nodeid not in kept["nodeids"]:
                kept["nodeids"].append(t.nodeid)
    return [merged[i] for i in sorted(merged, key=erratum_number)], conflicts


def claim_entry(
    claim: Claim,
    tests: list[TestRecord],
    suite: ClaimSuite | None = None,
    paths: Mapping[tuple[str, str], str] | None = None,
) -> dict[str, Any]:
    """The report entry of one claim: verdict, aggregated evidence, per-test evidence.

    ``tests`` are the claim's selected tests; ``suite`` says what else the suite holds for it;
    ``paths`` the report's figure paths (``figure_paths``; by default those of ``tests``).
    Tests are taken in their files' order (``record_order``), so that the entry does not depend on xdist's
    scheduling; so are their notes (``ordered_notes``).
    """
    paths = figure_paths(tests) if paths is None else paths
    if suite is None:
        suite = ClaimSuite(
            has_evidence_tests=any(t.role is Role.EVIDENCE for t in tests),
            has_controls=any(t.role is Role.CONTROL for t in tests),
        )
    tests = sorted(tests, key=record_order)
    checks = [t for t in tests if t.role is Role.EVIDENCE]
    controls = [t for t in tests if t.role is Role.CONTROL]
    control = control_status(controls, suite)
    notes = ordered_notes(claim.notes, tests)
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
        # A test skipped on purpose (e.g. a design that runs under nightly only) says why; the reader should
        # not have to open the test to tell a deliberate skip from a broken run.
        # (Only controls selected: no evidence test was skipped, so no "Skipped: .".)
        if checks and all((t.reason or "").startswith(SKIPPED_IN_SETUP) for t in checks):
            skips = dict.fromkeys(t.reason.removeprefix(SKIPPED_IN_SETUP).removeprefix("Skipped: ") for t in checks)
            why.append("Skipped: " + "; ".join(skips) + ".")
    else:
        verdict = next(v for v in _PRECEDENCE if v in declared | {"verified"})
    cases = sum(t.cases for t in checks)
    if verdict in ("refuted", "verified-with-correction") and verdict in declared:
        unshown = [
            t.nodeid for t in finished
            if t.evidence.get("verdict") in ("refuted", "verified-with-correction")
            and not t.evidence.get("counterexample")
        ]
        if unshown:
            why.append(
                f"{', '.join(unshown)} declared a verdict without recording a counterexample to the printed statement."
            )
        trivial = [
            t for t in finished
            if t.evidence.get("verdict") in ("refuted", "verified-with-correction") and t.evidence.get("counterexample")
            and (t.evidence["counterexample"].get("details") or {}).get("uninformative")
        ]
        if trivial:
            why.append(f"{', '.join(t.nodeid for t in trivial)} declared a verdict on a counterexample that could not "
                       "have come out the other way: "
                       + "; ".join(t.evidence["counterexample"]["details"]["uninformative"] for t in trivial) + ".")
    if verdict == "inconclusive" and verdict in declared:
        undecided = [t.nodeid for t in finished if t.evidence.get("verdict") == "inconclusive"]
        why.append(
            f"{', '.join(undecided)}: declared inconclusive: a test fixed before the data (a trend, or a threshold "
            "within the run's length) came out neither way at this run's scale; its numbers and reasons are in the "
            "notes."
        )
        if control != "rejected":
            why.append(f"The negative control: {control} ({CONTROL_STATES[control]}).")
    if verdict in ("verified", "verified-with-correction"):
        if control != "rejected":
            why.append(f"Checks passed, but the negative control: {control} ({CONTROL_STATES[control]}).")
        unfinished = [t for t in checks if t.outcome == NOT_RUN]
        if unfinished:
            why.append(f"{len(unfinished)} of {len(checks)} selected evidence tests did not finish.")
        empty = [t for t in finished if t.cases == 0]
        if empty:
            named = [t.nodeid + (f" ({t.degenerate_text()})" if t.degenerate_text() else "") for t in empty]
            why.append(f"{', '.join(named)} passed without a non-degenerate case.")
        vacuous = [t for t in finished if t.cases and t.informative == 0]
        if vacuous:
            why.append("The evidence could not have failed: " + "; ".join(
                f"{t.nodeid}: 0 informative of {t.cases} {t.unit} ({t.uninformative_text()})" for t in vacuous) + ".")
        if not any(t.evidence.get("holding") for t in finished):
            why.append("No case where the statement holds was checked.")
        elif not vacuous and not any(t.informative_holding for t in finished):
            why.append("The evidence could not have failed: no case where the (corrected) statement holds could have "
                       "come out the other way (" + "; ".join(
                           f"{t.nodeid}: {t.uninformative_text() or 'none informative'}" for t in finished) + ").")
        exceeded = [
            t.nodeid for t in finished
            if t.evidence.get("holding") and t.evidence["holding"]["error"] > t.evidence["holding"]["tolerance"]
        ]
        if exceeded:
            why.append(
                f"{', '.join(exceeded)} recorded a case beyond its tolerance (an undecided trend) without declaring "
                "a verdict."
            )
        if verdict == "verified" and any(t.evidence.get("counterexample") for t in finished):
            why.append("A test recorded a counterexample to the printed statement but declared no verdict.")
        if suite.unselected_evidence:
            why.append(
                f"{suite.unselected_evidence} evidence test(s) of this claim were not selected in this run, "
                "and they may show what the selected ones do not (a correction, a counterexample)."
            )
    refuted_by_a_check = any(t.outcome == "failed" for t in checks)
    lacked_power = lacked_power_reason(finished, verdict)
    if lacked_power and verdict in ("verified", "verified-with-correction", "refuted", "inconclusive"):
        why.append(lacked_power)
    if why and verdict in ("verified", "verified-with-correction", "refuted") and not refuted_by_a_check:
        verdict = "inconclusive"
    verdict, rescoped = scoped_verdict(claim, verdict)
    why += [rescoped] if rescoped else []
    errata, conflicts = claim_errata(claim.id, tests)
    if conflicts:  # one erratum ID, two contents: the suite contradicts itself, whatever the checks said
        verdict = "error"
        why += conflicts
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
        "tested_as": claim.tested_as or None,
        "extraction": claim.extraction or None,
        "origin": claim.origin,
        **setting_fields(claim),
        "verdict": verdict,
        "why": why,
        "correction": "; ".join(corrections) or None,
        "tests": len(tests),
        "cases": cases,
        "informative": sum(t.informative for t in checks),
        "informative_holding": sum(t.informative_holding for t in checks),
        "units": sorted({t.unit for t in checks if t.cases}),
        "degenerate": sum(t.evidence.get("degenerate", 0) for t in checks),
        "checks": sum(t.evidence.get("checks", 0) for t in checks),
        "min_slack": min(
            (t.evidence["min_slack"] for t in checks if t.evidence.get("min_slack") is not None), default=None
        ),
        "max_error": max_error,
        "tolerance": tolerance,
        "error_scale": worst["details"].get("error_scale") if worst else None,
        "margin": _finite(margin(max_error, tolerance)) if worst else None,
        "by_kind": merge(t.by_kind for t in checks),
        "control_state": control,
        "counterexample": counterexample,
        "counterexamples": [
            {"nodeid": t.nodeid, **t.evidence["counterexample"]} for t in checks if t.evidence.get("counterexample")
        ],
        "violations": [
            {"nodeid": t.nodeid, "violation": t.evidence.get("violation"),
             "falsifying_example": t.evidence.get("falsifying_example")}
            for t in failed
        ],
        "findings": _findings(checks),
        "errata": errata,
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
    summary, beyond_papers = summaries(counted(claims, run), VERDICTS)  # a partial run: its selected claims
    figure_bytes = {paths[(r.nodeid, f.name)]: f.png for r in tests.values() for f in r.figures if f.png}
    figure_bytes |= {alternate_path(paths[(r.nodeid, f.name)], kind): data
                     for r in tests.values() for f in r.figures for kind, data in f.alternates.items()}
    why_not = not_citable_because({"run": run, "claims": claims})  # partial, incomplete, a test failed
    return Report(
        {
            "schema": SCHEMA,
            "papers": PAPERS,
            "run": run,
            "citation": {
                "digest": content_digest({"claims": claims}), "digest_of": DIGEST_OF,
                "citable": why_not is None, "not_citable_because": why_not,
            },
            "claims": claims,
            "summary": summary, "summary_beyond_papers": beyond_papers,  # the papers'; the suite's questions
        },
        figure_bytes=figure_bytes,
    )


def report_digest(report: dict[str, Any]) -> str:
    """The report's content digest, as stored (a report from before digests has it once it is loaded:
    ``claims.report._schema.upgrade`` computes it)."""
    return report["citation"]["digest"]
