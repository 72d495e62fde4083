"""The one way evidence is recorded: each check adds a case to the running test's evidence.

The plugin opens a ``TestEvidence`` around every claim test's call and ships
``TestEvidence.to_builtin()`` on the test report, so evidence made on an xdist worker reaches
the controller through pytest's own report serialization. Nothing here imports torch.

Checks record into the innermost open evidence: the test's own, or a named ``finding`` opened
inside it (a result beyond the statement, such as the same bound under a wider hypothesis), whose
cases are counted apart from the claim's. A case whose two sides vanish identically is
``degenerate``: counted apart and never the claim's headline.

A case is *informative* when its check could have come out the other way on it. Each check decides
that from what its caller states (an inequality's range of the left side, a trend's ceiling of the
response, ...) and records an uninformative case with its reason: a bound above the largest value the
left side can take, a left side at its own floor, responses tied or saturated, a design without the
power to see the effect. Informative and uninformative cases are counted apart; the report's verdict
rules need informative ones (``claims.report._model``), and the worst case shown is an informative one
whenever there is one.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterator

from hypothesis.control import current_build_context
from hypothesis.errors import InvalidArgument

from claims.evidence._erratum import CONTENT, ErratumError, differing_fields, erratum_record
from claims.evidence._kinds import KINDS, KindTally, margin
from claims.evidence._role import Role

VERDICTS = ("verified", "verified-with-correction", "refuted", "not-reproduced", "inconclusive", "not-run", "untested",
            "error")
"""Claim verdicts. ``not-reproduced``: an empirical claim's effect absent or reversed at a scale other than the
paper's (``claims.report._scope``); ``not-run``: the claim has tests, none of which ran in this selection;
``untested``: the suite has no test for it."""

DECLARABLE = ("refuted", "inconclusive", "verified-with-correction")
"""Verdicts a passing test may declare, strongest first: the printed statement fails and the test
shows it (``refuted``, ``verified-with-correction``), or a trend test fixed before the data came
out neither way at the suite's scale (``inconclusive``)."""

ERROR_SCALES = ("absolute", "relative")


class ClaimViolation(AssertionError):
    """A check found a case where the statement under test is false."""


class NonFiniteEvidence(ArithmeticError):
    """A check was given NaN or an infinity: the computation broke down, which shows nothing
    about the statement, so the test is an error (never a pass, never a counterexample)."""


class OutsideClaimTest(RuntimeError):
    """A check or note was called where no claim test is running."""


UNITS = ("examples", "checks", "trajectories", "runs", "optima", "paths", "instances", "matrices", "ratios")
"""What a test's cases are (``count_cases_as``): Hypothesis examples, single checks outside ``@given``,
integrated trajectories, training runs, computed optima, followed flow paths, constructed instances,
matrices, ratios (of a layer at an optimum). The report names the unit beside every count."""

SERIES_ROWS_KEPT = 64
"""Rows of one series (one name, in one test or finding) that the report keeps: the nightly profile
integrates 4 times more trajectories, and the report's JSON must stay small. Beyond it the report
keeps an evenly spaced sample of the rows in recording order (the first and the last included) and
counts the rest under ``series_dropped`` ({name: rows left out}). The test itself keeps every row
(``recorded_series``: figures are drawn from the full data). A series whose every row matters (e.g.
per-step rows a later report reads whole) lifts or changes its limit with ``keep_series_rows``."""


def plain(value: Any) -> Any:
    """``value`` as plain builtins that survive xdist and JSON (tensors, Fractions included)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return float(value)  # numpy.float64 is a float that execnet cannot serialize
    if isinstance(value, Fraction):
        return str(value)
    if hasattr(value, "tolist"):
        return plain(value.tolist())
    return str(value)


@dataclass
class Case:
    """One judged check: its error, the tolerance it was judged by, and its numbers."""

    error: float
    tolerance: float
    details: dict[str, Any]

    def key(self) -> tuple[float, float, float]:
        """Smaller is nearer to violating: margin, then larger error, then smaller slack."""
        return (margin(self.error, self.tolerance), -self.error, self.details.get("relative_slack", math.inf))


def nearest_to_violating(cases: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Of cases (as builtins) where a statement holds, the one nearest to violating it."""
    return min(cases, key=lambda c: Case(**c).key(), default=None)


