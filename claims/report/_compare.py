"""Comparing two claims reports: what changed per claim, and which changes are regressions.

``compare(old, new)`` lists every change between two reports (``claims.report._history.load_report`` reads
them), claim by claim: the verdict; cases and degenerate cases; the worst case's margin (tolerance /
error, ``exact`` when the error is 0) with its error and tolerance; the smallest slack of an
inequality; the negative control's state; each trend's predicted-direction p-value, effect and
verdict (trends are matched by test and statement); counterexamples that appear or go (matched by
test, and statement when the case names one); claims added or gone. Counts change when they differ at all;
other numbers count as changed when they differ at 3 significant digits (``COMPARED_DIGITS``, ``compared_value``):
a last-bit difference is no news to a reader. That rule is the comparison's own, not the display's: the table
prints its numbers as the report does (``format_number``, 4 significant digits), so a change can show a fourth
digit, but two reports whose floats differ only beyond the third digit show no change, as before the report's
numbers went to 4 digits.
Run-level differences (profile, commit, versions) go into the header: they explain changes, and a
different profile is not itself a regression. A partial run is compared only on the claims it selected
(``compared_claims``; the header says so): every other claim reads ``not-run`` in it, which is no news.

Which changes are regressions is the caller's choice, in a small expression language (``--fail``)::

    [CLAIM-GLOB:]RULE        e.g.  verdict   margin:10   GP22.*:p   BSJ25.P3?:cases:2

    verdict         a verdict moves to a worse rank (VERDICT_RANK below)
    verdict:any     a verdict changes at all (also refuted -> verified: a counterexample no longer found)
    margin:F        a margin drops by more than the factor F (exact -> any finite margin is an infinite drop)
    slack:F         a positive min slack drops by more than the factor F, or to <= 0; a slack that was
                    already <= 0 (an inequality at equality, within rounding) has no room to lose
    cases[:F]       the number of cases drops (by more than the factor F; to 0 is an infinite drop)
    p               a trend's predicted-direction p-value crosses its alpha from <= alpha to > alpha, or a
                    trend's verdict moves to a worse rank; for a negative control's trend, where the
                    test wants no effect, the opposite: p falls to <= alpha, or the trend becomes verified
    counterexample  a test records a counterexample that the old run's same test did not
    gone            a claim of the old report is missing from the new one
    all             the defaults, DEFAULT_FAIL
    any             any change in the table at all: verdict, control state, cases, degenerate cases,
                    worst error, tolerance or margin, min slack, counterexamples, each trend's verdict,
                    p-value and effect, claims added or gone. For a change that must not change results
                    (a refactor), compared under the derandomized ``ci`` profile

F is a number >= 1. The glob (``fnmatch``, case-sensitive) limits a rule to the claims it matches.

Verdicts rank from best to worst: verified > verified-with-correction > inconclusive > not-run =
untested > not-reproduced > refuted > error. A correction is a weaker finding than the printed statement; an
undecided claim still ran its evidence, which not-run and untested did not; not-reproduced found an empirical
effect absent or reversed at a scale other than the paper's (no counterexample); refuted asserts that the statement
(even corrected) is false; an error means the suite itself broke and hides any other verdict, as in
the report's own precedence. An unknown verdict ranks below error.

``DEFAULT_FAIL`` is ``verdict``, ``counterexample``, ``gone``: rules about findings, not about how
close a passing case came to its tolerance. Under the derandomized ``ci`` profile a rerun of the same
commit draws the same examples and computes the same numbers, so nothing changes and nothing fires.
Under ``nightly`` (random seeds, 20x the examples, longer training, more seeds per trend) margins,
slacks and p-values move without any code change: a worst case over 2000 draws is nearer its tolerance
than over 100, and in one ``ci`` report four claims are exact (error 0) and one has a margin of 1164 on
rounding-level errors, so ``margin:100`` would fire on the first unlucky draw. Those numbers stay in
the table, unflagged; a margin that falls below 1 fails its check and so shows as a verdict. What the
defaults catch under any profile is what nightly is for: a check that fails, a new counterexample,
evidence or a claim lost.
"""

from __future__ import annotations

import fnmatch
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from claims.evidence._record import margin as tolerance_over_error
from claims.evidence._role import Role
from claims.report._headline import format_number