def nearest_to_acceptance(cases: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Of cases shown to violate a statement, the one nearest to being accepted by the check."""
    return max(cases, key=lambda c: Case(**c).key(), default=None)


@dataclass
class TestEvidence:
    """What one test (or one finding inside it) showed.

    ``cases``: Hypothesis examples (or checks outside ``@given``) with at least one
    non-degenerate check; ``degenerate``: those whose every check was degenerate. Of the cases
    where a statement holds, ``holding`` is the one nearest to violating; of the cases shown to
    violate a statement (negative controls, counterexamples to a printed statement),
    ``violating`` is the one nearest to being accepted. Findings are nested evidence by name.
    """

    cases: int = 0
    degenerate: int = 0
    checks: int = 0
    informative: int = 0
    informative_holding: int = 0
    informative_violating: int = 0
    uninformative: int = 0
    uninformative_why: dict[str, int] = field(default_factory=dict)
    degenerate_why: dict[str, int] = field(default_factory=dict)
    degenerate_examples: dict[str, dict[str, Any]] = field(default_factory=dict)
    unit: str | None = None
    holding: Case | None = None
    violating: Case | None = None
    min_slack: float | None = None
    notes: list[str] = field(default_factory=list)
    verdict: str | None = None
    correction: str | None = None
    violation: str | None = None
    failed_finding: str | None = None
    falsifying_example: str | None = None
    findings: dict[str, TestEvidence] = field(default_factory=dict)
    power: list[dict[str, Any]] = field(default_factory=list)  # the test's own power checks (checks._power)
    series: list[dict[str, Any]] = field(default_factory=list)
    trends: list[dict[str, Any]] = field(default_factory=list)
    figures: list[dict[str, Any]] = field(default_factory=list)
    errata: list[dict[str, Any]] = field(default_factory=list)
    by_kind: KindTally = field(default_factory=KindTally, repr=False)
    series_limits: dict[str, int | None] = field(default_factory=dict, repr=False)
    claim_ids: list[str] | None = field(default=None, repr=False)
    role: Role = field(default=Role.EVIDENCE, repr=False)
    is_finding: bool = field(default=False, repr=False)
    figure_formats: tuple[str, ...] = field(default=("png",), repr=False)
    _example: object = field(default=None, repr=False)
    _example_degenerate: bool | None = field(default=None, repr=False)
    _example_informative: bool = field(default=False, repr=False)
    _example_holds_informatively: bool = field(default=False, repr=False)
    _example_violates_informatively: bool = field(default=False, repr=False)
    _example_why: list[str] = field(default_factory=list, repr=False)
    _example_degenerate_why: list[str] = field(default_factory=list, repr=False)
    _example_degenerate_details: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    _example_units: int = field(default=1, repr=False)
    _informative_sides: set[str] = field(default_factory=set, repr=False)
    _erratum_sizes: dict[str, float | None] = field(default_factory=dict, repr=False)

    def _enter_case(
        self, degenerate: bool, uninformative: str | None, units: int, violates: bool,
        degenerate_why: str | None = None, details: dict[str, Any] | None = None,
    ) -> None:
        """Count checks into cases: every check inside one Hypothesis example is one case, which is
        degenerate when all its checks are (counted under their reasons, ``degenerate_why``),
        informative when any non-degenerate one is, and an informative *holding* case when one of
        those is a check where the statement held."""
        self.checks += 1
        example = _current_example()
        informative = not degenerate and uninformative is None
        if example is None or example is not self._example:
            self._close_case()
            self._example = example
            self._example_degenerate = degenerate
            self._example_informative, self._example_why, self._example_units = informative, [], units
            self._example_degenerate_why, self._example_degenerate_details = [], {}
            self._example_holds_informatively = informative and not violates
            self._example_violates_informatively = informative and violates
        else:
            self._example_degenerate = self._example_degenerate and degenerate
            self._example_informative = self._example_informative or informative
            self._example_holds_informatively = self._example_holds_informatively or (informative and not violates)
            self._example_violates_informatively = self._example_violates_informatively or (informative and violates)
            self._example_units = max(self._example_units, units)
        if uninformative is not None and not degenerate:
            self._example_why.append(uninformative)
        if degenerate:
            reason = degenerate_why or "no reason given"
            self._example_degenerate_why.append(reason)
            self._example_degenerate_details.setdefault(reason, plain(details or {}))
        if example is None:
            self._close_case()

    def _close_case(self) -> None:
        if self._example_degenerate is None:
            return
        if self._example_degenerate:
            self.degenerate += self._example_units
            for reason in dict.fromkeys(self._example_degenerate_why):
                self.degenerate_why[reason] = self.degenerate_why.get(reason, 0) + self._example_units
                self.degenerate_examples.setdefault(reason, self._example_degenerate_details[reason])
        else:
            self.cases += self._example_units
            if self._example_informative:
                self.informative += self._example_units
                self.informative_holding += self._example_units if self._example_holds_informatively else 0
                self.informative_violating += self._example_units if self._example_violates_informatively else 0
            else:
                self.uninformative += self._example_units
                for reason in dict.fromkeys(self._example_why):
                    self.uninformative_why[reason] = self.uninformative_why.get(reason, 0) + self._example_units
        self._example_degenerate = None
        self._example = None
        self._example_why, self._example_degenerate_why, self._example_degenerate_details = [], [], {}

    def add_case(
        self, error: float, tolerance: float, details: dict[str, Any], violates: bool = False,
        degenerate: bool | str = False, uninformative: str | None = None, units: int = 1,
        check_kind: str | None = None,
    ) -> None:
        """One check's case. ``degenerate``: why the case has nothing to test (a reason, or True: no
        reason given), counted apart under that reason; ``uninformative``: why the check could not
        have come out the other way on it (None: it could); ``units``: how many of the test's units it
        counts (a trend's runs); ``check_kind``: the kind of check (``claims.evidence._kinds.KINDS``)
        it is tallied under."""
        if units < 1:
            raise ValueError(f"a case counts at least one unit, not {units}")
        if check_kind is not None and check_kind not in KINDS:
            raise ValueError(f"a check's kind is one of {KINDS}, not {check_kind!r}")
        if not (math.isfinite(error) and math.isfinite(tolerance)):
            raise ValueError(f"a case's error and tolerance are finite numbers, not {error!r} and {tolerance!r}")
        self._enter_case(bool(degenerate), uninformative, units, violates,
                         degenerate if isinstance(degenerate, str) else None, details)
        if degenerate:
            return
        informative = uninformative is None
        self.by_kind.add(check_kind, error, tolerance, details, violates, informative)
        if not informative:
            details = {**details, "uninformative": uninformative}
        case = Case(error, tolerance, details)
        # the worst case shown (holding or violating) is an informative one whenever there is one
        side = "violating" if violates else "holding"
        if informative and side not in self._informative_sides:
            self._informative_sides.add(side)
            setattr(self, side, None)
            if side == "holding":
                self.min_slack = None
        elif not informative and side in self._informative_sides:
            return
        if violates:
            if self.violating is None or case.key() > self.violating.key():
                self.violating = case
            return
        slack = details.get("relative_slack")
        if slack is not None and (self.min_slack is None or slack < self.min_slack):
            self.min_slack = slack
        if self.holding is None or case.key() < self.holding.key():
            self.holding = case

    def finding(self, name: str) -> TestEvidence:
        return self.findings.setdefault(name, TestEvidence(is_finding=True, claim_ids=self.claim_ids))

    def kept_series(self) -> tuple[list[dict[str, Any]], dict[str, int]]:
        """The series rows the report keeps (at most ``SERIES_ROWS_KEPT`` per name, or the name's
        ``keep_series_rows`` limit: an evenly spaced sample in recording order) and, per name, how
        many rows were left out."""
        indices: dict[str, list[int]] = {}
        for index, row in enumerate(self.series):
            indices.setdefault(row["series"], []).append(index)
        dropped: dict[str, int] = {}
        left_out: set[int] = set()
        for name, rows in indices.items():
            limit = self.series_limits.get(name, SERIES_ROWS_KEPT)
            if limit is None or len(rows) <= limit:
                continue
            kept = ({rows[round(i * (len(rows) - 1) / (limit - 1))] for i in range(limit)}
                    if limit > 1 else set(rows[:limit]))
            left_out.update(i for i in rows if i not in kept)
            dropped[name] = len(rows) - len(kept)
        return [row for index, row in enumerate(self.series) if index not in left_out], dropped

    def to_builtin(self) -> dict[str, Any]:
        self._close_case()
        shown = self.holding or self.violating
        series, series_dropped = self.kept_series()
        return plain(
            {
                "cases": self.cases,
                "degenerate": self.degenerate,
                "degenerate_why": self.degenerate_why,
                "degenerate_examples": self.degenerate_examples,
                "checks": self.checks,
                "informative": self.informative,
                "informative_holding": self.informative_holding,
                "informative_violating": self.informative_violating,
                "uninformative": self.uninformative,
                "uninformative_why": self.uninformative_why,
                "unit": self.unit,
                "min_slack": self.min_slack,
                "max_error": shown.error if shown else None,
                "tolerance": shown.tolerance if shown else None,
                "details": shown.details if shown else {},
                "by_kind": self.by_kind.to_builtin(),
                "holding": vars(self.holding) if self.holding else None,
                "counterexample": vars(self.violating) if self.violating else None,
                "notes": self.notes,
                "verdict": self.verdict,
                "correction": self.correction,
                "violation": self.violation,
                "failed_finding": self.failed_finding,
                "falsifying_example": self.falsifying_example,
                "power": self.power,
                "findings": {name: finding.to_builtin() for name, finding in self.findings.items()},
                "series": series,
                "series_dropped": series_dropped,
                "trends": self.trends,
                "figures": self.figures,
                "errata": self.errata,
            }
        )

    def add_erratum(self, record: dict[str, Any], size: float | None = None) -> None:
        """Keep an erratum record (``claims.evidence._erratum``). The same ID again (a Hypothesis test
        records it in every example that shows it) must have the same text; its counterexample replaces
        the kept one when ``size`` is smaller (without sizes, the first is kept)."""
        kept = next((r for r in self.errata if r["id"] == record["id"]), None)
        if kept is None:
            self.errata.append(record)
            self._erratum_sizes[record["id"]] = size
            return
        differ = differing_fields(kept, record, tuple(f for f in CONTENT if f != "counterexample"))
        if differ:
            raise ErratumError(
                f"erratum {record['id']} recorded twice in one test with different {', '.join(differ)}: "
                "an erratum ID names one error"
            )
        old = self._erratum_sizes.get(record["id"])
        if size is not None and (old is None or size < old):
            kept["counterexample"] = record["counterexample"]
            self._erratum_sizes[record["id"]] = size


def _test_evidence() -> TestEvidence:
    """The running test's own evidence: the innermost that is not a finding (a nested pytester session
    pushes its own)."""
    return next(e for e in reversed(_stack) if not e.is_finding)


def in_negative_control() -> bool:
    """Whether the running claim test is a negative control (``negative_control=True``): the innermost
    test's own evidence says (a finding inside it is not a test; a nested pytester session pushes its own)."""
    return bool(_stack) and _test_evidence().role is Role.CONTROL