VERDICT_RANK = {
    "verified": 0,
    "verified-with-correction": 1,
    "inconclusive": 2,
    "not-run": 3,
    "untested": 3,
    "not-reproduced": 4,
    "refuted": 5,
    "error": 6,
}
"""Best (0) to worst; see the module docstring for why."""

DEFAULT_FAIL: tuple[str, ...] = ("verdict", "counterexample", "gone")
"""The rules used when none is given: quiet on a rerun under ``ci`` and on ``nightly``'s jitter."""

GRAMMAR = (
    "[CLAIM-GLOB:]RULE, RULE one of verdict, verdict:any, margin:F, slack:F, cases, cases:F, p, "
    "counterexample, gone, all, any (F a number >= 1)"
)


def verdict_rank(verdict: str | None) -> int:
    return VERDICT_RANK.get(verdict, max(VERDICT_RANK.values()) + 1) if verdict is not None else -1


@dataclass
class Change:
    """One difference between the two reports, for one claim (and one trend or test of it)."""

    claim: str
    what: str  # added, gone, verdict, control, cases, degenerate, margin, slack, counterexample, trend, p, effect
    old: Any = None
    new: Any = None
    subject: str = ""  # the trend or counterexample: "<test>: <statement>"
    context: dict[str, Any] = field(default_factory=dict)


@dataclass
class Comparison:
    """Two reports' differences: per-claim ``changes`` and ``run_differences`` for the header."""

    old_label: str
    new_label: str
    old_run: dict[str, Any]
    new_run: dict[str, Any]
    changes: list[Change]
    verdicts: dict[str, tuple[str | None, str | None]]  # every claim, in report order: (old, new)
    run_differences: list[tuple[str, Any, Any]]
    selected: list[str] | None = None  # a partial side's selected claims, the only ones compared; None: all


@dataclass(frozen=True)
class FailRule:
    """One parsed ``--fail`` expression; ``matches`` says whether a change is a regression under it."""

    kind: str
    factor: float | None = None
    claims: str | None = None
    text: str = ""

    def matches(self, change: Change) -> bool:
        if self.claims is not None and not fnmatch.fnmatchcase(change.claim, self.claims):
            return False
        return _MATCHERS[self.kind](self, change)


@dataclass
class Regression:
    """A change that ``rule`` calls a regression."""

    change: Change
    rule: FailRule

    def __str__(self) -> str:
        c = self.change
        subject = f" [{c.subject}]" if c.subject else ""
        return f"{c.claim}: {c.what}{subject} {_cell(c, c.old)} -> {_cell(c, c.new)} (rule {self.rule.text})"


# ----------------------------------------------------------------------------------------- comparing


COMPARED_DIGITS = 3
"""The comparison's resolution: two numbers are the same when they agree to this many significant digits. Fixed
here, apart from the report's display digits (``format_number``), so that what counts as a change does not move
when the display does."""


def compared_value(value: Any) -> Any:
    """A recorded value as the comparison reads it: a float to ``COMPARED_DIGITS`` significant digits, "0" for zero;
    an integer (a count of cases, checks, runs) exactly, so that one case lost in 1234 is a change; anything else (a
    verdict, None) as it is."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float):
        return "0" if value == 0 else f"{value:.{COMPARED_DIGITS}g}"
    return value


def _shown(value: Any) -> Any:
    """A value as the table shows it: a number as the report shows it (``format_number``)."""
    return format_number(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def _worst_margin(claim: dict[str, Any]) -> float | None:
    error, tolerance = claim.get("max_error"), claim.get("tolerance")
    if error is None or tolerance is None:
        return None
    return tolerance_over_error(error, tolerance)


def _short(nodeid: str) -> str:
    return nodeid.rsplit("::", 1)[-1]


def stable_test_key(nodeid: str | None) -> str:
    """A test's identity across runs: its node ID without the directories of its file
    (``tests/claims/gp22/test_gp22_trends.py::test_rate`` -> ``test_gp22_trends.py::test_rate``), so that a
    test module moved to another folder is still the same test. pytest's default import mode already
    requires test file names to be unique across the suite's folders, so no two tests share a key."""
    path, sep, rest = str(nodeid or "").partition("::")
    return path.rsplit("/", 1)[-1] + sep + rest