def currently_in_example() -> bool:
    """Whether a Hypothesis example is running (where ``hypothesis.target`` may be called)."""
    try:
        current_build_context()
    except InvalidArgument:
        return False
    return True


def _current_example() -> object | None:
    """The Hypothesis example being run, if any, or the innermost ``one_case`` block: every check inside
    one example (or block) is one case."""
    if _case_blocks:
        return _case_blocks[-1]
    try:
        return current_build_context()
    except InvalidArgument:
        return None


_case_blocks: list[object] = []


@contextmanager
def one_case() -> Iterator[None]:
    """Count the checks inside as one case (as the checks of one Hypothesis example are): e.g. every
    check made at one computed optimum, so that the test's cases count optima, not checks. Meant for
    checks outside ``@given``: inside a Hypothesis example the block is a case of its own."""
    current("one_case")
    block = object()
    _case_blocks.append(block)
    try:
        yield
    finally:
        _case_blocks.pop()
        for evidence in _stack:
            if evidence._example is block:
                evidence._close_case()


_stack: list[TestEvidence] = []
_target_labels: tuple[object, dict[str, int]] = (None, {})


@contextmanager
def collecting(
    claim_ids: list[str] | None = None, role: Role = Role.EVIDENCE, figure_formats: tuple[str, ...] = ("png",),
) -> Iterator[TestEvidence]:
    """Collect the evidence of one test call (nested pytester sessions push their own);
    ``claim_ids``: the claims the test evidences (figures are labelled with them); ``role``: the
    test's (``Role.CONTROL``, a negative control: a rejection counts only where the check could have accepted);
    ``figure_formats``: what its figures are rendered as (PNG always; SVG and PDF beside it on request)."""
    evidence = TestEvidence(claim_ids=list(claim_ids) if claim_ids is not None else None, role=Role(role),
                            figure_formats=tuple(figure_formats))
    _stack.append(evidence)
    try:
        yield evidence
    finally:
        _stack.pop()


@contextmanager
def finding(name: str) -> Iterator[TestEvidence]:
    """Record the checks inside as the finding ``name`` (a result beyond the claim's statement,
    e.g. the same bound under a wider hypothesis), counted apart from the claim's own cases.

    A check that fails inside a finding makes the test an error, not a refutation: the finding
    is the suite's own statement, not the paper's."""
    owner = current("finding")
    evidence = owner.finding(name)
    _stack.append(evidence)
    try:
        yield evidence
    except ClaimViolation:
        owner.failed_finding = owner.failed_finding or name
        raise
    finally:
        _stack.pop()


def current(caller: str = "this function") -> TestEvidence:
    """The innermost open evidence; ``OutsideClaimTest`` when no claim test is running."""
    if not _stack:
        raise OutsideClaimTest(
            f"{caller} was called outside a claim test: checks and notes record evidence only inside "
            "a test marked @pytest.mark.claim('ID') that runs under the claims plugin (loaded by the "
            "project's conftest.py). Call it from such a test, or compute without recording."
        )
    return _stack[-1]


def unique_target_label(label: str) -> str:
    """``label``, or ``label#k`` for its k-th use inside one Hypothesis example: ``target()``
    accepts each label once per example, and a test may bound several quantities."""
    global _target_labels
    try:  # keyed on the Hypothesis example itself, not a one_case block inside it
        example = current_build_context()
    except InvalidArgument:
        example = None
    owner, used = _target_labels
    if owner is not example:
        used = {}
        _target_labels = (example, used)
    used[label] = used.get(label, 0) + 1
    return label if used[label] == 1 else f"{label}#{used[label]}"