def claim_trends(claim: dict[str, Any]) -> dict[tuple[str, str, int], dict[str, Any]]:
    """The claim's trends keyed by (``stable_test_key(nodeid)``, statement, occurrence). Each test's ``trends`` list
    (every trend, controls' included), else, in older reports, the test's details when they are a trend's (the
    worst case only); then the claim's own ``trends`` list for any test not among its evidence."""
    listed = []
    for test in claim.get("evidence") or []:
        if isinstance(test.get("trends"), list):
            listed += [{**t, "nodeid": test.get("nodeid")} for t in test["trends"]]
        elif (test.get("details") or {}).get("evidence") == "trend":
            d = test["details"]
            listed.append({
                "nodeid": test.get("nodeid"), "statement": d.get("statement"),
                "control": test.get("role") == Role.CONTROL,
                "verdict": d.get("verdict"), "p_predicted": d.get("p_predicted"), "p_opposite": d.get("p_opposite"),
                "alpha": d.get("rule_alpha"), "effect": d.get("effect"), "min_effect": d.get("rule_min_effect"),
                "n": d.get("n"),
            })
    read = {stable_test_key(test.get("nodeid")) for test in claim.get("evidence") or []}
    listed += [t for t in claim.get("trends") or [] if stable_test_key(t.get("nodeid")) not in read]
    keyed: dict[tuple[str, str, int], dict[str, Any]] = {}
    seen: Counter[tuple[str, str]] = Counter()
    for trend in listed:
        base = (stable_test_key(trend.get("nodeid")), str(trend.get("statement") or ""))
        keyed[(*base, seen[base])] = trend
        seen[base] += 1
    return keyed


def _counterexamples(claim: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    keyed = {}
    for ce in claim.get("counterexamples") or []:
        key = (stable_test_key(ce.get("nodeid")), str((ce.get("details") or {}).get("statement") or ""))
        keyed.setdefault(key, ce)
    return keyed


def _counterexample_text(ce: dict[str, Any] | None) -> str | None:
    if ce is None:
        return None
    return f"error {format_number(ce.get('error'))} > tol {format_number(ce.get('tolerance'))}"


def _trend_changes(claim_id: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    old_trends, new_trends = claim_trends(old), claim_trends(new)
    changes = []
    for key in list(old_trends) + [k for k in new_trends if k not in old_trends]:
        before, after = old_trends.get(key), new_trends.get(key)
        nodeid, statement, _ = key
        control = bool((after or before).get("control"))
        subject = f"{_short(nodeid)}: {statement}" + (" (control)" if control else "")
        context = {"nodeid": nodeid, "statement": statement, "control": control}
        if before is None or after is None:
            changes.append(Change(claim_id, "trend", before and before.get("verdict"), after and after.get("verdict"),
                                  subject, {**context, "presence": "added" if before is None else "gone"}))
            continue
        if before.get("verdict") != after.get("verdict"):
            changes.append(Change(claim_id, "trend", before.get("verdict"), after.get("verdict"), subject, context))
        p_old, p_new = before.get("p_predicted"), after.get("p_predicted")
        if compared_value(p_old) != compared_value(p_new):
            alphas = {"old_alpha": before.get("alpha"), "new_alpha": after.get("alpha")}
            changes.append(Change(claim_id, "p", p_old, p_new, subject, {**context, **alphas}))
        if compared_value(before.get("effect")) != compared_value(after.get("effect")):
            changes.append(Change(claim_id, "effect", before.get("effect"), after.get("effect"), subject,
                                  {**context, "min_effect": after.get("min_effect")}))
    return changes


def _claim_changes(claim_id: str, old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[Change]:
    if old is None:
        return [Change(claim_id, "added", None, new["verdict"])]
    if new is None:
        return [Change(claim_id, "gone", old["verdict"], None)]
    changes = []
    for what, key in (("verdict", "verdict"), ("control", "control_state"), ("cases", "cases"),
                      ("degenerate", "degenerate")):
        if compared_value(old.get(key)) != compared_value(new.get(key)):
            changes.append(Change(claim_id, what, old.get(key), new.get(key)))
    old_margin, new_margin = _worst_margin(old), _worst_margin(new)
    # the worst case's error and tolerance can both move while their ratio stays: still a change
    pairs = ((old_margin, new_margin), (old.get("max_error"), new.get("max_error")),
             (old.get("tolerance"), new.get("tolerance")))
    if any(compared_value(a) != compared_value(b) for a, b in pairs):
        context = {"old_error": old.get("max_error"), "new_error": new.get("max_error"),
                   "old_tolerance": old.get("tolerance"), "new_tolerance": new.get("tolerance")}
        changes.append(Change(claim_id, "margin", old_margin, new_margin, "", context))
    if compared_value(old.get("min_slack")) != compared_value(new.get("min_slack")):
        changes.append(Change(claim_id, "slack", old.get("min_slack"), new.get("min_slack")))
    old_ces, new_ces = _counterexamples(old), _counterexamples(new)
    for key in [k for k in new_ces if k not in old_ces] + [k for k in old_ces if k not in new_ces]:
        nodeid, statement = key
        subject = _short(nodeid) + (f": {statement}" if statement else "")
        changes.append(Change(claim_id, "counterexample", _counterexample_text(old_ces.get(key)),
                              _counterexample_text(new_ces.get(key)), subject, {"nodeid": nodeid}))
    return changes + _trend_changes(claim_id, old, new)


def _run_differences(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    differences = []
    for key in ("profile", "hypothesis_seed", "selection", "complete", "python"):
        if old.get(key) != new.get(key):
            differences.append((key, old.get(key), new.get(key)))
    if _commit(old) != _commit(new):
        differences.append(("commit", _commit(old), _commit(new)))
    old_versions, new_versions = old.get("versions") or {}, new.get("versions") or {}
    for name in list(old_versions) + [n for n in new_versions if n not in old_versions]:
        if old_versions.get(name) != new_versions.get(name):
            differences.append((name, old_versions.get(name), new_versions.get(name)))
    return differences


def _commit(run: dict[str, Any]) -> str:
    git = run.get("git") or {}
    return f"{str(git.get('commit') or 'no git')[:12]}{' (dirty)' if git.get('dirty') else ''}"


def run_label(run: dict[str, Any]) -> str:
    return f"{_commit(run)}, profile {run.get('profile', '?')}, started {run.get('started', '?')}"


def compared_claims(old: dict[str, Any], new: dict[str, Any]) -> list[str] | None:
    """The claims a comparison reads: a partial run says nothing of the claims it did not select (they
    read ``not-run``, which would show as a regression of each), so a partial side is compared on its
    ``selected_claims`` only (both sides partial: the claims both selected). None: every claim."""
    chosen = None
    for run in (old.get("run") or {}, new.get("run") or {}):
        if run.get("selection") == "partial" and isinstance(run.get("selected_claims"), list):
            ids = [str(i) for i in run["selected_claims"]]
            chosen = ids if chosen is None else [i for i in chosen if i in ids]
    return chosen


def compare(old: dict[str, Any], new: dict[str, Any], old_label: str | None = None,
            new_label: str | None = None) -> Comparison:
    """Every change from the report ``old`` to the report ``new`` (both validated by ``load_report``),
    on the claims a partial side selected (``compared_claims``) when one is partial."""
    selected = compared_claims(old, new)
    old_claims = {c["id"]: c for c in old["claims"] if selected is None or c["id"] in selected}
    new_claims = {c["id"]: c for c in new["claims"] if selected is None or c["id"] in selected}
    order = list(new_claims) + [i for i in old_claims if i not in new_claims]
    changes = [change for i in order for change in _claim_changes(i, old_claims.get(i), new_claims.get(i))]
    verdicts = {i: ((old_claims.get(i) or {}).get("verdict"), (new_claims.get(i) or {}).get("verdict")) for i in order}
    old_run, new_run = old.get("run") or {}, new.get("run") or {}
    return Comparison(
        old_label=old_label or run_label(old_run), new_label=new_label or run_label(new_run),
        old_run=old_run, new_run=new_run, changes=changes, verdicts=verdicts,
        run_differences=_run_differences(old_run, new_run), selected=selected,
    )


# ------------------------------------------------------------------------------------------- rules


def _drop(old: float, new: float) -> float:
    """How many times smaller ``new`` is than ``old`` (both >= 0): infinite when it fell to 0."""
    if new <= 0:
        return math.inf if old > 0 else 1.0
    return old / new


def _verdict(rule: FailRule, change: Change) -> bool:
    return change.what == "verdict" and verdict_rank(change.new) > verdict_rank(change.old)


def _verdict_any(rule: FailRule, change: Change) -> bool:
    return change.what == "verdict"


def _margin(rule: FailRule, change: Change) -> bool:
    if change.what != "margin" or change.old is None or change.new is None:
        return False
    if math.isnan(change.old) or math.isnan(change.new):
        return False  # a NaN error makes the test an error: the verdict says it
    return _drop(change.old, change.new) > rule.factor


def _slack(rule: FailRule, change: Change) -> bool:
    if change.what != "slack" or change.old is None or change.new is None or not change.old > 0:
        return False
    return change.new <= 0 or _drop(change.old, change.new) > rule.factor


def _cases(rule: FailRule, change: Change) -> bool:
    if change.what != "cases" or not change.new < change.old:
        return False
    return rule.factor is None or _drop(change.old, change.new) > rule.factor


def _crossed(p: float | None, alpha: float | None, below: bool) -> bool:
    if p is None or alpha is None:
        return False
    return p <= alpha if below else p > alpha


def _p(rule: FailRule, change: Change) -> bool:
    control = change.context.get("control", False)
    if change.what == "trend" and change.old is not None and change.new is not None:
        if control:
            return change.new == "verified" != change.old
        return verdict_rank(change.new) > verdict_rank(change.old)
    if change.what != "p":
        return False
    old_alpha, new_alpha = change.context.get("old_alpha"), change.context.get("new_alpha")
    was_significant = _crossed(change.old, old_alpha, below=True)
    is_significant = _crossed(change.new, new_alpha, below=True)
    if control:
        return is_significant and not was_significant and _crossed(change.old, old_alpha, below=False)
    return was_significant and _crossed(change.new, new_alpha, below=False)


def _counterexample(rule: FailRule, change: Change) -> bool:
    return change.what == "counterexample" and change.old is None and change.new is not None


def _gone(rule: FailRule, change: Change) -> bool:
    return change.what == "gone"


def _all(rule: FailRule, change: Change) -> bool:
    return any(parse_fail(text).matches(change) for text in DEFAULT_FAIL)


def _any(rule: FailRule, change: Change) -> bool:
    return True


_MATCHERS = {
    "verdict": _verdict, "verdict:any": _verdict_any, "margin": _margin, "slack": _slack, "cases": _cases,
    "p": _p, "counterexample": _counterexample, "gone": _gone, "all": _all, "any": _any,
}
_FACTOR = {"margin": "required", "slack": "required", "cases": "optional"}


def parse_fail(expr: str) -> FailRule:
    """One ``--fail`` expression (grammar in the module docstring); ``ValueError`` names what is wrong."""

    def bad(why: str) -> ValueError:
        return ValueError(f"bad fail rule {expr!r}: {why}; grammar: {GRAMMAR}")

    text = expr.strip()
    parts = text.split(":")
    claims = None
    if parts[0] not in _MATCHERS:
        if len(parts) == 1:
            raise bad(f"unknown rule {parts[0]!r}" if parts[0] else "empty")
        claims, parts = parts[0], parts[1:]
        if not claims:
            raise bad("empty claim glob")
    kind, arguments = parts[0], parts[1:]
    if kind == "verdict" and arguments == ["any"]:
        kind, arguments = "verdict:any", []
    if kind not in _MATCHERS:
        raise bad(f"unknown rule {kind!r}")
    factor = None
    if arguments:
        if kind not in _FACTOR or len(arguments) > 1:
            raise bad(f"rule {kind!r} takes {'one factor' if kind in _FACTOR else 'no argument'}")
        try:
            factor = float(arguments[0])
        except ValueError:
            raise bad(f"factor {arguments[0]!r} is not a number") from None
        if not (math.isfinite(factor) and factor >= 1):
            raise bad(f"factor {arguments[0]!r} is not a finite number >= 1")
    elif _FACTOR.get(kind) == "required":
        raise bad(f"rule {kind!r} needs a factor, e.g. {kind}:10")
    return FailRule(kind, factor, claims, text)


def parse_rules(exprs: Sequence[str | FailRule] | None) -> list[FailRule]:
    """The rules of ``exprs`` (expressions or parsed rules); ``DEFAULT_FAIL`` when ``exprs`` is None."""
    return [e if isinstance(e, FailRule) else parse_fail(e) for e in (DEFAULT_FAIL if exprs is None else exprs)]


def regressions(comparison: Comparison, rules: Sequence[str | FailRule] | None = None) -> list[Regression]:
    """The changes some rule calls a regression (each once, with the first rule that matched);
    ``rules`` are ``--fail`` expressions or parsed rules, ``DEFAULT_FAIL`` when None."""
    parsed = parse_rules(rules)
    found = []
    for change in comparison.changes:
        rule = next((r for r in parsed if r.matches(change)), None)
        if rule is not None:
            found.append(Regression(change, rule))
    return found


# --------------------------------------------------------------------------------------- rendering


def _cell(change: Change, value: Any) -> str:
    if value is None:
        return "-"
    if change.what in ("cases", "degenerate"):
        return str(value)
    if change.what == "margin" and value == math.inf:
        return "exact"  # the error was 0
    return str(_shown(value))


def _detail(change: Change) -> str:
    c = change.context
    if change.what == "margin":
        return (f"error {format_number(c['old_error'])} -> {format_number(c['new_error'])}, "
                f"tolerance {format_number(c['old_tolerance'])} -> {format_number(c['new_tolerance'])}")
    if change.what == "p":
        alpha = c.get("new_alpha") if c.get("new_alpha") is not None else c.get("old_alpha")
        crossing = ""
        if _crossed(change.old, c.get("old_alpha"), True) and _crossed(change.new, c.get("new_alpha"), False):
            crossing = ", crosses alpha upward"
        elif _crossed(change.old, c.get("old_alpha"), False) and _crossed(change.new, c.get("new_alpha"), True):
            crossing = ", crosses alpha downward"
        return f"alpha {format_number(alpha)}{crossing}; {change.subject}"
    if change.what == "effect" and c.get("min_effect") is not None:
        return f"min effect {format_number(c['min_effect'])}; {change.subject}"
    if change.what == "trend" and c.get("presence"):
        return f"trend {c['presence']}; {change.subject}"
    return change.subject


_HEADINGS = ("claim", "change", "old", "new", "flag", "detail")
_CELL_WIDTH = 30


def render_table(
    comparison: Comparison, only_changes: bool = True, rules: Sequence[str | FailRule] | None = None
) -> str:
    """A fixed-width table of the changes, a ``FAIL`` flag on each that a rule calls a regression.

    With ``only_changes=False`` every claim gets a row, unchanged ones as ``=`` with their verdict."""
    flagged = {id(r.change) for r in regressions(comparison, rules)}
    by_claim: dict[str, list[Change]] = {}
    for change in comparison.changes:
        by_claim.setdefault(change.claim, []).append(change)
    if only_changes and not comparison.changes:
        return f"no change against {comparison.old_label}"
    rows = []
    for claim_id, (old_verdict, new_verdict) in comparison.verdicts.items():
        for change in by_claim.get(claim_id, []):
            rows.append((claim_id, change.what, _cell(change, change.old)[:_CELL_WIDTH],
                         _cell(change, change.new)[:_CELL_WIDTH], "FAIL" if id(change) in flagged else "",
                         _detail(change)))
        if claim_id not in by_claim and not only_changes:
            rows.append((claim_id, "=", old_verdict or "-", new_verdict or "-", "", ""))
    widths = [max(len(row[i]) for row in rows + [_HEADINGS]) for i in range(len(_HEADINGS) - 1)]
    lines = []
    for row in [_HEADINGS, tuple("-" * w for w in widths) + ("------",)] + rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths)] + [row[-1]]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def render_header(comparison: Comparison) -> str:
    """The two runs (commit, profile, start) and how they differ as runs."""
    lines = []
    for side, label, run in (("old", comparison.old_label, comparison.old_run),
                             ("new", comparison.new_label, comparison.new_run)):
        described = run_label(run)
        lines.append(f"{side}: {label}" + (f" ({described})" if label != described else ""))
    for name, old, new in comparison.run_differences:
        note = " (not itself a regression: numbers differ by design)" if name == "profile" else ""
        lines.append(f"  {name}: {old} -> {new}{note}")
    if comparison.selected is not None:
        sides = [side for side, run in (("old", comparison.old_run), ("new", comparison.new_run))
                 if run.get("selection") == "partial"]
        which = "both runs are partial: only the claims both selected" if len(sides) == 2 else (
            f"{'partial run' if sides == ['new'] else 'the old run is partial'}: only the claims it selected")
        lines.append(f"  {which} are compared ({', '.join(comparison.selected) or 'none'})")
    if comparison.new_run.get("complete") is False:
        lines.append("  the new run is incomplete: claims it did not finish show as not-run")
    return "\n".join(lines)