def record_case(
    error: float, tolerance: float, violates: bool = False, degenerate: bool | str = False,
    uninformative: str | None = None, units: int = 1, check_kind: str | None = None, **details: Any,
) -> None:
    """Add one checked case: its error, the tolerance it was judged by, and extra numbers;
    ``violates`` for a case shown to violate a statement (error > tolerance is the point);
    ``degenerate`` for a case whose sides vanish identically (counted apart, under its reason when it is
    one, e.g. ``"observed and expected are both zero"``); ``uninformative``, the
    reason why the check could not have come out the other way on this case (counted apart from the
    informative ones); ``units``, how many of the test's units the case counts (a trend's runs);
    ``check_kind``, the kind of check the case is tallied under (``claims.evidence._kinds.KINDS``; the
    checks name theirs, a direct call may leave it out). Error and tolerance are finite numbers: a
    check whose ratio has no finite value writes its score so that it has one (never a stand-in)."""
    degenerate = degenerate if isinstance(degenerate, str) else bool(degenerate)
    current("record_case").add_case(float(error), float(tolerance), details, violates, degenerate, uninformative,
                                    int(units), check_kind)


def count_cases_as(unit: str, unless_named: bool = False) -> None:
    """Name what the running test's cases are (one of ``UNITS``: ``"trajectories"``, ``"runs"``,
    ``"optima"``, ...); the report shows counts in that unit. ``unless_named``: only if the test has not
    named its unit itself (a check's default, e.g. a trend's runs). Only inside a claim test."""
    if unit not in UNITS:
        raise ValueError(f"a test's cases are one of {UNITS}, not {unit!r}")
    current("count_cases_as")
    evidence = _test_evidence()
    if not (unless_named and evidence.unit is not None):
        evidence.unit = unit


def record_degenerate(reason: str, **details: Any) -> None:
    """Count a drawn case as degenerate (e.g. a gradient that is identically zero, so a rank test
    has nothing to test): it appears in the report's degenerate count under ``reason``, never as
    evidence; the first such case's ``details`` are kept per reason (``degenerate_examples``)."""
    if not (isinstance(reason, str) and reason.strip()):
        raise ValueError(f"record_degenerate: the reason is a non-empty string, not {reason!r}")
    current("record_degenerate").add_case(0.0, 0.0, details, degenerate=reason)


def record_series(name: str, **columns: Any) -> None:
    """Keep one row of numbers behind the test's verdict (e.g. one trajectory's step sizes and
    drifts) in the report, under ``series``, so that a later report can plot it without rerunning.
    The report keeps at most ``SERIES_ROWS_KEPT`` rows per name (``keep_series_rows`` changes that);
    ``recorded_series`` gives the test every row. Only inside a claim test."""
    current("record_series").series.append(plain({"series": name, **columns}))


def keep_series_rows(name: str, rows: int | None = None) -> None:
    """Keep up to ``rows`` rows of series ``name`` of the running test (or finding) in the report, in
    place of ``SERIES_ROWS_KEPT``; ``None`` keeps every row. Call it before or after the rows are
    recorded. Only inside a claim test."""
    if rows is not None and (not isinstance(rows, int) or rows < 0):
        raise ValueError(f"keep_series_rows: rows is a count >= 0 or None, not {rows!r}")
    current("keep_series_rows").series_limits[name] = rows


def recorded_series(name: str) -> list[dict[str, Any]]:
    """Every row of series ``name`` recorded so far in the running test (or finding), as plain
    builtins without the ``series`` key: the full data, whatever the report keeps (figures are
    drawn from it). Only inside a claim test."""
    return [{k: v for k, v in row.items() if k != "series"}
            for row in current("recorded_series").series if row["series"] == name]


def record_note(text: str) -> None:
    """A sentence for the claim's notes in the report (what was checked, a finding).
    Only inside a claim test (``OutsideClaimTest`` elsewhere)."""
    notes = current("record_note").notes
    if text not in notes:
        notes.append(text)


def record_erratum(
    erratum_id: str, *, severity: str, location_kind: str, location: str, printed: str, corrected: str,
    counterexample: str | dict[str, Any] | None, size: float | None = None,
) -> None:
    """Record an error of the paper that this test shows, for the errata sheet (``reports/errata.md``).

    ``erratum_id``: ``<claim ID>-E<n>`` (``BSJ25.P22-E1``), stable across runs, naming the claim it links
    to (one of the test's own; the paper follows from it); ``severity``: one of
    ``claims.evidence._erratum.SEVERITIES`` ("statement false as printed", "constant or factor wrong",
    "hypothesis missing", "sign or typo", "text inconsistency", "proof step wrong, statement holds");
    ``location_kind``: one of ``LOCATION_KINDS`` (statement, hypothesis, constant, equation, proof step,
    text); ``location``: where, as the paper numbers it ("Proposition 2.2, Eq. (A.2)"); ``printed`` and
    ``corrected``: the text as printed and as it should read; ``counterexample``: the smallest
    counterexample's numbers as the test computed them (a short text or a dict; only a text
    inconsistency may pass None). A test that records one ID again keeps the first counterexample, or
    the one of the smallest ``size`` when it passes sizes; the rest of the record must not change.
    ``ErratumError`` (a ``ValueError``) on a bad record; only inside a claim test (``OutsideClaimTest``)."""
    current("record_erratum")
    evidence = _test_evidence()
    record = erratum_record(
        erratum_id, severity=severity, location_kind=location_kind, location=location, printed=printed,
        corrected=corrected, counterexample=plain(counterexample), claim_ids=evidence.claim_ids,
    )
    evidence.add_erratum(record, None if size is None else float(size))


def missing_erratum(evidence: TestEvidence) -> str | None:
    """Why a finished test's evidence is incomplete: it declared a correction but recorded no erratum
    (every correction is an entry of the errata sheet); None when it is not. The plugin makes such a
    test an error."""
    if evidence.verdict == "verified-with-correction" and not evidence.errata:
        return ("the test declared verified-with-correction but recorded no erratum: call record_erratum(...) "
                "with the printed text, the correction and the counterexample's numbers")
    return None


def declare_verdict(verdict: str, correction: str | None = None) -> None:
    """State a verdict other than ``verified`` that this passing test's evidence supports:
    ``refuted`` (the printed statement fails, shown by a counterexample check, or a trend test came
    out significant against the prediction), ``inconclusive`` (a trend test fixed before the data
    was neither significant nor contradicted) or ``verified-with-correction`` (it fails as printed
    and holds corrected; write the correction out). Only inside a claim test. A test that declares
    twice keeps the stronger verdict (the order of ``DECLARABLE``)."""
    if verdict not in DECLARABLE:
        raise ValueError(f"a test declares one of {DECLARABLE}, not {verdict!r}")
    if verdict == "verified-with-correction" and not correction:
        raise ValueError("a verified-with-correction verdict writes its correction out")
    current("declare_verdict")
    evidence = _test_evidence()
    if evidence.verdict is not None and DECLARABLE.index(evidence.verdict) < DECLARABLE.index(verdict):
        evidence.correction = evidence.correction or correction
        return
    evidence.verdict, evidence.correction = verdict, correction or evidence.correction
